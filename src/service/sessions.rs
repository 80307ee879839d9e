//! Tool sessions: append-only loaded sets in first-load order, scoped per API
//! key, forgotten after idle time, bounded in number.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use super::ServiceError;
use crate::catalog::{Catalog, Tool};

struct Session {
    fingerprint: u128,
    loaded: Vec<String>,
    /// The loaded tools' definitions, in the same order (for provider calls),
    /// shared by every session that loaded the same tool of one catalog.
    defs: Vec<Arc<Tool>>,
    last_used: Instant,
    /// Tie-breaker among sessions used at the same instant.
    seq: u64,
}

type Key = super::session_key::MemoryKey;

/// Every live session, keyed by (hash of the API key, encoded session id:
/// the identity Redis uses too, [`super::session_key`]), with an index by
/// last use: expiring, evicting and touching a session cost O(log n),
/// whatever the number of sessions.
pub(crate) struct Sessions {
    map: HashMap<Key, Session>,
    by_age: BTreeMap<(Instant, u64), Key>,
    next_seq: u64,
    /// A session unused this long is forgotten.
    idle: Duration,
    /// At most this many sessions are kept (least recently used go first).
    max_sessions: usize,
    /// One copy of each (catalog fingerprint, tool index) that live
    /// sessions hold (the fingerprint covers every tool's name, in order).
    interned: HashMap<(u128, usize), Weak<Tool>>,
    /// `interned` drops its dead entries when it grows past this.
    prune_at: usize,
}

/// The shared copy of tool `index` of `catalog`, whose fingerprint is
/// `fingerprint`.
fn intern(
    interned: &mut HashMap<(u128, usize), Weak<Tool>>,
    fingerprint: u128,
    catalog: &Catalog,
    index: usize,
) -> Arc<Tool> {
    let key = (fingerprint, index);
    if let Some(t) = interned.get(&key).and_then(Weak::upgrade) {
        return t;
    }
    let t = Arc::new(catalog.tools()[index].clone());
    interned.insert(key, Arc::downgrade(&t));
    t
}

/// A new session id: 128 random bits as 32 hex digits.
/// A session as a store recorded a search's tools in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Every tool loaded in it so far, in first-load order.
    pub loaded: Vec<String>,
    /// The store held no such session: this search started it.
    pub new: bool,
}

/// The answer's `session_note` when a search named a session the store
/// did not hold (so it starts anew under that id).
pub const SESSION_NOT_FOUND: &str = "no session with this session_id was held for this API key (never saved, expired, or another key's): a new session starts under it, holding only this search's tools";

/// The answer's `session_note` when its new session could not be saved.
pub const SESSION_NOT_SAVED: &str = "this session could not be saved (the session store did not answer): a search that continues its session_id will start a new session";

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
            by_age: BTreeMap::new(),
            next_seq: 0,
            idle,
            max_sessions: max_sessions.max(1),
            interned: HashMap::new(),
            prune_at: 1024,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    fn remove_oldest(&mut self) {
        if let Some((_, key)) = self.by_age.pop_first() {
            self.map.remove(&key);
        }
    }

    /// Forgets the sessions idle for `idle` or more at `now`.
    fn expire(&mut self, now: Instant) {
        while let Some((&(used, _), _)) = self.by_age.first_key_value() {
            if now.saturating_duration_since(used) < self.idle {
                break;
            }
            self.remove_oldest();
        }
    }

    /// Continues (or creates) session `id` of `scope` and appends the newly
    /// loaded tools; returns every tool loaded in it so far, and whether it
    /// was new.
    pub(crate) fn record(
        &mut self,
        catalog: &Catalog,
        id: &str,
        scope: &str,
        loaded: &[&str],
        now: Instant,
    ) -> Recorded {
        self.expire(now);
        let key = super::session_key::memory_key(id, scope);
        let fingerprint = catalog.fingerprint();
        let new = !self.map.contains_key(&key);
        if let Some(session) = self.map.get(&key) {
            self.by_age.remove(&(session.last_used, session.seq));
        } else {
            while self.map.len() >= self.max_sessions {
                self.remove_oldest();
            }
            self.map.insert(
                key.clone(),
                Session {
                    fingerprint,
                    loaded: Vec::new(),
                    defs: Vec::new(),
                    last_used: now,
                    seq: 0,
                },
            );
        }
        self.next_seq += 1;
        let seq = self.next_seq;
        let Some(session) = self.map.get_mut(&key) else {
            return Recorded::default();
        };
        if session.fingerprint != fingerprint {
            // The catalog changed: keep the loaded tools that still exist.
            session.loaded.retain(|n| catalog.get(n).is_some());
            session.defs = session
                .loaded
                .iter()
                .filter_map(|n| catalog.index_of(n))
                .map(|i| intern(&mut self.interned, fingerprint, catalog, i))
                .collect();
            session.fingerprint = fingerprint;
        }
        for name in loaded {
            if !session.loaded.iter().any(|n| n == name)
                && let Some(i) = catalog.index_of(name)
            {
                session.loaded.push((*name).to_string());
                session
                    .defs
                    .push(intern(&mut self.interned, fingerprint, catalog, i));
            }
        }
        // A clock that went back (tests give instants) keeps the later one.
        session.last_used = session.last_used.max(now);
        session.seq = seq;
        let answer = session.loaded.clone();
        self.by_age.insert((session.last_used, seq), key);
        if self.interned.len() > self.prune_at {
            self.interned.retain(|_, t| t.strong_count() > 0);
            self.prune_at = (2 * self.interned.len()).max(1024);
        }
        Recorded {
            loaded: answer,
            new,
        }
    }

    /// Session `id` of `scope`, touched (a provider call is a use): its
    /// catalog fingerprint and loaded tools' definitions in first-load order.
    /// `None` when unknown or expired.
    pub(crate) fn lookup(
        &mut self,
        id: &str,
        scope: &str,
        now: Instant,
    ) -> Option<(u128, Vec<Tool>)> {
        self.expire(now);
        let key = super::session_key::memory_key(id, scope);
        let session = self.map.get_mut(&key)?;
        self.by_age.remove(&(session.last_used, session.seq));
        self.next_seq += 1;
        session.last_used = session.last_used.max(now);
        session.seq = self.next_seq;
        self.by_age.insert((session.last_used, session.seq), key);
        Some((
            session.fingerprint,
            session.defs.iter().map(|t| Tool::clone(t)).collect(),
        ))
    }
}
