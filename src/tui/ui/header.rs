//! The header line: what is loaded and how it is searched.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Theme;
use crate::tui::app::App;

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let c = &app.catalog;
    let always = c.tools().iter().filter(|t| t.always_load).count();
    let session = match &app.session {
        Some(id) if id.len() > 12 => format!(
            "session {}…{} ({} loaded)",
            &id[..4],
            &id[id.len() - 4..],
            app.session_tools
        ),
        Some(id) => format!("session {id} ({} loaded)", app.session_tools),
        None => "no session yet (Enter commits a query)".to_string(),
    };
    let left = format!(
        " {} · {} tools · {} always-load · {} · {} {} · {}",
        app.sources,
        c.len(),
        always,
        app.settings.strategy,
        app.searcher.describe(),
        app.settings.ranker,
        session
    );
    let help = format!(
        "{} help ",
        app.keymap.label(crate::tui::action::Action::Help)
    );
    let used = "toolsift".len() + left.chars().count() + help.chars().count() + 1;
    let pad = usize::from(area.width).saturating_sub(used);
    let line = Line::from(vec![
        Span::styled(" toolsift", theme.title),
        Span::raw(left),
        Span::raw(" ".repeat(pad)),
        Span::styled(help, theme.key),
    ]);
    f.render_widget(Paragraph::new(line), area);
}
