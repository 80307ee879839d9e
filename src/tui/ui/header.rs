//! The header line: what is loaded and how it is searched.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, fit};
use crate::tui::action::Action;
use crate::tui::app::App;

/// A session id as the header shows it: ids longer than 12 characters as
/// their first and last 4 characters. Counted in chars (a remote service
/// may send any text); control characters are shown as `?`.
pub fn short_id(id: &str) -> String {
    let chars: Vec<char> = id
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if chars.len() > 12 {
        let head: String = chars[..4].iter().collect();
        let tail: String = chars[chars.len() - 4..].iter().collect();
        format!("{head}…{tail}")
    } else {
        chars.into_iter().collect()
    }
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let c = &app.catalog;
    let always = c.tools().iter().filter(|t| t.always_load).count();
    let session = match &app.search.session {
        Some(id) => format!(
            "session {} ({} loaded)",
            short_id(id),
            app.search.session_tools
        ),
        None => format!(
            "no session yet ({} commits a query)",
            app.keymap.label(Action::InputSubmit)
        ),
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
    let help = format!(" {} help ", app.keymap.label(Action::Help));
    // The help key always shows: the rest is cut to make room for it.
    let title = " toolsift";
    let room = usize::from(area.width).saturating_sub(title.chars().count() + help.chars().count());
    let left = if left.chars().count() > room {
        fit(&left, room)
    } else {
        format!("{left:<room$}")
    };
    let line = Line::from(vec![
        Span::styled(title, theme.title),
        Span::raw(left),
        Span::styled(help, theme.key),
    ]);
    f.render_widget(Paragraph::new(line), area);
}

#[cfg(test)]
mod tests {
    use super::short_id;

    #[test]
    fn session_ids_are_shortened_by_chars() {
        assert_eq!(short_id("7f3a0c1d2e3f4a5b6c7de21c"), "7f3a…e21c");
        assert_eq!(short_id("x"), "x");
        assert_eq!(short_id(""), "");
        assert_eq!(short_id("exactly12chr"), "exactly12chr");
        // Multi-byte characters: never cut inside one.
        assert_eq!(
            short_id("セッション識別子はとても長いです"),
            "セッショ…長いです"
        );
        assert_eq!(short_id("é"), "é");
        assert_eq!(short_id("ab\ncd"), "ab?cd");
        assert_eq!(short_id("🦀🦀🦀🦀🦀🦀🦀🦀🦀🦀🦀🦀🦀"), "🦀🦀🦀🦀…🦀🦀🦀🦀");
    }
}
