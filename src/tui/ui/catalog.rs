//! The catalog pane: every tool with its flags, cost and marks.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, fit, pane, row};
use crate::numbers::thousands;
use crate::terminal_text::escape;
use crate::tui::app::{App, Focus};
use crate::tui::state::catalog::{Filter, Sort};

/// The widest the server column gets (longer names are cut).
const MAX_SERVER_WIDTH: usize = 10;
/// The server column shows (cut to at least 4 columns) only if the names
/// keep this many columns.
const MIN_NAME_WIDTH: usize = 10;

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let focused = app.focus() == Focus::Catalog;
    let mut title = vec![Span::styled(
        format!(" Catalog {} ", app.catalog_view().rows.len()),
        theme.title,
    )];
    let view = app.catalog_view();
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
    let block = pane(Line::from(title), focused, theme);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let height = usize::from(inner.height);
    let width = usize::from(inner.width);
    let list = view.list;
    let name_width = width.saturating_sub(1 + 8 + 11 + 2).max(8);
    // Tools from MCP servers show their server in a short column, when the
    // names keep room.
    // (Not when every tool comes from one server: the servers' line says so.)
    let one_server =
        view.servers.len() == 1 && app.catalog().tools().iter().all(|t| t.mcp.is_some());
    let longest = view
        .servers
        .iter()
        .map(|s| escape(s).chars().count())
        .max()
        .filter(|_| !one_server)
        .unwrap_or(0);
    let server_width = longest
        .min(MAX_SERVER_WIDTH)
        .min(name_width.saturating_sub(MIN_NAME_WIDTH + 1));
    let (name_width, server_width) = if server_width >= longest.min(4) && server_width > 0 {
        (name_width - server_width - 1, server_width)
    } else {
        (name_width, 0)
    };
    let mut lines = Vec::with_capacity(height);
    if view.rows.is_empty() {
        lines.push(Line::from(Span::styled(
            format!("no {} tools", view.filter_label()),
            theme.dim,
        )));
    }
    for (i, &index) in view.rows.iter().enumerate().skip(list.offset).take(height) {
        let t = app.tool(index);
        let name = fit(&escape(&t.name), name_width);
        let tokens = app
            .tokens_of(index)
            .map_or_else(|| "…".to_string(), thousands);
        let selected = app.is_selected(index);
        let initial = app.handle().is_initial(index);
        let current = i == list.selected;
        let mut spans = vec![
            Span::raw(if current { "›" } else { " " }),
            Span::styled(if t.always_load { "★ " } else { "  " }, theme.always),
            Span::raw(if t.read_only { "RO " } else { "   " }),
            Span::raw(if t.idempotent { "ID " } else { "   " }),
            Span::styled(
                name,
                if selected {
                    theme.selected
                } else {
                    Default::default()
                },
            ),
        ];
        if server_width > 0 {
            let server = t
                .mcp
                .as_ref()
                .map_or(String::new(), |o| escape(&o.server).into_owned());
            spans.push(Span::styled(
                format!(" {}", fit(&server, server_width)),
                theme.dim,
            ));
        }
        spans.extend([
            Span::styled(format!(" {tokens:>6} tk "), theme.dim),
            Span::styled(if initial { "●" } else { " " }, theme.initial),
            Span::styled(if selected { "◆" } else { " " }, theme.selected),
        ]);
        lines.push(row(spans, current && focused, theme));
    }
    f.render_widget(Paragraph::new(lines), inner);
}
