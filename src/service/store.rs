//! Where tool sessions live: this process's memory (the service's own
//! [`Sessions`](super::sessions)), or Redis/Valkey so that several `serve`
//! instances continue each other's sessions.
//!
//! In Redis a session is two keys, both with the idle expiry as their TTL:
//! `toolsift:session:{hash of the API key}:{id}` (a hash: `fp`, the catalog
//! fingerprint, and `t:{name}`, each loaded tool's definition) and
//! `toolsift:order:{hash of the API key}:{id}` (a list: the loaded names in
//! first-load order), the id encoded so that no id, whatever it holds,
//! names another session's keys ([`super::session_key`]).
//! Appends run as one server-side script, so concurrent appends from any
//! number of instances lose nothing and keep first-load order. Caches derived
//! from a request's content (parsed catalogs, indexes, token counts) stay
//! per instance.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::inject::SessionTools;
use super::{PendingSession, Service, session_key, sessions};
use crate::catalog::Tool;

/// `--sessions`: where sessions live.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum StoreSpec {
    #[default]
    Memory,
    /// A `redis://HOST:PORT/DB` URL (also `rediss://`, `valkey://`).
    Redis(String),
}

impl std::str::FromStr for StoreSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if s == "memory" {
            return Ok(StoreSpec::Memory);
        }
        let url = match s.strip_prefix("valkey://") {
            Some(rest) => format!("redis://{rest}"),
            None => s.to_string(),
        };
        if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
            return Err(format!(
                "{s:?}: give \"memory\" or a Redis/Valkey URL such as redis://127.0.0.1:6379/0"
            ));
        }
        redis::Client::open(url.as_str()).map_err(|e| format!("{}: {e}", redacted(s)))?;
        Ok(StoreSpec::Redis(url))
    }
}

/// A URL with any password replaced, for messages and `/healthz`.
pub fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://***@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

/// The session store could not be reached or answered nonsense.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("session store {store} is unavailable: {message}")]
pub struct StoreError {
    pub store: String,
    pub message: String,
}

/// The sessions of a server.
pub enum SessionStore {
    /// The service's own sessions.
    Memory,
    Redis(RedisStore),
}

impl SessionStore {
    /// The store for `spec`. Redis is connected lazily: a server starts (and
    /// serves requests without sessions) while Redis is down.
    pub fn open(spec: &StoreSpec, idle: Duration) -> Result<SessionStore, StoreError> {
        match spec {
            StoreSpec::Memory => Ok(SessionStore::Memory),
            StoreSpec::Redis(url) => RedisStore::open(url, idle).map(SessionStore::Redis),
        }
    }

    pub fn is_memory(&self) -> bool {
        matches!(self, SessionStore::Memory)
    }

    /// `memory`, or the Redis URL without its password.
    pub fn name(&self) -> String {
        match self {
            SessionStore::Memory => "memory".to_string(),
            SessionStore::Redis(r) => r.name.clone(),
        }
    }

    /// Store errors so far.
    pub fn errors(&self) -> u64 {
        match self {
            SessionStore::Memory => 0,
            SessionStore::Redis(r) => r.errors.load(Ordering::Relaxed),
        }
    }

    /// Records a search's session; returns every tool loaded in it so far.
    pub async fn record(
        &self,
        service: &Service,
        pending: &PendingSession,
    ) -> Result<Vec<String>, StoreError> {
        match self {
            SessionStore::Memory => Ok(service.record_pending(pending)),
            SessionStore::Redis(r) => r.count(r.record(pending).await),
        }
    }

    /// Session `id` of `scope`, touched; `None` when unknown or expired.
    pub async fn lookup(
        &self,
        service: &Service,
        id: &str,
        scope: &str,
    ) -> Result<Option<SessionTools>, StoreError> {
        if !sessions::valid_session_id(id) {
            return Ok(None);
        }
        match self {
            SessionStore::Memory => Ok(service.session_tools(id, scope)),
            SessionStore::Redis(r) => {
                let found = r.count(r.lookup(id, scope).await)?;
                Ok(found.map(|(fingerprint, loaded)| SessionTools {
                    loaded,
                    catalog: service.catalog_by_fingerprint(fingerprint),
                }))
            }
        }
    }

