//! The compatible tool-search service, transport-free (docs/wire.md §3-4).
//!
//! [`Service::tool_search`] takes a validated catalog and the request's
//! parameters and returns the loaded set for this turn: every always-load
//! tool, then the best-ranked others, at most `max_tools` in all (default 8),
//! never padded with tools that match nothing. It keeps sessions
//! (append-only loaded sets, scoped per API key, idle expiry, bounded count),
//! an index cache keyed by catalog fingerprint and per-catalog token costs, so
//! a repeated catalog is never re-indexed or re-tokenized; its exact text is
//! recognised in a request body without reading it as JSON, as the body
//! arrives (`recognise.rs`) or once it is read (`json.rs`).
//! [`Service::tool_search_json`] is the same call from a wire request body
//! to a wire response; the HTTP server reads a body with a
//! [`BodyReader`] and calls [`Service::tool_search_read`] (or, for a body
//! [`Service::ready`] finds ready, [`Service::tool_search_ready`]).

mod answer;
mod background;
mod cache;
pub mod inject;
mod json;
pub mod matching;
mod parsed;
mod pattern;
mod pipeline;
pub mod plan;
mod rankers;
pub mod recognise;
mod refine;
mod session_key;
mod sessions;
mod stats;
pub mod store;
pub mod usage;

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::catalog::Catalog;
use crate::embed::Embeddings;
use crate::engine::{CatalogRanker, Explanation, Ranker};
use crate::tokens::{TokenBasis, TokenCounter};
use crate::tools_handle::MaxTools;
use crate::wire::{ErrorBody, ErrorDetail};
use background::Building;
use cache::Lru;
use sessions::Sessions;
pub use sessions::{Recorded, SESSION_NOT_FOUND, SESSION_NOT_SAVED};

pub use answer::{Answer, to_wire};
pub use json::{BadQueries, PendingSession, Ready, json_kind, params_from_wire, queries_of};
pub use recognise::{BodyReader, ReadBody};
pub use refine::{GateMode, HeldBack, fits_of, gate_keeps};
pub use stats::{CacheBytes, ServiceStats};

use crate::lock::lock;
pub use plan::{DEFAULT_MAX_TOOLS, GATE_IN_PROCESS, Plan, cap_for};

/// Limits and defaults of a service.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// `max_tools` when a request gives none.
    pub default_max_tools: MaxTools,
    /// Largest catalog a request may carry.
    pub max_catalog_tools: usize,
    /// A session unused this long is forgotten.
    pub session_idle: Duration,
    /// At most this many sessions are kept (least recently used go first).
    pub max_sessions: usize,
    /// Catalog indexes kept (least recently used go first).
    pub index_cache_size: usize,
    /// Bytes of catalog content the parsed-catalog, ranker and token-cost
    /// caches may each hold (approximate; least recently used go first).
    pub cache_bytes: usize,
    /// Bytes the per-definition token counts may take (the counts used
    /// most recently are kept).
    pub token_cache_bytes: usize,
    /// Token basis when a request names none.
    pub token_basis: TokenBasis,
    /// The ranker of requests that name none.
    pub default_ranker: Ranker,
    /// The embedding provider of the `embeddings` and `hybrid` rankers;
    /// without one they are the `ranker_unavailable` error.
    pub embeddings: Option<Embeddings>,
    /// Recorded search-then-call pairs, a third ranking arm when given.
    pub usage: Option<Arc<usage::Usage>>,
    /// Whether the relevance gate is on for requests that do not say
    /// (off by default: Caveman clients expect up to `max_tools` tools).
    pub gate: bool,
    /// Why BM25F ranks alone when no embedding provider was named and the
    /// default model could not be had (not fetched and fetching off, a
    /// failed fetch): said where the front end names its ranker.
    pub plain_because: Option<String>,
}

