//! Where tool sessions live: this process's memory (the service's own
//! [`Sessions`](super::sessions)), or Redis/Valkey (one server, or a Redis
//! Cluster) so that several `serve` instances continue each other's
//! sessions.
//!
//! In Redis a session is two keys of one cluster slot ([`redis_store`],
//! [`super::session_key`]); the catalogs sessions were loaded from and the
//! embedding vectors of tool texts are shared there too, content-addressed,
//! bounded in bytes and with an expiry ([`shared`]). Caches built from a
//! request's content (indexes, token counts) stay per instance.

#[cfg(feature = "redis")]
mod definition;
mod limits;
#[cfg(feature = "redis")]
mod redis_conn;
#[cfg(feature = "redis")]
mod redis_store;
#[cfg(feature = "redis")]
mod replicas;
#[cfg(feature = "redis")]
pub mod shared;

use std::sync::Arc;
#[cfg(feature = "redis")]
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::inject::SessionTools;
use super::{PendingSession, Recorded, Service, sessions};
pub use limits::{SharedLimits, SharedStats};
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;

/// `--sessions`: where sessions live.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum StoreSpec {
    #[default]
    Memory,
    /// A `redis://HOST:PORT/DB` URL (also `rediss://`, `valkey://`).
    Redis(String),
    /// A Redis Cluster: `redis://HOST:PORT` URLs of some of its nodes
    /// (from `redis+cluster://HOST:PORT,HOST:PORT`).
    Cluster(Vec<String>),
}

const FORMS: &str = "give \"memory\", a Redis/Valkey URL such as redis://127.0.0.1:6379/0, or a cluster's nodes as redis+cluster://HOST:PORT,HOST:PORT";

/// Why a `--sessions` value names no store; every spec in it is redacted
/// (no password).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadStoreSpec {
    /// A Redis store asked of a build without the redis feature.
    #[error(
        "{0}: this toolsift was built without the redis feature, so sessions live in memory: give \"memory\", or install toolsift with its default features"
    )]
    NoRedis(String),
    /// Neither `memory` nor a Redis/Valkey URL.
    #[error("{0:?}: {FORMS}")]
    Unknown(String),
    /// A Redis URL the client refuses, with its words.
    #[error("{spec}: {reason}")]
    Url { spec: String, reason: String },
    /// A cluster's node that is not `HOST:PORT`.
    #[error("{spec}: {host:?} is not HOST:PORT; {FORMS}")]
    NotHostPort { spec: String, host: String },
}

impl std::str::FromStr for StoreSpec {
    type Err = BadStoreSpec;

    fn from_str(s: &str) -> Result<Self, BadStoreSpec> {
        if s == "memory" {
            return Ok(StoreSpec::Memory);
        }
        #[cfg(not(feature = "redis"))]
        return Err(BadStoreSpec::NoRedis(redacted(s)));
        #[cfg(feature = "redis")]
        Self::parse_redis(s)
    }
}

impl StoreSpec {
    #[cfg(feature = "redis")]
    fn parse_redis(s: &str) -> Result<Self, BadStoreSpec> {
        let cluster = ["redis+cluster://", "valkey+cluster://", "rediss+cluster://"]
            .iter()
            .find_map(|p| {
                s.strip_prefix(p)
                    .map(|rest| (p.starts_with("rediss"), rest))
            });
        if let Some((tls, rest)) = cluster {
            return cluster_nodes(s, rest, tls).map(StoreSpec::Cluster);
        }
        let url = match s.strip_prefix("valkey://") {
            Some(rest) => format!("redis://{rest}"),
            None => s.to_string(),
        };
        if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
            return Err(BadStoreSpec::Unknown(s.to_string()));
        }
        redis::Client::open(url.as_str()).map_err(|e| BadStoreSpec::Url {
            spec: redacted(s),
            reason: e.to_string(),
        })?;
        Ok(StoreSpec::Redis(url))
    }
}

