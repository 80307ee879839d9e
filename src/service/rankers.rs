//! Rankers and token costs, built once per catalog and cached: a build holds
//! its cell's lock, so concurrent searches of one catalog wait for one build.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};

use super::{RankerCache, RankerCell, Service, ServiceError, lock};
use crate::catalog::Catalog;
use crate::embed::{DenseRanker, Embeddings};
use crate::engine::{CatalogRanker, Index, Ranker, RegexRanker};
use crate::tokens::TokenBasis;

impl Service {
    /// `ranker` over `catalog`, built once per (fingerprint, ranker). A ranker
    /// this service cannot run is the `ranker_unavailable` error.
    pub fn ranker_for(
        &self,
        catalog: &Catalog,
        ranker: Ranker,
    ) -> Result<Arc<dyn CatalogRanker>, ServiceError> {
        self.ranker_learned(catalog, ranker, None)
    }

    /// [`Service::ranker_for`], with the learned use of `usage_key` only
    /// (see [`super::usage::Pair::key`]).
    pub fn ranker_learned(
        &self,
        catalog: &Catalog,
        ranker: Ranker,
        usage_key: Option<&str>,
    ) -> Result<Arc<dyn CatalogRanker>, ServiceError> {
        let embeddings = match (ranker.needs_embeddings(), &self.config.embeddings) {
            (false, _) => None,
            (true, Some(e)) => Some(e.clone()),
            (true, None) => return Err(no_provider(ranker)),
        };
        let (ranked, built) = build_cached(&self.rankers, catalog, ranker, embeddings)?;
        let counter = if built {
            &self.index_builds
        } else {
            &self.index_cache_hits
        };
        counter.fetch_add(1, Ordering::Relaxed);
        Ok(match &self.config.usage {
            Some(usage) => usage.wrap(catalog, ranked, usage_key),
            None => ranked,
        })
    }

    /// Embeds `query` when the provider has not said its vectors' length
    /// yet: the search needs that vector anyway (it is cached), and a
    /// catalog's vectors can then come from the caches without the
    /// provider embedding one of its tools to learn the length.
    pub(super) fn learn_dimension(&self, query: &str) {
        if let Some(e) = &self.config.embeddings
            && e.provider().dimension().is_none()
        {
            // A failure shows again, as the search's own error.
            let _ = e.embed_query(query);
        }
    }

    /// Whether `ranker` over `catalog` and its token counts with `basis` are
    /// built (a search of it then builds and counts nothing).
    pub(super) fn is_built(&self, catalog: &Catalog, ranker: Ranker, basis: TokenBasis) -> bool {
        let fingerprint = catalog.fingerprint();
        let ranked = lock(&self.rankers)
            .get(&(fingerprint, ranker))
            .is_some_and(|cell| lock(&cell).is_some());
        ranked
            && lock(&self.costs)
                .get(&(fingerprint, basis))
                .is_some_and(|cell| cell.get().is_some())
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
}

/// A dense ranker asked of a service with no embedding provider.
fn no_provider(ranker: Ranker) -> ServiceError {
    ServiceError::bad_request(
        "ranker_unavailable",
        format!(
            "ranker \"{ranker}\" needs an embedding provider and none is configured; use \"bm25\""
        ),
    )
}

/// `ranker` over `catalog` from `rankers`, built now if absent (see
/// [`fill_cell`]); `true` when built here. A new ranker's cache entry is
/// weighed by what the ranker holds (the catalog's text until then).
pub(super) fn build_cached(
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
    // Every ranker by name: a new one is a new arm here, never BM25F by
    // default.
    let built: Arc<dyn CatalogRanker> = match (ranker, embeddings) {
        (Ranker::Bm25, _) => Arc::new(Index::build(catalog.tools())),
        (Ranker::Regex, _) => Arc::new(RegexRanker::build(catalog.tools())),
        (Ranker::Embeddings | Ranker::Hybrid, Some(e)) => Arc::new(
            DenseRanker::build(catalog, ranker, e).map_err(|e| ServiceError {
                status: 502,
                code: "ranker_failed",
                message: format!("ranker {ranker} failed: {e}"),
            })?,
        ),
        (Ranker::Embeddings | Ranker::Hybrid, None) => return Err(no_provider(ranker)),
    };
    *slot = Some(built.clone());
    Ok((built, true))
}
