//! The connections of a server whose keys each have their own
//! (`"isolation": "per-key"`): started from the server's entry on a key's
//! first call, kept by (server, key), started again when one has closed or
//! its process exited, and stopped with the server. The catalog still
//! comes from the server's shared connection.

use std::sync::Arc;

use super::connect::{Client, connect_and_list};
use super::host::Shared;
use super::reaper::{has_exited, kill_group};
use super::{Isolation, McpCallError};
use crate::lock::lock;

/// One start at a time of one key's connection.
pub(super) type Starting = Arc<tokio::sync::Mutex<()>>;

/// One key's connection to one server, and its process group.
pub(super) struct Tenant {
    pub(super) client: Arc<Client>,
    pgid: Option<i32>,
}

/// Whether `server`'s keys each have a connection of their own.
pub(super) fn per_key(shared: &Shared, server: &str) -> bool {
    lock(&shared.entries)
        .iter()
        .any(|e| e.server.name == server && e.server.isolation == Isolation::PerKey)
}

/// `key`'s own connection to `server`, started when it has none alive.
pub(super) async fn connection(
    shared: &Shared,
    server: &str,
    key: &str,
) -> Result<Arc<Client>, McpCallError> {
    let id = (server.to_string(), key.to_string());
    // One start at a time for a key: its concurrent first calls share it.
    let starting = lock(&shared.tenant_starts)
        .entry(id.clone())
        .or_default()
        .clone();
    let _one = starting.lock().await;
    if let Some(t) = lock(&shared.tenants).get(&id)
        && !t.client.is_closed()
        && !t.pgid.is_some_and(has_exited)
    {
        return Ok(t.client.clone());
    }
    stop(shared, server, key);
    let config = lock(&shared.entries)
        .iter()
        .find(|e| e.server.name == server)
        .map(|e| e.server.clone())
        .ok_or_else(|| McpCallError::NoServer(server.to_string()))?;
    let limit = *lock(&shared.start_timeout);
    match connect_and_list(&config, limit, shared.listener(server)).await {
        Ok(connected) => {
            let client = Arc::new(connected.client);
            if let Some(p) = connected.pgid {
                lock(&shared.groups).push(p);
            }
            lock(&shared.tenants).insert(
                id,
                Tenant {
                    client: client.clone(),
                    pgid: connected.pgid,
                },
            );
            Ok(client)
        }
        Err(failure) => {
            if let Some(p) = failure.pgid {
                kill_group(p);
            }
            Err(McpCallError::Failed {
                server: server.to_string(),
                message: format!(
                    "its connection for this API key did not start: {}",
                    super::status::with_tail(&failure.why, &failure.stderr_tail)
                ),
            })
        }
    }
}

/// Stops `key`'s connection to `server` (its process is killed).
pub(super) fn stop(shared: &Shared, server: &str, key: &str) {
    let gone = lock(&shared.tenants).remove(&(server.to_string(), key.to_string()));
    if let Some(Tenant {
        pgid: Some(p), ..
    }) = gone
    {
        kill_group(p);
    }
}

/// Stops every key's connection to `server`.
pub(super) fn stop_all(shared: &Shared, server: &str) {
    let gone: Vec<Tenant> = {
        let mut tenants = lock(&shared.tenants);
        let keys: Vec<_> = tenants
            .keys()
            .filter(|(s, _)| s == server)
            .cloned()
            .collect();
        keys.iter().filter_map(|k| tenants.remove(k)).collect()
    };
    for t in gone {
        if let Some(p) = t.pgid {
            kill_group(p);
        }
    }
}
