//! A key's own connection to a server of `"isolation": "per-key"`: started
//! from the server's entry on the key's first call, and again when it has
//! closed or its process exited. The catalog still comes from the
//! server's shared connection.

use std::sync::Arc;

use super::connect::{Client, connect_and_list};
use super::host::Shared;
use super::reaper::kill_group;
use super::{Isolation, McpCallError, McpServer};
use crate::lock::lock;

/// Whether `server`'s keys each have a connection of their own.
pub(super) fn per_key(shared: &Shared, server: &str) -> bool {
    lock(&shared.entries)
        .iter()
        .any(|e| e.server.name == server && e.server.isolation == Isolation::PerKey)
}

/// `key`'s own connection to `server`, started when it has none alive;
/// with `login_as`, it carries that key's own login.
pub(super) async fn connection(
    shared: &Shared,
    server: &str,
    key: &str,
    login_as: Option<&str>,
) -> Result<Arc<Client>, McpCallError> {
    // One start at a time for a key: its concurrent first calls share it.
    let starting = shared.tenants.starting(server, key);
    let _one = starting.lock().await;
    if let Some(client) = shared.tenants.alive(server, key) {
        return Ok(client);
    }
    shared.tenants.stop(server, key);
    let config = lock(&shared.entries)
        .iter()
        .find(|e| e.server.name == server)
        .map(|e| McpServer {
            login_as: login_as.map(str::to_string),
            ..e.server.clone()
        })
        .ok_or_else(|| McpCallError::NoServer(server.to_string()))?;
    let limit = *lock(&shared.start_timeout);
    match connect_and_list(&config, limit, shared.listener(server)).await {
        Ok(connected) => {
            let client = Arc::new(connected.client);
            if let Some(p) = connected.pgid {
                lock(&shared.groups).push(p);
            }
            shared
                .tenants
                .keep(server, key, client.clone(), connected.pgid);
            Ok(client)
        }
        Err(failure) => {
            if let Some(p) = failure.pgid {
                kill_group(p);
            }
            if let (Some(name), Some(_)) = (login_as, &failure.login) {
                return Err(super::key_logins::refused(shared, server, name));
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