    /// Whether the store answers now (`PING`).
    pub async fn check(&self) -> Result<(), StoreError> {
        match self {
            SessionStore::Memory => Ok(()),
            SessionStore::Redis(r) => r.count(r.ping().await),
        }
    }
}

/// Sessions in Redis or Valkey through one multiplexed connection that
/// reconnects by itself.
pub struct RedisStore {
    name: String,
    manager: ConnectionManager,
    idle: Duration,
    errors: AtomicU64,
    append: Arc<redis::Script>,
    touch: Arc<redis::Script>,
}

/// Appends to a session atomically. KEYS: the hash, the order list. ARGV:
/// TTL in ms, the catalog fingerprint, the fingerprint the caller saw when
/// replacing a changed catalog's tools (else empty), then name/definition
/// pairs. A session whose fingerprint differs from the caller's (and not
/// the one it saw) is left as it is and its names returned, for the caller
/// to keep those in the new catalog and try again.
const APPEND: &str = r#"
local cur = redis.call('HGET', KEYS[1], 'fp')
if cur and cur ~= ARGV[2] then
  if ARGV[3] ~= cur then
    return {'changed', cur, redis.call('LRANGE', KEYS[2], 0, -1)}
  end
  redis.call('DEL', KEYS[1], KEYS[2])
end
redis.call('HSET', KEYS[1], 'fp', ARGV[2])
for i = 4, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[1], 't:' .. ARGV[i], ARGV[i + 1]) == 1 then
    redis.call('RPUSH', KEYS[2], ARGV[i])
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return {'ok', ARGV[2], redis.call('LRANGE', KEYS[2], 0, -1)}
"#;

/// Reads a session and renews its TTL. KEYS: the hash, the order list.
/// ARGV: TTL in ms. Returns {fingerprint, name1, def1, ...} or {} when
/// unknown.
const TOUCH: &str = r#"
local fp = redis.call('HGET', KEYS[1], 'fp')
if not fp then return {} end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
local out = {fp}
for _, name in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  local def = redis.call('HGET', KEYS[1], 't:' .. name)
  if def then
    table.insert(out, name)
    table.insert(out, def)
  end
end
return out
"#;

impl RedisStore {
    fn open(url: &str, idle: Duration) -> Result<RedisStore, StoreError> {
        let name = redacted(url);
        let fail = |e: redis::RedisError| StoreError {
            store: name.clone(),
            message: e.to_string(),
        };
        let client = redis::Client::open(url).map_err(fail)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(1)))
            .set_response_timeout(Some(Duration::from_secs(2)))
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(20))
            .set_max_delay(Duration::from_millis(500));
        let manager = ConnectionManager::new_lazy_with_config(client, config).map_err(fail)?;
        Ok(RedisStore {
            name,
            manager,
            idle,
            errors: AtomicU64::new(0),
            append: Arc::new(redis::Script::new(APPEND)),
            touch: Arc::new(redis::Script::new(TOUCH)),
        })
    }

    fn count<T>(&self, r: Result<T, StoreError>) -> Result<T, StoreError> {
        if r.is_err() {
            self.errors.fetch_add(1, Ordering::Relaxed);
        }
        r
    }

    fn error(&self, e: impl std::fmt::Display) -> StoreError {
        StoreError {
            store: self.name.clone(),
            message: e.to_string(),
        }
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.idle.as_millis())
            .unwrap_or(u64::MAX)
            .max(1)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        let mut c = self.manager.clone();
        redis::cmd("PING")
            .query_async::<String>(&mut c)
            .await
            .map(|_| ())
            .map_err(|e| self.error(e))
    }

    async fn record(&self, p: &PendingSession) -> Result<Vec<String>, StoreError> {
        let (hash, order) = session_key::redis_keys(&p.id, &p.scope);
        let fp = format!("{:032x}", p.catalog.fingerprint());
        let mut saw = String::new();
        let mut names = p.loaded.clone();
        // A changed catalog takes one more round; a second change in between
        // (another instance with yet another catalog) one more.
        for _ in 0..4 {
            let mut call = self.append.key(&hash);
            call.key(&order).arg(self.ttl_ms()).arg(&fp).arg(&saw);
            for name in &names {
                if let Some(def) = p.catalog.get(name) {
                    call.arg(name).arg(definition(def));
                }
            }
            let mut c = self.manager.clone();
            let (status, stored_fp, loaded): (String, String, Vec<String>) =
                call.invoke_async(&mut c).await.map_err(|e| self.error(e))?;
            if status == "ok" {
                return Ok(loaded);
            }
            // The catalog changed: keep the loaded tools that still exist,
            // first-load order, then this search's.
            saw = stored_fp;
            let mut kept: Vec<String> = loaded
                .into_iter()
                .filter(|n| p.catalog.get(n).is_some())
                .collect();
            for n in &p.loaded {
                if !kept.contains(n) {
                    kept.push(n.clone());
                }
            }
            names = kept;
        }
        Err(self.error("the session's catalog kept changing under concurrent searches; try again"))
    }

    async fn lookup(&self, id: &str, scope: &str) -> Result<Option<(u128, Vec<Tool>)>, StoreError> {
        let (hash, order) = session_key::redis_keys(id, scope);
        let mut c = self.manager.clone();
        let out: Vec<String> = self
            .touch
            .key(&hash)
            .key(&order)
            .arg(self.ttl_ms())
            .invoke_async(&mut c)
            .await
            .map_err(|e| self.error(e))?;
        let mut items = out.into_iter();
        let Some(fp) = items.next() else {
            return Ok(None);
        };
        let fingerprint = u128::from_str_radix(&fp, 16)
            .map_err(|_| self.error(format!("session {id:?} holds a bad fingerprint")))?;
        let mut tools = Vec::new();
        while let (Some(name), Some(def)) = (items.next(), items.next()) {
            let tool = parse_definition(&def).ok_or_else(|| {
                self.error(format!(
                    "session {id:?} holds a bad definition of tool {name:?}"
                ))
            })?;
            tools.push(tool);
        }
        Ok(Some((fingerprint, tools)))
    }
}

