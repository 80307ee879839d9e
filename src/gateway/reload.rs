//! The servers file followed while the gateway runs: when one of the
//! `--mcp` files changes (looked at once a second), it is read again and
//! the servers become what it now says ([`McpHost::reconfigure`]): a server
//! added starts and its tools join, a server taken out stops and its tools
//! leave, a server whose entry changed starts again as written. The host
//! hears of it as of any change of the tools (`tools/list_changed` where
//! its revision allows). A file that cannot be read, or names no server,
//! is a warning, and the servers stay as they were; the file's own
//! warnings (a server skipped, a key unknown) are logged when they change.
//!
//! [`McpHost::reconfigure`]: crate::sources::mcp::McpHost::reconfigure

use std::path::PathBuf;
use std::sync::Arc;

use super::Gateway;
use crate::file_stamps::{EVERY, FileStamps};
use crate::sources::mcp::McpConfig;

impl Gateway {
    /// Follows `paths` for as long as the gateway runs; `read` reads the
    /// servers from them (the same way the start did).
    pub async fn follow_servers_files<E: std::fmt::Display>(
        self: Arc<Self>,
        paths: Vec<PathBuf>,
        read: impl Fn() -> Result<McpConfig, E> + Send + 'static,
    ) {
        let mut stamps = FileStamps::new(paths);
        if stamps.is_empty() {
            return;
        }
        // The start said its warnings already.
        let mut warned = read().map(|c| c.warnings).unwrap_or_default();
        let mut tick = tokio::time::interval(EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            tick.tick().await;
            if !stamps.changed() {
                continue;
            }
            // An editor may still be writing it: read it when it has held
            // still for a moment.
            tokio::time::sleep(EVERY / 4).await;
            while stamps.changed() {
                tokio::time::sleep(EVERY / 4).await;
            }
            self.apply_servers(read(), &mut warned);
        }
    }

    /// Makes the servers those of `config` (or warns why not) and takes
    /// the change into the catalog and the description; the config's
    /// warnings are logged unless they are those of `warned`, the last.
    pub fn apply_servers<E: std::fmt::Display>(
        &self,
        config: Result<McpConfig, E>,
        warned: &mut Vec<String>,
    ) {
        if let Ok(c) = &config
            && c.warnings != *warned
        {
            for w in c.warnings.iter().filter(|w| !warned.contains(w)) {
                self.recorder.warn(&format!("servers file: {w}"));
            }
            warned.clone_from(&c.warnings);
        }
        let config = match config {
            Ok(c) if c.servers.is_empty() => {
                self.recorder.warn(
                    "the servers file changed and now names no MCP server; the servers stay as they were",
                );
                return;
            }
            Ok(c) => c,
            Err(e) => {
                self.recorder.warn(&format!(
                    "the servers file changed but cannot be read ({e}); the servers stay as they were"
                ));
                return;
            }
        };
        let changed = self.host.reconfigure(&config);
        if changed.is_empty() {
            return;
        }
        self.recorder
            .info(&format!("the servers file changed: {}", changed.summary()));
        self.reindex();
        self.refresh_description();
    }
}