impl PartialEq for ServiceConfig {
    fn eq(&self, other: &Self) -> bool {
        self.default_max_tools == other.default_max_tools
            && self.max_catalog_tools == other.max_catalog_tools
            && self.session_idle == other.session_idle
            && self.max_sessions == other.max_sessions
            && self.index_cache_size == other.index_cache_size
            && self.cache_bytes == other.cache_bytes
            && self.token_cache_bytes == other.token_cache_bytes
            && self.token_basis == other.token_basis
            && self.default_ranker == other.default_ranker
            && self.embeddings.is_some() == other.embeddings.is_some()
            && self.gate == other.gate
    }
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            default_max_tools: DEFAULT_MAX_TOOLS,
            max_catalog_tools: 10_000,
            session_idle: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            index_cache_size: 16,
            cache_bytes: 256 << 20,
            token_cache_bytes: crate::tokens::DEFAULT_CACHE_BYTES,
            token_basis: TokenBasis::O200kBase,
            default_ranker: Ranker::Bm25,
            embeddings: None,
            plain_because: None,
            usage: None,
            gate: false,
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
pub struct SearchRequest {
    pub query: String,
    pub context: Option<String>,
    /// The cap asked (the service's default when `None`).
    pub max_tools: Option<MaxTools>,
    pub session_id: Option<String>,
    /// The service's default (BM25F) when `None`.
    pub ranker: Option<Ranker>,
    pub token_basis: Option<TokenBasis>,
    /// A preview (the explorer's search as you type): the session is neither
    /// created nor extended; `session_id` comes back as given, or empty.
    pub preview: bool,
    /// The relevance gate on or off; the service's default when `None`.
    pub gate: Option<bool>,
    /// How the gate, when on, treats the searched tools: all kept when one
    /// fits, or only those that fit.
    pub gate_mode: GateMode,
    /// The answer leaves the always-load tools out (the caller lists them
    /// already, as the gateway does): `max_tools` then counts searched
    /// tools only.
    pub omit_always_load: bool,
    /// The session is left to the caller (the gateway keeps its own):
    /// nothing is recorded in this service's sessions.
    pub unrecorded: bool,
    /// The request's intents, each ranked and the rankings merged with the
    /// whole query's ([`crate::engine::intents`]); empty: the query's own
    /// clauses, when it has several.
    pub queries: Vec<String>,
    /// In-process only (never on the wire): the outcome keeps the whole
    /// catalog's ranking its answer was cut from, so a caller that explains
    /// the answer (the explorer, `search --why`) need not rank again.
    pub keep_ranking: bool,
    /// In-process only: whose learned use ranks (the gateway's digest of
    /// the API key that searched); pairs of other keys are never used.
    pub usage_key: Option<String>,
}

impl SearchRequest {
    /// The request a search of `query` sends under `settings`, whose
    /// handle `handle` gives the cap (`max_tools`, else `max_loaded_tools`,
    /// else none: the service's default): the ranker, the token basis
    /// (named only when chosen, as the SDKs send none) and the gate in
    /// force. The one way a request is made from a person's settings; the
    /// settings' caps were checked where they were read, so none is
    /// dropped here.
    pub fn in_force(
        settings: &crate::settings::Settings,
        handle: &crate::tools_handle::ToolsHandle,
        query: &str,
    ) -> SearchRequest {
        SearchRequest {
            query: query.to_string(),
            max_tools: handle.sent_cap(settings.max_tools),
            ranker: Some(settings.ranker),
            token_basis: settings.token_basis,
            gate: Some(settings.gate),
            ..SearchRequest::default()
        }
    }

    /// The whole request: the query, and the intents given apart (`queries`)
    /// after it. What explanations (and so the gate) judge a tool against.
    pub fn whole_request(&self) -> std::borrow::Cow<'_, str> {
        if self.queries.is_empty() {
            return std::borrow::Cow::Borrowed(&self.query);
        }
        let query = self.query.trim();
        let parts = std::iter::once(query)
            .filter(|q| !q.is_empty())
            .chain(self.queries.iter().map(|q| q.trim()))
            .filter(|q| !query.is_empty() || !q.is_empty());
        std::borrow::Cow::Owned(parts.collect::<Vec<_>>().join("; "))
    }
}

/// Why a tool is in the loaded set (`reason` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    AlwaysLoad,
    ExactName,
    Ranked,
}

impl Reason {
    pub const ALL: [Reason; 3] = [Reason::AlwaysLoad, Reason::ExactName, Reason::Ranked];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::AlwaysLoad => "always_load",
            Reason::ExactName => "exact_name",
            Reason::Ranked => "ranked",
        }
    }

    /// The reason a wire name stands for, if any.
    pub fn from_wire(name: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.as_str() == name)
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
    pub method: Ranker,
    pub token_basis: TokenBasis,
    pub session_id: String,
    /// Every tool loaded in the session so far, in first-load order.
    pub session_tools: Vec<String>,
    /// What became of the session the request named, when not what it
    /// asked: not held (started anew), or not saved.
    pub session_note: Option<String>,
    pub note: Option<String>,
    /// Schema tokens of every catalog tool, in catalog order.
    pub tool_tokens: Arc<Vec<u64>>,
    /// Tools embedded so far and the total, while a dense ranker's vectors
    /// are computed (this preview was answered by BM25F).
    pub embedding: Option<(u64, u64)>,
    /// How well the best searched tool fits the request (whether or not the
    /// gate was on); `None` when nothing was ranked.
    pub fit: Option<crate::engine::Fit>,
    /// The nearest tools, when the gate found that none fits.
    pub held_back: Vec<HeldBack>,
    /// How many tools matched beyond those sent, and in which servers.
    pub matching: Option<crate::wire::WireMatching>,
    /// Every tool that matched, best first: the ranking the answer was cut
    /// from, when the request kept it (`keep_ranking`) and a ranking
    /// answered (the query's, or its intents' merged; no `+term`, no
    /// `select:`).
    pub ranking: Option<Arc<Vec<crate::engine::Hit>>>,
}

