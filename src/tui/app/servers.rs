//! The MCP servers of `explore --mcp` as they start: each server's tools
//! join the catalog as it lists them (the catalog taken as a file read
//! again is), its state shows on the servers' line, and a search says
//! how many servers are still starting.

use std::sync::Arc;

use super::App;
use crate::catalog::Catalog;
use crate::numbers::counted;
use crate::sources::mcp::{ServerState, ServerStatus};
use crate::terminal_text::escape;
use crate::tui::effect::Effect;
use crate::tui::servers::ServersStart;

impl App {
    /// The servers to follow as they start, taken by the loop that
    /// follows them.
    pub fn take_mcp_start(&mut self) -> Option<ServersStart> {
        self.mcp_start.take()
    }

    /// How many MCP servers are still starting (their tools not in the
    /// catalog yet).
    pub fn servers_starting(&self) -> usize {
        self.mcp_servers
            .iter()
            .filter(|s| matches!(s.state, ServerState::Starting { .. }))
            .count()
    }

    /// A server started, listed its tools or failed: its state shown, and
    /// the servers' catalog in place of the old one when it changed.
    pub(super) fn servers_changed(
        &mut self,
        catalog: Option<Arc<Catalog>>,
        servers: Vec<ServerStatus>,
    ) -> Vec<Effect> {
        let was = |name: &str, loaded: bool| {
            self.mcp_servers
                .iter()
                .any(|s| s.name == name && matches!(s.state, ServerState::Loaded { .. }) == loaded)
        };
        let joined: Vec<String> = servers
            .iter()
            .filter(|s| matches!(s.state, ServerState::Loaded { .. }) && !was(&s.name, true))
            .map(|s| escape(&s.name).into_owned())
            .collect();
        let failed: Vec<String> = servers
            .iter()
            .filter(|s| {
                matches!(s.state, ServerState::Failed { .. })
                    && !self
                        .mcp_servers
                        .iter()
                        .any(|o| o.name == s.name && matches!(o.state, ServerState::Failed { .. }))
            })
            .map(|s| escape(&s.name).into_owned())
            .collect();
        self.mcp_servers = servers;
        let mut effects = Vec::new();
        let mut taken = false;
        if let Some(catalog) = catalog.filter(|c| c.fingerprint() != self.catalog.fingerprint()) {
            let named_by_catalog = self.sources == self.catalog.name();
            effects = self.catalog_loaded(Ok(catalog));
            if self
                .status
                .as_deref()
                .is_some_and(|s| s.contains("do not fit"))
            {
                return effects;
            }
            taken = true;
            if named_by_catalog {
                // `mcp` becomes `mcp: time, fetch`.
                self.sources = self.catalog.name().to_string();
            }
        }
        let mut said = Vec::new();
        if !joined.is_empty() {
            said.push(format!(
                "{} joined: {} in all",
                joined.join(", "),
                counted(self.catalog.len(), "tool")
            ));
        }
        if !failed.is_empty() {
            said.push(format!("{} failed (retrying)", failed.join(", ")));
        }
        if said.is_empty() && !taken {
            return effects;
        }
        if said.is_empty() {
            said.push(format!(
                "the servers' tools changed: {}",
                counted(self.catalog.len(), "tool")
            ));
        }
        if let Some(starting) = self.starting_note() {
            said.push(starting);
        }
        self.status = Some(said.join("; "));
        effects
    }

    /// `N servers still starting`, while some are.
    pub(super) fn starting_note(&self) -> Option<String> {
        match self.servers_starting() {
            0 => None,
            n => Some(format!("{} still starting", counted(n, "server"))),
        }
    }
}
