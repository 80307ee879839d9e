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

mod background;
mod cache;
pub mod inject;
mod json;
mod session_key;
mod sessions;
mod stats;
pub mod store;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use crate::catalog::Catalog;
use crate::embed::{DenseRanker, Embeddings};
use crate::engine::{CatalogRanker, Explanation, Hit, Index, RankError, Ranker};
use crate::tokens::{TokenBasis, TokenCounter};
use crate::wire::{ErrorBody, ErrorDetail};
use background::Building;
use cache::Lru;
use sessions::Sessions;

pub use json::{PendingSession, params_from_wire, to_wire};
pub use stats::{CacheBytes, ServiceStats};

/// `max_tools` when a request gives none (CONTRACT §4: server default 8).
pub const DEFAULT_MAX_TOOLS: u64 = 8;

/// Limits and defaults of a service.
#[derive(Debug, Clone)]
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
    pub note: Option<String>,
    /// Schema tokens of every catalog tool, in catalog order.
    pub tool_tokens: Arc<Vec<u64>>,
    /// Tools embedded so far and the total, while a dense ranker's vectors
    /// are computed (this preview was answered by BM25F).
    pub embedding: Option<(u64, u64)>,
}

type Cell<T> = Arc<OnceLock<Arc<T>>>;
/// One ranker slot: filled once; a build holds its lock, so concurrent
/// searches of one catalog wait for one build instead of each making one.
type RankerCell = Arc<Mutex<Option<Arc<dyn CatalogRanker>>>>;
type RankerCache = Lru<(u128, Ranker), RankerCell>;
type CostCache = Lru<(u128, TokenBasis), Cell<Vec<u64>>>;

/// What a request asks for, checked: the ranker, the cap and the always-load
/// tools (step one of a search).
#[derive(Debug)]
struct Plan {
    ranker: Ranker,
    /// At most this many tools in the loaded set.
    cap: usize,
    /// The always-load tools, in catalog order.
    always: Vec<usize>,
}

/// The ranked part of a search (step two).
struct Ranked {
    /// The best matching tools beyond the always-load ones, best first.
    hits: Vec<Hit>,
    /// Scores of the always-load tools, on the same scale as `hits`.
    always_scores: Vec<f32>,
}

/// The service. Share it in an `Arc`; every method takes `&self`.
pub struct Service {
    config: ServiceConfig,
    rankers: Arc<Mutex<RankerCache>>,
    costs: Mutex<CostCache>,
    /// Parsed request catalogs keyed by a hash of their exact JSON text.
    parsed: Mutex<Lru<u128, Arc<Catalog>>>,
    /// The same catalogs by fingerprint (a session's catalog, for provider
    /// calls whose history calls a tool).
    by_fingerprint: Mutex<Lru<u128, Arc<Catalog>>>,
    catalog_parses: AtomicU64,
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

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
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

    /// `ranker` over `catalog`, built once per (fingerprint, ranker). A ranker
    /// this service cannot run is the `ranker_unavailable` error.
    pub fn ranker_for(
        &self,
        catalog: &Catalog,
        ranker: Ranker,
    ) -> Result<Arc<dyn CatalogRanker>, ServiceError> {
        let embeddings = match (ranker.needs_embeddings(), &self.config.embeddings) {
            (false, _) => None,
            (true, Some(e)) => Some(e.clone()),
            (true, None) => {
                return Err(ServiceError::bad_request(
                    "ranker_unavailable",
                    format!(
                        "ranker \"{ranker}\" needs an embedding provider and none is configured; use \"bm25\""
                    ),
                ));
            }
        };
        let (ranked, built) = build_cached(&self.rankers, catalog, ranker, embeddings)?;
        let counter = if built {
            &self.index_builds
        } else {
            &self.index_cache_hits
        };
        counter.fetch_add(1, Ordering::Relaxed);
        Ok(ranked)
    }

