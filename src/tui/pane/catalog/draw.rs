//! The catalog pane drawn, from the app's [`PaneView`] as the main screen reads it: every
//! tool with its flags, cost and marks.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Filter;
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::paint::{Theme, pane, row};
use crate::tui::pane::view::PaneView;
use crate::tui::text;

/// The widest the server column gets when names need the room (longer
/// server names are cut then; with room to spare they show whole).
const MAX_SERVER_WIDTH: usize = 10;
/// A name cut to fit keeps at least this many columns before the short
/// flags and token column give way.
const MIN_NAME: usize = 16;

/// The columns of a row. Names get room first: the token column and the
/// flags shorten (`10.4k`, `★RI`) before a name is cut, and a server column
/// gives way. A name too long for the pane even so is cut, and the short
/// flags and tokens stay (the token column is the point of the pane), down
/// to a name of [`MIN_NAME`] columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Columns {
    /// `★ RO ID ` (8), `★RI ` (4) or none.
    flags: usize,
    name: usize,
    server: usize,
    /// ` 10,445 tk ` (11), ` 10.4k ` (7) or none.
    tokens: usize,
}

/// The columns for a pane `width` wide, the longest name on screen
/// `longest` wide, and the longest server name `server` wide (0: no
/// server column).
fn columns(width: usize, longest: usize, server: usize) -> Columns {
    // The mark (›) and the initial, selected and warning marks (●◆!)
    // always show.
    let fixed = 1 + 3;
    let layouts = [(8, 11), (8, 7), (4, 7)];
    // A server name whole, else cut to the cap, else no server column.
    let servers: Vec<usize> = [server, server.min(MAX_SERVER_WIDTH), 0]
        .into_iter()
        .map(|s| if s > 0 { s + 1 } else { 0 })
        .collect();
    for &(flags, tokens) in &layouts {
        for &server in &servers {
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
    // The longest name is cut whatever goes: the short columns stay.
    for (flags, tokens) in [(4, 7), (0, 7), (0, 0)] {
        let name = width.saturating_sub(fixed + flags + tokens);
        if name >= MIN_NAME.min(longest) {
            return Columns {
                flags,
                name,
                server: 0,
                tokens,
            };
        }
    }
    Columns {
        flags: 0,
        name: width.saturating_sub(fixed).max(1),
        server: 0,
        tokens: 0,
    }
}

/// The legend of the row's columns and marks that fits `width`: every
/// mark, then the most used, then none (help has them all).
fn legend(width: usize) -> Option<String> {
    [
        " ★ always-load · RO read-only · ID idempotent · tokens · ● initial · ◆ found · ! warning · ◌ hard to find ",
        " ★ always-load · RO read-only · ID idempotent · ● initial · ◆ found ",
        " ★ always-load · ● initial · ◆ found ",
    ]
    .into_iter()
    .find(|l| text::width(l) <= width)
    .map(str::to_string)
}

/// The column headers over the rows, each over its column: `flags` (its
/// short form's letters, `★RI`), `name`, `server`, `tokens` (the marks
/// after them are the legend's).
fn headers(cols: Columns, theme: &Theme) -> Line<'static> {
    let flags = match cols.flags {
        8 => "flags   ",
        4 => "★RI ",
        _ => "",
    };
    let mut text = format!(" {flags}{}", text::pad("name", cols.name));
    if cols.server > 0 {
        text.push_str(&format!(" {}", text::pad("server", cols.server)));
    }
    match cols.tokens {
        11 => text.push_str(&format!(" {:>9} ", "tokens")),
        7 => text.push_str(&format!(" {:>5} ", "tk")),
        _ => {}
    }
    Line::from(Span::styled(
        text,
        theme.dim.add_modifier(ratatui::style::Modifier::UNDERLINED),
    ))
}

/// The title: the pane's number, where the highlight is, the order, how
/// many tools are picked, the filter, and the name typed to filter by.
fn title(view: &PaneView, theme: &Theme) -> Line<'static> {
    let state = view.catalog_view;
    let position = if state.rows.is_empty() {
        "0".to_string()
    } else {
        format!(
            "{}/{}",
            crate::numbers::thousands(state.list.selected as u64 + 1),
            crate::numbers::thousands(state.rows.len() as u64)
        )
    };
    let number = crate::tui::pane::number(view.keymap, Action::FocusCatalog);
    let mut title = vec![Span::styled(
        format!(" {number}Catalog {position} "),
        theme.title,
    )];
    if let Some(order) = state.sort_label() {
        title.push(Span::styled(format!("{order} "), theme.dim));
    }
    if !view.picked.is_empty() {
        title.push(Span::styled(
            format!("· {} picked ", view.picked.len()),
            theme.key,
        ));
    }
    if state.filter != Filter::All {
        title.push(Span::styled(
            format!("· {} only ", state.filter_label()),
            theme.dim,
        ));
    }
    if state.typing || !state.name_filter().is_empty() {
        title.push(Span::styled(
            format!(
                "· name: {}{} ",
                escape(&state.name.text),
                if state.typing { "▏" } else { "" }
            ),
            if state.typing { theme.key } else { theme.dim },
        ));
    }
    Line::from(title)
}

