//! What a fleet of instances shares through the store besides sessions:
//! the catalogs sessions were loaded from, and the embedding vectors of
//! tool texts, so that any instance can add the tools a session's history
//! calls, and a catalog is embedded once for the whole fleet.
//!
//! Both are content-addressed:
//!
//! - `toolsift:catalog:SCOPE:FP`, a catalog by the hash of the API key that
//!   sent it and its fingerprint: the Caveman descriptors of its tools. Kept
//!   per key, so no request of one key is ever answered from a catalog
//!   another key wrote (a crafted fingerprint collision stays within the
//!   key that crafted it). A catalog read back must have the fingerprint it
//!   is stored under.
//! - `toolsift:vec:{NS}:SHA256`, a vector by its namespace (provider, model,
//!   prefix) and the SHA-256 of its text: a cryptographic hash, because
//!   vectors are shared across keys. The namespace is the cluster hash tag,
//!   so one `MGET` reads a catalog's vectors on any cluster.
//!
//! Every entry expires ([`SharedLimits::ttl`]) and what the fleet writes is
//! bounded in bytes ([`SharedLimits::bytes`]): each write first reserves its
//! size in a counter of the current period (one TTL long, on the writer's
//! clock; the counter lives two periods). A period's writes may take half
//! the budget; an entry outlives its period by less than one period, so at
//! any time what is live was written in the current or the previous period
//! and takes at most the budget. A write that does not fit is not made and
//! is counted. Store failures are counted and never fail a search: the
//! instance then parses and embeds for itself.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use redis::AsyncCommands;
use sha2::{Digest, Sha256};

use super::definition::definition;
use super::limits::{SharedLimits, SharedStats};
use super::redis_conn::Conn;
use crate::catalog::{self, Catalog, SourceKind};
use crate::embed::SharedVectors;

/// What the store's own bookkeeping of one key takes, about.
pub const ENTRY_OVERHEAD: u64 = 96;

/// Vectors read in one `MGET`.
const READ_CHUNK: usize = 512;

/// The longest a search waits for the store's vectors.
const VECTOR_WAIT: Duration = Duration::from_secs(3);

#[derive(Default)]
struct Counters {
    catalogs_written: AtomicU64,
    catalogs_fetched: AtomicU64,
    vectors_found: AtomicU64,
    vectors_written: AtomicU64,
    over_budget: AtomicU64,
    errors: AtomicU64,
}

/// Catalogs this instance offered lately: offered again only after a
/// quarter of the expiry.
const OFFERED_MAX: usize = 4096;

pub struct Shared {
    name: String,
    conn: Conn,
    /// The runtime the store's calls run on (the server's), also from the
    /// threads that build rankers.
    runtime: Option<tokio::runtime::Handle>,
    limits: SharedLimits,
    offered: Mutex<HashMap<(u128, u128), Instant>>,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("store", &self.name)
            .field("limits", &self.limits)
            .field("stats", &self.stats())
            .finish()
    }
}

fn catalog_key(scope: &str, fingerprint: u128) -> String {
    format!(
        "toolsift:catalog:{:032x}:{fingerprint:032x}",
        crate::service::session_key::scope_hash(scope)
    )
}

fn vector_key(namespace: &str, text: &str) -> String {
    let ns = xxhash_rust::xxh3::xxh3_128(namespace.as_bytes());
    let digest = Sha256::digest(text.as_bytes());
    let mut key = format!("toolsift:vec:{{{ns:032x}}}:");
    for b in digest {
        use std::fmt::Write as _;
        let _ = write!(key, "{b:02x}");
    }
    key
}

impl Shared {
    pub(super) fn new(name: &str, conn: Conn, limits: &SharedLimits) -> Shared {
        Shared {
            name: name.to_string(),
            conn,
            runtime: tokio::runtime::Handle::try_current().ok(),
            limits: *limits,
            offered: Mutex::new(HashMap::new()),
            counters: Arc::new(Counters::default()),
        }
    }

