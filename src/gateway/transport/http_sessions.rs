//! The MCP sessions of the gateway over HTTP (the handshake revisions;
//! 2026-07-28 has none), bounded and bound to their key.
//!
//! - **Bound**: a session answers only the API key that opened it; another
//!   key's request naming it is answered as for a session that does not
//!   exist (nothing says it does).
//! - **Bounded**: at most `max` sessions live, and `max_per_key` of one
//!   key (with no API keys, `max` alone). A new session past a limit
//!   closes the idlest one (of that key,
//!   or of all); a request of a session closed that way is answered with
//!   an error that says so, and the host starts a new session (as for any
//!   404). Sessions the host closed or that expired are forgotten first.
//!
//! Counted in `/metrics`: `toolsift_gateway_sessions` (live) and
//! `toolsift_gateway_sessions_evicted_total`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// How many sessions live at once unless configured.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// How many sessions of one API key live at once unless configured.
pub const DEFAULT_MAX_SESSIONS_PER_KEY: usize = 256;
/// How many closed sessions are remembered, to say why a host's next
/// request of one fails.
const REMEMBERED_EVICTIONS: usize = 4096;

/// The limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    pub max: usize,
    pub max_per_key: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            max: DEFAULT_MAX_SESSIONS,
            max_per_key: DEFAULT_MAX_SESSIONS_PER_KEY,
        }
    }
}

struct Live {
    scope: String,
    last_used: Instant,
}

#[derive(Default)]
struct Book {
    live: HashMap<Arc<str>, Live>,
    /// Sessions closed to make room, oldest first.
    evicted: VecDeque<Arc<str>>,
}

/// What a request's session id is, for the key it proved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Known {
    /// Live, and opened with this key.
    Yours,
    /// Live, opened with another key: answered as unknown.
    Others,
    /// Closed to make room for newer sessions.
    Evicted,
    /// Not one of ours (rmcp answers it).
    Unknown,
}

/// The live sessions, their keys and when each was last used.
pub(crate) struct Sessions {
    limits: SessionLimits,
    book: Mutex<Book>,
    manager: Arc<LocalSessionManager>,
}

impl Sessions {
    pub(crate) fn new(limits: SessionLimits, manager: Arc<LocalSessionManager>) -> Sessions {
        Sessions {
            limits,
            book: Mutex::new(Book::default()),
            manager,
        }
    }

    fn book(&self) -> std::sync::MutexGuard<'_, Book> {
        self.book.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What `id` is for `scope`; a session of `scope` counts as used now.
    pub(crate) fn check(&self, id: &str, scope: &str) -> Known {
        let mut book = self.book();
        if let Some(live) = book.live.get_mut(id) {
            if live.scope != scope {
                return Known::Others;
            }
            live.last_used = Instant::now();
            return Known::Yours;
        }
        if book.evicted.iter().any(|e| &**e == id) {
            Known::Evicted
        } else {
            Known::Unknown
        }
    }

    /// Makes room for one more session of `scope`: forgets the sessions
    /// rmcp no longer holds (closed, expired), then closes the idlest while
    /// a limit would be passed.
    pub(crate) async fn make_room(&self, scope: &str) {
        let per_key = self.per_key(scope);
        let (total, mine) = self.counts(scope);
        if total < self.limits.max && mine < per_key {
            return;
        }
        self.forget_closed().await;
        loop {
            let victim = {
                let book = self.book();
                let mine = book.live.values().filter(|l| l.scope == scope).count();
                let of_key = mine >= per_key;
                if !of_key && book.live.len() < self.limits.max {
                    None
                } else {
                    book.live
                        .iter()
                        .filter(|(_, l)| !of_key || l.scope == scope)
                        .min_by_key(|(_, l)| l.last_used)
                        .map(|(id, _)| id.clone())
                }
            };
            let Some(id) = victim else { return };
            self.evict(id).await;
        }
    }

    /// The share of `scope`: with no API keys (every session's scope is
    /// ""), the limit in all.
    fn per_key(&self, scope: &str) -> usize {
        if scope.is_empty() {
            self.limits.max
        } else {
            self.limits.max_per_key
        }
    }

    /// Keeps a session the host just opened with `scope`.
    pub(crate) fn opened(&self, id: &str, scope: &str) {
        let mut book = self.book();
        book.live.insert(
            Arc::from(id),
            Live {
                scope: scope.to_string(),
                last_used: Instant::now(),
            },
        );
        metrics::gauge!("toolsift_gateway_sessions").set(book.live.len() as f64);
    }

    /// Forgets a session the host closed.
    pub(crate) fn closed(&self, id: &str) {
        let mut book = self.book();
        book.live.remove(id);
        metrics::gauge!("toolsift_gateway_sessions").set(book.live.len() as f64);
    }

    /// Live sessions in all, and of `scope`.
    pub(crate) fn counts(&self, scope: &str) -> (usize, usize) {
        let book = self.book();
        let mine = book.live.values().filter(|l| l.scope == scope).count();
        (book.live.len(), mine)
    }

    async fn forget_closed(&self) {
        let ids: Vec<Arc<str>> = self.book().live.keys().cloned().collect();
        let mut gone = Vec::new();
        for id in ids {
            if !self.manager.has_session(&id).await.unwrap_or(false) {
                gone.push(id);
            }
        }
        let mut book = self.book();
        for id in gone {
            book.live.remove(&id);
        }
        metrics::gauge!("toolsift_gateway_sessions").set(book.live.len() as f64);
    }

    async fn evict(&self, id: Arc<str>) {
        {
            let mut book = self.book();
            book.live.remove(&id);
            book.evicted.push_back(id.clone());
            while book.evicted.len() > REMEMBERED_EVICTIONS {
                book.evicted.pop_front();
            }
            metrics::gauge!("toolsift_gateway_sessions").set(book.live.len() as f64);
        }
        metrics::counter!("toolsift_gateway_sessions_evicted_total").increment(1);
        let _ = self.manager.close_session(&id).await;
    }

    pub(crate) fn limits(&self) -> SessionLimits {
        self.limits
    }
}
