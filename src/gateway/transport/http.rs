//! The gateway over streamable HTTP (`--http ADDR`): the MCP endpoint at
//! `/mcp` (rmcp's server transport; sessions for the handshake revisions,
//! stateless 2026-07-28), `/healthz`, and `/metrics` in the Prometheus text
//! format, and `/events` (the traffic, for `explore --follow`). API keys and the non-loopback refusal are `serve`'s; the
//! connections are served by the same accept loop.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::http_sessions::{Known, SessionLimits, Sessions};
use super::http_wire::{self, MAX_MESSAGE_BYTES};
use crate::gateway::{Gateway, GatewayError, GatewaySession};
use crate::http::conn::{self, ConnLimits};
use crate::http::events::EVENTS_PATH;
use crate::http::{ApiKeys, proven, unauthorized};

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// The `Origin`s a request may carry: pages served from this machine.
const LOCAL_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

/// The API key a request proved ("" when the gateway has none), for the
/// sessionless breaker.
#[derive(Debug, Clone)]
pub(crate) struct Scope(pub(crate) String);

/// How the gateway listens over HTTP.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub addr: SocketAddr,
    pub keys: ApiKeys,
    /// Allow a non-loopback address without an API key.
    pub insecure_no_auth: bool,
    pub conn: ConnLimits,
    /// How many MCP sessions live at once, in all and per key.
    pub sessions: SessionLimits,
}

struct HttpState {
    gateway: Arc<Gateway>,
    keys: ApiKeys,
    metrics: crate::http::metrics::Metrics,
    sessions: Sessions,
}

/// The header that carries an MCP session's id.
const SESSION_HEADER: &str = "mcp-session-id";

/// Refuses a public address without keys, as `serve` does.
pub fn check_bind(config: &HttpConfig) -> Result<(), GatewayError> {
    crate::http::check_bind(
        config.addr,
        &config.keys,
        config.insecure_no_auth,
        "call your MCP servers' tools",
    )?;
    Ok(())
}

