//! The Prometheus recorder behind `/metrics` (the `metrics` facade is
//! global: one recorder per process, which later servers share), another
//! recorder beside it when one is wanted (the OTLP exporter's), and the
//! request counters every route adds to.

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

pub(crate) const REQUESTS: &str = "toolsift_requests_total";
pub(crate) const LATENCY: &str = "toolsift_request_duration_seconds";

/// Latency buckets, in seconds: 0.5 ms to 10 s.
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0,
];

/// The process's recorder.
static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

#[derive(Clone)]
pub(crate) struct Metrics {
    handle: Option<PrometheusHandle>,
}

/// The Prometheus recorder, its latency buckets set.
fn prometheus() -> Option<metrics_exporter_prometheus::PrometheusRecorder> {
    Some(
        PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(LATENCY.to_string()), &BUCKETS)
            .ok()?
            .build_recorder(),
    )
}

/// Installs the process's recorder with `other` beside the Prometheus one
/// (every update reaches both). Before any server starts: `false` when a
/// recorder was installed already (`other` then sees nothing).
pub fn install_beside(other: impl metrics::Recorder + Send + Sync + 'static) -> bool {
    let mut installed = false;
    HANDLE.get_or_init(|| {
        let first = prometheus()?;
        let handle = first.handle();
        let both = super::metrics_beside::Beside {
            first,
            second: other,
        };
        installed = metrics::set_global_recorder(both).is_ok();
        installed.then_some(handle)
    });
    installed
}

impl Metrics {
    /// Installs the recorder once; later servers in the same process share it.
    pub(crate) fn install() -> Metrics {
        let handle = HANDLE
            .get_or_init(|| {
                let recorder = prometheus()?;
                let handle = recorder.handle();
                metrics::set_global_recorder(recorder).ok()?;
                Some(handle)
            })
            .clone();
        Metrics { handle }
    }

    /// One finished request, under `path` as the server names it (a small
    /// set of names, never the raw path: labels stay bounded).
    pub(crate) fn record(&self, path: &str, status: u16, elapsed: Duration) {
        metrics::counter!(REQUESTS, "path" => path.to_string(), "status" => status.to_string())
            .increment(1);
        metrics::histogram!(LATENCY, "path" => path.to_string()).record(elapsed.as_secs_f64());
    }

    /// The text of `/metrics` as the counters stand.
    pub(crate) fn render(&self) -> String {
        match &self.handle {
            Some(h) => h.render(),
            None => String::new(),
        }
    }
}
