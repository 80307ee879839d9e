//! The HTTP handlers and the access log.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Json;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONNECTION, CONTENT_ENCODING, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use crate::http::body::{self, BodyFault, BodySink};
pub(crate) use crate::http::body::{declared_length, discard_bound};
pub(crate) use crate::http::{proven, unauthorized};
use crate::service::{BodyReader, SESSION_NOT_FOUND, SESSION_NOT_SAVED, ServiceError};
use crate::terminal_text::escape;
use crate::wire::{ErrorBody, ErrorDetail};

/// What a handler tells the access log about its request.
#[derive(Debug, Clone, Default)]
pub(crate) struct LogFields {
    pub(crate) catalog_tools: Option<usize>,
    pub(crate) returned: Option<usize>,
    pub(crate) query: Option<String>,
    /// Tools a session hint added to a provider call.
    pub(crate) injected: Option<usize>,
}

/// A JSON error response.
pub(crate) fn error(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    let body = ErrorBody {
        error: ErrorDetail {
            code: code.to_string(),
            message: message.into(),
        },
    };
    (status, Json(body)).into_response()
}

/// A search's JSON answer, written into room for a usual answer made at
/// once (axum's `Json` starts from 128 bytes and grows as it writes).
fn answer_response(answer: &impl serde::Serialize) -> Response {
    let mut body = Vec::with_capacity(16 << 10);
    match serde_json::to_writer(&mut body, answer) {
        Ok(()) => (
            [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
            body,
        )
            .into_response(),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("writing the answer: {e}"),
        ),
    }
}

fn service_error(e: &ServiceError) -> Response {
    let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    error(status, e.code, e.message.clone())
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

/// Reads the whole body within the service's size limit and the request's
/// time limit (from `started`); else the answer to give, closing the
/// connection (see [`body::read_limited`]).
pub(crate) async fn read_request_body(
    st: &AppState,
    headers: &HeaderMap,
    body: Body,
    started: Instant,
) -> Result<Vec<u8>, Response> {
    read_body_into(st, headers, body, started, Vec::with_capacity).await
}

impl BodySink for BodyReader {
    fn push(&mut self, chunk: &[u8]) {
        BodyReader::push(self, chunk);
    }
}

/// [`read_request_body`] into the sink `make` gives.
pub(crate) async fn read_body_into<S: BodySink>(
    st: &AppState,
    headers: &HeaderMap,
    body: Body,
    started: Instant,
    make: impl FnOnce(usize) -> S,
) -> Result<S, Response> {
    let limit = st.max_body_bytes;
    let deadline = started + st.request_timeout;
    body::read_limited(limit, deadline, headers, body, make)
        .await
        .map_err(|fault| {
            closing(match fault {
                BodyFault::TooLarge => too_large(limit),
                BodyFault::TimedOut => error(
                    StatusCode::REQUEST_TIMEOUT,
                    "request_timeout",
                    format!(
                        "the request body did not arrive within {} ms",
                        st.request_timeout.as_millis()
                    ),
                ),
                BodyFault::Broken(e) => error(
                    StatusCode::BAD_REQUEST,
                    "invalid_request",
                    format!("reading the request body: {e}"),
                ),
            })
        })
}

pub(crate) fn too_large(limit: usize) -> Response {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        "body_too_large",
        format!("the request body is over this service's limit of {limit} bytes"),
    )
}

