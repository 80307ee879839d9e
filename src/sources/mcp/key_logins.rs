//! Each key's own login to a server whose keys each log in (`"login":
//! "per-user"`): a call runs on its key's own connection with its key's
//! own token, and a key with no login of its own is told to make one
//! (`toolsift login SERVER --as KEY`), never lent another's or the
//! shared one. The server's tools are listed once, with its shared login
//! when one is kept, else with the first key's that is (a listing is not
//! a call); the calls are each key's.

use std::collections::HashSet;
use std::sync::{Arc, Weak};
use std::time::Duration;

use super::host::Shared;
use super::key_names::KeyLogins;
use super::login::TokenStore;
use super::{LoginMode, McpCallError, McpHost, McpServer, ServerState, ServerStatus, Transport};
use crate::lock::lock;

/// How often the keys' own logins are looked for (a login made by
/// `toolsift login --as` in another process).
const LOOK_EVERY: Duration = Duration::from_secs(2);

impl McpHost {
    /// The gateway's named keys: a server reached by url with no
    /// `"login"` is per-user when `keys.per_user_default`; the keys' own
    /// logins are looked for now and every few seconds.
    pub fn log_in_per_key(&self, keys: KeyLogins) {
        *lock(&self.shared.key_names.keys) = Some(keys);
        let shared = Arc::downgrade(&self.shared);
        self.handle().spawn(watch(shared));
    }

    /// The per-user servers the key `key` (the identity the gateway
    /// gives its calls) has no login of its own to, each with how that
    /// key logs in (its command, `--as` its name).
    pub fn own_logins_missing(&self, key: Option<&str>) -> Vec<(String, String)> {
        let shared = &self.shared;
        let servers: Vec<String> = lock(&shared.entries)
            .iter()
            .filter(|e| mode(shared, &e.server) == LoginMode::PerUser)
            .map(|e| e.server.name.clone())
            .collect();
        let name = name_of(shared, key);
        let kept = lock(&shared.key_names.kept).clone();
        servers
            .into_iter()
            .filter(|s| {
                !name
                    .as_ref()
                    .is_some_and(|n| kept.contains(&(s.clone(), n.clone())))
            })
            .map(|s| {
                let how = waiting_how(shared, &s, name.as_deref());
                (s, how)
            })
            .collect()
    }

    /// Each server's state as the key `key` sees it: a per-user server it
    /// has no login of its own to waits for that login, and says how to
    /// make it.
    pub fn states_for(&self, key: Option<&str>) -> Vec<ServerStatus> {
        let missing = self.own_logins_missing(key);
        let mut states = self.states();
        for status in &mut states {
            if let Some((_, how)) = missing.iter().find(|(s, _)| *s == status.name) {
                status.state = ServerState::WaitingForLogin { how: how.clone() };
            }
        }
        states
    }
}

/// The name of the key a call was made with. The one place a call's key
/// identity (its digest, or its name once the gateway gives that) is
/// turned into the name its logins are kept under.
fn name_of(shared: &Shared, key: Option<&str>) -> Option<String> {
    let keys = lock(&shared.key_names.keys);
    let keys = keys.as_ref()?;
    let key = key?;
    if keys.names.iter().any(|n| n == key) {
        return Some(key.to_string());
    }
    (keys.name_of)(key)
}

/// How `server`'s login mode is, as written or the gateway's default;
/// with no gateway keys (stdio, the explorer: one user), shared.
fn mode(shared: &Shared, server: &McpServer) -> LoginMode {
    if !matches!(server.transport, Transport::Http { .. }) {
        return LoginMode::Shared;
    }
    let Some(default) = lock(&shared.key_names.keys)
        .as_ref()
        .map(|k| k.per_user_default)
    else {
        return LoginMode::Shared;
    };
    server.login.unwrap_or(if default {
        LoginMode::PerUser
    } else {
        LoginMode::Shared
    })
}

/// Whether `server`'s keys each log in to it.
pub(super) fn per_user(shared: &Shared, server: &str) -> bool {
    let config = lock(&shared.entries)
        .iter()
        .find(|e| e.server.name == server)
        .map(|e| e.server.clone());
    config.is_some_and(|c| mode(shared, &c) == LoginMode::PerUser)
}

/// What a key waiting for its own login to `server` is told: the command
/// that makes it, as that key.
pub(super) fn waiting_how(shared: &Shared, server: &str, name: Option<&str>) -> String {
    let command = shared.logins.command_for(server);
    match name {
        Some(name) => format!(
            "each API key logs in to it as itself, and this key ({name}) has no login of its own yet: log in with `{command} --as {name}`"
        ),
        None => format!(
            "each API key logs in to it as itself, and this key has no name in the gateway's config: name it under [gateway.keys], then log in with `{command} --as NAME`"
        ),
    }
}

