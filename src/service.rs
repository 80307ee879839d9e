//! The compatible tool-search service, transport-free (CONTRACT §3-4).
//!
//! [`Service::tool_search`] takes a validated catalog and the request's
//! parameters and returns the loaded set for this turn: every always-load
//! tool, then the best-ranked others, at most `max_tools` in all (default 8),
//! never padded with tools that match nothing. It keeps sessions
//! (append-only loaded sets, scoped per API key, idle expiry, bounded count),
//! an index cache keyed by catalog fingerprint and per-catalog token costs, so
//! a repeated catalog is parsed and hashed but never re-indexed or
//! re-tokenized. [`Service::tool_search_json`] is the same call from a wire
//! request body to a wire response, for the HTTP server.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::catalog::{self, Catalog, SourceKind};
use crate::engine::{Explanation, Index, Ranker};
use crate::tokens::{TokenBasis, TokenCounter};
use crate::wire::{
    ErrorBody, ErrorDetail, ToolSearchRequest, ToolSearchResponse, WireMatch, WireSelectedTool,
    WireTool,
};

/// `max_tools` when a request gives none (CONTRACT §4: server default 8).
pub const DEFAULT_MAX_TOOLS: u64 = 8;

/// Limits and defaults of a service.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceConfig {
    /// `max_tools` when a request gives none.
    pub default_max_tools: u64,
    /// Largest catalog a request may carry.
    pub max_catalog_tools: usize,
    /// A session unused this long is forgotten.
    pub session_idle: Duration,
    /// At most this many sessions are kept (least recently used go first).
    pub max_sessions: usize,
    /// Catalog indexes kept (least recently used go first).
    pub index_cache_size: usize,
    /// Token basis when a request names none.
    pub token_basis: TokenBasis,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            default_max_tools: DEFAULT_MAX_TOOLS,
            max_catalog_tools: 10_000,
            session_idle: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            index_cache_size: 16,
            token_basis: TokenBasis::O200kBase,
        }
    }
}

/// A failed request: an HTTP status, a stable code and a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ServiceError {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
}

impl ServiceError {
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        ServiceError {
            status: 400,
            code,
            message: message.into(),
        }
    }

    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                code: self.code.to_string(),
                message: self.message.clone(),
            },
        }
    }
}

/// The parameters of one search, already typed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SearchParams {
    pub query: String,
    pub context: Option<String>,
    /// Must be at least 1 when given.
    pub max_tools: Option<u64>,
    pub session_id: Option<String>,
    /// The service's default (BM25F) when `None`.
    pub ranker: Option<Ranker>,
    pub token_basis: Option<TokenBasis>,
    /// A preview (the explorer's search as you type): the session is neither
    /// created nor extended; `session_id` comes back as given, or empty.
    pub preview: bool,
}

/// Why a tool is in the loaded set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    AlwaysLoad,
    ExactName,
    Ranked,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::AlwaysLoad => "always_load",
            Reason::ExactName => "exact_name",
            Reason::Ranked => "ranked",
        }
    }
}

/// One tool of the loaded set.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    /// Index in the request's catalog.
    pub index: usize,
    pub score: f32,
    pub reason: Reason,
    pub explanation: Explanation,
}

/// The answer to one search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOutcome {
    pub tools: Vec<Selected>,
    pub full_schema_tokens: u64,
    pub sent_schema_tokens: u64,
    pub deferred_count: u64,
    pub method: &'static str,
    pub token_basis: TokenBasis,
    pub session_id: String,
    /// Every tool loaded in the session so far, in first-load order.
    pub session_tools: Vec<String>,
    pub note: Option<String>,
    /// Schema tokens of every catalog tool, in catalog order.
    pub tool_tokens: Arc<Vec<u64>>,
}

/// Counters that show what the caches saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServiceStats {
    pub searches: u64,
    pub index_builds: u64,
    pub index_cache_hits: u64,
    pub cost_vectors: u64,
    /// Request catalogs parsed (a byte-identical catalog is parsed once).
    pub catalog_parses: u64,
    /// Tool definitions actually run through a tokenizer.
    pub tokenized: u64,
    pub sessions: usize,
}