/// Closes the connection after this response.
pub(crate) fn closing(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Refuses a body this service would misread: compressed
/// (`content-encoding` other than identity) or in a charset other than
/// UTF-8 (415): the answer to give instead, if any.
pub(crate) fn refuse_unreadable_body(headers: &HeaderMap) -> Option<Response> {
    for value in headers.get_all(CONTENT_ENCODING) {
        let text = String::from_utf8_lossy(value.as_bytes());
        if text
            .split(',')
            .map(str::trim)
            .any(|c| !c.is_empty() && !c.eq_ignore_ascii_case("identity"))
        {
            return Some(error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_content_encoding",
                format!(
                    "content-encoding {:?} is not read here; send the body uncompressed",
                    escape(&text)
                ),
            ));
        }
    }
    if let Some(charset) = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .into_iter()
        .flat_map(|v| v.split(';').skip(1))
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, v)| v.trim().trim_matches('"').to_string())
        && !charset.eq_ignore_ascii_case("utf-8")
        && !charset.eq_ignore_ascii_case("utf8")
    {
        return Some(error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_charset",
            format!(
                "charset {:?} is not read here; JSON bodies must be UTF-8",
                escape(&charset)
            ),
        ));
    }
    None
}

/// `POST /sdk/v1/tool-search`.
pub(crate) async fn tool_search(
    State(st): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let started = Instant::now();
    let Some(scope) = st
        .keys
        .check(headers.get(AUTHORIZATION).map(HeaderValue::as_bytes))
    else {
        return unauthorized(&headers);
    };
    let scope = scope.to_string();
    proven(search(st, scope, headers, body, started).await)
}

/// A search whose key passed: its body checked, admitted and read, the
/// search run and its session recorded, the followers told, the answer
/// written.
async fn search(
    st: Arc<AppState>,
    scope: String,
    headers: HeaderMap,
    body: Body,
    started: Instant,
) -> Response {
    if !is_json(&headers) {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "the request body must be JSON (content-type: application/json)",
        );
    }
    if let Some(response) = refuse_unreadable_body(&headers) {
        return response;
    }
    let Ok(_admitted) = st.admission.try_acquire() else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "overloaded",
            "too many requests are waiting; try again shortly",
        );
    };
    let reader = |capacity| st.service.body_reader(capacity);
    let body = match read_body_into(&st, &headers, body, started, reader).await {
        Ok(reader) => reader.finish(),
        Err(response) => return response,
    };
    let (result, query) = match searched(&st, &scope, body, started).await {
        Ok(searched) => searched,
        Err(response) => return response,
    };
    if let (Ok(answer), true) = (&result, st.followers.any()) {
        // Seen by the followers of the key that searched (and operators).
        st.followers.send_as(
            &search_event(answer, query.as_deref(), started),
            crate::http::keys::digest(&scope).as_deref(),
        );
    }
    let fields = LogFields {
        query: query.filter(|_| st.log_queries),
        ..LogFields::default()
    };
    search_response(result, fields)
}

/// A search's answer, and its query when queries are logged.
type Searched = (Result<crate::service::Answer, ServiceError>, Option<String>);

/// Runs the search within the request's time limit (a repeated catalog
/// with everything built here, else on a blocking worker) and records its
/// session in a shared store; the answer refusing it when it timed out,
/// failed, or its session could not be kept.
async fn searched(
    st: &AppState,
    scope: &str,
    body: crate::service::ReadBody,
    started: Instant,
) -> Result<Searched, Response> {
    let limit = st.request_timeout;
    let remaining = limit.saturating_sub(started.elapsed());
    // Memory sessions are the service's own; a shared store records them
    // after the search.
    let record = st.store.is_memory();
    // The query is kept for the log, and for followers where it is logged.
    let log_queries = st.log_queries;
    let work = async {
        let body = match st.service.ready(body) {
            // A repeated catalog with everything built: a moment's work,
            // done here rather than handed to a blocking thread.
            Ok(ready) => {
                let query = log_queries.then(|| ready.query().to_string());
                let result = st.service.tool_search_ready(ready, Some(scope), record);
                return Ok((result, query));
            }
            Err(body) => body,
        };
        let permit = st.workers.clone().acquire_owned().await;
        let service = st.service.clone();
        let scope = scope.to_string();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let query = log_queries.then(|| query_of(body.json())).flatten();
            (service.tool_search_read(body, Some(&scope), record), query)
        })
        .await
    };
    match tokio::time::timeout(remaining, work).await {
        Ok(Ok((Ok((answer, Some(pending))), query))) => {
            Ok((Ok(recorded(st, answer, &pending).await?), query))
        }
        Ok(Ok((result, query))) => Ok((result.map(|(answer, _)| answer), query)),
        Ok(Err(e)) => Err(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("the search failed: {e}"),
        )),
        Err(_) => Err(error(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!("the search did not finish within {} ms", limit.as_millis()),
        )),
    }
}