/// The key whose own login a call of `key` to `server` carries: none for
/// a shared server; for a per-user one, the key's name once its login is
/// kept, else the call is refused, saying how that key logs in.
pub(super) async fn login_as(
    shared: &Shared,
    server: &str,
    key: Option<&str>,
) -> Result<Option<String>, McpCallError> {
    if !per_user(shared, server) {
        return Ok(None);
    }
    let name = name_of(shared, key);
    let waiting = |name: Option<&str>| McpCallError::NeedsLogin {
        server: server.to_string(),
        message: format!(
            "waiting for login: {}, then call again",
            waiting_how(shared, server, name)
        ),
    };
    let Some(name) = name else {
        return Err(waiting(None));
    };
    let Some(url) = url_of(shared, server) else {
        return Err(McpCallError::NoServer(server.to_string()));
    };
    if !TokenStore::for_key(server, &url, Some(&name)).has_token().await {
        forget(shared, server, &name);
        return Err(waiting(Some(&name)));
    }
    lock(&shared.key_names.kept).insert((server.to_string(), name.clone()));
    Ok(Some(name))
}

/// `name`'s own login to `server` is not (or no longer) kept.
fn forget(shared: &Shared, server: &str, name: &str) {
    lock(&shared.key_names.kept).remove(&(server.to_string(), name.to_string()));
}

/// `name`'s own login to `server` was refused (expired, revoked, or its
/// connection asked for one): the call's error, saying how that key logs
/// in again.
pub(super) fn refused(shared: &Shared, server: &str, name: &str) -> McpCallError {
    forget(shared, server, name);
    let command = shared.logins.command_for(server);
    McpCallError::NeedsLogin {
        server: server.to_string(),
        message: format!(
            "waiting for login: the login of this API key ({name}) was refused or has expired; log in again with `{command} --as {name}`, then call again"
        ),
    }
}

fn url_of(shared: &Shared, server: &str) -> Option<String> {
    lock(&shared.entries)
        .iter()
        .find(|e| e.server.name == server)
        .and_then(|e| match &e.server.transport {
            Transport::Http { url, .. } => Some(url.clone()),
            Transport::Stdio { .. } => None,
        })
}

/// The keys' names (none named: none).
fn names(shared: &Shared) -> Vec<String> {
    lock(&shared.key_names.keys)
        .as_ref()
        .map(|k| k.names.clone())
        .unwrap_or_default()
}

/// `server` as its tools are listed: a per-user server with no shared
/// login kept is listed with the first key's own login that is.
pub(super) async fn listing_config(shared: &Shared, server: &McpServer) -> McpServer {
    let Transport::Http { url, .. } = &server.transport else {
        return server.clone();
    };
    if mode(shared, server) != LoginMode::PerUser
        || TokenStore::new(&server.name, url).has_token().await
    {
        return server.clone();
    }
    for name in names(shared) {
        if TokenStore::for_key(&server.name, url, Some(&name)).has_token().await {
            return McpServer {
                login_as: Some(name),
                ..server.clone()
            };
        }
    }
    server.clone()
}

/// When each login `server` may be listed with was last kept: its shared
/// one, then, for a per-user server, each key's own.
pub(super) async fn stamps(shared: &Shared, server: &McpServer) -> Vec<Option<u64>> {
    let Transport::Http { url, .. } = &server.transport else {
        return Vec::new();
    };
    let mut stamps = vec![TokenStore::new(&server.name, url).stamp().await];
    if mode(shared, server) == LoginMode::PerUser {
        for name in names(shared) {
            stamps.push(TokenStore::for_key(&server.name, url, Some(&name)).stamp().await);
        }
    }
    stamps
}

/// Looks for the keys' own logins to the per-user servers, for as long as
/// the host lives.
async fn watch(shared: Weak<Shared>) {
    loop {
        let Some(strong) = shared.upgrade() else {
            return;
        };
        look(&strong).await;
        drop(strong);
        tokio::time::sleep(LOOK_EVERY).await;
    }
}

/// The (server, key) pairs with a login of the key's own kept, now.
async fn look(shared: &Shared) {
    let servers: Vec<McpServer> = lock(&shared.entries)
        .iter()
        .map(|e| e.server.clone())
        .filter(|s| mode(shared, s) == LoginMode::PerUser)
        .collect();
    let mut kept = HashSet::new();
    for server in servers {
        let Transport::Http { url, .. } = &server.transport else {
            continue;
        };
        for name in names(shared) {
            if TokenStore::for_key(&server.name, url, Some(&name)).has_token().await {
                kept.insert((server.name.clone(), name));
            }
        }
    }
    *lock(&shared.key_names.kept) = kept;
}
