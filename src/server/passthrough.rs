//! Provider calls passed through to the providers (docs/wire.md §6): what the
//! Caveman SDKs send to `{base}/openai/v1/...` and `{base}/anthropic/...`
//! goes to the configured upstream with the provider's own headers, the
//! upstream's auth instead of Caveman's, and, with `x-cave-tool-session`,
//! the session's tools added to the request (see
//! [`crate::service::inject`]). A body with nothing to splice streams to the
//! upstream as it arrives; one the session's tools go into is read whole
//! (within the body limit). Answers, streamed ones included, come back chunk
//! by chunk as they arrive. Calls have their own admission: at most
//! `max_passthrough` at once and as many waiting, then 503. The forwarded path
//! never leaves the upstream's base ([`super::forward`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_LENGTH};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use futures_util::StreamExt;

use super::handlers::{
    LogFields, closing, declared_length, discard_bound, error, proven, read_request_body,
    refuse_unreadable_body, too_large, unauthorized,
};
use super::upload::{self, Stopped, UploadFate};
use super::{AppState, Provider, Upstream, forward};
use crate::service::inject::{Injected, header_list, inject};

/// Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1).
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// Headers set from the request or the connection, not copied.
fn dropped(name: &HeaderName, connection_named: &[String]) -> bool {
    let n = name.as_str();
    HOP_BY_HOP.contains(&n)
        || n == "host"
        || n == "content-length"
        || n.starts_with("x-cave-")
        || connection_named.iter().any(|c| c == n)
}

/// The names a `connection` header lists (also hop-by-hop).
fn connection_named(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all("connection")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The headers the upstream gets: the client's own minus Caveman's, the
/// bearer and hop-by-hop ones, plus the upstream's auth.
fn upstream_headers(incoming: &HeaderMap, provider: Provider, key: Option<&str>) -> HeaderMap {
    let named = connection_named(incoming);
    let mut out = HeaderMap::new();
    for (name, value) in incoming {
        if dropped(name, &named) || name == AUTHORIZATION {
            continue;
        }
        out.append(name.clone(), value.clone());
    }
    set_upstream_key(&mut out, provider, key);
    if provider == Provider::Anthropic && !out.contains_key("anthropic-version") {
        out.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static("2023-06-01"),
        );
    }
    out
}

/// The upstream's auth, in place of whatever the client sent for it.
fn set_upstream_key(out: &mut HeaderMap, provider: Provider, key: Option<&str>) {
    if let Some(key) = key {
        let (name, value) = match provider {
            Provider::Openai => (AUTHORIZATION, format!("Bearer {key}")),
            Provider::Anthropic => (HeaderName::from_static("x-api-key"), key.to_string()),
        };
        if let Ok(mut v) = HeaderValue::from_str(&value) {
            v.set_sensitive(true);
            out.insert(name, v);
        }
    }
}

/// Any method on `/openai/...`.
pub(crate) async fn openai(State(st): State<Arc<AppState>>, request: Request) -> Response {
    pass(st, Provider::Openai, request).await
}

/// Any method on `/anthropic/...`.
pub(crate) async fn anthropic(State(st): State<Arc<AppState>>, request: Request) -> Response {
    pass(st, Provider::Anthropic, request).await
}

/// Other providers the SDKs know (`/gemini`, `/vertex`, `/bedrock`).
pub(crate) async fn unsupported(request: Request) -> Response {
    let provider = request
        .uri()
        .path()
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string();
    error(
        StatusCode::NOT_IMPLEMENTED,
        "provider_not_supported",
        format!(
            "this service passes provider calls through to openai and anthropic only, not {}",
            crate::terminal_text::escape(&provider)
        ),
    )
}

const INJECTED: &str = "x-toolsift-injected-tools";
const SESSION: &str = "x-toolsift-tool-session";

async fn pass(st: Arc<AppState>, provider: Provider, request: Request) -> Response {
    let started = Instant::now();
    let (parts, body) = request.into_parts();
    let headers = &parts.headers;
    let Some(scope) = st
        .keys
        .check(headers.get(AUTHORIZATION).map(HeaderValue::as_bytes))
    else {
        return unauthorized(headers);
    };
    let scope = scope.to_string();
    proven(forward_call(st, provider, parts, body, scope, started).await)
}

