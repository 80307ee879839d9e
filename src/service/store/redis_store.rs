//! Sessions in Redis, Valkey or a Redis Cluster. A session is two keys
//! with the idle expiry as their TTL, of one cluster slot (their hash tag:
//! [`super::super::session_key`]): `toolsift:session:{…}` (a hash: `fp`, the
//! catalog fingerprint, and `t:{name}`, each loaded tool's definition) and
//! `toolsift:order:{…}` (a list: the loaded names in first-load order).
//! Appends run as one server-side script, so concurrent appends from any
//! number of instances lose nothing and keep first-load order.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::definition::{definition, parse_definition};
use super::redis_conn::Conn;
use super::replicas::ReplicaWait;
use super::shared::Shared;
use super::{StoreError, StoreOptions};
use crate::catalog::Tool;
use crate::service::{PendingSession, Recorded, session_key};

/// Sessions in a shared store, through one connection that reconnects by
/// itself ([`Conn`]).
pub struct RedisStore {
    pub(super) name: String,
    conn: Conn,
    idle: Duration,
    replicas: ReplicaWait,
    pub(super) errors: AtomicU64,
    append: Arc<redis::Script>,
    touch: Arc<redis::Script>,
    pub(super) shared: Arc<Shared>,
}

/// Appends to a session atomically. KEYS: the hash, the order list. ARGV:
/// TTL in ms, the catalog fingerprint, the fingerprint the caller saw when
/// replacing a changed catalog's tools (else empty), then name/definition
/// pairs. A session whose fingerprint differs from the caller's (and not
/// the one it saw) is left as it is and its names returned, for the caller
/// to keep those in the new catalog and try again. Otherwise returns
/// `{'ok' (or 'new' for a session it did not hold), fingerprint, names}`.
const APPEND: &str = r#"
local cur = redis.call('HGET', KEYS[1], 'fp')
local status = 'ok'
if not cur then status = 'new' end
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
return {status, ARGV[2], redis.call('LRANGE', KEYS[2], 0, -1)}
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
    pub(super) fn open(
        name: &str,
        conn: redis::RedisResult<Conn>,
        options: &StoreOptions,
    ) -> Result<RedisStore, StoreError> {
        let conn = conn.map_err(|e| StoreError {
            store: name.to_string(),
            message: e.to_string(),
        })?;
        Ok(RedisStore {
            name: name.to_string(),
            shared: Arc::new(Shared::new(name, conn.clone(), &options.shared)),
            conn,
            idle: options.idle,
            replicas: ReplicaWait::new(options.wait_replicas),
            errors: AtomicU64::new(0),
            append: Arc::new(redis::Script::new(APPEND)),
            touch: Arc::new(redis::Script::new(TOUCH)),
        })
    }

    /// Session writes answered although fewer replicas than asked held them.
    pub fn unreplicated(&self) -> u64 {
        self.replicas.unreplicated()
    }

    /// Of them, writes not waited on: their primary had too few replicas.
    pub fn replica_waits_skipped(&self) -> u64 {
        self.replicas.skipped()
    }

    pub(super) fn count<T>(&self, r: Result<T, StoreError>) -> Result<T, StoreError> {
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

    pub(super) async fn ping(&self) -> Result<(), StoreError> {
        let mut c = self.conn.clone();
        redis::cmd("PING")
            .query_async::<String>(&mut c)
            .await
            .map(|_| ())
            .map_err(|e| self.error(e))
    }

    pub(super) async fn record(&self, p: &PendingSession) -> Result<Recorded, StoreError> {
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
            let mut c = self.conn.clone();
            let (status, stored_fp, loaded): (String, String, Vec<String>) =
                call.invoke_async(&mut c).await.map_err(|e| self.error(e))?;
            if status == "ok" || status == "new" {
                self.replicate(&mut c, &hash).await?;
                return Ok(Recorded {
                    loaded,
                    new: status == "new",
                });
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

    /// With replicas asked for: waits until they hold the session's write
    /// (so a failover loses no acknowledged session), as [`ReplicaWait`]
    /// says.
    async fn replicate(&self, c: &mut Conn, key: &str) -> Result<(), StoreError> {
        self.replicas
            .after_write(c, key, &self.name)
            .await
            .map_err(|e| self.error(e))
    }

    pub(super) async fn lookup(
        &self,
        id: &str,
        scope: &str,
    ) -> Result<Option<(u128, Vec<Tool>)>, StoreError> {
        let (hash, order) = session_key::redis_keys(id, scope);
        let mut c = self.conn.clone();
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
