//! The query box drawn, from the app's [`PaneView`] as the main screen reads it: the query
//! (words, or a pattern for the regex ranker), and the settings a search
//! runs with, or why a pattern was refused; and the terminal's cursor in it.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::terminal_text::escape;
use crate::tui::paint::{Theme, pane};
use crate::tui::pane::view::PaneView;
use crate::tui::text::{cut, width};

/// What the query line starts with: words, or a regular expression.
fn prompt(view: &PaneView) -> &'static str {
    if view.query.is_regex() { "re> " } else { "> " }
}

/// The settings in force, longest first: the basis as people read it,
/// then by its name, then the caps alone (the settings popup has them all),
/// then the initial count and max_loaded_tools, then the initial count
/// alone.
fn summaries(view: &PaneView) -> [String; 5] {
    let s = view.settings;
    // The initial count sent, where max_loaded_tools leaves less room.
    let sent = view.sent_initial as u64;
    let init = if sent < s.initial_tool_count.get() {
        format!("{sent} of {}", s.initial_tool_count)
    } else {
        s.initial_tool_count.to_string()
    };
    let cap = |v: Option<crate::tools_handle::MaxTools>| {
        v.map_or_else(|| "-".to_string(), |v| v.to_string())
    };
    let max_tools = match (s.max_tools, s.max_loaded_tools) {
        (Some(v), _) => v.to_string(),
        (None, Some(_)) => "= max_loaded".to_string(),
        (None, None) => "default".to_string(),
    };
    let caps = format!(
        "init {init} · max_loaded {} · max_tools {max_tools}",
        cap(s.max_loaded_tools),
    );
    [
        format!("{caps} · {} ", s.basis().label()),
        format!("{caps} · {} ", s.basis().as_str()),
        format!("{caps} "),
        format!("init {init} · max_loaded {} ", cap(s.max_loaded_tools)),
        format!("init {init} "),
    ]
}

pub fn draw(f: &mut Frame, area: Rect, view: &PaneView, theme: &Theme) {
    let focused = view.focused.query;
    let regex = view.query.is_regex();
    let mut title = vec![Span::styled(" Query ", theme.title)];
    if regex {
        title.push(Span::styled("· regex ", theme.key));
    }
    // Where the keys go, unmistakably: letters are words here.
    if focused {
        title.push(Span::styled("· typing ", theme.key));
    }
    let block = pane(Line::from(title), focused, theme);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let width_all = usize::from(inner.width);
    let query = view.query.text();
    let prompt = prompt(view);
    let text = if query.is_empty() && !focused {
        Span::styled(
            format!(
                "press {} to search",
                view.keymap.label(crate::tui::action::Action::FocusQuery)
            ),
            theme.dim,
        )
    } else {
        Span::raw(query.to_string())
    };
    let used = prompt.chars().count() + query.chars().count().max(text.content.chars().count());
    let mut spans = vec![Span::styled(prompt, theme.key), text];
    // A refused pattern says why where the settings are, cut to the room
    // left (the pattern is quoted in it: escaped).
    let refused = view.search.pattern_error.as_deref().filter(|_| regex);
    if let Some(why) = refused {
        let why = cut(&escape(why), width_all.saturating_sub(used + 2));
        let pad = width_all.saturating_sub(used + width(&why) + 1);
        spans.push(Span::raw(" ".repeat(pad.max(1))));
        spans.push(Span::styled(why, theme.error));
    } else {
        let fits = |r: &String| used + r.chars().count() < width_all;
        if let Some(right) = summaries(view).into_iter().find(fits) {
            let pad = width_all - used - right.chars().count();
            spans.push(Span::raw(" ".repeat(pad)));
            spans.push(Span::styled(right, theme.dim));
        }
    }
    f.render_widget(Paragraph::new(Line::from(spans)), inner);
}

/// The terminal cursor sits in the query text while typing (`text` is the
/// box's inner line, from the layout).
pub fn place_cursor(f: &mut Frame, text: Rect, view: &PaneView) {
    let before = prompt(view).chars().count() + view.query.input.cursor;
    let x = text
        .x
        .saturating_add(u16::try_from(before).unwrap_or(u16::MAX));
    f.set_cursor_position(Position {
        x: x.min(text.right().saturating_sub(1)),
        y: text.y,
    });
}