pub fn draw(f: &mut Frame, area: Rect, view: &PaneView, theme: &Theme) {
    let state = view.catalog_view;
    let block = pane(title(view, theme), view.focused.catalog, theme);
    // The marks' legend on the bottom border, as much of it as fits.
    let block = match legend(usize::from(area.width).saturating_sub(4)) {
        Some(text) => block.title_bottom(Line::from(Span::styled(text, theme.dim))),
        None => block,
    };
    let mut inner = block.inner(area);
    f.render_widget(block, area);
    let header = crate::tui::layout::catalog_header(inner.height) && !state.rows.is_empty();
    let header_area = Rect { height: 1, ..inner };
    if header {
        inner.y += 1;
        inner.height -= 1;
    }
    let height = usize::from(inner.height);
    let width = usize::from(inner.width);
    let list = state.list;
    // The names shown: they get their names whole when the pane has the
    // room for them, else are cut to the column and kept apart.
    let shown: Vec<String> = state
        .rows
        .iter()
        .skip(list.offset)
        .take(height)
        .map(|&i| escape(&view.tool(i).name).into_owned())
        .collect();
    let longest = shown.iter().map(|n| text::width(n)).max().unwrap_or(0);
    let cols = columns(width, longest, server_width(view));
    if header {
        f.render_widget(Paragraph::new(headers(cols, theme)), header_area);
    }
    let mut lines = if state.rows.is_empty() {
        empty_lines(view, width, height, theme)
    } else {
        Vec::with_capacity(height)
    };
    let shown = text::cut_apart(&shown, cols.name);
    for (k, (i, &index)) in state
        .rows
        .iter()
        .enumerate()
        .skip(list.offset)
        .take(height)
        .enumerate()
    {
        let current = i == list.selected;
        lines.push(tool_row(view, index, (&shown[k], cols), current, theme));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The server column's width: tools from MCP servers show their server in
/// a short column, when the names keep room (not when every tool comes
/// from one server: the servers' line says so); 0 for none.
fn server_width(view: &PaneView) -> usize {
    let state = view.catalog_view;
    let one_server =
        state.servers.len() == 1 && view.catalog.tools().iter().all(|t| t.mcp.is_some());
    state
        .servers
        .iter()
        .map(|s| text::width(&escape(s)))
        .max()
        .filter(|_| !one_server)
        .unwrap_or(0)
}

/// Why no row shows, wrapped between words: the whole reason, in the pane
/// (MCP servers still starting, none listing a tool, or the filter's).
fn empty_lines(view: &PaneView, width: usize, height: usize, theme: &Theme) -> Vec<Line<'static>> {
    let why = match view.servers_starting {
        // MCP servers still starting: their tools are on their way.
        n if n > 0 && view.catalog.is_empty() => format!(
            "no tools yet: {} starting; their tools join as they list them",
            crate::numbers::counted(n, "server")
        ),
        _ if view.catalog.is_empty() && view.servers_line() => {
            "no tools: no MCP server listed any (the MCP line says why)".to_string()
        }
        _ => view.catalog_view.empty_reason(view.catalog),
    };
    text::wrap_words(&why, width.max(1), height.max(1))
        .into_iter()
        .map(|l| Line::from(Span::styled(l, theme.dim)))
        .collect()
}

/// One tool's row: picked (✓) or highlighted (›), its flags, its name
/// (`shown`, cut to its column; in the found style when the search
/// selected it), its server, its tokens, then its marks.
fn tool_row(
    view: &PaneView,
    index: usize,
    (shown, cols): (&str, Columns),
    current: bool,
    theme: &Theme,
) -> Line<'static> {
    let t = view.tool(index);
    let selected = view.is_selected(index);
    // A picked tool is ticked (Space); the highlight shows the cursor.
    let mut spans = vec![if view.picked.contains(&index) {
        Span::styled("✓", theme.key)
    } else {
        Span::raw(if current { "›" } else { " " })
    }];
    spans.extend(flag_spans(t, cols.flags, theme));
    spans.push(Span::styled(
        text::pad(shown, cols.name),
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
    let tokens = view.tokens_of(index);
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
    spans.extend(marks(view, index, selected, theme));
    row(spans, current && view.focused.catalog, theme)
}

/// A tool's flags in the column's width: `★ RO ID ` (8), `★RI ` (4), or
/// none.
fn flag_spans(t: &crate::catalog::Tool, width: usize, theme: &Theme) -> Vec<Span<'static>> {
    match width {
        8 => vec![
            Span::styled(if t.always_load { "★ " } else { "  " }, theme.always),
            Span::raw(if t.read_only { "RO " } else { "   " }),
            Span::raw(if t.idempotent { "ID " } else { "   " }),
        ],
        4 => vec![
            Span::styled(if t.always_load { "★" } else { " " }, theme.always),
            Span::raw(if t.read_only { "R" } else { " " }),
            Span::raw(if t.idempotent { "I " } else { "  " }),
        ],
        _ => Vec::new(),
    }
}

/// A tool's marks after its row: in the initial set (●), found by the
/// search (◆), then what `toolsift check` warns about (!), else hard to
/// find from its own words (◌; the detail says what).
fn marks(view: &PaneView, index: usize, selected: bool, theme: &Theme) -> [Span<'static>; 3] {
    let initial = view.handle.is_initial(index);
    [
        Span::styled(if initial { "●" } else { " " }, theme.initial),
        Span::styled(if selected { "◆" } else { " " }, theme.selected),
        if view.lints_of(index) > 0 {
            Span::styled("!", theme.error)
        } else if view.hard_to_find(index) {
            Span::styled("◌", theme.key)
        } else {
            Span::raw(" ")
        },
    ]
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
        // Tighter: the flags shrink too.
        let c = columns(36, 21, 0);
        assert!(c.name >= 21, "{c:?}");
        assert_eq!((c.flags, c.tokens), (4, 7));
        // A server column gives way before a name is cut.
        let c = columns(38, 21, 10);
        assert!(c.name >= 21, "{c:?}");
        assert_eq!(c.server, 0);
        // No room at all: the name is cut, never the marks.
        let c = columns(20, 40, 0);
        assert_eq!(c.name, 16);
    }

    #[test]
    fn a_name_cut_anyway_keeps_the_short_flags_and_tokens() {
        // 38 columns (80 wide) and GitHub's 41-column name: the name is cut
        // whatever goes, so the short flags and tokens stay.
        let c = columns(38, 41, 0);
        assert_eq!((c.flags, c.tokens), (4, 7), "{c:?}");
        assert_eq!(c.name, 23);
        // Narrower still: the flags go before the tokens.
        let c = columns(28, 41, 0);
        assert_eq!((c.flags, c.tokens, c.name), (0, 7, 17));
        // Then the tokens, before a name gets under 16 columns.
        let c = columns(24, 41, 0);
        assert_eq!((c.flags, c.tokens, c.name), (0, 0, 20));
    }

    #[test]
    fn the_headers_sit_over_their_columns() {
        let theme = Theme::new(true);
        let c = columns(60, 20, 8);
        let h = headers(c, &theme).to_string();
        assert_eq!(
            text::width(&h) + 3,
            60,
            "as wide as a row less its marks: {h:?}"
        );
        assert!(h.starts_with(" flags   name"), "{h:?}");
        let server_at = h.find("server").unwrap();
        assert_eq!(server_at, 1 + c.flags + c.name + 1, "{h:?}");
        assert!(h.ends_with("tokens "), "{h:?}");
        // The short columns get short headers.
        let h = headers(columns(36, 21, 0), &theme).to_string();
        assert!(h.starts_with(" ★RI name") && h.ends_with("   tk "), "{h:?}");
    }

    #[test]
    fn a_server_name_shows_whole_when_names_leave_room() {
        // "mcp-server-everything" (21) beside names of 20 in 70 columns.
        let c = columns(70, 20, 21);
        assert_eq!(c.server, 21, "{c:?}");
        // Less room: cut to the cap before it goes.
        let c = columns(55, 20, 21);
        assert_eq!(c.server, MAX_SERVER_WIDTH, "{c:?}");
    }
}