#[cfg(feature = "redis")]
/// The node URLs of `redis+cluster://[USER:PASSWORD@]HOST:PORT,HOST:PORT`:
/// the credentials, when given, apply to every node.
fn cluster_nodes(spec: &str, rest: &str, tls: bool) -> Result<Vec<String>, BadStoreSpec> {
    let (auth, hosts) = match rest.rfind('@') {
        Some(at) => (&rest[..=at], &rest[at + 1..]),
        None => ("", rest),
    };
    let hosts = hosts.trim_end_matches('/');
    let scheme = if tls { "rediss" } else { "redis" };
    let mut nodes = Vec::new();
    for host in hosts.split(',') {
        let host = host.trim();
        let port_ok = host
            .rsplit_once(':')
            .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok());
        if !port_ok || host.contains('/') {
            return Err(BadStoreSpec::NotHostPort {
                spec: redacted(spec),
                host: host.to_string(),
            });
        }
        let url = format!("{scheme}://{auth}{host}");
        redis::Client::open(url.as_str()).map_err(|e| BadStoreSpec::Url {
            spec: redacted(spec),
            reason: e.to_string(),
        })?;
        nodes.push(url);
    }
    Ok(nodes)
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

/// How a shared store is used: its sessions' expiry, the replicas a
/// session write waits for, and the bounds of what is shared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOptions {
    /// A session unused this long is forgotten.
    pub idle: Duration,
    /// Replicas that must hold a session write before it is answered
    /// (`WAIT`, up to [`replicas::WAIT_MS`]); 0 answers at once.
    pub wait_replicas: u32,
    pub shared: SharedLimits,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            idle: Duration::from_secs(30 * 60),
            wait_replicas: 0,
            shared: SharedLimits::default(),
        }
    }
}

/// The sessions of a server.
pub enum SessionStore {
    /// The service's own sessions.
    Memory,
    #[cfg(feature = "redis")]
    Redis(RedisStore),
}

impl SessionStore {
    /// The store for `spec`. Redis is connected lazily: a server starts (and
    /// serves requests without sessions) while Redis is down.
    pub fn open(spec: &StoreSpec, options: &StoreOptions) -> Result<SessionStore, StoreError> {
        #[cfg(not(feature = "redis"))]
        let _ = options;
        match spec {
            StoreSpec::Memory => Ok(SessionStore::Memory),
            #[cfg(not(feature = "redis"))]
            StoreSpec::Redis(url) => Err(StoreError {
                store: redacted(url),
                message: "this toolsift was built without the redis feature".into(),
            }),
            #[cfg(not(feature = "redis"))]
            StoreSpec::Cluster(_) => Err(StoreError {
                store: "redis+cluster".into(),
                message: "this toolsift was built without the redis feature".into(),
            }),
            #[cfg(feature = "redis")]
            StoreSpec::Redis(url) => {
                RedisStore::open(&redacted(url), redis_conn::Conn::single(url), options)
                    .map(SessionStore::Redis)
            }
            #[cfg(feature = "redis")]
            StoreSpec::Cluster(nodes) => {
                let name = format!(
                    "redis+cluster://{}",
                    nodes
                        .iter()
                        .map(|n| redacted(n)
                            .split_once("://")
                            .map_or(n.clone(), |(_, h)| h.to_string()))
                        .collect::<Vec<_>>()
                        .join(",")
                );
                RedisStore::open(&name, redis_conn::Conn::cluster(nodes), options)
                    .map(SessionStore::Redis)
            }
        }
    }

    pub fn is_memory(&self) -> bool {
        matches!(self, SessionStore::Memory)
    }

    /// `memory`, or the Redis URL without its password.
    pub fn name(&self) -> String {
        match self {
            SessionStore::Memory => "memory".to_string(),
            #[cfg(feature = "redis")]
            SessionStore::Redis(r) => r.name.clone(),
        }
    }

    /// Store errors so far.
    pub fn errors(&self) -> u64 {
        match self {
            SessionStore::Memory => 0,
            #[cfg(feature = "redis")]
            SessionStore::Redis(r) => r.errors.load(Ordering::Relaxed),
        }
    }

    /// Session writes answered before the replicas asked for held them.
    pub fn unreplicated(&self) -> u64 {
        match self {
            SessionStore::Memory => 0,
            #[cfg(feature = "redis")]
            SessionStore::Redis(r) => r.unreplicated(),
        }
    }

    /// Of them, writes not waited on: their primary had too few replicas.
    pub fn replica_waits_skipped(&self) -> u64 {
        match self {
            SessionStore::Memory => 0,
            #[cfg(feature = "redis")]
            SessionStore::Redis(r) => r.replica_waits_skipped(),
        }
    }

    /// What the shared catalogs and vectors have done, with a shared store.
    pub fn shared_stats(&self) -> Option<SharedStats> {
        match self {
            SessionStore::Memory => None,
            #[cfg(feature = "redis")]
            SessionStore::Redis(r) => Some(r.shared.stats()),
        }
    }