struct Session {
    fingerprint: u128,
    loaded: Vec<String>,
    last_used: Instant,
}

#[derive(Default)]
struct Sessions {
    map: HashMap<(u128, String), Session>,
    calls: u64,
}

/// A small least-recently-used map (linear scans: it holds a handful).
struct Lru<K, V> {
    entries: Vec<(K, V, u64)>,
    clock: u64,
    capacity: usize,
}

impl<K: PartialEq, V: Clone> Lru<K, V> {
    fn new(capacity: usize) -> Self {
        Lru {
            entries: Vec::new(),
            clock: 0,
            capacity: capacity.max(1),
        }
    }

    fn get(&mut self, key: &K) -> Option<V> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.iter_mut().find(|e| e.0 == *key).map(|e| {
            e.2 = clock;
            e.1.clone()
        })
    }

    fn get_or_insert(&mut self, key: K, make: impl FnOnce() -> V) -> V {
        self.clock += 1;
        if let Some(e) = self.entries.iter_mut().find(|e| e.0 == key) {
            e.2 = self.clock;
            return e.1.clone();
        }
        if self.entries.len() >= self.capacity
            && let Some(oldest) = self
                .entries
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| e.2)
                .map(|(i, _)| i)
        {
            self.entries.swap_remove(oldest);
        }
        let value = make();
        self.entries.push((key, value.clone(), self.clock));
        value
    }
}

type Cell<T> = Arc<OnceLock<Arc<T>>>;
type CostCache = Lru<(u128, TokenBasis), Cell<Vec<u64>>>;