/// A shared store: the session is recorded there. A session the request
/// continues needs the store; a new one is answered anyway, and said to be
/// unsaved.
async fn recorded(
    st: &AppState,
    mut answer: crate::service::Answer,
    pending: &crate::service::PendingSession,
) -> Result<crate::service::Answer, Response> {
    match st.store.record(&st.service, pending).await {
        Ok(recorded) => {
            if recorded.new && pending.named {
                answer.set_session_note(SESSION_NOT_FOUND);
            }
            answer.set_session_tools(recorded.loaded);
        }
        Err(_) if !pending.named => answer.set_session_note(SESSION_NOT_SAVED),
        Err(e) => {
            return Err(error(
                StatusCode::SERVICE_UNAVAILABLE,
                "session_store_unavailable",
                e.to_string(),
            ));
        }
    }
    Ok(answer)
}

/// The search's answer (or the service's error), with what the log keeps,
/// and what became of the session for a caller that reads headers.
fn search_response(
    result: Result<crate::service::Answer, ServiceError>,
    mut fields: LogFields,
) -> Response {
    let mut response = match result {
        Ok(answer) => {
            fields.returned = Some(answer.outcome().tools.len());
            fields.catalog_tools = Some(answer.catalog_len());
            let mut response = answer_response(&answer.wire());
            let state = match answer.outcome().session_note.as_deref() {
                Some(SESSION_NOT_FOUND) => Some("new"),
                Some(SESSION_NOT_SAVED) => Some("not-saved"),
                _ => None,
            };
            if let Some(state) = state {
                response
                    .headers_mut()
                    .insert("x-toolsift-tool-session", HeaderValue::from_static(state));
            }
            response
        }
        Err(e) => service_error(&e),
    };
    response.extensions_mut().insert(fields);
    response
}

/// A search as followers see it (the service's session is the session).
fn search_event(
    answer: &crate::service::Answer,
    query: Option<&str>,
    started: std::time::Instant,
) -> crate::traffic::Event {
    let wire = answer.wire();
    let outcome = answer.outcome();
    crate::traffic::Event::Search(crate::traffic::Search {
        session: outcome.session_id.clone(),
        at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_millis() as u64),
        query: query.unwrap_or_default().to_string(),
        ranker: outcome.method.as_str().to_string(),
        tools: wire.tools.iter().map(|t| t.tool.name.to_string()).collect(),
        nothing_fits: !outcome.held_back.is_empty(),
        ms: (started.elapsed().as_secs_f64() * 100_000.0).round() / 100.0,
    })
}

/// `GET /events`: the searches as they are answered, to a caller with
/// the key a search needs.
pub(crate) async fn events(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let Some(key) = st
        .keys
        .check(headers.get(AUTHORIZATION).map(HeaderValue::as_bytes))
    else {
        return unauthorized(&headers);
    };
    let viewer = crate::http::events::Viewer::of(&st.keys, key);
    proven(st.followers.response(viewer))
}

/// The request's query, for `--log-queries`.
fn query_of(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct QueryOnly {
        query: String,
    }
    serde_json::from_slice::<QueryOnly>(body)
        .ok()
        .map(|q| q.query)
}