    pub fn stats(&self) -> SharedStats {
        let c = &self.counters;
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        SharedStats {
            catalogs_written: n(&c.catalogs_written),
            catalogs_fetched: n(&c.catalogs_fetched),
            vectors_found: n(&c.vectors_found),
            vectors_written: n(&c.vectors_written),
            over_budget: n(&c.over_budget),
            errors: n(&c.errors),
        }
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.limits.ttl.as_millis())
            .unwrap_or(u64::MAX)
            .max(1)
    }

    /// A writer: what a background write needs, owned.
    fn writer(&self) -> Writer {
        Writer {
            conn: self.conn.clone(),
            limits: self.limits,
            ttl_ms: self.ttl_ms(),
            counters: self.counters.clone(),
        }
    }

    /// Shares the catalog of a session of `scope` in the background, unless
    /// this instance did so within a quarter of the expiry. Needs a tokio
    /// runtime; without one nothing is shared.
    pub fn offer_catalog(&self, scope: &str, catalog: &Arc<Catalog>) {
        if self.limits.bytes == 0 {
            return;
        }
        let Some(runtime) = self.runtime.clone() else {
            return;
        };
        let id = (
            crate::service::session_key::scope_hash(scope),
            catalog.fingerprint(),
        );
        let now = Instant::now();
        {
            let mut offered = super::super::lock(&self.offered);
            if offered
                .get(&id)
                .is_some_and(|at| now.duration_since(*at) < self.limits.ttl / 4)
            {
                return;
            }
            if offered.len() >= OFFERED_MAX {
                offered.clear();
            }
            offered.insert(id, now);
        }
        let key = catalog_key(scope, catalog.fingerprint());
        let catalog = catalog.clone();
        let writer = self.writer();
        runtime.spawn(async move {
            let Ok(text) = tokio::task::spawn_blocking(move || catalog_text(&catalog)).await else {
                return;
            };
            if writer.put(vec![(key, text.into_bytes())]).await {
                writer
                    .counters
                    .catalogs_written
                    .fetch_add(1, Ordering::Relaxed);
            }
        });
    }

    /// The catalog of `scope` with `fingerprint`, when the store has it
    /// (and it is that catalog).
    pub async fn catalog(&self, scope: &str, fingerprint: u128) -> Option<Arc<Catalog>> {
        let mut c = self.conn.clone();
        let got: Option<Vec<u8>> = match c.get(catalog_key(scope, fingerprint)).await {
            Ok(v) => v,
            Err(_) => {
                self.counters.errors.fetch_add(1, Ordering::Relaxed);
                return None;
            }
        };
        let bytes = got?;
        let parsed = tokio::task::spawn_blocking(move || {
            let text = std::str::from_utf8(&bytes).ok()?;
            catalog::parse(text, "shared", "shared store", SourceKind::Json).ok()
        })
        .await
        .ok()
        .flatten()
        .filter(|c| c.fingerprint() == fingerprint);
        match parsed {
            Some(c) => {
                self.counters
                    .catalogs_fetched
                    .fetch_add(1, Ordering::Relaxed);
                Some(Arc::new(c))
            }
            None => {
                self.counters.errors.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// The vectors of `keys`, waited for on `runtime` from a thread that is
    /// not one of its workers' tasks.
    fn read_vectors(
        &self,
        runtime: &tokio::runtime::Handle,
        keys: Vec<String>,
    ) -> Option<Vec<Option<Vec<u8>>>> {
        let mut conn = self.conn.clone();
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        runtime.spawn(async move {
            let mut out = Vec::with_capacity(keys.len());
            for chunk in keys.chunks(READ_CHUNK) {
                let got: redis::RedisResult<Vec<Option<Vec<u8>>>> =
                    redis::cmd("MGET").arg(chunk).query_async(&mut conn).await;
                match got {
                    Ok(v) if v.len() == chunk.len() => out.extend(v),
                    _ => {
                        let _ = tx.send(None);
                        return;
                    }
                }
            }
            let _ = tx.send(Some(out));
        });
        rx.recv_timeout(VECTOR_WAIT).ok().flatten()
    }
}

/// A catalog as stored: a JSON array of its tools' Caveman descriptors.
fn catalog_text(catalog: &Catalog) -> String {
    let mut text = String::from("[");
    for (i, t) in catalog.tools().iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&definition(t));
    }
    text.push(']');
    text
}

/// What a background write needs, owned.
struct Writer {
    conn: Conn,
    limits: SharedLimits,
    ttl_ms: u64,
    counters: Arc<Counters>,
}

