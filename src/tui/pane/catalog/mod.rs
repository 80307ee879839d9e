//! The catalog pane: its state (order, filter, the rows shown and the
//! highlighted one) and its keys; its drawing is `draw.rs`.

pub(crate) mod draw;

use std::sync::Arc;

use crate::catalog::Catalog;
use crate::tools_handle::ToolsHandle;
use crate::tui::action::Action;
use crate::tui::line_input::LineInput;
use crate::tui::list::ListState;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Catalog,
    Name,
    Tokens,
    /// Always-load first, then read-only, then idempotent (catalog order
    /// within).
    Flags,
    /// Grouped by MCP server (in the servers' order), catalog order within;
    /// tools from catalog files last. Offered only when a tool has a server.
    Server,
}

impl Sort {
    pub fn label(self) -> &'static str {
        match self {
            Sort::Catalog => "catalog order",
            Sort::Name => "name",
            Sort::Tokens => "tokens",
            Sort::Flags => "flags",
            Sort::Server => "server",
        }
    }

    /// Every column the catalog sorts by, in the order `o` steps through
    /// them (the server's only when a tool has one).
    pub const ALL: [Sort; 5] = [
        Sort::Catalog,
        Sort::Name,
        Sort::Tokens,
        Sort::Flags,
        Sort::Server,
    ];

    /// The column named `name` (`catalog`, `name`, `tokens`, `flags`,
    /// `server`).
    pub fn named(name: &str) -> Option<Sort> {
        let name = name.trim().to_lowercase();
        Sort::ALL
            .into_iter()
            .find(|s| s.label() == name || (*s == Sort::Catalog && name == "catalog"))
    }

    /// The name a command gives it (`catalog` for catalog order).
    pub fn word(self) -> &'static str {
        match self {
            Sort::Catalog => "catalog",
            other => other.label(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    All,
    AlwaysLoad,
    Initial,
    Selected,
    /// The tools of one MCP server: an index into [`CatalogView::servers`].
    Server(usize),
}

impl Filter {
    /// What the pane's title says (`servers` names a server filter's server).
    pub fn label(self, servers: &[Arc<str>]) -> String {
        match self {
            Filter::All => "all".into(),
            Filter::AlwaysLoad => "always-load".into(),
            Filter::Initial => "initial".into(),
            Filter::Selected => "selected".into(),
            Filter::Server(i) => format!(
                "server {}",
                crate::terminal_text::escape(servers.get(i).map_or("?", |s| s))
            ),
        }
    }
}

/// The MCP servers of a catalog's tools, in the order their first tool
/// comes.
pub fn servers_of(catalog: &Catalog) -> Vec<Arc<str>> {
    let mut servers: Vec<Arc<str>> = Vec::new();
    for t in catalog.tools() {
        if let Some(o) = &t.mcp
            && !servers.contains(&o.server)
        {
            servers.push(o.server.clone());
        }
    }
    servers
}

/// What the catalog pane shows.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogView {
    pub sort: Sort,
    /// The sort runs the other way (`O`).
    pub reverse: bool,
    pub filter: Filter,
    /// Catalog indices in display order (sorted, filtered).
    pub rows: Vec<usize>,
    pub list: ListState,
    /// The MCP servers of the catalog's tools (the server filters and the
    /// server sort), empty for a catalog from files.
    pub servers: Vec<Arc<str>>,
    /// The name filter: rows whose name contains it (any case).
    pub name: LineInput,
    /// The name filter has the keyboard.
    pub typing: bool,
}

/// What a key of the name filter asks of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameOutcome {
    Nothing,
    /// The filter changed: rebuild the rows.
    Changed,
    /// The keyboard goes back to the pane.
    Leave,
    /// Cleared and left: rebuild the rows.
    Cleared,
}

/// What the rows are computed from.
pub struct ViewSource<'a> {
    pub catalog: &'a Catalog,
    pub handle: &'a ToolsHandle,
    pub costs: Option<&'a [u64]>,
    /// Whether the current search selected a tool.
    pub selected: &'a dyn Fn(usize) -> bool,
    pub height: usize,
}

