//! The searcher every front end uses, and the client rules of docs/wire.md §3.
//!
//! [`Searcher`] is the only door to search. Whatever the transport, an
//! answer is a wire response ([`ToolSearchResponse`]) that goes through
//! [`accept`], the client rules written once: names are checked against the
//! local catalog (unknown or duplicate is an error) and the local descriptors
//! are returned; token counts are validated; `saved_tokens`,
//! `reduction_pct` and `basis` are computed here. The embedded searcher
//! calls [`Service`] in-process and hands its answer over as a value (no
//! JSON); a remote one parses the body with [`parse_response`] first.

use std::sync::Arc;

use crate::catalog::Catalog;
use crate::client::{Client, RemoteError};
use crate::engine::{CatalogRanker, Explanation, Hit, RankError};
pub use crate::service::Reason;
use crate::service::{Service, ServiceError};
use crate::tokens::{Savings, TokenBasis};
pub use crate::wire::parse_response;
use crate::wire::{MAX_SAFE_INTEGER, ResponseError, ToolSearchResponse, WireMatch};

/// `basis` of every result: the counts are the service's estimate.
pub const BASIS_INFERRED: &str = "inferred";

/// `token_basis` of a response that named none.
pub const TOKEN_BASIS_UNAVAILABLE: &str = "unavailable";

/// `method` of a response that named none.
pub const METHOD_UNKNOWN: &str = "unknown";

/// Why a search failed. A failed search is never an empty result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SearchError {
    /// The service refused the request (HTTP status, code, message).
    #[error("{} ({})", .0.message, .0.code)]
    Service(ServiceError),
    /// The answer breaks the client rules (tools not an array, an unknown
    /// or duplicate tool, a body that is not a JSON object).
    #[error(transparent)]
    Response(#[from] ResponseError),
    /// A remote service could not be used (unreachable, time-out, redirect,
    /// an HTTP error with its message, a body that is not JSON).
    #[error("{0}")]
    Remote(RemoteError),
}

/// A remote answer that broke the client rules is the same error as an
/// embedded one would be; any other remote failure names the service.
impl From<RemoteError> for SearchError {
    fn from(e: RemoteError) -> Self {
        match e.failure {
            crate::client::RemoteFailure::Response(r) => SearchError::Response(r),
            _ => SearchError::Remote(e),
        }
    }
}

impl SearchError {
    /// A stable code: the service's, or the client rule's.
    pub fn code(&self) -> &str {
        match self {
            SearchError::Service(e) => e.code,
            SearchError::Response(e) => e.code(),
            SearchError::Remote(e) => e.code(),
        }
    }
}

/// What a search asks for: the service's parameters (a remote searcher
/// sends the same on the wire, see [`crate::service::SearchRequest::body`]).
pub use crate::service::SearchRequest;

/// One returned tool, reattached to the local catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// Index of the tool in the local catalog.
    pub index: usize,
    /// Ranking score, when the service reported one.
    pub score: Option<f32>,
    pub reason: Option<Reason>,
    pub explanation: Explanation,
}

/// A search's answer as a client sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    pub tools: Vec<SearchHit>,
    pub session_id: Option<String>,
    pub method: String,
    pub deferred_count: u64,
    pub savings: Savings,
    pub token_basis: String,
    pub basis: &'static str,
    pub note: Option<String>,
    pub session_tools: Vec<String>,
    /// What became of the session named, when not what was asked (the
    /// service did not hold it, or could not save it).
    pub session_note: Option<String>,
    /// Tools embedded so far and the total, while the service computes a
    /// dense ranker's vectors (the answer is BM25F's meanwhile).
    pub embedding: Option<(u64, u64)>,
    /// Per-tool schema tokens (catalog order), counted by the searcher
    /// ([`Searcher::tool_costs`]) with the request's token basis.
    pub tool_tokens: Option<Arc<Vec<u64>>>,
    /// When the relevance gate found that no tool fits: the nearest tools
    /// it held back, best first (names the catalog lacks left out).
    pub held_back: Vec<HeldBack>,
    /// How many tools matched beyond those sent, when the service said.
    pub matching: Option<Box<crate::wire::WireMatching>>,
    /// Every tool that matched, best first, by catalog index: the ranking
    /// an in-process answer was cut from, when the request kept it
    /// ([`SearchRequest::keep_ranking`]); [`Searcher::standing`] reads it
    /// instead of ranking again. Never from a remote service.
    pub ranking: Option<Arc<Vec<crate::engine::Hit>>>,
}

