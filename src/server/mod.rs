//! `toolsift serve`: the service core behind HTTP, wire-compatible with the
//! Caveman SDKs (docs/wire.md §3-4).
//!
//! Routes: `POST /sdk/v1/tool-search`, `GET /healthz`, `GET /metrics`
//! (Prometheus text), and the provider pass-through under `/openai/v1/` and
//! `/anthropic/` ([`passthrough`]). Sessions live in a [`SessionStore`]:
//! this process's memory or Redis. Ranking and token counting are CPU work: they run on
//! the blocking pool, at most `max_in_flight` at once; at most
//! `max_queued` more wait for a place, and any further request gets 503 at
//! once; provider calls have an admission of their own. Every request has a
//! time limit, body reading included, so a client that never finishes its
//! body is answered 408 and its connection closed; connections, heads and
//! idle keep-alive are bounded in [`conn`]. Every error is JSON
//! `{"error": {"code", "message"}}`.

mod forward;
mod handlers;
pub(crate) mod metrics_export;
pub mod passthrough;
mod settings;
mod upload;
mod upstream;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{any, get, post};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::service::store::{SessionStore, StoreError, StoreOptions, StoreSpec};
use crate::service::{Service, ServiceConfig};
use crate::wire::TOOL_SEARCH_PATH;

pub use crate::http::{ApiKeys, ConnLimits, shutdown_signal};
use crate::http::{conn, events};
pub use upstream::{Provider, Upstream, UpstreamError, Upstreams};

/// Everything `serve` needs, from flags and the config file.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub addr: SocketAddr,
    pub keys: ApiKeys,
    pub max_body_bytes: usize,
    pub request_timeout: Duration,
    /// Searches ranked at once (default: the number of cores).
    pub max_in_flight: usize,
    /// Requests waiting for a place beyond those; more get 503.
    pub max_queued: usize,
    /// Put the query text in the access log.
    pub log_queries: bool,
    /// Allow a non-loopback address without an API key.
    pub insecure_no_auth: bool,
    pub service: ServiceConfig,
    /// Where provider calls go.
    pub upstreams: Upstreams,
    /// The longest wait for an upstream's answer to begin (and between reads).
    pub upstream_timeout: Duration,
    /// Where sessions live.
    pub sessions: StoreSpec,
    /// How a shared store is used (its `idle` is the service's
    /// `session_idle`).
    pub store: StoreOptions,
    /// Provider calls passed through at once.
    pub max_passthrough: usize,
    /// Provider calls waiting for a place beyond those; more get 503.
    pub max_passthrough_queued: usize,
    /// The key `GET /metrics` needs (none: open, as `/healthz` is).
    pub metrics_key: Option<String>,
    /// Connections, heads, keep-alive and shutdown.
    pub conn: ConnLimits,
}

