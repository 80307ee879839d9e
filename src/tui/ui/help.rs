//! Help, generated from the live keymap.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::{Theme, centered, pane};
use crate::tui::action::Action;
use crate::tui::app::App;

/// What the keymap does not say: the query box, the marks, the breaker.
const NOTES: &[&str] = &[
    " In the query box: type to search, Enter commits (session), ↑↓ earlier queries,",
    " Ctrl-U clears, Ctrl-W deletes a word, Esc leaves. Marks: ★ always-load,",
    " RO read-only, ID idempotent, ● initial set, ◆ selected by the search.",
    " In the breaker: Enter call, e edit arguments, L loop, +/- threshold, [ ] loop count,",
    " r reset, t/T another tool, o open a trace, n step, R run it, Esc back.",
];

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let mut lines = vec![Line::from(Span::styled(
        " Keys (from your keymap; set them in the config file's [keys])",
        theme.dim,
    ))];
    lines.push(Line::from(""));
    for action in Action::ALL {
        lines.push(Line::from(vec![
            Span::styled(format!(" {:<16}", app.keymap.label(action)), theme.key),
            Span::raw(action.describe()),
        ]));
    }
    lines.push(Line::from(""));
    for note in NOTES {
        lines.push(Line::from(Span::styled(*note, theme.dim)));
    }
    let height = lines.len() as u16 + 2;
    let r = centered(area, 86, height);
    f.render_widget(Clear, r);
    let block = pane(Line::from(Span::styled(" Help ", theme.title)), true, theme);
    f.render_widget(Paragraph::new(lines).block(block), r);
}
