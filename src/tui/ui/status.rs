//! The bottom line: the last message, else the keys of the screen.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Paragraph;

use super::{Theme, key_line};
use crate::terminal_text::escape;
use crate::tui::app::{App, Focus, Popup};
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
    let line = key_line(
        keys_of(app.keymap(), which_line(app)),
        usize::from(area.width),
        theme,
    );
    f.render_widget(Paragraph::new(line), area);
}

/// The key line of the screen in front.
pub fn which_line(app: &App) -> KeyLine {
    match app.popup() {
        Some(Popup::Help) => KeyLine::Help,
        Some(Popup::Detail) => KeyLine::Detail,
        Some(Popup::Settings) => KeyLine::Settings,
        Some(Popup::Export) => KeyLine::Export,
        Some(Popup::Tune) if app.tune().is_typing() => KeyLine::TuneInput,
        Some(Popup::Tune) => KeyLine::Tune,
        Some(Popup::Breaker) => match app.breaker() {
            Some(p) if p.confirming() => KeyLine::Confirm,
            Some(p) if p.is_typing() => KeyLine::BreakerInput,
            Some(p) if p.viewing().is_some() => KeyLine::CallView,
            _ => KeyLine::Breaker,
        },
        None if app.catalog_view().typing => KeyLine::NameFilter,
        None if app.focus() == Focus::Query => KeyLine::Query,
        None => KeyLine::Main,
    }
}