type Cell<T> = Arc<OnceLock<Arc<T>>>;
/// One ranker slot: filled once; a build holds its lock, so concurrent
/// searches of one catalog wait for one build instead of each making one.
type RankerCell = Arc<Mutex<Option<Arc<dyn CatalogRanker>>>>;
type RankerCache = Lru<(u128, Ranker), RankerCell>;
type CostCache = Lru<(u128, TokenBasis), Cell<Vec<u64>>>;

/// The service. Share it in an `Arc`; every method takes `&self`.
pub struct Service {
    config: ServiceConfig,
    rankers: Arc<Mutex<RankerCache>>,
    costs: Mutex<CostCache>,
    /// Parsed request catalogs keyed by a hash of their exact JSON text,
    /// with that text (a repeated catalog is recognised by its bytes).
    parsed: Mutex<Lru<u128, parsed::Parsed>>,
    /// The same catalogs by fingerprint (a session's catalog, for provider
    /// calls whose history calls a tool).
    by_fingerprint: Mutex<Lru<u128, Arc<Catalog>>>,
    catalog_parses: AtomicU64,
    /// Request catalogs recognised from their bytes (not parsed, nor even
    /// read as JSON).
    catalogs_recognised: AtomicU64,
    catalogs_recognised_arriving: AtomicU64,
    counter: TokenCounter,
    /// Dense rankers being built in the background for previews: done and
    /// total texts.
    building: Arc<Mutex<Vec<Building>>>,
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

impl Default for Service {
    fn default() -> Self {
        Self::new(ServiceConfig::default())
    }
}

impl Service {
    pub fn new(config: ServiceConfig) -> Self {
        Service {
            rankers: Arc::new(Mutex::new(Lru::new(
                config.index_cache_size,
                config.cache_bytes,
            ))),
            costs: Mutex::new(Lru::new(config.index_cache_size * 3, config.cache_bytes)),
            parsed: Mutex::new(Lru::new(config.index_cache_size, config.cache_bytes)),
            by_fingerprint: Mutex::new(Lru::new(config.index_cache_size, config.cache_bytes)),
            catalog_parses: AtomicU64::new(0),
            catalogs_recognised: AtomicU64::new(0),
            catalogs_recognised_arriving: AtomicU64::new(0),
            sessions: Mutex::new(Sessions::new(config.session_idle, config.max_sessions)),
            counter: TokenCounter::with_cache_bytes(config.token_cache_bytes),
            config,
            building: Arc::new(Mutex::new(Vec::new())),
            searches: AtomicU64::new(0),
            index_builds: AtomicU64::new(0),
            index_cache_hits: AtomicU64::new(0),
            cost_vectors: AtomicU64::new(0),
        }
    }

    pub fn config(&self) -> &ServiceConfig {
        &self.config
    }

    /// Session `id` of `scope` in this service's own (memory) sessions,
    /// touched: its loaded tools and, when still cached, its catalog.
    pub fn session_tools(&self, id: &str, scope: &str) -> Option<inject::SessionTools> {
        if !sessions::valid_session_id(id) {
            return None;
        }
        let (fingerprint, loaded) = lock(&self.sessions).lookup(id, scope, Instant::now())?;
        Some(inject::SessionTools {
            loaded,
            catalog: self.catalog_by_fingerprint(fingerprint),
        })
    }

    /// A catalog this instance parsed recently, by fingerprint.
    pub fn catalog_by_fingerprint(&self, fingerprint: u128) -> Option<Arc<Catalog>> {
        lock(&self.by_fingerprint).get(&fingerprint)
    }

    /// Keeps a catalog read from elsewhere (the shared store) by its
    /// fingerprint; the one kept (an equal catalog already here wins).
    pub fn adopt_catalog(&self, catalog: Arc<Catalog>) -> Arc<Catalog> {
        let weight = crate::heap_size::catalog(&catalog);
        lock(&self.by_fingerprint).get_or_insert(catalog.fingerprint(), weight, || catalog.clone())
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cap;
#[cfg(test)]
mod tests_names;
#[cfg(test)]
mod tests_recognise;
#[cfg(test)]
mod tests_refine;
#[cfg(test)]
mod tests_regex;
#[cfg(test)]
mod tests_stream;
#[cfg(test)]
mod tests_wire;
