//! An OTLP/HTTP receiver on loopback for the gateway's telemetry tests:
//! it takes what an exporter POSTs to `/v1/traces` and `/v1/metrics`,
//! decodes it with the protocol's own messages (opentelemetry-proto) and
//! keeps it; anything else it counts too, so a test can see that nothing
//! came at all.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

#[derive(Default)]
struct Got {
    spans: Mutex<Vec<Span>>,
    /// The service name of each batch of spans.
    services: Mutex<Vec<String>>,
    metrics: Mutex<Vec<String>>,
    requests: AtomicUsize,
}

pub(crate) struct Receiver {
    pub(crate) port: u16,
    got: Arc<Got>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

/// A string attribute's value.
pub(crate) fn attr(attributes: &[KeyValue], key: &str) -> Option<String> {
    let value = attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?;
    match value {
        AnyValue {
            value: Some(any_value::Value::StringValue(s)),
        } => Some(s.clone()),
        AnyValue {
            value: Some(any_value::Value::IntValue(n)),
        } => Some(n.to_string()),
        _ => None,
    }
}

fn traces(got: Arc<Got>, body: Bytes) {
    got.requests.fetch_add(1, Ordering::SeqCst);
    let request = ExportTraceServiceRequest::decode(body).expect("an OTLP trace export");
    for resource in request.resource_spans {
        let attributes = resource.resource.map(|r| r.attributes).unwrap_or_default();
        let service = attr(&attributes, "service.name").unwrap_or_default();
        got.services.lock().unwrap().push(service);
        for scope in resource.scope_spans {
            got.spans.lock().unwrap().extend(scope.spans);
        }
    }
}

fn metrics(got: Arc<Got>, body: Bytes) {
    got.requests.fetch_add(1, Ordering::SeqCst);
    let request = ExportMetricsServiceRequest::decode(body).expect("an OTLP metrics export");
    for resource in request.resource_metrics {
        for scope in resource.scope_metrics {
            let names = scope.metrics.into_iter().map(|m| m.name);
            got.metrics.lock().unwrap().extend(names);
        }
    }
}

impl Receiver {
    pub(crate) fn start() -> Receiver {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let got = Arc::new(Got::default());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (t, m, other) = (got.clone(), got.clone(), got.clone());
        let app = axum::Router::new()
            .route(
                "/v1/traces",
                post(move |b: Bytes| async move { traces(t, b) }),
            )
            .route(
                "/v1/metrics",
                post(move |b: Bytes| async move { metrics(m, b) }),
            )
            .fallback(move || async move {
                other.requests.fetch_add(1, Ordering::SeqCst);
            });
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        Receiver {
            port,
            got,
            stop: Some(stop),
        }
    }

    pub(crate) fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub(crate) fn spans(&self) -> Vec<Span> {
        self.got.spans.lock().unwrap().clone()
    }

    pub(crate) fn services(&self) -> Vec<String> {
        self.got.services.lock().unwrap().clone()
    }

    pub(crate) fn metric_names(&self) -> Vec<String> {
        self.got.metrics.lock().unwrap().clone()
    }

    /// Every request it was sent, of any kind.
    pub(crate) fn requests(&self) -> usize {
        self.got.requests.load(Ordering::SeqCst)
    }

    /// Waits up to `limit` until `ready` holds of what it has; whether it
    /// did.
    pub(crate) fn wait_until(&self, limit: Duration, ready: impl Fn(&Receiver) -> bool) -> bool {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if ready(self) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        ready(self)
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