impl Default for ServeConfig {
    /// The defaults of `toolsift serve` (loopback, 16 MiB bodies, 10 s per
    /// request, 300 s for an upstream, 64 calls passed through at once), and
    /// those of the parts it holds.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        ServeConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 8787)),
            keys: ApiKeys::default(),
            max_body_bytes: 16 << 20,
            request_timeout: Duration::from_secs(10),
            max_in_flight: cores,
            max_queued: cores * 64,
            log_queries: false,
            insecure_no_auth: false,
            service: ServiceConfig::default(),
            upstreams: Upstreams::default(),
            // As long as the SDK waits for a provider call.
            upstream_timeout: Duration::from_secs(300),
            sessions: StoreSpec::Memory,
            store: StoreOptions::default(),
            max_passthrough: 64,
            max_passthrough_queued: 64,
            metrics_key: None,
            conn: ConnLimits::default(),
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    NoAuthOnPublicAddress(#[from] crate::http::PublicWithoutKey),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
    #[error("--sessions: {0}")]
    Store(#[from] StoreError),
    /// A setting that must be positive, given 0.
    #[error("{key} must be a positive integer, not 0")]
    Zero { key: &'static str },
    /// A sessions store that cannot be read (`memory` or `redis://…`).
    #[error("sessions {0}")]
    Sessions(#[from] crate::service::store::BadStoreSpec),
}

/// State shared by the handlers.
pub(crate) struct AppState {
    pub(crate) service: Arc<Service>,
    pub(crate) keys: ApiKeys,
    pub(crate) max_body_bytes: usize,
    pub(crate) request_timeout: Duration,
    pub(crate) log_queries: bool,
    /// A place to wait in: in flight plus queued.
    pub(crate) admission: Semaphore,
    /// A place to rank in.
    pub(crate) workers: Arc<Semaphore>,
    pub(crate) metrics: crate::http::metrics::Metrics,
    pub(crate) store: SessionStore,
    pub(crate) upstreams: Upstreams,
    pub(crate) upstream_timeout: Duration,
    pub(crate) http: reqwest::Client,
    /// Provider calls: a place to wait in, and a place to be passed in.
    pub(crate) passthrough_admission: Semaphore,
    pub(crate) passthrough_slots: Arc<Semaphore>,
    pub(crate) metrics_key: Option<ApiKeys>,
    /// Followers of `GET /events`.
    pub(crate) followers: Arc<events::Followers>,
}

/// Checks the address against the auth rule, before binding.
pub fn check_bind(config: &ServeConfig) -> Result<(), ServeError> {
    crate::http::check_bind(config.addr, &config.keys, config.insecure_no_auth, "use it")?;
    Ok(())
}

/// Binds the configured address (after [`check_bind`]).
pub async fn bind(config: &ServeConfig) -> Result<TcpListener, ServeError> {
    check_bind(config)?;
    TcpListener::bind(config.addr)
        .await
        .map_err(|source| ServeError::Bind {
            addr: config.addr,
            source,
        })
}

/// The routes over a service. Needs a tokio runtime (the Redis store's
/// connection is made in it, lazily).
pub fn router(
    config: &ServeConfig,
    service: Arc<Service>,
    followers: Arc<events::Followers>,
) -> Result<Router, ServeError> {
    let options = StoreOptions {
        idle: config.service.session_idle,
        ..config.store.clone()
    };
    let store = SessionStore::open(&config.sessions, &options)?;
    if let (Some(shared), Some(embeddings)) =
        (store.shared_vectors(), service.config().embeddings.as_ref())
    {
        embeddings.cache().share_with(shared);
    }
    let state = Arc::new(AppState {
        service,
        keys: config.keys.clone(),
        max_body_bytes: config.max_body_bytes,
        request_timeout: config.request_timeout,
        log_queries: config.log_queries,
        admission: Semaphore::new(config.max_in_flight.max(1) + config.max_queued),
        workers: Arc::new(Semaphore::new(config.max_in_flight.max(1))),
        metrics: crate::http::metrics::Metrics::install(),
        store,
        upstreams: config.upstreams.clone(),
        upstream_timeout: config.upstream_timeout,
        http: passthrough::http_client(config.upstream_timeout),
        passthrough_admission: Semaphore::new(
            config.max_passthrough.max(1) + config.max_passthrough_queued,
        ),
        passthrough_slots: Arc::new(Semaphore::new(config.max_passthrough.max(1))),
        metrics_key: config.metrics_key.clone().map(|k| ApiKeys::new(vec![k])),
        followers,
    });
    Ok(Router::new()
        .route(TOOL_SEARCH_PATH, post(handlers::tool_search))
        .route("/healthz", get(handlers::healthz))
        .route("/metrics", get(handlers::metrics))
        .route(events::EVENTS_PATH, get(handlers::events))
        .route("/openai", any(passthrough::openai))
        .route("/openai/{*rest}", any(passthrough::openai))
        .route("/anthropic", any(passthrough::anthropic))
        .route("/anthropic/{*rest}", any(passthrough::anthropic))
        .route("/gemini/{*rest}", any(passthrough::unsupported))
        .route("/vertex/{*rest}", any(passthrough::unsupported))
        .route("/bedrock/{*rest}", any(passthrough::unsupported))
        .fallback(handlers::not_found)
        .method_not_allowed_fallback(handlers::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            handlers::access_log,
        ))
        .with_state(state))
}

/// Serves on `listener` until `shutdown` resolves; then refuses new
/// connections, closes idle ones and lets the requests in flight finish
/// (within the shutdown grace).
pub async fn serve_on(
    listener: TcpListener,
    config: &ServeConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let service = Arc::new(Service::new(config.service.clone()));
    let followers = Arc::new(events::Followers::new(events::BUFFER));
    let app = router(config, service, followers.clone())?;
    let shutdown = async move {
        shutdown.await;
        followers.stop();
    };
    conn::serve_as("toolsift serve", listener, app, config.conn, shutdown).await?;
    Ok(())
}

/// Loads what the first request would otherwise wait for (the tokenizer).
pub async fn warm_up(config: &ServeConfig) {
    let basis = config.service.token_basis;
    let _ = tokio::task::spawn_blocking(move || basis.count("warm up")).await;
}
