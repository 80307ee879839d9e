//! What the service's counters and caches show: searches, builds and
//! parses saved, and the bytes each cache holds.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Service, lock};
use crate::catalog::Catalog;

/// Counters that show what the caches saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServiceStats {
    pub searches: u64,
    /// Rankers built (one per catalog fingerprint and ranker).
    pub index_builds: u64,
    /// Searches that found their ranker built already.
    pub index_cache_hits: u64,
    pub cost_vectors: u64,
    /// Request catalogs parsed (a byte-identical catalog is parsed once).
    pub catalog_parses: u64,
    /// Request catalogs recognised from their bytes, without a JSON pass
    /// over them.
    pub catalogs_recognised: u64,
    /// Of those, the ones recognised as the body arrived
    /// ([`super::recognise::BodyReader`]), never kept whole.
    pub catalogs_recognised_arriving: u64,
    /// Tool definitions actually run through a tokenizer.
    pub tokenized: u64,
    pub sessions: usize,
    /// Bytes held by all the caches (approximate): the sum of `caches`.
    pub cache_bytes: usize,
    /// The same, cache by cache.
    pub caches: CacheBytes,
    /// Definitions whose token counts are cached.
    pub token_counts: usize,
}

/// Bytes held by each of a service's caches (approximate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheBytes {
    /// Parsed request catalogs (by text and by fingerprint; a catalog held
    /// by both counts once).
    pub catalogs: usize,
    /// Rankers: BM25F indexes, dense rankers.
    pub rankers: usize,
    /// Every tool's token cost, per catalog and basis.
    pub token_costs: usize,
    /// Token counts per definition.
    pub token_counts: usize,
    /// The embedding provider's vectors in memory.
    pub vectors: usize,
}

impl CacheBytes {
    /// Each cache's name (the `cache` label of the metrics) and bytes.
    pub fn parts(&self) -> [(&'static str, usize); 5] {
        [
            ("catalogs", self.catalogs),
            ("rankers", self.rankers),
            ("token_costs", self.token_costs),
            ("token_counts", self.token_counts),
            ("vectors", self.vectors),
        ]
    }

    pub fn total(&self) -> usize {
        self.parts().iter().map(|(_, b)| b).sum()
    }
}

impl Service {
    pub fn stats(&self) -> ServiceStats {
        let caches = CacheBytes {
            catalogs: self.catalog_bytes(),
            rankers: lock(&self.rankers).weight(),
            token_costs: lock(&self.costs).weight(),
            token_counts: self.counter.cache_bytes(),
            vectors: self
                .config
                .embeddings
                .as_ref()
                .map_or(0, |e| e.cache().stats().memory_bytes),
        };
        ServiceStats {
            searches: self.searches.load(Ordering::Relaxed),
            index_builds: self.index_builds.load(Ordering::Relaxed),
            index_cache_hits: self.index_cache_hits.load(Ordering::Relaxed),
            cost_vectors: self.cost_vectors.load(Ordering::Relaxed),
            catalog_parses: self.catalog_parses.load(Ordering::Relaxed),
            catalogs_recognised: self.catalogs_recognised.load(Ordering::Relaxed),
            catalogs_recognised_arriving: self.catalogs_recognised_arriving.load(Ordering::Relaxed),
            tokenized: self.counter.tokenized_count(),
            sessions: lock(&self.sessions).len(),
            cache_bytes: caches.total(),
            caches,
            token_counts: self.counter.cached_count(),
        }
    }

    /// Bytes of the parsed catalogs held, each counted once though both
    /// catalog caches may hold it.
    fn catalog_bytes(&self) -> usize {
        let (held, parsed): (Vec<*const Catalog>, usize) = {
            let parsed = lock(&self.parsed);
            let held = parsed.iter().map(|(p, _)| p.catalog_ptr()).collect();
            (held, parsed.weight())
        };
        let others: usize = lock(&self.by_fingerprint)
            .iter()
            .filter(|(c, _)| !held.contains(&Arc::as_ptr(c)))
            .map(|(_, weight)| weight)
            .sum();
        parsed + others
    }
}
