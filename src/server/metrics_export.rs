//! `/metrics` in the Prometheus text format, through the `metrics` facade
//! and its Prometheus exporter.

use crate::service::store::SessionStore;
use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::service::ServiceStats;

pub(crate) const REQUESTS: &str = "toolsift_requests_total";
pub(crate) const LATENCY: &str = "toolsift_request_duration_seconds";
/// `toolsift_cache_bytes` cache by cache (label `cache`: `catalogs`,
/// `rankers`, `token_costs`, `token_counts`, `vectors`).
pub(crate) const CACHE_BYTES_BY_CACHE: &str = "toolsift_cache_bytes_by_cache";

/// Latency buckets, in seconds: 0.5 ms to 10 s.
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0,
];

/// The process's recorder (one per process: the `metrics` facade is global).
static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

#[derive(Clone)]
pub(crate) struct Metrics {
    handle: Option<PrometheusHandle>,
}

impl Metrics {
    /// Installs the recorder once; later servers in the same process share it.
    pub(crate) fn install() -> Metrics {
        let handle = HANDLE
            .get_or_init(|| {
                PrometheusBuilder::new()
                    .set_buckets_for_metric(Matcher::Full(LATENCY.to_string()), &BUCKETS)
                    .ok()?
                    .install_recorder()
                    .ok()
            })
            .clone();
        Metrics { handle }
    }

    /// One finished request.
    pub(crate) fn record(&self, path: &str, status: u16, elapsed: Duration) {
        let path = match path {
            crate::wire::TOOL_SEARCH_PATH | "/healthz" | "/metrics" => path.to_string(),
            p if p.starts_with("/openai/") => "/openai".to_string(),
            p if p.starts_with("/anthropic/") => "/anthropic".to_string(),
            _ => "other".to_string(),
        };
        metrics::counter!(REQUESTS, "path" => path.clone(), "status" => status.to_string())
            .increment(1);
        metrics::histogram!(LATENCY, "path" => path).record(elapsed.as_secs_f64());
    }

    /// The text of `/metrics`, with the service's counters as of now.
    pub(crate) fn render(&self, stats: &ServiceStats, store: &SessionStore) -> String {
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
        match &self.handle {
            Some(h) => h.render(),
            None => String::new(),
        }
    }

    /// The text of `/metrics` as the counters stand (no service figures).
    pub(crate) fn render_plain(&self) -> String {
        match &self.handle {
            Some(h) => h.render(),
            None => String::new(),
        }
    }
}
