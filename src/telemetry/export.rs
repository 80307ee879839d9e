//! The OTLP exporters (the `otel` feature): spans in batches and the
//! metrics every `OTEL_METRIC_EXPORT_INTERVAL` (60 s by default), over
//! HTTP/protobuf through the blocking reqwest client, each on the SDK's
//! own thread; the endpoint, headers, timeout and compression are read by
//! the exporter from the standard variables.

use std::sync::Mutex;
use std::time::Duration;

use opentelemetry::global;
use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;

use super::metrics_bridge::OtelRecorder;
use super::settings::{TelemetryError, Wanted};

/// How long the last spans and metrics may take to go at the end.
const FLUSH: Duration = Duration::from_secs(5);

/// The providers started, until [`shutdown`] takes them.
static STARTED: Mutex<Option<Started>> = Mutex::new(None);

struct Started {
    traces: Option<SdkTracerProvider>,
    metrics: Option<SdkMeterProvider>,
}

/// The process as the receiver names it: `OTEL_SERVICE_NAME` (or
/// `service.name` in `OTEL_RESOURCE_ATTRIBUTES`), else `toolsift`.
fn resource() -> Resource {
    let named = |var: &str| std::env::var(var).unwrap_or_default();
    let builder = Resource::builder().with_attribute(opentelemetry::KeyValue::new(
        "service.version",
        env!("CARGO_PKG_VERSION"),
    ));
    if named("OTEL_SERVICE_NAME").trim().is_empty()
        && !named("OTEL_RESOURCE_ATTRIBUTES").contains("service.name=")
    {
        builder.with_service_name("toolsift").build()
    } else {
        builder.build()
    }
}

fn failed(
    signal: &'static str,
) -> impl Fn(opentelemetry_otlp::ExporterBuildError) -> TelemetryError {
    move |e| TelemetryError::Exporting {
        signal,
        reason: e.to_string(),
    }
}

pub(super) fn start(wanted: Wanted) -> Result<(), TelemetryError> {
    crate::http::client::install_tls();
    let resource = resource();
    let mut started = Started {
        traces: None,
        metrics: None,
    };
    if wanted.traces {
        let exporter = SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .build()
            .map_err(failed("traces"))?;
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource.clone())
            .build();
        global::set_text_map_propagator(TraceContextPropagator::new());
        global::set_tracer_provider(provider.clone());
        started.traces = Some(provider);
        super::spans::turn_on();
    }
    if wanted.metrics {
        let exporter = MetricExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .build()
            .map_err(failed("metrics"))?;
        let provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(exporter).build())
            .with_resource(resource)
            .build();
        global::set_meter_provider(provider.clone());
        crate::http::metrics::install_beside(OtelRecorder::new(global::meter("toolsift")));
        started.metrics = Some(provider);
    }
    *crate::lock::lock(&STARTED) = Some(started);
    Ok(())
}

pub(super) fn shutdown() {
    let Some(started) = crate::lock::lock(&STARTED).take() else {
        return;
    };
    // On a thread of its own: the exporters' HTTP client is a blocking
    // one, which may not be dropped within an async runtime (a signal's
    // handler runs in one).
    let flushing = std::thread::Builder::new()
        .name("toolsift-otel-flush".into())
        .spawn(move || {
            if let Some(traces) = started.traces {
                let _ = traces.shutdown_with_timeout(FLUSH);
            }
            if let Some(metrics) = started.metrics {
                let _ = metrics.shutdown_with_timeout(FLUSH);
            }
        });
    if let Ok(flushing) = flushing {
        let _ = flushing.join();
    }
}
