//! The servers file read again while the host runs: servers it added start
//! in the background (as at the start), servers it took out are stopped,
//! and a server whose entry changed (its command, arguments, environment,
//! URL or headers) is stopped and started again as the file now says.
//! Servers the file left as they were keep their connections.

use std::sync::atomic::Ordering;

use super::McpHost;
use super::background::keep_starting;
use super::config::McpConfig;
use super::host::Entry;
use super::reaper::kill_group;
use crate::lock::lock;

/// What a new configuration changed, by server name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reconfigured {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
}

impl Reconfigured {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }

    /// "added a, b; removed c; changed d", for a log line.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for (what, names) in [
            ("added", &self.added),
            ("removed", &self.removed),
            ("changed", &self.changed),
        ] {
            if !names.is_empty() {
                parts.push(format!("{what} {}", names.join(", ")));
            }
        }
        if parts.is_empty() {
            "no server changed".into()
        } else {
            parts.join("; ")
        }
    }
}

impl McpHost {
    /// Makes the running servers those of `config`: starts the new ones in
    /// the background (each announced as a change once it has listed its
    /// tools, [`McpHost::watch_changes`]), stops those it no longer names,
    /// and restarts those whose entry changed. The always-load patterns and
    /// the start time limit become the config's. Rebuild the catalog after
    /// ([`McpHost::rebuild`]): the servers taken out leave it at once.
    pub fn reconfigure(&self, config: &McpConfig) -> Reconfigured {
        *lock(&self.shared.always_load) = config.always_load.clone();
        *lock(&self.shared.start_timeout) = config.timeout;
        let mut out = Reconfigured::default();
        let mut starts = Vec::new();
        {
            let mut entries = lock(&self.shared.entries);
            let stop = |name: &str| {
                lock(&self.shared.clients).remove(name);
                self.shared.tenants.stop_all(name);
                if let Some(pgid) = lock(&self.shared.pids).remove(name) {
                    kill_group(pgid);
                }
            };
            entries.retain(|e| {
                let kept = config.servers.iter().any(|s| s.name == e.server.name);
                if !kept {
                    out.removed.push(e.server.name.clone());
                    stop(&e.server.name);
                }
                kept
            });
            for server in &config.servers {
                let at = entries.iter().position(|e| e.server.name == server.name);
                if let Some(at) = at {
                    if entries[at].server == *server {
                        continue;
                    }
                    out.changed.push(server.name.clone());
                    stop(&server.name);
                    entries.remove(at);
                } else {
                    out.added.push(server.name.clone());
                }
                let generation = self.shared.generations.fetch_add(1, Ordering::Relaxed) + 1;
                entries.push(Entry::starting(server.clone(), generation));
                starts.push((server.clone(), generation));
            }
            // The file's order is the catalog's.
            entries.sort_by_key(|e| config.servers.iter().position(|s| s.name == e.server.name));
        }
        if !starts.is_empty() {
            // A search waits for the servers in their first start, up to
            // their start limit from now ([`McpHost::first_starts`]).
            *lock(&self.shared.begun) = Some(std::time::Instant::now());
        }
        for (server, generation) in starts {
            let shared = self.shared.clone();
            let limit = config.timeout;
            // Nobody waits for the first try here: its success is a change.
            let (done, _) = std::sync::mpsc::channel();
            self.handle().spawn(async move {
                keep_starting(shared, server, generation, limit, done).await;
            });
        }
        *lock(&self.shared.started) = true;
        out
    }
}
