//! What the app shows, read-only: drawing, the loop and tests read the
//! state through these, never change it.

use std::sync::Arc;

use super::{App, Focus, Popup};
use crate::catalog::{Catalog, Tool};
use crate::engine::Ranker;
use crate::search::{SearchHit, Searcher};
use crate::settings::Settings;
use crate::sources::mcp::{McpHost, ServerStatus};
use crate::tools_handle::ToolsHandle;
use crate::tui::action::Context;
use crate::tui::keymap::Keymap;
use crate::tui::layout::ScreenLayout;
use crate::tui::pane::catalog::CatalogView;
use crate::tui::pane::detail::DetailState;
use crate::tui::pane::query::QueryBox;
use crate::tui::pane::results::SearchState;
use crate::tui::screen::{Screen, Screens};

impl App {
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// The catalog files, as the header names them.
    pub fn sources(&self) -> &str {
        &self.sources
    }

    pub fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    pub fn keymap(&self) -> &Keymap {
        &self.keymap
    }

    /// The settings in force (the last valid ones).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The handle of the settings in force.
    pub fn handle(&self) -> &ToolsHandle {
        &self.handle
    }

    /// Per-tool tokens for the settings' basis, once counted.
    pub fn costs(&self) -> Option<&Arc<Vec<u64>>> {
        self.costs.as_ref()
    }

    pub fn focus(&self) -> Focus {
        self.focus
    }

    /// The screen (or popup) in front.
    pub fn popup(&self) -> Option<Popup> {
        self.screens.front()
    }

    /// The screens held: the one in front, and those kept while closed.
    pub fn screens(&self) -> &Screens {
        &self.screens
    }

    pub fn query(&self) -> &QueryBox {
        &self.query
    }

    pub fn catalog_view(&self) -> &CatalogView {
        &self.catalog_view
    }

    /// The search side: the answer shown, the session, the results list.
    pub fn search(&self) -> &SearchState {
        &self.search
    }

    pub fn detail(&self) -> &DetailState {
        &self.detail
    }

    /// The held screen of type `T` (open, or kept while closed).
    pub fn screen<T: Screen>(&self) -> Option<&T> {
        self.screens.get()
    }

    /// The live MCP servers' host, when the explorer has their connections.
    pub fn mcp_host(&self) -> Option<&Arc<McpHost>> {
        self.mcp.as_ref()
    }

    /// Calls to MCP tools are real (the explorer has the connections).
    pub fn mcp_live(&self) -> bool {
        self.mcp.is_some()
    }

    /// What became of each MCP server.
    pub fn mcp_servers(&self) -> &[ServerStatus] {
        &self.mcp_servers
    }

    /// The header has a line for the MCP servers (the catalog came from some).
    pub fn servers_line(&self) -> bool {
        !self.mcp_servers.is_empty()
    }

    /// The bottom line's message, until the next key.
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    /// A demo's caption, while one is shown.
    pub fn caption(&self) -> Option<&str> {
        self.caption.as_deref()
    }

    /// In a demo: whether it is paused (None: not a demo).
    pub fn demo(&self) -> Option<bool> {
        self.demo
    }

    pub fn no_color(&self) -> bool {
        self.no_color
    }

    /// Where everything goes at the current size.
    pub fn layout(&self) -> &ScreenLayout {
        &self.layout
    }

    pub fn should_quit(&self) -> bool {
        self.should_quit
    }

    /// The terminal size the layout is for.
    pub fn size(&self) -> (u16, u16) {
        (self.layout.area.width, self.layout.area.height)
    }

    /// Rows a list pane shows at the current terminal size.
    /// The command line (`:`).
    pub fn cmdline(&self) -> &crate::tui::cmdline::CommandLine {
        &self.cmdline
    }

    pub fn list_height(&self) -> usize {
        self.layout.list_rows()
    }

    /// A search is under way whose answer has not come back.
    pub fn searching(&self) -> bool {
        self.search.searching()
    }

    /// The ranker the query asks for: regex while the query box reads a
    /// pattern, else the settings'.
    pub fn query_ranker(&self) -> Ranker {
        crate::tui::pane::query::ranker(self.query.is_regex(), self.settings.ranker)
    }

    /// The answer shown is BM25F's standing in for a dense ranker whose
    /// catalog vectors are still being computed.
    pub fn vectors_pending(&self) -> bool {
        self.search.vectors_pending(self.query_ranker())
    }

    /// The tools the app would send now: the current search's loaded set,
    /// or the full catalog when it was sent instead after a failure.
    pub fn loaded_tools(&self) -> Option<Vec<usize>> {
        self.search.loaded_tools(self.catalog.len())
    }

    /// The tools picked by hand (Space), by catalog place.
    pub fn picked(&self) -> &std::collections::BTreeSet<usize> {
        &self.picked
    }