/// A tool as stored in a session: the Caveman wire descriptor.
fn definition(t: &Tool) -> String {
    crate::catalog::export::payload_tool(t, crate::catalog::export::PayloadFormat::Caveman)
        .to_string()
}

fn parse_definition(text: &str) -> Option<Tool> {
    let catalog = crate::catalog::parse(
        &format!("[{text}]"),
        "session",
        "session",
        crate::catalog::SourceKind::Json,
    )
    .ok()?;
    catalog.tools().first().cloned()
}

impl Service {
    /// Records a deferred search's session in this service's own sessions.
    pub fn record_pending(&self, p: &PendingSession) -> Vec<String> {
        let names: Vec<&str> = p.loaded.iter().map(String::as_str).collect();
        super::lock(&self.sessions).record(
            &p.catalog,
            &p.id,
            &p.scope,
            &names,
            std::time::Instant::now(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_and_redaction() {
        assert_eq!("memory".parse::<StoreSpec>(), Ok(StoreSpec::Memory));
        assert_eq!(
            "redis://127.0.0.1:6379/0".parse::<StoreSpec>(),
            Ok(StoreSpec::Redis("redis://127.0.0.1:6379/0".into()))
        );
        assert_eq!(
            "valkey://h:1/2".parse::<StoreSpec>(),
            Ok(StoreSpec::Redis("redis://h:1/2".into()))
        );
        let e = "mem".parse::<StoreSpec>().unwrap_err();
        assert!(e.contains("redis://"), "{e}");
        assert!("redis://h:1/notanumber".parse::<StoreSpec>().is_err());
        assert_eq!(redacted("redis://:secret@h:1/0"), "redis://***@h:1/0");
        assert_eq!(redacted("redis://h:1/0"), "redis://h:1/0");
    }

    #[test]
    fn definitions_round_trip() {
        let mut t = Tool::new("a\u{1b}", "d \"q\"");
        t.input_schema =
            serde_json::json!({"type": "object", "properties": {"x": {"type": "integer"}}});
        t.read_only = true;
        let back = parse_definition(&definition(&t)).unwrap();
        assert_eq!(
            (
                &back.name,
                &back.description,
                &back.input_schema,
                back.read_only
            ),
            (&t.name, &t.description, &t.input_schema, t.read_only)
        );
    }
}