/// A provider call whose key passed: routed, admitted, its body made
/// ready, sent, and the answer relayed.
async fn forward_call(
    st: Arc<AppState>,
    provider: Provider,
    parts: axum::http::request::Parts,
    body: Body,
    scope: String,
    started: Instant,
) -> Response {
    let headers = &parts.headers;
    let (rest, upstream, url) = match route(&st, provider, &parts) {
        Ok(route) => route,
        Err(why) => return why.response(provider, parts.uri.path()),
    };
    let Ok(_admitted) = st.passthrough_admission.try_acquire() else {
        return overloaded("too many provider calls are waiting; try again shortly");
    };
    let wait = st.request_timeout.saturating_sub(started.elapsed());
    let Ok(Ok(slot)) =
        tokio::time::timeout(wait, st.passthrough_slots.clone().acquire_owned()).await
    else {
        return overloaded("no place for this provider call came free in time; try again shortly");
    };
    let session_id = headers
        .get("x-cave-tool-session")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let shape = crate::provider::ProviderApi::of_path(provider, rest);
    let fate = UploadFate::default();
    let call = Call {
        st: &st,
        provider,
        headers,
        started,
    };
    let prepared = match (session_id, shape) {
        (Some(id), Some(shape)) => call.spliced(body, &id, shape, &scope).await,
        (id, _) => call.streamed(body, id.is_some(), &fate).await,
    };
    let mut outgoing = match prepared {
        Ok(outgoing) => outgoing,
        Err(response) => return response,
    };
    let key = headers
        .get("x-cave-upstream-key")
        .and_then(|v| v.to_str().ok())
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .or(upstream.key.clone());
    set_upstream_key(&mut outgoing.headers, provider, key.as_deref());
    let send = st
        .http
        .request(parts.method.clone(), &url)
        .headers(outgoing.headers)
        .body(outgoing.body);
    let fields = outgoing.fields;
    match call.send(send, &upstream, &fate).await {
        Ok(answer) => with_fields(relay(answer, outgoing.extra, slot), fields),
        Err(response) => with_fields(response, fields),
    }
}

/// Where a provider call goes: the path after the provider's prefix, its
/// upstream and the URL there.
fn route<'p>(
    st: &AppState,
    provider: Provider,
    parts: &'p axum::http::request::Parts,
) -> Result<(&'p str, Upstream, String), Unroutable> {
    let rest = parts
        .uri
        .path()
        .strip_prefix(provider.passthrough_prefix())
        .filter(|r| r.is_empty() || r.starts_with('/'))
        .ok_or(Unroutable::OutsidePrefix)?;
    forward::check_path(rest).map_err(Unroutable::Path)?;
    let upstream = st
        .upstreams
        .get(provider)
        .cloned()
        .ok_or(Unroutable::NoUpstream)?;
    let url = forward::upstream_url(&upstream, rest, parts.uri.query())
        .ok_or(Unroutable::Path("a path that leaves the upstream's base"))?;
    Ok((rest, upstream, url))
}

/// Why a provider call has nowhere to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unroutable {
    /// Its path is not under the provider's prefix.
    OutsidePrefix,
    /// Its path holds this, or leaves the upstream's base.
    Path(&'static str),
    /// No upstream is configured for the provider.
    NoUpstream,
}

impl Unroutable {
    /// The answer refusing a call to `path` for `provider`.
    fn response(self, provider: Provider, path: &str) -> Response {
        match self {
            Unroutable::OutsidePrefix => error(
                StatusCode::NOT_FOUND,
                "not_found",
                format!(
                    "{} calls go under {}/ (the path after it is the provider's own)",
                    provider.name(),
                    provider.passthrough_prefix()
                ),
            ),
            Unroutable::Path(why) => refused_path(path, why),
            Unroutable::NoUpstream => error(
                StatusCode::NOT_IMPLEMENTED,
                "upstream_not_configured",
                format!(
                    "no upstream is configured for {p}: start serve with --upstream {p}=URL (e.g. {}) or set {p} = \"URL\" in the config file's [serve.upstreams]",
                    provider.api_base(),
                    p = provider.name()
                ),
            ),
        }
    }
}

/// A provider call under way: what its steps share.
struct Call<'a> {
    st: &'a AppState,
    provider: Provider,
    /// The client's headers.
    headers: &'a HeaderMap,
    started: Instant,
}

