//! [`PaneView`]: the app as the main screen's panes see it, read-only, as
//! a screen sees it through `On`. The app builds one per frame
//! (`app/pane_view.rs`); the panes' drawing reads nothing else of it.

use std::collections::BTreeSet;

use super::catalog::CatalogView;
use super::detail::DetailState;
use super::exact::ExactCounts;
use super::query::QueryBox;
use super::results::{NotOffered, SearchState};
use crate::catalog::{Catalog, Tool};
use crate::findability::ToolAudit;
use crate::search::SearchHit;
use crate::settings::Settings;
use crate::sources::mcp::ServerStatus;
use crate::tools_handle::ToolsHandle;
use crate::tui::keymap::Keymap;

/// Which pane has the keys (at most one), as the panes draw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Focused {
    pub query: bool,
    pub catalog: bool,
    pub results: bool,
    /// The detail pane has the keys, or stands as the popup in front.
    pub detail: bool,
}

/// What the panes read of the app.
pub struct PaneView<'a> {
    pub catalog: &'a Catalog,
    /// The settings in force and their handle.
    pub settings: &'a Settings,
    pub handle: &'a ToolsHandle,
    pub keymap: &'a Keymap,
    pub focused: Focused,
    /// The detail is drawn as the popup in front (narrow terminals), not
    /// as a pane.
    pub detail_popup: bool,
    /// Each pane's own state.
    pub catalog_view: &'a CatalogView,
    pub query: &'a QueryBox,
    pub search: &'a SearchState,
    pub detail: &'a DetailState,
    /// The tools picked by hand (Space), by catalog place.
    pub picked: &'a BTreeSet<usize>,
    /// Per-tool tokens for the settings' basis, once counted.
    pub costs: Option<&'a [u64]>,
    /// How many warnings `toolsift check` gives each tool.
    pub lints: &'a [u16],
    /// Each tool's findability audit, once made.
    pub findability: &'a [Option<ToolAudit>],
    /// The provider's counts (`--count-with`), when asked for.
    pub exact: Option<&'a ExactCounts>,
    /// What became of each MCP server, how many still start, and whether
    /// calls to their tools are real.
    pub servers: &'a [ServerStatus],
    pub servers_starting: usize,
    pub mcp_live: bool,
    /// How many tools of the initial set are sent besides the always-load
    /// ones.
    pub sent_initial: usize,
    /// The full catalog's tokens when it is offered instead of a failed
    /// search, else why not.
    pub full_catalog_offer: Result<u64, NotOffered>,
    /// The request searched is a followed gateway's, whose answer the
    /// detail shows beside the explorer's own.
    pub gateway_answered: bool,
    /// The tool whose detail is shown, by catalog place, and its hit in
    /// the current search (none when not loaded).
    pub current: Option<(usize, Option<&'a SearchHit>)>,
    /// Where the current tool stood in the followed gateway's answer, as a
    /// sentence (not escaped).
    pub gateway_standing: Option<String>,
}

impl PaneView<'_> {
    pub fn tool(&self, index: usize) -> &Tool {
        &self.catalog.tools()[index]
    }

    /// Tool `index`'s tokens, once counted.
    pub fn tokens_of(&self, index: usize) -> Option<u64> {
        self.costs.and_then(|c| c.get(index).copied())
    }

    /// How many warnings `toolsift check` gives tool `index`.
    pub fn lints_of(&self, index: usize) -> u16 {
        self.lints.get(index).copied().unwrap_or(0)
    }

    /// Tool `index`'s findability audit, once made.
    pub fn findability_of(&self, index: usize) -> Option<&ToolAudit> {
        self.findability.get(index)?.as_ref()
    }

    /// Whether tool `index` is hard to find from its own words.
    pub fn hard_to_find(&self, index: usize) -> bool {
        self.findability_of(index)
            .is_some_and(ToolAudit::hard_to_find)
    }

    /// The current search selected tool `index`.
    pub fn is_selected(&self, index: usize) -> bool {
        self.search.hit(index).is_some()
    }

    /// The provider's count of tool `index`'s share, once it came.
    pub fn exact_tool(&self, index: usize) -> Option<u64> {
        self.exact?.share(index)
    }

    /// The header has a line for the MCP servers.
    pub fn servers_line(&self) -> bool {
        !self.servers.is_empty()
    }
}
