//! The bottom line: the last message, else the keys of the screen.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Paragraph;

use super::{Theme, key_line};
use crate::terminal_text::escape;
use crate::tui::app::{App, Focus};
use crate::tui::help::{KeyLine, key_line as keys_of};

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    if let Some(message) = app.status() {
        // Messages quote tool names: escaped here, whoever wrote them.
        f.render_widget(
            Paragraph::new(Span::raw(format!(" {}", escape(message)))),
            area,
        );
        return;
    }
    let which = if app.focus() == Focus::Query && app.popup().is_none() {
        KeyLine::Query
    } else {
        KeyLine::Main
    };
    let line = key_line(
        keys_of(app.keymap(), which),
        usize::from(area.width),
        2,
        theme,
    );
    f.render_widget(Paragraph::new(line), area);
}