/// What goes to the upstream, and what the answer carries back about it.
struct Outgoing {
    body: reqwest::Body,
    headers: HeaderMap,
    fields: LogFields,
    /// Headers added to the answer (the session's fate, the tools added).
    extra: Vec<(&'static str, String)>,
}

impl Call<'_> {
    /// The session's tools go into the body: it is read whole (within the
    /// body limit) and spliced.
    async fn spliced(
        &self,
        body: Body,
        id: &str,
        shape: crate::provider::ProviderApi,
        scope: &str,
    ) -> Result<Outgoing, Response> {
        let st = self.st;
        if let Some(response) = refuse_unreadable_body(self.headers) {
            return Err(response);
        }
        let mut bytes = read_request_body(st, self.headers, body, self.started).await?;
        let mut fields = LogFields::default();
        let mut extra = Vec::new();
        match st.store.lookup(&st.service, id, scope).await {
            Err(e) => {
                return Err(error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "session_store_unavailable",
                    e.to_string(),
                ));
            }
            Ok(None) => extra.push((SESSION, "unknown".into())),
            Ok(Some(session)) => {
                extra.push((SESSION, "applied".into()));
                let names = match inject(&bytes, shape, &session) {
                    Injected::Added { body, names } => {
                        bytes = body;
                        names
                    }
                    Injected::Nothing | Injected::NotApplicable => Vec::new(),
                };
                fields.injected = Some(names.len());
                extra.push((INJECTED, header_list(&names)));
            }
        }
        Ok(Outgoing {
            body: reqwest::Body::from(bytes),
            headers: upstream_headers(self.headers, self.provider, None),
            fields,
            extra,
        })
    }

    /// Nothing to splice: the body streams through as it arrives, within
    /// the body limit and the request's deadline (`fate` says why it
    /// stopped, if it did).
    async fn streamed(
        &self,
        body: Body,
        has_session: bool,
        fate: &UploadFate,
    ) -> Result<Outgoing, Response> {
        let st = self.st;
        let mut extra = Vec::new();
        if has_session {
            extra.push((SESSION, "ignored".into()));
        }
        let declared = declared_length(self.headers);
        if declared.is_some_and(|n| n > st.max_body_bytes) {
            return Err(
                match read_request_body(st, self.headers, body, self.started).await {
                    Err(response) => response,
                    Ok(_) => closing(too_large(st.max_body_bytes)),
                },
            );
        }
        let mut headers = upstream_headers(self.headers, self.provider, None);
        if let Some(n) = declared {
            headers.insert(CONTENT_LENGTH, HeaderValue::from(n));
        }
        let deadline = tokio::time::Instant::from_std(self.started) + st.request_timeout;
        let body = reqwest::Body::wrap_stream(upload::bounded(
            body,
            st.max_body_bytes,
            discard_bound(st.max_body_bytes),
            deadline,
            fate.clone(),
        ));
        Ok(Outgoing {
            body,
            headers,
            fields: LogFields::default(),
            extra,
        })
    }

    /// Sends the call within the upstream's time limit; the answer, or why
    /// there is none (the client's upload stopped, the upstream unreachable
    /// or silent).
    async fn send(
        &self,
        send: reqwest::RequestBuilder,
        upstream: &Upstream,
        fate: &UploadFate,
    ) -> Result<reqwest::Response, Response> {
        let st = self.st;
        let remaining = st.upstream_timeout.saturating_sub(self.started.elapsed());
        match tokio::time::timeout(remaining, send.send()).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(e)) => Err(match fate.get() {
                Some(why) => upload_stopped(st, why),
                None => upstream_error(self.provider, upstream, &e),
            }),
            Err(_) => Err(error(
                StatusCode::GATEWAY_TIMEOUT,
                "upstream_timeout",
                format!(
                    "the {} upstream at {} did not answer within {} ms",
                    self.provider.name(),
                    upstream.base,
                    st.upstream_timeout.as_millis()
                ),
            )),
        }
    }
}

/// The upstream's answer relayed chunk by chunk as it arrives, without its
/// connection's headers, with `extra`'s added; `slot` is held until it has
/// streamed whole.
fn relay(
    answer: reqwest::Response,
    extra: Vec<(&'static str, String)>,
    slot: tokio::sync::OwnedSemaphorePermit,
) -> Response {
    let status = answer.status();
    let named = connection_named(answer.headers());
    let mut response = Response::builder().status(status);
    if let Some(h) = response.headers_mut() {
        for (name, value) in answer.headers() {
            if !dropped(name, &named) {
                h.append(name.clone(), value.clone());
            }
        }
        for (name, value) in extra {
            if let Ok(v) = HeaderValue::from_str(&value) {
                h.insert(HeaderName::from_static(name), v);
            }
        }
    }
    let relayed = answer.bytes_stream().map(move |chunk| {
        let _held = &slot;
        chunk
    });
    response
        .body(Body::from_stream(relayed))
        .unwrap_or_else(|e| {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                format!("the upstream's answer could not be relayed: {e}"),
            )
        })
}