/// The service. Share it in an `Arc`; every method takes `&self`.
pub struct Service {
    config: ServiceConfig,
    indexes: Mutex<Lru<u128, Cell<Index>>>,
    costs: Mutex<CostCache>,
    /// Parsed request catalogs keyed by a hash of their exact JSON text.
    parsed: Mutex<Lru<u128, Arc<Catalog>>>,
    catalog_parses: AtomicU64,
    counter: TokenCounter,
    sessions: Mutex<Sessions>,
    searches: AtomicU64,
    index_builds: AtomicU64,
    index_cache_hits: AtomicU64,
    cost_vectors: AtomicU64,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("config", &self.config)
            .field("stats", &self.stats())
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A new session id: 128 random bits as 32 hex digits.
fn mint_session_id() -> Result<String, ServiceError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| ServiceError {
        status: 500,
        code: "internal",
        message: format!("no randomness for a session id: {e}"),
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn valid_session_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

impl Default for Service {
    fn default() -> Self {
        Self::new(ServiceConfig::default())
    }
}

impl Service {
    pub fn new(config: ServiceConfig) -> Self {
        Service {
            indexes: Mutex::new(Lru::new(config.index_cache_size)),
            costs: Mutex::new(Lru::new(config.index_cache_size * 3)),
            parsed: Mutex::new(Lru::new(config.index_cache_size)),
            catalog_parses: AtomicU64::new(0),
            config,
            counter: TokenCounter::new(),
            sessions: Mutex::new(Sessions::default()),
            searches: AtomicU64::new(0),
            index_builds: AtomicU64::new(0),
            index_cache_hits: AtomicU64::new(0),
            cost_vectors: AtomicU64::new(0),
        }
    }

    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    pub fn stats(&self) -> ServiceStats {
        ServiceStats {
            searches: self.searches.load(Ordering::Relaxed),
            index_builds: self.index_builds.load(Ordering::Relaxed),
            index_cache_hits: self.index_cache_hits.load(Ordering::Relaxed),
            cost_vectors: self.cost_vectors.load(Ordering::Relaxed),
            catalog_parses: self.catalog_parses.load(Ordering::Relaxed),
            tokenized: self.counter.tokenized_count(),
            sessions: lock(&self.sessions).map.len(),
        }
    }

    /// The index of `catalog`, built once per fingerprint.
    pub fn index_for(&self, catalog: &Catalog) -> Arc<Index> {
        let fp = catalog.fingerprint();
        let cell = lock(&self.indexes).get_or_insert(fp, || Arc::new(OnceLock::new()));
        let mut built = false;
        let index = cell
            .get_or_init(|| {
                built = true;
                Arc::new(Index::build(catalog.tools()))
            })
            .clone();
        let counter = if built {
            &self.index_builds
        } else {
            &self.index_cache_hits
        };
        counter.fetch_add(1, Ordering::Relaxed);
        index
    }

    /// Every tool's schema tokens with `basis`, computed once per fingerprint.
    pub fn costs_for(&self, catalog: &Catalog, basis: TokenBasis) -> Arc<Vec<u64>> {
        let key = (catalog.fingerprint(), basis);
        let cell = lock(&self.costs).get_or_insert(key, || Arc::new(OnceLock::new()));
        cell.get_or_init(|| {
            self.cost_vectors.fetch_add(1, Ordering::Relaxed);
            Arc::new(self.counter.tools_tokens(catalog.tools(), basis))
        })
        .clone()
    }

    /// One search, for the API key `scope` (empty for none).
    pub fn tool_search(
        &self,
        catalog: &Catalog,
        params: &SearchParams,
        scope: &str,
    ) -> Result<SearchOutcome, ServiceError> {
        self.tool_search_at(catalog, params, scope, Instant::now())
    }

    /// [`Service::tool_search`] at a given time (for session expiry tests).
    pub fn tool_search_at(
        &self,
        catalog: &Catalog,
        params: &SearchParams,
        scope: &str,
        now: Instant,
    ) -> Result<SearchOutcome, ServiceError> {
        match params.ranker.unwrap_or_default() {
            Ranker::Bm25 => {}
            Ranker::Embeddings => {
                return Err(ServiceError::bad_request(
                    "ranker_unavailable",
                    "ranker \"embeddings\" needs an embedding provider and none is configured; use \"bm25\"",
                ));
            }
        }
        if catalog.len() > self.config.max_catalog_tools {
            return Err(ServiceError::bad_request(
                "too_many_tools",
                format!(
                    "the catalog has {} tools; this service accepts at most {}",
                    catalog.len(),
                    self.config.max_catalog_tools
                ),
            ));
        }
        if let Some(id) = &params.session_id
            && !valid_session_id(id)
        {
            return Err(ServiceError::bad_request(
                "invalid_session_id",
                "session_id must be 1 to 128 characters of letters, digits, '-', '_', '.' or ':'",
            ));
        }
        let always: Vec<usize> = (0..catalog.len())
            .filter(|&i| catalog.tools()[i].always_load)
            .collect();
        let cap = match params.max_tools {
            Some(0) => {
                return Err(ServiceError::bad_request(
                    "invalid_max_tools",
                    "max_tools must be a positive integer",
                ));
            }
            Some(m) if (m as usize) < always.len() => {
                return Err(ServiceError::bad_request(
                    "max_tools_below_always_load",
                    format!(
                        "max_tools is {m} but the catalog has {} always-load tools, which are always loaded; max_tools must be at least {}",
                        always.len(),
                        always.len()
                    ),
                ));
            }
            Some(m) => m as usize,
            // The default never drops an always-load tool.
            None => (self.config.default_max_tools as usize).max(always.len()),
        };
        self.searches.fetch_add(1, Ordering::Relaxed);
        let basis = params.token_basis.unwrap_or(self.config.token_basis);
        let index = self.index_for(catalog);
        let costs = self.costs_for(catalog, basis);
        let query = params.query.as_str();
        let context = params.context.as_deref().filter(|c| !c.trim().is_empty());

        let room = cap - always.len();
        let hits = if room > 0 {
            index.search(query, context, room + always.len())
        } else {
            Vec::new()
        };
        let ranked: Vec<_> = hits
            .iter()
            .filter(|h| !catalog.tools()[h.doc].always_load)
            .take(room)
            .collect();
        let docs: Vec<usize> = always
            .iter()
            .copied()
            .chain(ranked.iter().map(|h| h.doc))
            .collect();
        let explanations = index.explain_many(query, context, &docs);
        let mut tools = Vec::with_capacity(docs.len());
        for (i, (doc, explanation)) in docs.iter().zip(explanations).enumerate() {
            let (score, reason) = if i < always.len() {
                let score = hits.iter().find(|h| h.doc == *doc).map_or_else(
                    || explanation.matches.iter().fold(0.0, |acc, m| acc + m.score),
                    |h| h.score,
                );
                (score, Reason::AlwaysLoad)
            } else {
                let hit = ranked[i - always.len()];
                let reason = if hit.exact {
                    Reason::ExactName
                } else {
                    Reason::Ranked
                };
                (hit.score, reason)
            };
            tools.push(Selected {
                index: *doc,
                score,
                reason,
                explanation,
            });
        }

        let note = if !ranked.is_empty() {
            None
        } else if room == 0 {
            Some(format!(
                "max_tools {cap} leaves no room beyond the {} always-load tools",
                always.len()
            ))
        } else if query.trim().is_empty() && context.is_none() {
            Some(if always.is_empty() {
                "empty query: nothing to rank, so no tool is loaded".to_string()
            } else {
                "empty query: only the always-load tools are loaded".to_string()
            })
        } else {
            Some(format!(
                "no tool matches the query: none of its words (after stop words) appears in any tool's name, description or schema{}",
                if always.is_empty() {
                    ""
                } else {
                    "; only the always-load tools are loaded"
                }
            ))
        };

        let full: u64 = costs.iter().sum();
        let sent: u64 = docs.iter().map(|&d| costs[d]).sum();
        let names: Vec<&str> = docs
            .iter()
            .map(|&d| catalog.tools()[d].name.as_str())
            .collect();
        let (session_id, session_tools) = if params.preview {
            (params.session_id.clone().unwrap_or_default(), Vec::new())
        } else {
            self.record_session(catalog, params.session_id.clone(), scope, &names, now)?
        };
        Ok(SearchOutcome {
            deferred_count: (catalog.len() - docs.len()) as u64,
            tools,
            full_schema_tokens: full,
            sent_schema_tokens: sent,
            method: Ranker::Bm25.as_str(),
            token_basis: basis,
            session_id,
            session_tools,
            note,
            tool_tokens: costs,
        })
    }

    /// Continues (or creates) the session and appends the newly loaded tools.
    fn record_session(
        &self,
        catalog: &Catalog,
        id: Option<String>,
        scope: &str,
        loaded: &[&str],
        now: Instant,
    ) -> Result<(String, Vec<String>), ServiceError> {
        let id = match id {
            Some(id) => id,
            None => mint_session_id()?,
        };
        let scope = xxhash_rust::xxh3::xxh3_128(scope.as_bytes());
        let mut sessions = lock(&self.sessions);
        sessions.calls += 1;
        let idle = self.config.session_idle;
        if sessions.calls.is_multiple_of(64) || sessions.map.len() >= self.config.max_sessions {
            sessions
                .map
                .retain(|_, s| now.saturating_duration_since(s.last_used) < idle);
        }
        let key = (scope, id.clone());
        let expired = sessions
            .map
            .get(&key)
            .is_some_and(|s| now.saturating_duration_since(s.last_used) >= idle);
        if expired {
            sessions.map.remove(&key);
        }
        if !sessions.map.contains_key(&key) && sessions.map.len() >= self.config.max_sessions {
            // Full of live sessions: forget the least recently used.
            let excess = sessions.map.len() + 1 - self.config.max_sessions.max(1);
            let mut by_age: Vec<(Instant, (u128, String))> = sessions
                .map
                .iter()
                .map(|(k, s)| (s.last_used, k.clone()))
                .collect();
            by_age.sort_by_key(|(t, _)| *t);
            for (_, k) in by_age.into_iter().take(excess) {
                sessions.map.remove(&k);
            }
        }
        let fingerprint = catalog.fingerprint();
        let session = sessions.map.entry(key).or_insert_with(|| Session {
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
        Ok((id, session.loaded.clone()))
    }

    /// A wire request body in, a wire response out (the HTTP server's call).
    /// `api_key` scopes the sessions.
    pub fn tool_search_json(
        &self,
        body: &[u8],
        api_key: Option<&str>,
    ) -> Result<ToolSearchResponse, ServiceError> {
        let request: ToolSearchRequest<'_> = serde_json::from_slice(body).map_err(|e| {
            ServiceError::bad_request("invalid_request", format!("request body: {e}"))
        })?;
        let params = params_from_wire(&request)?;
        let raw = request.tools.get();
        let key = xxhash_rust::xxh3::xxh3_128(raw.as_bytes());
        let cached = lock(&self.parsed).get(&key);
        let catalog = match cached {
            Some(c) => c,
            None => {
                self.catalog_parses.fetch_add(1, Ordering::Relaxed);
                let c = catalog::parse(raw, "request", "request", SourceKind::Json)
                    .map_err(|e| ServiceError::bad_request("invalid_catalog", e.to_string()))?;
                let c = Arc::new(c);
                lock(&self.parsed).get_or_insert(key, || c.clone());
                c
            }
        };
        let outcome = self.tool_search(&catalog, &params, api_key.unwrap_or(""))?;
        Ok(to_wire(&catalog, &outcome))
    }
}

fn optional_string(value: &Option<Value>, field: &str) -> Result<Option<String>, ServiceError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ServiceError::bad_request(
            "invalid_request",
            format!("{field} must be a string"),
        )),
    }
}

