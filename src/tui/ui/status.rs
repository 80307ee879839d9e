//! The bottom line: the last message, else the main keys.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Theme;
use crate::tui::action::Action;
use crate::tui::app::App;

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    if let Some(message) = &app.status {
        f.render_widget(Paragraph::new(Span::raw(format!(" {message}"))), area);
        return;
    }
    let hints = [
        (Action::FocusQuery, "query"),
        (Action::NextPane, "pane"),
        (Action::OpenDetail, "detail"),
        (Action::ToggleAlwaysLoad, "always-load"),
        (Action::CycleSort, "sort"),
        (Action::CycleFilter, "filter"),
        (Action::Settings, "settings"),
        (Action::Breaker, "breaker"),
        (Action::Help, "help"),
        (Action::Quit, "quit"),
    ];
    let mut spans = Vec::new();
    for (action, what) in hints {
        let keys = app.keymap.keys_for(action);
        let Some(first) = keys.first() else { continue };
        spans.push(Span::styled(format!(" {first}"), theme.key));
        spans.push(Span::raw(format!(" {what} ")));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}