impl SearchResult {
    /// Whether this answer is BM25F's standing in for `ranker`, a dense
    /// ranker whose catalog vectors are still being computed (`embedding`
    /// says how far): a search of `ranker` asks again shortly.
    pub fn stands_in_for(&self, ranker: crate::engine::Ranker) -> bool {
        ranker.needs_embeddings() && self.method != ranker.as_str()
    }
}

/// A tool the relevance gate held back, in the local catalog.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeldBack {
    pub index: usize,
    pub score: f32,
    pub evidence: f32,
    pub cosine: Option<f32>,
    /// The learned ranking's probability, when the ranker has one.
    pub probability: Option<f32>,
}

/// Maps returned names to local catalog indices: every name must be in the
/// catalog and appear once.
pub fn reattach<'a>(
    catalog: &Catalog,
    names: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<usize>, SearchError> {
    let mut out: Vec<usize> = Vec::new();
    for name in names {
        let index = catalog
            .index_of(name)
            .ok_or(ResponseError::UnknownOrDuplicate)?;
        if out.contains(&index) {
            return Err(ResponseError::UnknownOrDuplicate.into());
        }
        out.push(index);
    }
    Ok(out)
}

/// The client rules of docs/wire.md §3 over a wire response: the local
/// descriptors for the returned names, validated counts, savings.
pub fn accept(
    catalog: &Catalog,
    response: ToolSearchResponse,
) -> Result<SearchResult, SearchError> {
    let indices = reattach(catalog, response.tools.iter().map(|t| t.tool.name.as_str()))?;
    let tools = indices
        .into_iter()
        .zip(response.tools)
        .map(|(index, t)| {
            let reason = t.reason.as_deref().and_then(Reason::from_wire);
            SearchHit {
                index,
                score: t.score.map(|s| s as f32),
                reason,
                explanation: Explanation {
                    unasked_destructive: false,
                    exact_name: reason == Some(Reason::ExactName),
                    name_covered: false,
                    matches: t.matched.iter().map(WireMatch::to_match).collect(),
                    dense: t.dense,
                    usage: t.usage,
                },
            }
        })
        .collect();
    let (full, sent) = if response.sent_schema_tokens > response.full_schema_tokens
        || response.full_schema_tokens > MAX_SAFE_INTEGER
    {
        (0, 0)
    } else {
        (response.full_schema_tokens, response.sent_schema_tokens)
    };
    let blank = |s: String, fallback: &str| {
        if s.trim().is_empty() {
            fallback.to_string()
        } else {
            s
        }
    };
    Ok(SearchResult {
        tools,
        session_id: Some(response.session_id).filter(|s| !s.is_empty()),
        method: blank(response.method, METHOD_UNKNOWN),
        deferred_count: if response.deferred_count > MAX_SAFE_INTEGER {
            0
        } else {
            response.deferred_count
        },
        savings: Savings::new(full, sent),
        token_basis: blank(response.token_basis, TOKEN_BASIS_UNAVAILABLE),
        basis: BASIS_INFERRED,
        note: response.note,
        session_tools: response.session_tools,
        session_note: response.session_note,
        tool_tokens: None,
        held_back: response
            .held_back
            .iter()
            .filter_map(|h| {
                Some(HeldBack {
                    index: catalog.index_of(&h.name)?,
                    score: h.score as f32,
                    evidence: h.evidence as f32,
                    cosine: h.cosine.map(|c| c as f32),
                    probability: h.probability.map(|p| p as f32),
                })
            })
            .collect(),
        embedding: response
            .embedding
            .filter(|p| p.total > 0 && p.done <= p.total)
            .map(|p| (p.done, p.total)),
        matching: response
            .matching
            .filter(|m| m.sent <= m.total)
            .map(Box::new),
        ranking: None,
    })
}

