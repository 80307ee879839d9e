//! The query box: the query, and the settings a search runs with.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, pane};
use crate::tui::app::{App, Focus};

/// What the query line starts with.
const PROMPT: &str = "> ";

fn summary(app: &App) -> String {
    let s = app.settings();
    let cap = |v: Option<i64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    format!(
        "init {} · max_loaded {} · max_tools {} · {} ",
        s.initial_tool_count,
        cap(s.max_loaded_tools),
        s.max_tools
            .map_or_else(|| "default".to_string(), |v| v.to_string()),
        s.basis()
    )
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let focused = app.focus() == Focus::Query;
    let title = Line::from(Span::styled(" Query ", theme.title));
    let block = pane(title, focused, theme);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let right = summary(app);
    let width = usize::from(inner.width);
    let query = app.query().text();
    let text = if query.is_empty() && !focused {
        Span::styled(
            format!(
                "press {} to search",
                app.keymap().label(crate::tui::action::Action::FocusQuery)
            ),
            theme.dim,
        )
    } else {
        Span::raw(query.to_string())
    };
    let used = PROMPT.chars().count() + query.chars().count().max(text.content.chars().count());
    let pad = width.saturating_sub(used + right.chars().count());
    let mut spans = vec![Span::styled(PROMPT, theme.key), text];
    if pad > 0 {
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled(right, theme.dim));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), inner);
}

/// The terminal cursor sits in the query text while typing (`text` is the
/// box's inner line, from the layout).
pub fn place_cursor(f: &mut Frame, text: Rect, app: &App) {
    let before = PROMPT.chars().count() + app.query().input.cursor;
    let x = text
        .x
        .saturating_add(u16::try_from(before).unwrap_or(u16::MAX));
    f.set_cursor_position(Position {
        x: x.min(text.right().saturating_sub(1)),
        y: text.y,
    });
}
