//! What the simulator's drawing reads beyond its pane ([`Seen`]), and the
//! keys of its actions as a hint, shared by the screen and its call log.

use super::BreakerPane;
use crate::catalog::Catalog;
use crate::tui::action::Action;
use crate::tui::keymap::Keymap;

/// What the simulator's drawing reads beyond its pane.
pub struct Seen<'a> {
    pub pane: &'a BreakerPane,
    pub catalog: &'a Catalog,
    pub keymap: &'a Keymap,
    /// Calls go to live MCP servers.
    pub mcp_live: bool,
}

impl Seen<'_> {
    pub(super) fn keymap(&self) -> &Keymap {
        self.keymap
    }

    pub(super) fn catalog(&self) -> &Catalog {
        self.catalog
    }

    pub(super) fn mcp_live(&self) -> bool {
        self.mcp_live
    }

    pub(super) fn breaker(&self) -> Option<&BreakerPane> {
        Some(self.pane)
    }
}

/// The keys of two actions as a hint: `"+ -"`.
pub(super) fn hint(app: &Seen, actions: &[Action]) -> String {
    actions
        .iter()
        .filter_map(|&a| app.keymap().first(a))
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}