impl CatalogView {
    pub fn new(catalog: &Catalog) -> CatalogView {
        CatalogView {
            sort: Sort::Catalog,
            reverse: false,
            filter: Filter::All,
            rows: (0..catalog.len()).collect(),
            list: ListState::default(),
            servers: servers_of(catalog),
            name: LineInput::default(),
            typing: false,
        }
    }

    /// Sorts by `sort`, `reverse` or not; false when the server column is
    /// asked of a catalog with no servers.
    pub fn sort_by(&mut self, sort: Sort, reverse: bool) -> bool {
        if sort == Sort::Server && self.servers.is_empty() {
            return false;
        }
        self.sort = sort;
        self.reverse = reverse;
        self.list.offset = 0;
        true
    }

    /// What the title says of the order (none: catalog order).
    pub fn sort_label(&self) -> Option<String> {
        match (self.sort, self.reverse) {
            (Sort::Catalog, false) => None,
            (Sort::Catalog, true) => Some("reversed".into()),
            (sort, false) => Some(format!("by {}", sort.label())),
            (sort, true) => Some(format!("by {}, reversed", sort.label())),
        }
    }

    /// The name filter in force (empty: none).
    pub fn name_filter(&self) -> &str {
        self.name.text.trim()
    }

    /// Opens the name filter on what it holds, offered: typing replaces
    /// it, the editing keys edit it.
    pub fn start_typing(&mut self) {
        self.typing = true;
        let kept = self.name.text.clone();
        self.name = LineInput::offered(&kept);
    }

    /// Clears a kept name filter; false when there is none.
    pub fn clear_name(&mut self) -> bool {
        if self.name.text.is_empty() {
            return false;
        }
        self.name.set("");
        self.list = ListState::default();
        true
    }

    /// Why no row is shown: the filter and the name filter, and how many
    /// tools of the whole catalog have the name (`f` shows them).
    pub fn empty_reason(&self, catalog: &Catalog) -> String {
        let name = self.name_filter();
        if name.is_empty() {
            return format!("no {} tools", self.filter_label());
        }
        let needle = name.to_lowercase();
        let elsewhere = catalog
            .tools()
            .iter()
            .filter(|t| t.name.to_lowercase().contains(&needle))
            .count();
        let name = crate::terminal_text::escape(name);
        match (self.filter, elsewhere) {
            (Filter::All, _) | (_, 0) => format!("no tool's name contains {name:?}"),
            (_, n) => format!(
                "no {} tool's name contains {name:?}; {} of the catalog do (the filter leaves them out)",
                self.filter_label(),
                crate::tui::text::count(n as u64, "tool", "tools")
            ),
        }
    }

    /// Text typed into the name filter.
    pub fn type_name(&mut self, text: &str) -> NameOutcome {
        if self.name.insert(text) {
            self.list = ListState::default();
            NameOutcome::Changed
        } else {
            NameOutcome::Nothing
        }
    }

    /// The name filter's keys: Enter keeps it, Esc clears it; either gives
    /// the keyboard back.
    pub fn handle_name(&mut self, action: Action) -> NameOutcome {
        match action {
            Action::InputSubmit => {
                self.typing = false;
                NameOutcome::Leave
            }
            Action::InputCancel => {
                self.typing = false;
                self.name.set("");
                NameOutcome::Cleared
            }
            other => {
                if self.name.edit(other) {
                    self.list = ListState::default();
                    NameOutcome::Changed
                } else {
                    NameOutcome::Nothing
                }
            }
        }
    }

    /// The next (or previous) row matching the name filter, wrapping;
    /// false when there is no filter or nothing matches.
    pub fn step_match(&mut self, forward: bool, height: usize) -> bool {
        let n = self.rows.len();
        if self.name_filter().is_empty() || n == 0 {
            return false;
        }
        let step = if forward { 1 } else { n - 1 };
        self.list.selected = (self.list.selected + step) % n;
        self.list.keep_visible(n, height);
        true
    }

    /// What the title says of the filter.
    pub fn filter_label(&self) -> String {
        self.filter.label(&self.servers)
    }

