//! Provider calls passed through to the providers (CONTRACT §6): what the
//! Caveman SDKs send to `{base}/openai/v1/...` and `{base}/anthropic/...`
//! goes to the configured upstream with the provider's own headers, the
//! upstream's auth instead of Caveman's, and, with `x-cave-tool-session`,
//! the session's tools added to the request (see
//! [`crate::service::inject`]). Answers, streamed ones included, come back
//! chunk by chunk as they arrive.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_LENGTH};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;

use super::AppState;
use super::handlers::{LogFields, error, read_body, too_large, unauthorized};
use crate::service::inject::{Injected, ProviderShape, header_list, inject};

/// The providers this service passes calls through to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Openai,
    Anthropic,
}

impl Provider {
    pub const ALL: [Provider; 2] = [Provider::Openai, Provider::Anthropic];

    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Openai => "openai",
            Provider::Anthropic => "anthropic",
        }
    }

    /// The provider's public API base URL (the default upstream).
    pub fn default_base(self) -> &'static str {
        match self {
            Provider::Openai => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com",
        }
    }

    /// The path prefix the SDKs put before the provider's own path.
    fn prefix(self) -> &'static str {
        match self {
            Provider::Openai => "/openai/v1",
            Provider::Anthropic => "/anthropic",
        }
    }

    fn shape(self, rest: &str) -> Option<ProviderShape> {
        match (self, rest) {
            (Provider::Openai, "/responses") => Some(ProviderShape::OpenaiResponses),
            (Provider::Openai, "/chat/completions") => Some(ProviderShape::OpenaiChat),
            (Provider::Anthropic, "/v1/messages") => Some(ProviderShape::AnthropicMessages),
            _ => None,
        }
    }
}

impl std::str::FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Provider::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| format!("unknown provider {s:?}: give openai or anthropic"))
    }
}

/// One provider's upstream: a base URL and, optionally, the key to send.
#[derive(Clone, PartialEq, Eq)]
pub struct Upstream {
    /// Without a trailing slash.
    pub base: String,
    pub key: Option<String>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("base", &self.base)
            .field("key", &self.key.as_ref().map(|_| "***"))
            .finish()
    }
}

impl Upstream {
    /// An upstream at `url` (http or https, no query or fragment).
    pub fn new(url: &str, key: Option<String>) -> Result<Upstream, String> {
        let parsed = reqwest::Url::parse(url).map_err(|e| format!("{url:?}: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!(
                "{url:?}: the upstream must be an http or https URL"
            ));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(format!(
                "{url:?}: the upstream is a base URL, without a query or fragment"
            ));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(format!(
                "{url:?}: put no credentials in the upstream URL; use --upstream-key-env"
            ));
        }
        Ok(Upstream {
            base: url.trim_end_matches('/').to_string(),
            key,
        })
    }
}

/// The upstream of each provider; `None` is one not configured (501).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstreams {
    pub openai: Option<Upstream>,
    pub anthropic: Option<Upstream>,
}

impl Default for Upstreams {
    fn default() -> Self {
        let public = |p: Provider| {
            Some(Upstream {
                base: p.default_base().to_string(),
                key: None,
            })
        };
        Upstreams {
            openai: public(Provider::Openai),
            anthropic: public(Provider::Anthropic),
        }
    }
}

impl Upstreams {
    pub fn get(&self, p: Provider) -> Option<&Upstream> {
        match p {
            Provider::Openai => self.openai.as_ref(),
            Provider::Anthropic => self.anthropic.as_ref(),
        }
    }

