//! Tool sessions: append-only loaded sets in first-load order, scoped per API
//! key, forgotten after idle time, bounded in number.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::ServiceError;
use crate::catalog::Catalog;

struct Session {
    fingerprint: u128,
    loaded: Vec<String>,
    last_used: Instant,
}

/// Every live session, keyed by (hash of the API key, session id).
pub(crate) struct Sessions {
    map: HashMap<(u128, String), Session>,
    calls: u64,
    /// A session unused this long is forgotten.
    idle: Duration,
    /// At most this many sessions are kept.
    max_sessions: usize,
}

/// A new session id: 128 random bits as 32 hex digits.
pub(crate) fn mint_session_id() -> Result<String, ServiceError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| ServiceError {
        status: 500,
        code: "internal",
        message: format!("no randomness for a session id: {e}"),
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Session ids a client may send: 1 to 128 characters of `[A-Za-z0-9-_.:]`.
pub(crate) fn valid_session_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

impl Sessions {
    pub(crate) fn new(idle: Duration, max_sessions: usize) -> Self {
        Sessions {
            map: HashMap::new(),
            calls: 0,
            idle,
            max_sessions: max_sessions.max(1),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// Continues (or creates) session `id` of `scope` and appends the newly
    /// loaded tools; returns every tool loaded in it so far.
    pub(crate) fn record(
        &mut self,
        catalog: &Catalog,
        id: &str,
        scope: &str,
        loaded: &[&str],
        now: Instant,
    ) -> Vec<String> {
        let (idle, max_sessions) = (self.idle, self.max_sessions);
        let scope = xxhash_rust::xxh3::xxh3_128(scope.as_bytes());
        self.calls += 1;
        if self.calls.is_multiple_of(64) || self.map.len() >= max_sessions {
            self.map
                .retain(|_, s| now.saturating_duration_since(s.last_used) < idle);
        }
        let key = (scope, id.to_string());
        let expired = self
            .map
            .get(&key)
            .is_some_and(|s| now.saturating_duration_since(s.last_used) >= idle);
        if expired {
            self.map.remove(&key);
        }
        if !self.map.contains_key(&key) && self.map.len() >= max_sessions {
            // Full of live sessions: forget the least recently used.
            let excess = self.map.len() + 1 - max_sessions;
            let mut by_age: Vec<(Instant, (u128, String))> = self
                .map
                .iter()
                .map(|(k, s)| (s.last_used, k.clone()))
                .collect();
            by_age.sort_by_key(|(t, _)| *t);
            for (_, k) in by_age.into_iter().take(excess) {
                self.map.remove(&k);
            }
        }
        let fingerprint = catalog.fingerprint();
        let session = self.map.entry(key).or_insert_with(|| Session {
            fingerprint,
            loaded: Vec::new(),
            last_used: now,
        });
        if session.fingerprint != fingerprint {
            // The catalog changed: keep the loaded tools that still exist.
            session.loaded.retain(|n| catalog.get(n).is_some());
            session.fingerprint = fingerprint;
        }
        for name in loaded {
            if !session.loaded.iter().any(|n| n == name) {
                session.loaded.push((*name).to_string());
            }
        }
        session.last_used = now;
        session.loaded.clone()
    }
}
