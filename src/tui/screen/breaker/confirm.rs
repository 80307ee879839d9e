//! The question before a real call of a tool not marked read-only: which
//! tool, on which server, with which arguments, and the keys that answer.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::PendingCall;
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::keymap::Keymap;
use crate::tui::paint::{Theme, pane};

/// The question before a real call: which tool, on which server, with
/// which arguments.
pub(super) fn draw(f: &mut Frame, area: Rect, keymap: &Keymap, c: &PendingCall, theme: &Theme) {
    f.render_widget(Clear, area);
    let block = pane(
        Line::from(Span::styled(" A real call ", theme.title)),
        true,
        theme,
    );
    let first = |a: Action| keymap.first(a).map_or(String::new(), |k| k.to_string());
    let args = serde_json::to_string(&c.arguments).unwrap_or_default();
    let lines = vec![
        Line::from(vec![
            Span::raw("Call "),
            Span::styled(escape(&c.tool).into_owned(), theme.key),
            Span::raw(" on server "),
            Span::styled(escape(&c.server).into_owned(), theme.key),
            Span::raw(" with "),
            Span::raw(escape(&args).into_owned()),
            Span::raw("? "),
            Span::styled(
                format!("{}/{}", first(Action::ConfirmYes), first(Action::ConfirmNo)),
                theme.key,
            ),
        ]),
        Line::from(""),
        Line::from(Span::styled(
            "The tool is not marked read-only: every call to it asks first.",
            theme.dim,
        )),
        Line::from(vec![
            Span::styled(keymap.label(Action::ConfirmYes), theme.key),
            Span::raw(" call   "),
            Span::styled(keymap.label(Action::ConfirmNo), theme.key),
            Span::raw(" cancel: nothing is sent"),
        ]),
    ];
    f.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}
