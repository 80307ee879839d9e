//! The connections of a server whose keys each have their own
//! (`"isolation": "per-key"`), kept by (server, key): a key's live
//! connection, one start at a time for it, and stopping them (their
//! processes killed). `own_connection.rs` starts them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::connect::Client;
use super::reaper::{has_exited, kill_group};
use crate::lock::lock;

/// One start at a time of one key's connection.
pub(super) type Starting = Arc<tokio::sync::Mutex<()>>;

/// One key's connection to one server, and its process group.
struct Tenant {
    client: Arc<Client>,
    pgid: Option<i32>,
}

/// Every key's own connections.
#[derive(Default)]
pub(super) struct Tenants {
    live: Mutex<HashMap<(String, String), Tenant>>,
    starting: Mutex<HashMap<(String, String), Starting>>,
}

fn id(server: &str, key: &str) -> (String, String) {
    (server.to_string(), key.to_string())
}

impl Tenants {
    /// The lock a start of `key`'s connection to `server` holds.
    pub(super) fn starting(&self, server: &str, key: &str) -> Starting {
        lock(&self.starting)
            .entry(id(server, key))
            .or_default()
            .clone()
    }

    /// `key`'s connection to `server`, while it is open and its process
    /// runs.
    pub(super) fn alive(&self, server: &str, key: &str) -> Option<Arc<Client>> {
        lock(&self.live)
            .get(&id(server, key))
            .filter(|t| !t.client.is_closed() && !t.pgid.is_some_and(has_exited))
            .map(|t| t.client.clone())
    }

    /// Keeps `client` as `key`'s connection to `server`.
    pub(super) fn keep(&self, server: &str, key: &str, client: Arc<Client>, pgid: Option<i32>) {
        lock(&self.live).insert(id(server, key), Tenant { client, pgid });
    }

    /// Stops `key`'s connection to `server` (its process is killed).
    pub(super) fn stop(&self, server: &str, key: &str) {
        let gone = lock(&self.live).remove(&id(server, key));
        if let Some(Tenant { pgid: Some(p), .. }) = gone {
            kill_group(p);
        }
    }

    /// Stops every key's connection to `server`.
    pub(super) fn stop_all(&self, server: &str) {
        let gone: Vec<Tenant> = {
            let mut live = lock(&self.live);
            let keys: Vec<_> = live.keys().filter(|(s, _)| s == server).cloned().collect();
            keys.iter().filter_map(|k| live.remove(k)).collect()
        };
        for t in gone {
            if let Some(p) = t.pgid {
                kill_group(p);
            }
        }
    }

    /// Forgets every connection (their processes are killed with the
    /// host's groups).
    pub(super) fn clear(&self) {
        lock(&self.live).clear();
    }
}