    /// Every tool's schema tokens with `basis`, computed once per fingerprint.
    pub fn costs_for(&self, catalog: &Catalog, basis: TokenBasis) -> Arc<Vec<u64>> {
        let key = (catalog.fingerprint(), basis);
        let weight = catalog.len() * std::mem::size_of::<u64>();
        let cell = lock(&self.costs).get_or_insert(key, weight, || Arc::new(OnceLock::new()));
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

    /// [`Service::tool_search`] at a given time (for session expiry tests):
    /// validate, rank, assemble the loaded set, count tokens, record the
    /// session.
    pub fn tool_search_at(
        &self,
        catalog: &Catalog,
        params: &SearchParams,
        scope: &str,
        now: Instant,
    ) -> Result<SearchOutcome, ServiceError> {
        self.search_inner(catalog, params, scope, now, true)
    }

    /// The five steps; with `record` false the session is left to a session
    /// store outside the service (the id is minted if absent, and
    /// `session_tools` holds only this search's tools).
    fn search_inner(
        &self,
        catalog: &Catalog,
        params: &SearchParams,
        scope: &str,
        now: Instant,
        record: bool,
    ) -> Result<SearchOutcome, ServiceError> {
        let mut plan = self.validate(catalog, params)?;
        let mut waiting = None;
        if params.preview
            && plan.ranker.needs_embeddings()
            && let Some(progress) = self.build_in_background(catalog, plan.ranker)
        {
            // A preview (the explorer as you type) does not wait for a
            // catalog's vectors: BM25F answers, and the note says so.
            waiting = Some((plan.ranker, progress));
            plan.ranker = Ranker::Bm25;
        }
        let ranker = self.ranker_for(catalog, plan.ranker)?;
        self.searches.fetch_add(1, Ordering::Relaxed);
        let ranked = rank(ranker.as_ref(), catalog, params, &plan).map_err(|e| ServiceError {
            status: 502,
            code: "ranker_failed",
            message: format!("ranker {} failed: {e}", plan.ranker),
        })?;
        let tools = assemble(ranker.as_ref(), params, &plan, ranked);
        let note = match waiting {
            Some((wanted, (done, total))) => Some(format!(
                "{wanted}: embedding the catalog ({done} of {total} tools); BM25F results until the vectors are ready"
            )),
            None => note_for(params, &plan, &tools),
        };
        let basis = params.token_basis.unwrap_or(self.config.token_basis);
        let costs = self.costs_for(catalog, basis);
        let sent: u64 = tools.iter().map(|t| costs[t.index]).sum();
        let (session_id, session_tools) = if record {
            self.record_session(catalog, params, scope, &tools, now)?
        } else if params.preview {
            (params.session_id.clone().unwrap_or_default(), Vec::new())
        } else {
            let id = match &params.session_id {
                Some(id) => id.clone(),
                None => sessions::mint_session_id()?,
            };
            let names = tools
                .iter()
                .map(|t| catalog.tools()[t.index].name.clone())
                .collect();
            (id, names)
        };
        Ok(SearchOutcome {
            deferred_count: (catalog.len() - tools.len()) as u64,
            tools,
            full_schema_tokens: costs.iter().sum(),
            sent_schema_tokens: sent,
            method: plan.ranker,
            token_basis: basis,
            session_id,
            session_tools,
            note,
            tool_tokens: costs,
            embedding: waiting.map(|(_, progress)| progress),
        })
    }

    /// Step one: the request's limits and the cap.
    fn validate(&self, catalog: &Catalog, params: &SearchParams) -> Result<Plan, ServiceError> {
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
            && !sessions::valid_session_id(id)
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
            Some(m) if m < always.len() as u64 => {
                return Err(ServiceError::bad_request(
                    "max_tools_below_always_load",
                    format!(
                        "max_tools is {m} but the catalog has {} always-load tools, which are always loaded; max_tools must be at least {}",
                        always.len(),
                        always.len()
                    ),
                ));
            }
            Some(m) => usize::try_from(m).unwrap_or(usize::MAX),
            // The default never drops an always-load tool.
            None => usize::try_from(self.config.default_max_tools)
                .unwrap_or(usize::MAX)
                .max(always.len()),
        };
        Ok(Plan {
            ranker: params.ranker.unwrap_or(self.config.default_ranker),
            cap,
            always,
        })
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

    /// Step five: continues (or creates) the session, unless this is a
    /// preview, which records nothing.
    fn record_session(
        &self,
        catalog: &Catalog,
        params: &SearchParams,
        scope: &str,
        tools: &[Selected],
        now: Instant,
    ) -> Result<(String, Vec<String>), ServiceError> {
        if params.preview {
            return Ok((params.session_id.clone().unwrap_or_default(), Vec::new()));
        }
        let id = match &params.session_id {
            Some(id) => id.clone(),
            None => sessions::mint_session_id()?,
        };
        let names: Vec<&str> = tools
            .iter()
            .map(|t| catalog.tools()[t.index].name.as_str())
            .collect();
        let loaded = lock(&self.sessions).record(catalog, &id, scope, &names, now);
        Ok((id, loaded))
    }
}

/// `ranker` over `catalog` from `rankers`, built now if absent (see
/// [`fill_cell`]); `true` when built here. A new ranker's cache entry is
/// weighed by what the ranker holds (the catalog's text until then).
fn build_cached(
    rankers: &Mutex<RankerCache>,
    catalog: &Catalog,
    ranker: Ranker,
    embeddings: Option<Embeddings>,
) -> Result<(Arc<dyn CatalogRanker>, bool), ServiceError> {
    let key = (catalog.fingerprint(), ranker);
    let weight = catalog.content_bytes();
    let cell = lock(rankers).get_or_insert(key, weight, || Arc::new(Mutex::new(None)));
    let (ranked, built) = fill_cell(&cell, catalog, ranker, embeddings)?;
    if built && ranked.heap_bytes() > 0 {
        lock(rankers).reweigh(&key, ranked.heap_bytes());
    }
    Ok((ranked, built))
}

/// The ranker in `cell`, built now (holding the cell's lock, so others
/// wait for this build) when it is empty; `true` when built here. A failed
/// build (a provider down) leaves the cell empty: an error now, a new try
/// next time.
fn fill_cell(
    cell: &RankerCell,
    catalog: &Catalog,
    ranker: Ranker,
    embeddings: Option<Embeddings>,
) -> Result<(Arc<dyn CatalogRanker>, bool), ServiceError> {
    let mut slot = lock(cell);
    if let Some(ranked) = slot.as_ref() {
        return Ok((ranked.clone(), false));
    }
    let built: Arc<dyn CatalogRanker> = match embeddings {
        None => Arc::new(Index::build(catalog.tools())),
        Some(e) => Arc::new(
            DenseRanker::build(catalog, ranker, e).map_err(|e| ServiceError {
                status: 502,
                code: "ranker_failed",
                message: format!("ranker {ranker} failed: {e}"),
            })?,
        ),
    };
    *slot = Some(built.clone());
    Ok((built, true))
}

fn context_of(params: &SearchParams) -> Option<&str> {
    params.context.as_deref().filter(|c| !c.trim().is_empty())
}

/// Step two: the best tools beyond the always-load ones, and the always-load
/// tools' scores from the same ranking.
fn rank(
    ranker: &dyn CatalogRanker,
    catalog: &Catalog,
    params: &SearchParams,
    plan: &Plan,
) -> Result<Ranked, RankError> {
    let room = plan.cap - plan.always.len();
    let (query, context) = (params.query.as_str(), context_of(params));
    let hits = if room > 0 {
        ranker.rank(query, context, room.saturating_add(plan.always.len()))?
    } else {
        Vec::new()
    };
    let mut always_scores: Vec<Option<f32>> = plan
        .always
        .iter()
        .map(|d| hits.iter().find(|h| h.doc == *d).map(|h| h.score))
        .collect();
    if always_scores.iter().any(Option::is_none) && !query.trim().is_empty() {
        // Some always-load tools ranked below the cut: score them with the
        // same ranking so their scores compare with the others'.
        let missing: Vec<usize> = plan
            .always
            .iter()
            .zip(&always_scores)
            .filter(|(_, s)| s.is_none())
            .map(|(d, _)| *d)
            .collect();
        let mut scores = ranker.score(query, context, &missing)?.into_iter();
        for slot in always_scores.iter_mut().filter(|s| s.is_none()) {
            *slot = scores.next();
        }
    }
    let hits = hits
        .into_iter()
        .filter(|h| !catalog.tools()[h.doc].always_load)
        .take(room)
        .collect();
    Ok(Ranked {
        hits,
        always_scores: always_scores
            .into_iter()
            .map(|s| s.unwrap_or(0.0))
            .collect(),
    })
}

/// Step three: the loaded set, always-load tools first, with explanations.
fn assemble(
    ranker: &dyn CatalogRanker,
    params: &SearchParams,
    plan: &Plan,
    ranked: Ranked,
) -> Vec<Selected> {
    let docs: Vec<usize> = plan
        .always
        .iter()
        .copied()
        .chain(ranked.hits.iter().map(|h| h.doc))
        .collect();
    let explanations = ranker.explain(&params.query, context_of(params), &docs);
    let always = plan
        .always
        .iter()
        .zip(&ranked.always_scores)
        .map(|(&doc, &score)| (doc, score, Reason::AlwaysLoad));
    let others = ranked.hits.iter().map(|h| {
        let reason = if h.exact {
            Reason::ExactName
        } else {
            Reason::Ranked
        };
        (h.doc, h.score, reason)
    });
    always
        .chain(others)
        .zip(explanations)
        .map(|((index, score, reason), explanation)| Selected {
            index,
            score,
            reason,
            explanation,
        })
        .collect()
}

/// Why nothing (or only the always-load tools) came back.
fn note_for(params: &SearchParams, plan: &Plan, tools: &[Selected]) -> Option<String> {
    let always = plan.always.len();
    if tools.len() > always {
        None
    } else if plan.cap == always {
        Some(format!(
            "max_tools {} leaves no room beyond the {always} always-load tools",
            plan.cap
        ))
    } else if params.query.trim().is_empty() && context_of(params).is_none() {
        Some(if always == 0 {
            "empty query: nothing to rank, so no tool is loaded".to_string()
        } else {
            "empty query: only the always-load tools are loaded".to_string()
        })
    } else {
        Some(format!(
            "no tool matches the query: none of its words (after stop words) appears in any tool's name, description or schema{}",
            if always == 0 {
                ""
            } else {
                "; only the always-load tools are loaded"
            }
        ))
    }
}

#[cfg(test)]
mod tests;
