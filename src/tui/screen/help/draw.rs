//! Help, generated from the live keymap (see [`crate::tui::help`]).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::HelpState;
use super::rows::{HelpRow, help_rows};
use crate::sources::mcp::ServerStatus;
use crate::tui::action::Action;
use crate::tui::keymap::Keymap;
use crate::tui::paint::{Theme, pane};
use crate::tui::text::wrap_hanging;

/// Help from `keymap`, with what became of the MCP `servers`.
pub fn draw(
    f: &mut Frame,
    area: Rect,
    help: &HelpState,
    keymap: &Keymap,
    servers: &[ServerStatus],
    catalog_servers: bool,
    theme: &Theme,
) {
    let rows = help_rows(keymap, servers, catalog_servers);
    let width = usize::from(area.width.saturating_sub(2));
    // Each row wraps to the box: a binding continues under its
    // description, a server's line under its text.
    let mut lines: Vec<Line> = Vec::new();
    for row in &rows {
        let (line, hang) = match row {
            HelpRow::Heading(title) => (
                Line::from(Span::styled(format!(" {title}"), theme.title)),
                1,
            ),
            HelpRow::Binding { keys, what } => (
                Line::from(vec![
                    Span::styled(format!("   {keys:<14} "), theme.key),
                    Span::raw(*what),
                ]),
                18,
            ),
            HelpRow::Note(note) => (Line::from(Span::styled(format!(" {note}"), theme.dim)), 1),
            HelpRow::Server { summary, failed } => (
                Line::from(Span::styled(
                    format!("   {summary}"),
                    if *failed {
                        theme.error
                    } else {
                        Default::default()
                    },
                )),
                5,
            ),
            HelpRow::Blank => (Line::from(""), 0),
        };
        lines.extend(wrap_hanging(line, width, hang));
    }
    let height = usize::from(area.height.saturating_sub(2));
    let find = &help.find;
    find.record(&lines);
    let lines = find.mark(lines, theme.highlight);
    let scroll = help.scroll.set_limit(lines.len(), height);
    let (scroll_at, total) = (scroll, lines.len());
    let lines: Vec<Line> = lines.into_iter().skip(scroll).collect();
    f.render_widget(Clear, area);
    let scroll = format!(
        "{} {} scroll · {} close ",
        keymap
            .first(Action::Down)
            .map_or(String::new(), |k| k.to_string()),
        keymap
            .first(Action::Up)
            .map_or(String::new(), |k| k.to_string()),
        keymap
            .first(Action::Escape)
            .map_or(String::new(), |k| k.to_string()),
    );
    let title = Line::from(vec![
        Span::styled(
            " Help: keys from your keymap (config file [keys]) ",
            theme.title,
        ),
        Span::styled(scroll, theme.dim),
    ]);
    let block = pane(title, true, theme);
    let at = crate::tui::paint::position(scroll_at, height, total);
    let reserve = at.as_ref().map_or(0, |l| l.width());
    let block = match at {
        Some(at) => block.title_bottom(at),
        None => block,
    };
    f.render_widget(Paragraph::new(lines).block(block), area);
    crate::tui::paint::draw_find(f, area, find, reserve, theme);
}