    /// What an export writes: the picked tools, else the loaded ones.
    pub fn export_set(&self) -> Option<Vec<usize>> {
        if self.picked.is_empty() {
            self.loaded_tools()
        } else {
            Some(self.picked.iter().copied().collect())
        }
    }

    /// The full catalog's tokens (once counted) and whether they fit the
    /// context budget: `Err` says why the full catalog is not offered.
    pub fn full_catalog_offer(&self) -> Result<u64, crate::tui::pane::results::NotOffered> {
        self.search.full_catalog_offer(self.full_tokens())
    }

    /// The whole catalog's tokens under the basis in force (a provider's
    /// request overhead included), once counted; the provider's own count
    /// once it came (`--count-with`).
    pub fn full_tokens(&self) -> Option<u64> {
        if let Some(exact) = self.exact_full() {
            return Some(exact);
        }
        let basis = self.settings.basis();
        self.costs
            .as_deref()
            .map(|c| basis.set_cost(c.iter().copied()))
    }

    /// The tool whose detail is shown: the highlighted row of the results
    /// pane when it had the focus last, else of the catalog pane.
    pub fn current_tool(&self) -> Option<(usize, Option<&SearchHit>)> {
        let from_results = self.shows_results_tool();
        if from_results && let Some(hit) = self.search.current() {
            return Some((hit.index, Some(hit)));
        }
        // A tool below the loaded ones: not loaded, its detail says why.
        if from_results && let Some(index) = self.search.current_index() {
            return Some((index, None));
        }
        let index = self.catalog_view.current()?;
        Some((index, self.search.hit(index)))
    }

    /// Whether the user named the ranker in force (a flag, the config file)
    /// or changed it here; else the explorer picked it.
    pub fn ranker_chosen(&self) -> bool {
        let (start, chosen) = self.ranker_at_start;
        chosen || self.settings.ranker != start
    }

    /// Whether the detail shows the results pane's highlighted tool (that
    /// pane has the focus, or had it last).
    pub fn shows_results_tool(&self) -> bool {
        matches!(self.focus, Focus::Results)
            || (matches!(self.focus, Focus::Detail | Focus::Query)
                && self.last_list == Focus::Results)
    }

    /// The catalog's always-load tools.
    /// How many tools of the initial set are sent besides the always-load
    /// ones (`initial_tool_count`, or fewer where `max_loaded_tools`
    /// leaves less room).
    pub fn sent_initial(&self) -> usize {
        self.handle.initial_besides_always_load()
    }

    pub fn always_load_count(&self) -> usize {
        self.catalog.always_load_indices().len()
    }

    /// How many warnings `toolsift check` gives tool `index`.
    pub fn lints_of(&self, index: usize) -> u16 {
        self.lints.get(index).copied().unwrap_or(0)
    }

    /// Tool `index`'s findability audit, once made (none for an always-load
    /// tool).
    pub fn findability_of(&self, index: usize) -> Option<&crate::findability::ToolAudit> {
        self.findability.get(index)?.as_ref()
    }

    /// Whether tool `index` is hard to find from its own words: not in the
    /// top [`crate::findability::DEFAULT_K`], or shadowed by another tool.
    pub fn hard_to_find(&self, index: usize) -> bool {
        self.findability_of(index)
            .is_some_and(crate::findability::ToolAudit::hard_to_find)
    }

    /// Tools hard to find ([`App::hard_to_find`]).
    pub fn tools_hard_to_find(&self) -> usize {
        (0..self.findability.len())
            .filter(|&i| self.hard_to_find(i))
            .count()
    }

    /// Tools with a warning.
    pub fn tools_with_lints(&self) -> usize {
        self.lints.iter().filter(|&&n| n > 0).count()
    }

    pub fn tool(&self, index: usize) -> &Tool {
        &self.catalog.tools()[index]
    }

    /// Tools the current search selected.
    pub fn is_selected(&self, index: usize) -> bool {
        self.search.hit(index).is_some()
    }

    pub fn tokens_of(&self, index: usize) -> Option<u64> {
        self.costs.as_ref().and_then(|c| c.get(index).copied())
    }

    /// The context the keys are looked up in: the screen with the keyboard.
    pub fn context(&self) -> Context {
        if self.cmdline.is_open() {
            return Context::Input;
        }
        match self.screens.front() {
            Some(Popup::Detail) if self.finding() => Context::Input,
            Some(Popup::Detail) => Context::Main,
            Some(_) => self
                .screens
                .front_screen()
                .map_or(Context::Main, |screen| screen.context()),
            None if self.finding() => Context::Input,
            None if self.focus == Focus::Query || self.catalog_view.typing => Context::Input,
            None => Context::Main,
        }
    }
}