/// A count as the SDK accepts it: a non-negative integer up to 2^53 - 1.
/// Where searches go. Nothing outside this module matches on its variants.
#[derive(Debug, Clone)]
pub enum Searcher {
    /// The service in-process.
    Embedded(Arc<Service>),
    /// A compatible service over HTTP; `local` counts token costs here.
    Remote {
        client: Arc<Client>,
        local: Arc<Service>,
    },
}

impl Searcher {
    /// An embedded searcher over a new service with default limits.
    pub fn embedded() -> Self {
        Searcher::Embedded(Arc::new(Service::default()))
    }

    /// A searcher over a remote service.
    pub fn remote(client: Client) -> Self {
        Searcher::Remote {
            client: Arc::new(client),
            local: Arc::new(Service::default()),
        }
    }

    /// The remote service's host, if this searcher is remote.
    pub fn remote_host(&self) -> Option<String> {
        match self {
            Searcher::Embedded(_) => None,
            Searcher::Remote { client, .. } => Some(client.host()),
        }
    }

    fn local(&self) -> &Service {
        match self {
            Searcher::Embedded(service) => service,
            Searcher::Remote { local, .. } => local,
        }
    }

    /// Every tool's schema tokens under `basis`, in catalog order (cached by
    /// catalog fingerprint; counted here, whatever the transport).
    pub fn tool_costs(&self, catalog: &Catalog, basis: TokenBasis) -> Arc<Vec<u64>> {
        self.local().costs_for(catalog, basis)
    }

    /// Builds now what a search of `catalog` needs before it can rank (the
    /// BM25F index, which previews of every ranker use) and answer (the
    /// catalog's name lookup, which every answer's names go through), so
    /// that the first search finds them made. A remote service builds its
    /// own index; nothing here. A dense ranker's vectors are left to the
    /// search that wants them (a preview does not wait for them).
    pub fn warm(&self, catalog: &Catalog) {
        // Made on the first lookup (12 ms for 10,000 tools).
        let _ = catalog.index_of("");
        // A catalog the service refuses fails its search with the reason.
        if let Searcher::Embedded(service) = self
            && catalog.len() <= service.config().max_catalog_tools
        {
            let _ = service.ranker_for(catalog, crate::engine::Ranker::Bm25);
        }
    }

    /// Whether `request` is ranked in-process by a dense ranker whose query
    /// vector is in memory already: its time then has no query embedding
    /// in it (the explorer says so beside the time).
    pub fn query_vector_held(&self, request: &SearchRequest) -> bool {
        let Searcher::Embedded(service) = self else {
            return false;
        };
        let ranker = request.ranker.unwrap_or(service.config().default_ranker);
        let text = match request.context.as_deref() {
            Some(context) if request.query.trim().is_empty() => context,
            _ => &request.query,
        };
        ranker.needs_embeddings()
            && !text.trim().is_empty()
            && service
                .config()
                .embeddings
                .as_ref()
                .is_some_and(|e| e.holds_query(text))
    }

    /// Why `ranker` cannot rank here, if it cannot: an embedded service
    /// without an embedding provider has no dense ranker (a remote service
    /// answers for itself).
    pub fn ranker_unavailable(&self, ranker: crate::engine::Ranker) -> Option<String> {
        match self {
            Searcher::Embedded(service)
                if ranker.needs_embeddings() && service.config().embeddings.is_none() =>
            {
                Some(format!(
                    "ranker {ranker} needs an embedding model, and none is configured: start with --embeddings-local DIR|HF_ID or --embeddings-url URL"
                ))
            }
            _ => None,
        }
    }