/// The routes; `stop` ends every MCP session when cancelled.
fn router(gateway: Arc<Gateway>, config: &HttpConfig, mcp: StreamableHttpServerConfig) -> Router {
    let manager = Arc::new(LocalSessionManager::default());
    let state = Arc::new(HttpState {
        gateway: gateway.clone(),
        keys: config.keys.clone(),
        metrics: crate::http::metrics::Metrics::install(),
        sessions: Sessions::new(config.sessions, manager.clone()),
    });
    let factory_gateway = gateway.clone();
    let service = StreamableHttpService::new(
        move || Ok(GatewaySession::new(factory_gateway.clone(), "http")),
        manager,
        mcp,
    );
    Router::new()
        .nest_service(MCP_PATH, service)
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route(EVENTS_PATH, get(events))
        .route(crate::follow::catalog::CATALOG_PATH, get(catalog))
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

/// Serves until `shutdown` resolves.
pub async fn serve_http(
    gateway: Arc<Gateway>,
    config: HttpConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), GatewayError> {
    let listener = bind(&config)?;
    serve_http_on(gateway, config, listener, shutdown).await
}

/// Binds the gateway's address now (before its servers start, so a port
/// in use is said at once, not after a long start), after the checks of
/// [`check_bind`].
pub fn bind(config: &HttpConfig) -> Result<std::net::TcpListener, GatewayError> {
    check_bind(config)?;
    let listen = |source| GatewayError::Listen {
        addr: config.addr,
        source,
    };
    let listener = std::net::TcpListener::bind(config.addr).map_err(listen)?;
    listener.set_nonblocking(true).map_err(listen)?;
    Ok(listener)
}

/// [`serve_http`] on a listener [`bind`] made.
pub async fn serve_http_on(
    gateway: Arc<Gateway>,
    config: HttpConfig,
    listener: std::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), GatewayError> {
    let addr = config.addr;
    let listener = tokio::net::TcpListener::from_std(listener)
        .map_err(|source| GatewayError::Listen { addr, source })?;
    // A browser's page may only reach the gateway from the machine itself
    // (the MCP specification asks servers to validate Origin); clients
    // that send no Origin (hosts, SDKs) are not browsers and pass.
    let mut mcp = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(MAX_MESSAGE_BYTES)
        .with_allowed_origins(LOCAL_ORIGINS)
        .enforce_origin_validation();
    if !config.addr.ip().is_loopback() {
        // Keys guard a public address; the Host check is for loopback
        // servers reached through DNS rebinding.
        mcp = mcp.disable_allowed_hosts();
    }
    let stop = mcp.cancellation_token.clone();
    let app = router(gateway.clone(), &config, mcp);
    // Subscriptions of sessions that ended (closed, evicted) are released
    // upstream.
    let sweeping = gateway.clone();
    let sweep_stop = stop.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(crate::gateway::answer::relayed::RELEASE_EVERY);
        loop {
            tokio::select! {
                _ = every.tick() => sweeping.release_abandoned().await,
                () = sweep_stop.cancelled() => return,
            }
        }
    });
    let local = listener
        .local_addr()
        .map_err(|source| GatewayError::Listen { addr, source })?;
    gateway.recorder.info(&format!(
        "listening on http://{local}{MCP_PATH} ({})",
        if config.keys.is_empty() {
            "no API key".to_string()
        } else {
            "API key required".to_string()
        }
    ));
    // The sessions end once the calls in flight are answered (within the
    // stop's grace period; the signal's thread may have begun it).
    let drain = gateway.drain();
    let followed = gateway.clone();
    let shutdown = async move {
        shutdown.await;
        followed.recorder.followers.stop();
        let _ = tokio::task::spawn_blocking(move || drain.stop()).await;
        stop.cancel();
    };
    conn::serve_as("toolsift gateway", listener, app, config.conn, shutdown)
        .await
        .map_err(|source| GatewayError::Serving {
            addr: local,
            source,
        })
}

/// Auth (every path but `/healthz`), the scope for the handlers, the mark
/// of an answer whose key passed (the connection keeps its place), and one
/// access-log line per request.
async fn guard(State(state): State<Arc<HttpState>>, mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    // Whether the key was checked and passed: only then is the connection
    // a client's that keeps its place (`/healthz` proves nothing).
    let mut keyed = false;
    let response = if path == "/healthz" {
        next.run(request).await
    } else {
        let presented = request
            .headers()
            .get(header::AUTHORIZATION)
            .map(HeaderValue::as_bytes);
        match state.keys.check(presented).map(str::to_string) {
            Some(scope) if path == MCP_PATH => {
                keyed = true;
                mcp_request(&state, scope, request, next).await
            }
            Some(scope) => {
                keyed = true;
                request.extensions_mut().insert(Scope(scope));
                next.run(request).await
            }
            None => unauthorized(request.headers()),
        }
    };
    // A session closed by DELETE is done: 204, not rmcp's 202 Accepted (an
    // SDK takes anything but 200 or 204 for a failure).
    let response = if method == axum::http::Method::DELETE
        && path == MCP_PATH
        && response.status() == StatusCode::ACCEPTED
    {
        StatusCode::NO_CONTENT.into_response()
    } else {
        response
    };
    let shown = match path.as_str() {
        MCP_PATH | EVENTS_PATH | crate::follow::catalog::CATALOG_PATH | "/healthz" | "/metrics" => {
            path.as_str()
        }
        _ => "(other path)",
    };
    let elapsed = started.elapsed();
    state
        .metrics
        .record(shown, response.status().as_u16(), elapsed);
    state.gateway.recorder.info(&format!(
        "{method} {shown} {} {:.2} ms",
        response.status().as_u16(),
        elapsed.as_secs_f64() * 1000.0
    ));
    match keyed {
        true => proven(response),
        false => response,
    }
}