    pub fn get_mut(&mut self, p: Provider) -> &mut Option<Upstream> {
        match p {
            Provider::Openai => &mut self.openai,
            Provider::Anthropic => &mut self.anthropic,
        }
    }
}

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
        if provider == Provider::Anthropic && key.is_some() && name.as_str() == "x-api-key" {
            continue;
        }
        out.append(name.clone(), value.clone());
    }
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
    if provider == Provider::Anthropic && !out.contains_key("anthropic-version") {
        out.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static("2023-06-01"),
        );
    }
    out
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
    let path = parts.uri.path();
    let Some(rest) = path.strip_prefix(provider.prefix()) else {
        return error(
            StatusCode::NOT_FOUND,
            "not_found",
            format!(
                "{} calls go under {}/ (the path after it is the provider's own)",
                provider.as_str(),
                provider.prefix()
            ),
        );
    };
    if !(rest.is_empty() || rest.starts_with('/')) {
        return error(
            StatusCode::NOT_FOUND,
            "not_found",
            format!(
                "{} calls go under {}/",
                provider.as_str(),
                provider.prefix()
            ),
        );
    }
    let Some(upstream) = st.upstreams.get(provider).cloned() else {
        return error(
            StatusCode::NOT_IMPLEMENTED,
            "upstream_not_configured",
            format!(
                "no upstream is configured for {p}: start serve with --upstream {p}=URL (e.g. {}) or set {p} = \"URL\" in the config file's [serve.upstreams]",
                provider.default_base(),
                p = provider.as_str()
            ),
        );
    };
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > st.max_body_bytes) {
        return super::handlers::closing(too_large(st.max_body_bytes));
    }
    let limit = st.request_timeout;
    let mut bytes =
        match tokio::time::timeout(limit, read_body(body, st.max_body_bytes, declared)).await {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(response)) => return super::handlers::closing(response),
            Err(_) => {
                return super::handlers::closing(error(
                    StatusCode::REQUEST_TIMEOUT,
                    "request_timeout",
                    format!(
                        "the request body did not arrive within {} ms",
                        limit.as_millis()
                    ),
                ));
            }
        };
    let mut fields = LogFields::default();
    let mut extra: Vec<(&'static str, String)> = Vec::new();
    if let Some(id) = headers
        .get("x-cave-tool-session")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    {
        match provider.shape(rest) {
            None => extra.push((SESSION, "ignored".into())),
            Some(shape) => match st.store.lookup(&st.service, &id, &scope).await {
                Err(e) => {
                    return error(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "session_store_unavailable",
                        e.to_string(),
                    );
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
            },
        }
    }
    let key = headers
        .get("x-cave-upstream-key")
        .and_then(|v| v.to_str().ok())
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .or(upstream.key.clone());
    let mut url = format!("{}{rest}", upstream.base);
    if let Some(q) = parts.uri.query() {
        url.push('?');
        url.push_str(q);
    }
    let out_headers = upstream_headers(headers, provider, key.as_deref());
    let send = st
        .http
        .request(parts.method.clone(), &url)
        .headers(out_headers)
        .body(bytes)
        .send();
    let remaining = st.upstream_timeout.saturating_sub(started.elapsed());
    let answer = match tokio::time::timeout(remaining, send).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => return with_fields(upstream_error(provider, &upstream, &e), fields),
        Err(_) => {
            return with_fields(
                error(
                    StatusCode::GATEWAY_TIMEOUT,
                    "upstream_timeout",
                    format!(
                        "the {} upstream at {} did not answer within {} ms",
                        provider.as_str(),
                        upstream.base,
                        st.upstream_timeout.as_millis()
                    ),
                ),
                fields,
            );
        }
    };
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
    let response = response
        .body(Body::from_stream(answer.bytes_stream()))
        .unwrap_or_else(|e| {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                format!("the upstream's answer could not be relayed: {e}"),
            )
        });
    with_fields(response, fields)
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
                provider.as_str(),
                upstream.base
            ),
        )
    } else {
        error(
            StatusCode::BAD_GATEWAY,
            "upstream_unreachable",
            format!(
                "cannot reach the {} upstream at {}: {cause}",
                provider.as_str(),
                upstream.base
            ),
        )
    }
}

/// The HTTP client for upstreams: no redirects (keys stay on the configured
/// host), a connect limit, and `idle` as the longest wait for a read.
pub(crate) fn http_client(idle: Duration) -> reqwest::Client {
    crate::client::install_tls_provider();
    reqwest::Client::builder()
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

    #[test]
    fn upstream_urls() {
        assert_eq!(
            Upstream::new("http://h:1/v1/", None).unwrap().base,
            "http://h:1/v1"
        );
        assert!(Upstream::new("ftp://h", None).is_err());
        assert!(Upstream::new("http://u:p@h", None).is_err());
        assert!(Upstream::new("http://h?x=1", None).is_err());
        assert!(Upstream::new("not a url", None).is_err());
        let d = format!(
            "{:?}",
            Upstream::new("http://h", Some("secret".into())).unwrap()
        );
        assert!(!d.contains("secret"), "{d}");
    }
}