impl Writer {
    /// Writes `entries` with the expiry once their bytes are reserved;
    /// whether they were written.
    async fn put(&self, entries: Vec<(String, Vec<u8>)>) -> bool {
        let size: u64 = entries
            .iter()
            .map(|(k, v)| (k.len() + v.len()) as u64 + ENTRY_OVERHEAD)
            .sum();
        let mut c = self.conn.clone();
        match self.reserve(&mut c, size).await {
            Ok(true) => {}
            Ok(false) => {
                self.counters.over_budget.fetch_add(1, Ordering::Relaxed);
                return false;
            }
            Err(_) => {
                self.counters.errors.fetch_add(1, Ordering::Relaxed);
                return false;
            }
        }
        for (key, value) in entries {
            let r: redis::RedisResult<()> = redis::cmd("SET")
                .arg(&key)
                .arg(value)
                .arg("PX")
                .arg(self.ttl_ms)
                .query_async(&mut c)
                .await;
            if r.is_err() {
                self.counters.errors.fetch_add(1, Ordering::Relaxed);
                return false;
            }
        }
        true
    }

    /// Takes `size` bytes of the current period's half of the budget;
    /// whether they fit.
    async fn reserve(&self, c: &mut Conn, size: u64) -> redis::RedisResult<bool> {
        let half = self.limits.bytes / 2;
        if size > half {
            return Ok(false);
        }
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let key = format!("toolsift:budget:{}", now_ms / self.ttl_ms);
        let (taken, _): (u64, bool) = redis::pipe()
            .cmd("INCRBY")
            .arg(&key)
            .arg(size)
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(self.ttl_ms.saturating_mul(2))
            .query_async(c)
            .await?;
        if taken <= half {
            return Ok(true);
        }
        let _: redis::RedisResult<i64> = c.decr(&key, size).await;
        Ok(false)
    }
}

impl SharedVectors for Shared {
    fn get_many(&self, namespace: &str, texts: &[&str], dim: usize) -> Vec<Option<Vec<f32>>> {
        let none = || vec![None; texts.len()];
        let Some(runtime) = &self.runtime else {
            return none();
        };
        let keys: Vec<String> = texts.iter().map(|t| vector_key(namespace, t)).collect();
        let Some(values) = self.read_vectors(runtime, keys) else {
            self.counters.errors.fetch_add(1, Ordering::Relaxed);
            return none();
        };
        let out: Vec<Option<Vec<f32>>> = values
            .into_iter()
            .map(|v| v.filter(|b| b.len() == 4 * dim).map(|b| decode(&b)))
            .collect();
        let found = out.iter().filter(|v| v.is_some()).count() as u64;
        self.counters
            .vectors_found
            .fetch_add(found, Ordering::Relaxed);
        out
    }

    fn put_many(&self, namespace: &str, pairs: &[(&str, &[f32])]) {
        if self.limits.bytes == 0 || pairs.is_empty() {
            return;
        }
        let Some(runtime) = &self.runtime else {
            return;
        };
        let entries: Vec<(String, Vec<u8>)> = pairs
            .iter()
            .map(|(t, v)| (vector_key(namespace, t), encode(v)))
            .collect();
        let n = entries.len() as u64;
        let writer = self.writer();
        runtime.spawn(async move {
            if writer.put(entries).await {
                writer
                    .counters
                    .vectors_written
                    .fetch_add(n, Ordering::Relaxed);
            }
        });
    }
}

fn encode(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn decode(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_per_scope_for_catalogs_and_by_sha256_for_vectors() {
        assert_ne!(catalog_key("a", 7), catalog_key("b", 7));
        assert_ne!(catalog_key("a", 7), catalog_key("a", 8));
        let k = vector_key("local|m|", "hello");
        // SHA-256 of "hello".
        assert!(
            k.ends_with(":2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"),
            "{k}"
        );
        assert!(k.starts_with("toolsift:vec:{"), "{k}");
        assert_ne!(vector_key("other", "hello"), k);
    }

    #[test]
    fn vectors_and_catalogs_round_trip() {
        let v = [0.5f32, -1.25, 3.0e-7];
        assert_eq!(decode(&encode(&v)), v);
        let mut t = crate::catalog::Tool::new("a", "does \"a\"");
        t.read_only = true;
        let c = Catalog::new("c", vec![t, crate::catalog::Tool::new("b", "b")]).unwrap();
        let back = catalog::parse(&catalog_text(&c), "s", "s", SourceKind::Json).unwrap();
        assert_eq!(back.fingerprint(), c.fingerprint());
        assert!(back.tools()[0].read_only);
    }
}