/// A request of the MCP endpoint: its session checked against the key
/// that opened it, room made for a new one, the sessions kept count of.
async fn mcp_request(
    state: &HttpState,
    scope: String,
    mut request: Request,
    next: Next,
) -> Response {
    let id = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let closing = request.method() == axum::http::Method::DELETE;
    let posted = request.method() == axum::http::Method::POST;
    let live = match &id {
        Some(id) => match state.sessions.check(id, &scope) {
            Known::Yours => true,
            Known::Unknown => false,
            // As rmcp answers a session it does not have.
            Known::Others => return no_session(),
            Known::Evicted => return evicted(state.sessions.limits()),
        },
        None => false,
    };
    if posted {
        request = match http_wire::checked(request, live).await {
            Ok(request) => request,
            Err(answer) => return answer,
        };
        if id.is_none() {
            state.sessions.make_room(&scope).await;
        }
    }
    request.extensions_mut().insert(Scope(scope.clone()));
    let response = next.run(request).await;
    match id {
        Some(id) if closing && response.status().is_success() => state.sessions.closed(&id),
        Some(_) => {}
        None => {
            if let Some(new) = response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
            {
                state.sessions.opened(new, &scope);
            }
        }
    }
    response
}

/// What rmcp answers for a session it does not have.
fn no_session() -> Response {
    (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}

/// A session closed to make room for newer ones: a JSON-RPC error that
/// says so (a 404, so the host starts a new session).
fn evicted(limits: SessionLimits) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32001,
            "message": format!(
                "this session was closed to make room for newer ones (the gateway keeps {} sessions at most, {} per API key, and closes the idlest): start a new session",
                limits.max, limits.max_per_key
            ),
        }
    });
    (StatusCode::NOT_FOUND, axum::Json(body)).into_response()
}

/// The searches and calls as they happen (`explore --follow`).
async fn events(
    State(state): State<Arc<HttpState>>,
    axum::Extension(Scope(key)): axum::Extension<Scope>,
) -> Response {
    let label = state.gateway.config.access.label(&key);
    let viewer = crate::http::events::Viewer::named(&state.keys, &key, label);
    state.gateway.recorder.followers.response(viewer)
}

/// The catalog searched (`explore --follow` judges the traffic by it):
/// behind the same keys as the events, and as the key reaches it.
async fn catalog(
    State(state): State<Arc<HttpState>>,
    axum::Extension(Scope(key)): axum::Extension<Scope>,
) -> Response {
    let reach = state.gateway.config.access.of(&key);
    let view = state.gateway.view(&reach);
    axum::Json(crate::follow::catalog::wire(&view.catalog)).into_response()
}

async fn healthz(State(state): State<Arc<HttpState>>) -> Response {
    let tools = state.gateway.catalog().len();
    let servers: Vec<serde_json::Value> = state
        .gateway
        .host
        .states()
        .iter()
        .map(|s| {
            let mut v = serde_json::json!({"name": s.name, "state": s.state_word()});
            if let crate::sources::mcp::ServerState::Loaded { tools, .. } = s.state {
                v["tools"] = tools.into();
            }
            if let Some(why) = s.failure() {
                v["error"] = why.into();
            }
            v
        })
        .collect();
    axum::Json(serde_json::json!({"status": "ok", "tools": tools, "servers": servers}))
        .into_response()
}

async fn metrics(State(state): State<Arc<HttpState>>) -> Response {
    let tools = state.gateway.catalog().len();
    metrics::gauge!("toolsift_gateway_tools").set(tools as f64);
    let hidden = state.gateway.hidden_counts();
    metrics::gauge!("toolsift_gateway_hidden_text_tools", "action" => "stripped")
        .set(hidden.stripped as f64);
    metrics::gauge!("toolsift_gateway_hidden_text_tools", "action" => "dropped")
        .set(hidden.dropped as f64);
    crate::http::guard::metrics_text(state.metrics.render())
}