fn params_from_wire(request: &ToolSearchRequest<'_>) -> Result<SearchParams, ServiceError> {
    let Value::String(query) = &request.query else {
        return Err(ServiceError::bad_request(
            "invalid_request",
            "query must be a string",
        ));
    };
    let max_tools = match &request.max_tools {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64() {
            Some(m) if m >= 1 => Some(m),
            _ => {
                return Err(ServiceError::bad_request(
                    "invalid_max_tools",
                    "max_tools must be a positive integer",
                ));
            }
        },
    };
    let token_basis = match optional_string(&request.token_basis, "token_basis")? {
        None => None,
        Some(b) => Some(
            b.parse::<TokenBasis>()
                .map_err(|e| ServiceError::bad_request("invalid_request", e.to_string()))?,
        ),
    };
    Ok(SearchParams {
        query: query.clone(),
        context: optional_string(&request.context, "context")?,
        max_tools,
        session_id: optional_string(&request.session_id, "session_id")?,
        ranker: match optional_string(&request.ranker, "ranker")? {
            None => None,
            Some(name) => Some(
                name.parse::<Ranker>()
                    .map_err(|e| ServiceError::bad_request("unknown_ranker", e.to_string()))?,
            ),
        },
        token_basis,
        preview: false,
    })
}

/// The wire response for an outcome over `catalog`.
pub fn to_wire(catalog: &Catalog, outcome: &SearchOutcome) -> ToolSearchResponse {
    ToolSearchResponse {
        tools: outcome
            .tools
            .iter()
            .map(|s| WireSelectedTool {
                tool: WireTool::from(&catalog.tools()[s.index]),
                score: f64::from(s.score),
                reason: s.reason.as_str().to_string(),
                matched: s
                    .explanation
                    .matches
                    .iter()
                    .map(|m| WireMatch {
                        term: m.term.clone(),
                        fields: m.fields.iter().map(|f| f.label().to_string()).collect(),
                        score: f64::from(m.score),
                    })
                    .collect(),
            })
            .collect(),
        sent_schema_tokens: outcome.sent_schema_tokens,
        full_schema_tokens: outcome.full_schema_tokens,
        deferred_count: outcome.deferred_count,
        method: outcome.method.to_string(),
        token_basis: outcome.token_basis.as_str().to_string(),
        session_id: outcome.session_id.clone(),
        note: outcome.note.clone(),
        session_tools: outcome.session_tools.clone(),
    }
}

#[cfg(test)]
mod tests;
