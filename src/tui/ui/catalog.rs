//! The catalog pane: every tool with its flags, cost and marks.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, pane, row};
use crate::terminal_text::escape;
use crate::tui::app::{App, Focus};
use crate::tui::state::catalog::{Filter, Sort};
use crate::tui::text;

/// The widest the server column gets (longer names are cut).
const MAX_SERVER_WIDTH: usize = 10;

/// The columns of a row, widest first: names get room before anything
/// else; the flags and the token column shrink (then go) before a name
/// is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Columns {
    /// `★ RO ID ` (8), `★RI ` (4) or none.
    flags: usize,
    name: usize,
    server: usize,
    /// ` 10,445 tk ` (11), ` 10.4k ` (7) or none.
    tokens: usize,
}

fn columns(width: usize, longest: usize, server: usize) -> Columns {
    // The mark (›) and the initial, selected and warning marks (●◆!)
    // always show.
    let fixed = 1 + 3;
    let layouts = [(8, 11), (8, 7), (4, 7), (4, 0), (0, 0)];
    let server = if server > 0 { server + 1 } else { 0 };
    for &(flags, tokens) in &layouts {
        for server in [server, 0] {
            let name = width.saturating_sub(fixed + flags + tokens + server);
            if name >= longest {
                return Columns {
                    flags,
                    name,
                    server: server.saturating_sub(1),
                    tokens,
                };
            }
        }
    }
    Columns {
        flags: 0,
        name: width.saturating_sub(fixed).max(1),
        server: 0,
        tokens: 0,
    }
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let focused = app.focus() == Focus::Catalog;
    let view = app.catalog_view();
    let position = if view.rows.is_empty() {
        "0".to_string()
    } else {
        format!(
            "{}/{}",
            crate::numbers::thousands(view.list.selected as u64 + 1),
            crate::numbers::thousands(view.rows.len() as u64)
        )
    };
    let mut title = vec![Span::styled(format!(" Catalog {position} "), theme.title)];
    if view.sort != Sort::Catalog {
        title.push(Span::styled(
            format!("by {} ", view.sort.label()),
            theme.dim,
        ));
    }
    if view.filter != Filter::All {
        title.push(Span::styled(
            format!("· {} only ", view.filter_label()),
            theme.dim,
        ));
    }
    if view.typing || !view.name_filter().is_empty() {
        title.push(Span::styled(
            format!(
                "· name: {}{} ",
                escape(&view.name.text),
                if view.typing { "▏" } else { "" }
            ),
            if view.typing { theme.key } else { theme.dim },
        ));
    }
    let block = pane(Line::from(title), focused, theme);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let height = usize::from(inner.height);
    let width = usize::from(inner.width);
    let list = view.list;
    // Tools from MCP servers show their server in a short column, when the
    // names keep room.
    // (Not when every tool comes from one server: the servers' line says so.)
    let one_server =
        view.servers.len() == 1 && app.catalog().tools().iter().all(|t| t.mcp.is_some());
    let server_width = view
        .servers
        .iter()
        .map(|s| text::width(&escape(s)))
        .max()
        .filter(|_| !one_server)
        .unwrap_or(0)
        .min(MAX_SERVER_WIDTH);
    // The longest name on screen: the rows shown get their names whole
    // when the pane has the room for them.
    let longest = view
        .rows
        .iter()
        .skip(list.offset)
        .take(height)
        .map(|&i| text::width(&escape(&app.tool(i).name)))
        .max()
        .unwrap_or(0);
    let cols = columns(width, longest, server_width);
    let mut lines = Vec::with_capacity(height);
    if view.rows.is_empty() {
        let why = if view.name_filter().is_empty() {
            format!("no {} tools", view.filter_label())
        } else {
            format!("no tool's name contains {:?}", escape(view.name_filter()))
        };
        lines.push(Line::from(Span::styled(why, theme.dim)));
    }
    for (i, &index) in view.rows.iter().enumerate().skip(list.offset).take(height) {
        let t = app.tool(index);
        let selected = app.is_selected(index);
        let initial = app.handle().is_initial(index);
        let current = i == list.selected;
        let mut spans = vec![Span::raw(if current { "›" } else { " " })];
        match cols.flags {
            8 => spans.extend([
                Span::styled(if t.always_load { "★ " } else { "  " }, theme.always),
                Span::raw(if t.read_only { "RO " } else { "   " }),
                Span::raw(if t.idempotent { "ID " } else { "   " }),
            ]),
            4 => spans.extend([
                Span::styled(if t.always_load { "★" } else { " " }, theme.always),
                Span::raw(if t.read_only { "R" } else { " " }),
                Span::raw(if t.idempotent { "I " } else { "  " }),
            ]),
            _ => {}
        }
        spans.push(Span::styled(
            text::pad(&escape(&t.name), cols.name),
            if selected {
                theme.selected
            } else {
                Default::default()
            },
        ));
        if cols.server > 0 {
            let server = t
                .mcp
                .as_ref()
                .map_or(String::new(), |o| escape(&o.server).into_owned());
            spans.push(Span::styled(
                format!(" {}", text::pad(&server, cols.server)),
                theme.dim,
            ));
        }
        let tokens = app.tokens_of(index);
        match cols.tokens {
            11 => {
                let n = tokens.map_or_else(|| "…".to_string(), |n| text::number(n, 6));
                spans.push(Span::styled(format!(" {n:>6} tk "), theme.dim));
            }
            7 => {
                let n = tokens.map_or_else(|| "…".to_string(), |n| text::number(n, 5));
                spans.push(Span::styled(format!(" {n:>5} "), theme.dim));
            }
            _ => {}
        }
        spans.extend([
            Span::styled(if initial { "●" } else { " " }, theme.initial),
            Span::styled(if selected { "◆" } else { " " }, theme.selected),
        ]);
        // What `toolsift check` warns about, else a tool hard to find from
        // its own words (the detail says what).
        spans.push(if app.lints_of(index) > 0 {
            Span::styled("!", theme.error)
        } else if app.hard_to_find(index) {
            Span::styled("?", theme.key)
        } else {
            Span::raw(" ")
        });
        lines.push(row(spans, current && focused, theme));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_get_room_before_flags_and_tokens() {
        // Everything fits.
        let c = columns(60, 20, 0);
        assert_eq!((c.flags, c.tokens), (8, 11));
        assert!(c.name >= 20);
        // 38 columns and a 21-column name: the token column shrinks first.
        let c = columns(38, 21, 0);
        assert!(c.name >= 21, "{c:?}");
        assert_eq!(c.tokens, 7);
        // Tighter: the flags shrink too, then go.
        let c = columns(30, 21, 0);
        assert!(c.name >= 21, "{c:?}");
        // A server column gives way before a name is cut.
        let c = columns(38, 21, 10);
        assert!(c.name >= 21, "{c:?}");
        // No room at all: the name is cut, never the marks.
        let c = columns(20, 40, 0);
        assert_eq!(c.name, 16);
    }
}