    /// The token basis used when a request names none.
    pub fn default_token_basis(&self) -> TokenBasis {
        self.local().config().token_basis
    }

    /// `embedded`, or `remote HOST`, for headers and reports.
    pub fn describe(&self) -> String {
        match self {
            Searcher::Embedded(_) => "embedded".to_string(),
            Searcher::Remote { client, .. } => format!("remote {}", client.host()),
        }
    }

    /// This searcher with a dense model (the embedded service's settings
    /// kept): a model fetched after the start. `None` for a remote one.
    pub fn with_embeddings(&self, embeddings: crate::embed::Embeddings) -> Option<Searcher> {
        match self {
            Searcher::Embedded(service) => {
                let mut config = service.config().clone();
                config.embeddings = Some(embeddings);
                config.plain_because = None;
                Some(Searcher::Embedded(Arc::new(Service::new(config))))
            }
            Searcher::Remote { .. } => None,
        }
    }

    /// The model the embedded service's dense rankers embed with, as
    /// people name it: `built-in model`, else its name (`all-MiniLM-L6-v2`,
    /// a folder's last part); none without one, or for a remote service.
    /// Unescaped: it may come from a file or a provider.
    pub fn model(&self) -> Option<String> {
        let Searcher::Embedded(service) = self else {
            return None;
        };
        let provider = service.config().embeddings.as_ref()?.provider();
        if provider.describe().ends_with("built in") {
            return Some("built-in model".into());
        }
        let id = provider.model();
        let name = id.rsplit_once('@').map_or(id, |(name, _)| name);
        let name = name.trim_end_matches(['/', '\\']);
        Some(name.rsplit(['/', '\\']).next().unwrap_or(name).to_string())
    }

    /// Why the embedded search ranks with BM25F alone (no search model could
    /// be had), when it does.
    pub fn plain_because(&self) -> Option<&str> {
        match self {
            Searcher::Embedded(service) => service.config().plain_because.as_deref(),
            Searcher::Remote { .. } => None,
        }
    }

    /// `ranker` over `catalog`, to rank whole lists (eval): the service's own
    /// ranker in-process, or the remote service asked for `k` tools at a
    /// time.
    pub fn ranker_for(
        &self,
        catalog: &Arc<Catalog>,
        ranker: crate::engine::Ranker,
    ) -> Result<Arc<dyn CatalogRanker>, SearchError> {
        match self {
            Searcher::Embedded(service) => service
                .ranker_for(catalog, ranker)
                .map_err(SearchError::Service),
            Searcher::Remote { client, .. } => Ok(Arc::new(RemoteRanker {
                client: client.clone(),
                catalog: catalog.clone(),
                ranker,
                latencies: std::sync::Mutex::new(Vec::new()),
            })),
        }
    }

    /// Searches the full `catalog`.
    pub fn search(
        &self,
        catalog: &Catalog,
        request: &SearchRequest,
    ) -> Result<SearchResult, SearchError> {
        let mut result = match self {
            // In-process: the outcome by catalog index, no wire between.
            Searcher::Embedded(service) => embedded::accept_outcome(
                service
                    .tool_search(catalog, request, "")
                    .map_err(SearchError::Service)?,
            ),
            Searcher::Remote { client, .. } => {
                accept(catalog, client.tool_search(catalog, request)?)?
            }
        };
        let basis = request
            .token_basis
            .or_else(|| result.token_basis.parse().ok())
            .unwrap_or_else(|| self.default_token_basis());
        result.tool_tokens = Some(self.tool_costs(catalog, basis));
        Ok(result)
    }
}

mod embedded;
mod remote;
use remote::RemoteRanker;

mod render;

pub mod why;
pub use why::{Standing, Verdict, Why, cap_words};

#[cfg(test)]
mod tests;
