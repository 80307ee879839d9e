//! The service's figures in `/metrics` (the recorder is the HTTP layer's,
//! [`crate::http::metrics`]).

use crate::http::metrics::Metrics;
use crate::service::ServiceStats;
use crate::service::store::SessionStore;

/// `toolsift_cache_bytes` cache by cache (label `cache`: `catalogs`,
/// `rankers`, `token_costs`, `token_counts`, `vectors`).
pub(crate) const CACHE_BYTES_BY_CACHE: &str = "toolsift_cache_bytes_by_cache";

/// The label a request's path is counted under: the service's routes, the
/// providers, else `other` (labels stay few whatever paths are asked).
pub(crate) fn path_label(path: &str) -> &str {
    match path {
        crate::wire::TOOL_SEARCH_PATH | "/healthz" | "/metrics" => path,
        p if p.starts_with("/openai/") => "/openai",
        p if p.starts_with("/anthropic/") => "/anthropic",
        _ => "other",
    }
}

/// The text of `/metrics`, with the service's counters as of now.
pub(crate) fn render(metrics: &Metrics, stats: &ServiceStats, store: &SessionStore) -> String {
    metrics::counter!("toolsift_session_store_errors_total").absolute(store.errors());
    if let Some(shared) = store.shared_stats() {
        let shared_counts = [
            ("catalog", "written", shared.catalogs_written),
            ("catalog", "fetched", shared.catalogs_fetched),
            ("vector", "found", shared.vectors_found),
            ("vector", "written", shared.vectors_written),
        ];
        for (kind, outcome, n) in shared_counts {
            metrics::counter!("toolsift_shared_total", "kind" => kind, "outcome" => outcome)
                .absolute(n);
        }
        metrics::counter!("toolsift_shared_over_budget_total").absolute(shared.over_budget);
        metrics::counter!("toolsift_shared_errors_total").absolute(shared.errors);
        metrics::counter!("toolsift_session_writes_unreplicated_total")
            .absolute(store.unreplicated());
        metrics::counter!("toolsift_session_replica_waits_skipped_total")
            .absolute(store.replica_waits_skipped());
    }
    metrics::counter!("toolsift_searches_total").absolute(stats.searches);
    metrics::counter!("toolsift_index_cache_hits_total").absolute(stats.index_cache_hits);
    metrics::counter!("toolsift_index_cache_misses_total").absolute(stats.index_builds);
    metrics::counter!("toolsift_catalog_parses_total").absolute(stats.catalog_parses);
    metrics::counter!("toolsift_catalogs_recognised_total").absolute(stats.catalogs_recognised);
    metrics::counter!("toolsift_catalogs_recognised_arriving_total")
        .absolute(stats.catalogs_recognised_arriving);
    metrics::counter!("toolsift_tools_tokenized_total").absolute(stats.tokenized);
    metrics::gauge!("toolsift_sessions").set(stats.sessions as f64);
    metrics::gauge!("toolsift_cache_bytes").set(stats.cache_bytes as f64);
    for (cache, bytes) in stats.caches.parts() {
        metrics::gauge!(CACHE_BYTES_BY_CACHE, "cache" => cache).set(bytes as f64);
    }
    metrics::gauge!("toolsift_token_counts_cached").set(stats.token_counts as f64);
    metrics.render()
}