    /// The highlighted tool.
    pub fn current(&self) -> Option<usize> {
        self.rows.get(self.list.selected).copied()
    }

    /// Keeps the highlighted row in a window of `height` rows.
    pub fn keep_visible(&mut self, height: usize) {
        self.list.keep_visible(self.rows.len(), height);
    }

    /// A click on row `row` of the pane's window selects that row.
    pub fn click(&mut self, row: usize, height: usize) {
        self.list.click(row, self.rows.len(), height);
    }

    /// The pane's keys: movement, sort and filter. True when the rows must
    /// be rebuilt.
    pub fn handle(&mut self, action: Action, height: usize) -> bool {
        match action {
            Action::CycleSort => {
                self.sort = match self.sort {
                    Sort::Catalog => Sort::Name,
                    Sort::Name => Sort::Tokens,
                    Sort::Tokens => Sort::Flags,
                    Sort::Flags if !self.servers.is_empty() => Sort::Server,
                    Sort::Flags | Sort::Server => Sort::Catalog,
                };
                self.reverse = false;
                // The list is read from its top again: the highlighted tool
                // stays in view, as low as it must be.
                self.list.offset = 0;
                true
            }
            Action::ReverseSort => {
                self.reverse = !self.reverse;
                self.list.offset = 0;
                true
            }
            Action::CycleFilter => {
                self.filter = match self.filter {
                    Filter::All => Filter::AlwaysLoad,
                    Filter::AlwaysLoad => Filter::Initial,
                    Filter::Initial => Filter::Selected,
                    Filter::Selected if !self.servers.is_empty() => Filter::Server(0),
                    Filter::Server(i) if i + 1 < self.servers.len() => Filter::Server(i + 1),
                    Filter::Selected | Filter::Server(_) => Filter::All,
                };
                self.list = ListState::default();
                true
            }
            other => {
                self.list.handle(other, self.rows.len(), height);
                false
            }
        }
    }

    /// Recomputes the order and filter, keeping the highlighted tool
    /// highlighted when it is still shown.
    pub fn rebuild(&mut self, src: &ViewSource) {
        let keep = self.current();
        let tools = src.catalog.tools();
        let needle = self.name_filter().to_lowercase();
        let mut rows: Vec<usize> = (0..src.catalog.len())
            .filter(|&i| needle.is_empty() || tools[i].name.to_lowercase().contains(&needle))
            .filter(|&i| match self.filter {
                Filter::All => true,
                Filter::AlwaysLoad => tools[i].always_load,
                Filter::Initial => src.handle.is_initial(i),
                Filter::Selected => (src.selected)(i),
                Filter::Server(s) => tools[i]
                    .mcp
                    .as_ref()
                    .is_some_and(|o| self.servers.get(s) == Some(&o.server)),
            })
            .collect();
        match self.sort {
            Sort::Catalog => {}
            Sort::Name => rows.sort_by(|&a, &b| {
                tools[a]
                    .name
                    .to_lowercase()
                    .cmp(&tools[b].name.to_lowercase())
                    .then(a.cmp(&b))
            }),
            Sort::Tokens => {
                if let Some(costs) = src.costs {
                    let cost = |i: usize| costs.get(i).copied().unwrap_or(0);
                    rows.sort_by(|&a, &b| cost(b).cmp(&cost(a)).then(a.cmp(&b)));
                }
            }
            Sort::Server => {
                let group = |i: usize| {
                    tools[i]
                        .mcp
                        .as_ref()
                        .and_then(|o| self.servers.iter().position(|s| *s == o.server))
                        .unwrap_or(usize::MAX)
                };
                rows.sort_by_key(|&i| (group(i), i));
            }
            Sort::Flags => rows.sort_by_key(|&i| {
                let t = &tools[i];
                (!t.always_load, !t.read_only, !t.idempotent, i)
            }),
        }
        if self.reverse {
            rows.reverse();
        }
        self.rows = rows;
        if let Some(i) = keep.and_then(|k| self.rows.iter().position(|&v| v == k)) {
            self.list.selected = i;
        }
        self.list.keep_visible(self.rows.len(), src.height);
    }
}
