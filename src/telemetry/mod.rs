//! Traces and metrics over OTLP (OpenTelemetry), off unless the standard
//! `OTEL_EXPORTER_OTLP_*` variables name a receiver (`settings.rs`). When
//! on, the spans the gateway makes (`spans.rs`: a host's request, its
//! search, its call, what a server asks the host) go out in batches over
//! HTTP/protobuf, and the counters `/metrics` shows go out beside it
//! (`metrics_bridge.rs`); [`shutdown`] sends what is left before the
//! process ends. The W3C trace context a host sends is the parent of its
//! request's span and goes on to the server in the call's `_meta`.

#[cfg(feature = "otel")]
mod export;
#[cfg(feature = "otel")]
mod metrics_bridge;
pub mod settings;
pub mod spans;

pub use settings::{TelemetryError, Wanted};

/// Starts the exporters the process's environment asks for (nothing when
/// it names no OTLP endpoint); what it turned on. Call once, before any
/// server starts (the metrics recorder is the process's).
pub fn start() -> Result<Wanted, TelemetryError> {
    let wanted = settings::from_env()?;
    if !wanted.any() {
        return Ok(wanted);
    }
    #[cfg(feature = "otel")]
    {
        export::start(wanted)?;
        Ok(wanted)
    }
    #[cfg(not(feature = "otel"))]
    Err(TelemetryError::NotBuilt {
        var: settings::which_on(|var| std::env::var(var).ok()),
    })
}

/// Sends the spans and metrics not yet sent and stops the exporters
/// (within a few seconds: a receiver that is down does not hold the exit
/// up). Once; later calls do nothing.
pub fn shutdown() {
    #[cfg(feature = "otel")]
    export::shutdown();
}

/// What [`start`] turned on, in words for the gateway's start line.
pub fn said(wanted: Wanted) -> Option<String> {
    let what = match (wanted.traces, wanted.metrics) {
        (true, true) => "traces and metrics",
        (true, false) => "traces",
        (false, true) => "metrics",
        (false, false) => return None,
    };
    Some(format!(
        "OpenTelemetry: {what} sent over OTLP/HTTP (the OTEL_EXPORTER_OTLP_* variables)"
    ))
}