/// `GET /healthz`: 200 while the server runs; `status` is `degraded` when
/// the session store does not answer (searches and provider calls without a
/// session still work).
pub(crate) async fn healthz(State(st): State<Arc<AppState>>) -> Response {
    let stats = st.service.stats();
    let (status, store) = match st.store.check().await {
        Ok(()) => (
            "ok",
            serde_json::json!({"kind": st.store.name(), "state": "ok"}),
        ),
        Err(e) => (
            "degraded",
            serde_json::json!({"kind": st.store.name(), "state": "unavailable", "message": e.message}),
        ),
    };
    let sessions = if st.store.is_memory() {
        serde_json::json!(stats.sessions)
    } else {
        serde_json::Value::Null
    };
    Json(serde_json::json!({
        "status": status,
        "sessions": sessions,
        "searches": stats.searches,
        "session_store": store,
    }))
    .into_response()
}

/// `GET /metrics`.
/// With `--metrics-key-env`, it needs that key as a bearer token.
pub(crate) async fn metrics(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if let Some(keys) = &st.metrics_key
        && keys
            .check(headers.get(AUTHORIZATION).map(HeaderValue::as_bytes))
            .is_none()
    {
        return unauthorized(&headers);
    }
    let text = crate::http::guard::metrics_text(super::metrics_export::render(
        &st.metrics,
        &st.service.stats(),
        &st.store,
    ));
    // Open, it proves no client; behind its key, it does.
    match st.metrics_key {
        Some(_) => proven(text),
        None => text,
    }
}

pub(crate) async fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "not_found",
        "no such endpoint; this service answers POST /sdk/v1/tool-search, GET /healthz, GET /metrics and provider calls under /openai/v1/ and /anthropic/",
    )
}

pub(crate) async fn method_not_allowed() -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this endpoint does not take that method",
    )
}

/// One line per request on stderr: method, path, status, milliseconds,
/// catalog size, returned count (and the query with `--log-queries`);
/// never a key.
pub(crate) async fn access_log(
    State(st): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    st.metrics
        .record(super::metrics_export::path_label(&path), status, elapsed);
    let fields = response
        .extensions()
        .get::<LogFields>()
        .cloned()
        .unwrap_or_default();
    // One write per line (stderr is not buffered: `eprintln!` writes the
    // line and its newline apart); a failed write loses the line only.
    let mut line = log_line(method.as_str(), &path, status, elapsed, &fields);
    line.push('\n');
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
    response
}

fn log_line(method: &str, path: &str, status: u16, elapsed: Duration, f: &LogFields) -> String {
    let count = |n: Option<usize>| n.map_or_else(|| "-".to_string(), |n| n.to_string());
    let mut line = format!(
        "{method} {} {status} {:.1}ms tools={} returned={}",
        escape(path),
        elapsed.as_secs_f64() * 1000.0,
        count(f.catalog_tools),
        count(f.returned)
    );
    if let Some(n) = f.injected {
        line.push_str(&format!(" injected={n}"));
    }
    if let Some(q) = &f.query {
        line.push_str(&format!(" query={:?}", escape(q)));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        let mut h = HeaderMap::new();
        assert!(!is_json(&h));
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        assert!(is_json(&h));
        h.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("Application/JSON; charset=utf-8"),
        );
        assert!(is_json(&h));
        h.insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        assert!(!is_json(&h));
    }

    #[test]
    fn log_lines_escape_and_never_hold_keys() {
        let f = LogFields {
            catalog_tools: Some(12),
            returned: Some(3),
            query: Some("hi\u{1b}]52;c;x\u{7}".into()),
            injected: None,
        };
        let line = log_line(
            "POST",
            "/sdk/v1/tool-search",
            200,
            Duration::from_millis(3),
            &f,
        );
        assert!(line.starts_with("POST /sdk/v1/tool-search 200 3.0ms tools=12 returned=3 query="));
        assert!(!line.contains('\u{1b}'));
        let line = log_line(
            "GET",
            "/x\u{1b}[2J",
            404,
            Duration::ZERO,
            &LogFields::default(),
        );
        assert_eq!(line, "GET /x\\u{1b}[2J 404 0.0ms tools=- returned=-");
    }
}