/// 400 for a path that would leave the upstream's base.
fn refused_path(path: &str, why: &str) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        "invalid_path",
        format!(
            "the path {:?} is refused: it holds {why}; provider calls stay under the configured upstream",
            crate::terminal_text::escape(path)
        ),
    )
}

fn overloaded(message: &str) -> Response {
    error(StatusCode::SERVICE_UNAVAILABLE, "overloaded", message)
}

/// The answer when the client's body stopped the upload.
fn upload_stopped(st: &AppState, why: Stopped) -> Response {
    closing(match why {
        Stopped::TooLarge => too_large(st.max_body_bytes),
        Stopped::TimedOut => error(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            format!(
                "the request body did not arrive within {} ms",
                st.request_timeout.as_millis()
            ),
        ),
        Stopped::Broken => error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "the request body broke off before its end",
        ),
    })
}

fn with_fields(mut response: Response, fields: LogFields) -> Response {
    response.extensions_mut().insert(fields);
    response
}

/// An upstream that could not be reached (502) or did not answer in time (504).
fn upstream_error(provider: Provider, upstream: &Upstream, e: &reqwest::Error) -> Response {
    let mut cause = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        cause.push_str(": ");
        cause.push_str(&s.to_string());
        source = s.source();
    }
    if e.is_timeout() {
        error(
            StatusCode::GATEWAY_TIMEOUT,
            "upstream_timeout",
            format!(
                "the {} upstream at {} timed out: {cause}",
                provider.name(),
                upstream.base
            ),
        )
    } else {
        error(
            StatusCode::BAD_GATEWAY,
            "upstream_unreachable",
            format!(
                "cannot reach the {} upstream at {}: {cause}",
                provider.name(),
                upstream.base
            ),
        )
    }
}

/// The HTTP client for upstreams: no redirects (keys stay on the configured
/// host), a connect limit, and `idle` as the longest wait for a read.
pub(crate) fn http_client(idle: Duration) -> reqwest::Client {
    crate::http::client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(idle.min(Duration::from_secs(10)))
        .read_timeout(idle)
        .build()
        .unwrap_or_else(|_| reqwest::Client::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_for_each_provider() {
        let mut h = HeaderMap::new();
        h.insert(AUTHORIZATION, HeaderValue::from_static("Bearer caveman"));
        h.insert("x-cave-agent", HeaderValue::from_static("a"));
        h.insert("x-cave-upstream-key", HeaderValue::from_static("up"));
        h.insert("x-cave-api-key", HeaderValue::from_static("caveman"));
        h.insert("content-type", HeaderValue::from_static("application/json"));
        h.insert("connection", HeaderValue::from_static("keep-alive, x-hop"));
        h.insert("x-hop", HeaderValue::from_static("1"));
        h.insert("openai-beta", HeaderValue::from_static("b"));
        h.insert("host", HeaderValue::from_static("toolsift"));
        let o = upstream_headers(&h, Provider::Openai, Some("sk-up"));
        assert_eq!(o.get(AUTHORIZATION).unwrap(), "Bearer sk-up");
        assert_eq!(o.get("openai-beta").unwrap(), "b");
        assert_eq!(o.get("content-type").unwrap(), "application/json");
        for gone in [
            "x-cave-agent",
            "x-cave-upstream-key",
            "x-cave-api-key",
            "connection",
            "x-hop",
            "host",
            "anthropic-version",
        ] {
            assert!(!o.contains_key(gone), "{gone}");
        }
        let a = upstream_headers(&h, Provider::Anthropic, Some("ak"));
        assert_eq!(a.get("x-api-key").unwrap(), "ak");
        assert!(!a.contains_key(AUTHORIZATION));
        assert_eq!(a.get("anthropic-version").unwrap(), "2023-06-01");
        h.insert("anthropic-version", HeaderValue::from_static("2099-01-01"));
        h.insert("x-api-key", HeaderValue::from_static("clients-own"));
        let a = upstream_headers(&h, Provider::Anthropic, None);
        assert_eq!(a.get("anthropic-version").unwrap(), "2099-01-01");
        assert_eq!(a.get("x-api-key").unwrap(), "clients-own");
        let a = upstream_headers(&h, Provider::Anthropic, Some("ak"));
        assert_eq!(a.get_all("x-api-key").iter().count(), 1);
        assert_eq!(a.get("x-api-key").unwrap(), "ak");
        let o = upstream_headers(&h, Provider::Openai, None);
        assert!(!o.contains_key(AUTHORIZATION));
    }
}
