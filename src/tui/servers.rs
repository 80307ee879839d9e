//! The MCP servers of `explore --mcp` followed as they start: the explorer
//! opens at once on what is there (nothing, or the catalog files beside
//! the servers) and each server's tools join as it lists them, as the
//! gateway's do. A server that says its tools changed is listed again;
//! a state that changed without a listing (starting, then failed) is
//! seen within [`LOOK_EVERY`]. Each change is a [`Msg::Servers`].

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::effect::Msg;
use crate::catalog::Catalog;
use crate::sources::mcp::{Gathered, McpHost, ServerStatus, merge_beside_files};

/// How often the servers' states are looked at.
pub const LOOK_EVERY: Duration = Duration::from_millis(200);

/// What the explorer follows its servers with: the names of the servers
/// whose tools changed (the host's [`McpHost::watch_changes`]), and the
/// catalog files merged beside them.
pub struct ServersStart {
    pub changes: UnboundedReceiver<String>,
    pub files: Vec<Catalog>,
}

/// The servers' catalog (merged with the files) and their states, as of
/// now: `None` for the catalog when the tools do not form one (the last
/// one stays).
pub fn news(host: &McpHost, files: &[Catalog]) -> (Option<Arc<Catalog>>, Vec<ServerStatus>) {
    let Gathered { catalog, servers } = host.rebuild();
    let catalog = merge_beside_files(catalog, files)
        .ok()
        .map(|(c, _)| Arc::new(c));
    (catalog, servers)
}

/// Follows `host`'s servers until the loop's channel closes: a
/// [`Msg::Servers`] each time their catalog or a state changed.
pub async fn follow(host: Arc<McpHost>, start: ServersStart, tx: UnboundedSender<Msg>) {
    let ServersStart { mut changes, files } = start;
    let mut states: Option<Vec<ServerStatus>> = None;
    let mut told: Option<(u128, Vec<ServerStatus>)> = None;
    let mut look = tokio::time::interval(LOOK_EVERY);
    loop {
        tokio::select! {
            server = changes.recv() => {
                let Some(server) = server else { return };
                // A listing that fails leaves the last one; its state says
                // why when the server is down.
                let _ = host.relist(&server).await;
            }
            _ = look.tick() => {
                // Only a state that changed builds the catalog again.
                let now = host.states();
                if states.as_ref() == Some(&now) {
                    continue;
                }
                states = Some(now);
            }
        }
        let (catalog, servers) = news(&host, &files);
        let now = (
            catalog.as_ref().map_or(0, |c| c.fingerprint()),
            servers.clone(),
        );
        if told.as_ref() == Some(&now) {
            continue;
        }
        told = Some(now);
        if tx.send(Msg::Servers { catalog, servers }).is_err() {
            return;
        }
    }
}