    /// The shared vectors, for an embedding provider's cache.
    pub fn shared_vectors(&self) -> Option<Arc<dyn crate::embed::SharedVectors>> {
        match self {
            SessionStore::Memory => None,
            #[cfg(feature = "redis")]
            SessionStore::Redis(r) => Some(r.shared.clone()),
        }
    }

    /// Records a search's session; returns every tool loaded in it so far.
    /// The session's catalog is shared for the other instances.
    pub async fn record(
        &self,
        service: &Service,
        pending: &PendingSession,
    ) -> Result<Recorded, StoreError> {
        match self {
            SessionStore::Memory => Ok(service.record_pending(pending)),
            #[cfg(feature = "redis")]
            SessionStore::Redis(r) => {
                let recorded = r.count(r.record(pending).await)?;
                r.shared.offer_catalog(&pending.scope, &pending.catalog);
                Ok(recorded)
            }
        }
    }

    /// Session `id` of `scope`, touched; `None` when unknown or expired.
    /// Its catalog comes from this instance's caches, else from the shared
    /// store (and is then cached here).
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
            #[cfg(feature = "redis")]
            SessionStore::Redis(r) => {
                let Some((fingerprint, loaded)) = r.count(r.lookup(id, scope).await)? else {
                    return Ok(None);
                };
                let catalog = match service.catalog_by_fingerprint(fingerprint) {
                    Some(c) => Some(c),
                    None => r
                        .shared
                        .catalog(scope, fingerprint)
                        .await
                        .map(|c| service.adopt_catalog(c)),
                };
                Ok(Some(SessionTools { loaded, catalog }))
            }
        }
    }

    /// Whether the store answers now (`PING`).
    pub async fn check(&self) -> Result<(), StoreError> {
        match self {
            SessionStore::Memory => Ok(()),
            #[cfg(feature = "redis")]
            SessionStore::Redis(r) => r.count(r.ping().await),
        }
    }
}

impl Service {
    /// Records a deferred search's session in this service's own sessions.
    pub fn record_pending(&self, p: &PendingSession) -> Recorded {
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

#[cfg(all(test, not(feature = "redis")))]
mod tests_without_redis {
    use super::*;

    #[test]
    fn a_redis_url_says_the_build_has_no_redis() {
        let e = "redis://:secret@h:1/0"
            .parse::<StoreSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("built without the redis feature"), "{e}");
        assert!(!e.contains("secret"), "{e}");
        assert_eq!("memory".parse::<StoreSpec>(), Ok(StoreSpec::Memory));
    }
}

#[cfg(all(test, feature = "redis"))]
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
        let e = "mem".parse::<StoreSpec>().unwrap_err().to_string();
        assert!(e.contains("redis://"), "{e}");
        assert!("redis://h:1/notanumber".parse::<StoreSpec>().is_err());
        assert_eq!(redacted("redis://:secret@h:1/0"), "redis://***@h:1/0");
        assert_eq!(redacted("redis://h:1/0"), "redis://h:1/0");
    }

    #[test]
    fn a_bad_spec_says_what_it_is_and_the_forms() {
        assert_eq!(
            "mem".parse::<StoreSpec>().unwrap_err().to_string(),
            format!("\"mem\": {FORMS}")
        );
        assert_eq!(
            "redis+cluster://:pw@a,b:2"
                .parse::<StoreSpec>()
                .unwrap_err()
                .to_string(),
            format!("redis+cluster://***@a,b:2: \"a\" is not HOST:PORT; {FORMS}")
        );
    }

    #[test]
    fn cluster_specs_list_their_nodes() {
        assert_eq!(
            "redis+cluster://127.0.0.1:7000,127.0.0.1:7001".parse::<StoreSpec>(),
            Ok(StoreSpec::Cluster(vec![
                "redis://127.0.0.1:7000".into(),
                "redis://127.0.0.1:7001".into()
            ]))
        );
        assert_eq!(
            "valkey+cluster://:pw@a:1,b:2/".parse::<StoreSpec>(),
            Ok(StoreSpec::Cluster(vec![
                "redis://:pw@a:1".into(),
                "redis://:pw@b:2".into()
            ]))
        );
        for bad in [
            "redis+cluster://",
            "redis+cluster://a",
            "redis+cluster://a:1,,b:2",
            "redis+cluster://a:99999",
            "redis+cluster://:secret@a:1/0",
        ] {
            let e = bad.parse::<StoreSpec>().unwrap_err().to_string();
            assert!(e.contains("HOST:PORT"), "{bad}: {e}");
            assert!(!e.contains("secret"), "{bad}: {e}");
        }
    }
}
