//! The remote client: `POST {base}/sdk/v1/tool-search` to any compatible
//! service, on the wire exactly as the Caveman SDKs send it (docs/wire.md §3):
//! the same headers, body keys in the same order with optional ones left
//! out, no redirects followed, a 30 s time limit, and the response read with
//! the SDKs' rules ([`crate::wire::parse_response`], then
//! [`crate::search::accept`]).

use std::time::{Duration, Instant};

use reqwest::blocking::Client as Http;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use crate::catalog::Catalog;
use crate::service::SearchRequest;
use crate::wire::{
    BaseUrlError, ErrorBody, ResponseError, TOOL_SEARCH_PATH, ToolSearchResponse,
    normalize_base_url, parse_response,
};

/// The SDKs' default time limit.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// `x-cave-agent` unless told otherwise.
pub const DEFAULT_AGENT: &str = "toolsift";
/// `x-cave-retention` unless told otherwise.
pub const DEFAULT_RETENTION: &str = "metadata";
/// `x-cave-workflow` when neither a flag nor a valid `CAVE_WORKFLOW` names one.
pub const DEFAULT_WORKFLOW: &str = "unlabeled-workflow";

/// A bad client setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientConfigError {
    #[error(transparent)]
    BaseUrl(#[from] BaseUrlError),
    #[error("{0}: not a valid HTTP header value (control characters or non-ASCII)")]
    Header(&'static str),
    #[error("the HTTP client could not start: {0}")]
    Http(String),
}

/// Where and how to reach a service.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// Normalised: absolute http(s), no trailing `/`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub agent: String,
    pub workflow: String,
    pub retention: String,
    /// Sent as `x-cave-user-hash` only when given.
    pub user_hash: Option<String>,
    pub timeout: Duration,
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "…"))
            .field("agent", &self.agent)
            .field("workflow", &self.workflow)
            .field("retention", &self.retention)
            .field("user_hash", &self.user_hash)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The client settings a user gives: flags, with the environment under them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientSettings {
    /// `--service`, else `CAVE_BASE_URL`.
    pub service: Option<String>,
    /// Else `CAVE_API_KEY`.
    pub api_key: Option<String>,
    pub agent: Option<String>,
    /// `--workflow`, else `CAVE_WORKFLOW` (lowercased, if it is a valid label).
    pub workflow: Option<String>,
    pub retention: Option<String>,
    pub user_hash: Option<String>,
}

/// `CAVE_WORKFLOW` as the SDKs read it: lowercased, used only if it is 1 to
/// 96 characters of `[a-z0-9_-]`.
pub fn env_workflow(raw: Option<&str>) -> String {
    let raw = raw.unwrap_or("").to_lowercase();
    if !raw.is_empty()
        && raw.len() <= 96
        && raw
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
    {
        raw
    } else {
        DEFAULT_WORKFLOW.to_string()
    }
}

impl ClientConfig {
    /// The settings over the environment; `None` when no service is named
    /// anywhere (the caller searches in-process).
    pub fn resolve(
        settings: &ClientSettings,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<ClientConfig>, ClientConfigError> {
        let Some(base) = settings
            .service
            .clone()
            .or_else(|| env("CAVE_BASE_URL").filter(|s| !s.is_empty()))
        else {
            return Ok(None);
        };
        Ok(Some(ClientConfig {
            base_url: normalize_base_url(&base)?,
            api_key: settings
                .api_key
                .clone()
                .or_else(|| env("CAVE_API_KEY").filter(|s| !s.is_empty())),
            agent: settings
                .agent
                .clone()
                .unwrap_or_else(|| DEFAULT_AGENT.to_string()),
            workflow: settings
                .workflow
                .clone()
                .unwrap_or_else(|| env_workflow(env("CAVE_WORKFLOW").as_deref())),
            retention: settings
                .retention
                .clone()
                .unwrap_or_else(|| DEFAULT_RETENTION.to_string()),
            user_hash: settings.user_hash.clone(),
            timeout: DEFAULT_TIMEOUT,
        }))
    }

    /// The request headers, as the SDKs send them.
    fn headers(&self) -> Result<HeaderMap, ClientConfigError> {
        let value = |what: &'static str, v: &str| {
            HeaderValue::from_str(v).map_err(|_| ClientConfigError::Header(what))
        };
        let mut h = HeaderMap::new();
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(key) = &self.api_key {
            let mut v = value("the API key", &format!("Bearer {key}"))?;
            v.set_sensitive(true);
            h.insert(AUTHORIZATION, v);
        }
        h.insert(
            HeaderName::from_static("x-cave-agent"),
            value("agent", &self.agent)?,
        );
        h.insert(
            HeaderName::from_static("x-cave-workflow"),
            value("workflow", &self.workflow)?,
        );
        h.insert(
            HeaderName::from_static("x-cave-retention"),
            value("retention", &self.retention)?,
        );
        if let Some(user) = &self.user_hash {
            h.insert(
                HeaderName::from_static("x-cave-user-hash"),
                value("user hash", user)?,
            );
        }
        Ok(h)
    }
}

/// A client of one service.
#[derive(Debug)]
pub struct Client {
    config: ClientConfig,
    endpoint: String,
    http: Http,
}

impl Client {
    pub fn new(config: ClientConfig) -> Result<Client, ClientConfigError> {
        let http = crate::http::client::blocking_builder()
            .default_headers(config.headers()?)
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .build()
            .map_err(|e| ClientConfigError::Http(e.to_string()))?;
        Ok(Client {
            endpoint: format!("{}{TOOL_SEARCH_PATH}", config.base_url),
            config,
            http,
        })
    }

    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The service's host (and port), for headers and messages.
    pub fn host(&self) -> String {
        url::Url::parse(&self.config.base_url)
            .ok()
            .and_then(|u| {
                u.host_str().map(|h| {
                    u.port()
                        .map_or_else(|| h.to_string(), |p| format!("{h}:{p}"))
                })
            })
            .unwrap_or_else(|| self.config.base_url.clone())
    }

    /// One search: the wire response, before the client rules of
    /// [`crate::search::accept`].
    pub fn tool_search(
        &self,
        catalog: &Catalog,
        request: &SearchRequest,
    ) -> Result<ToolSearchResponse, RemoteError> {
        let body = serde_json::to_vec(&request.body(catalog))
            .map_err(|e| self.fail(RemoteFailure::Request(e.to_string())))?;
        self.post(body)
    }

    /// Sends a ready body (bench tools send one catalog many times).
    pub fn post(&self, body: Vec<u8>) -> Result<ToolSearchResponse, RemoteError> {
        let response = self
            .http
            .post(&self.endpoint)
            .body(body)
            .send()
            .map_err(|e| {
                self.fail(if e.is_timeout() {
                    RemoteFailure::Timeout(self.config.timeout)
                } else if e.is_connect() {
                    RemoteFailure::Unreachable(root_cause(&e))
                } else {
                    RemoteFailure::Transport(root_cause(&e))
                })
            })?;
        let status = response.status();
        if status.is_redirection() {
            return Err(self.fail(RemoteFailure::Redirect(status.as_u16())));
        }
        let bytes = response.bytes().map_err(|e| {
            self.fail(if e.is_timeout() {
                RemoteFailure::Timeout(self.config.timeout)
            } else {
                RemoteFailure::Transport(root_cause(&e))
            })
        })?;
        if !status.is_success() {
            let detail = serde_json::from_slice::<ErrorBody>(&bytes).ok();
            return Err(self.fail(RemoteFailure::Status {
                status: status.as_u16(),
                code: detail.as_ref().map(|d| d.error.code.clone()),
                message: detail.map(|d| d.error.message),
            }));
        }
        parse_response(&bytes).map_err(|e| match e {
            ResponseError::InvalidBody(why) => self.fail(RemoteFailure::NotJson(why)),
            other => self.fail(RemoteFailure::Response(other)),
        })
    }

    /// [`Client::tool_search`], timed.
    pub fn timed_search(
        &self,
        catalog: &Catalog,
        request: &SearchRequest,
    ) -> (Result<ToolSearchResponse, RemoteError>, Duration) {
        let started = Instant::now();
        let r = self.tool_search(catalog, request);
        (r, started.elapsed())
    }

    fn fail(&self, failure: RemoteFailure) -> RemoteError {
        RemoteError {
            service: self.config.base_url.clone(),
            failure,
        }
    }
}

/// The innermost cause of a transport error (e.g. "Connection refused").
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

/// A remote search that failed, naming the service.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteError {
    pub service: String,
    pub failure: RemoteFailure,
}

/// What went wrong with a remote service.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteFailure {
    /// Nothing answered (connection refused, DNS, ...).
    Unreachable(String),
    Timeout(Duration),
    /// A 3xx: never followed.
    Redirect(u16),
    /// A non-2xx answer, with the service's JSON error when it sent one.
    Status {
        status: u16,
        code: Option<String>,
        message: Option<String>,
    },
    /// A 2xx whose body is not JSON.
    NotJson(String),
    /// The connection broke mid-way.
    Transport(String),
    /// The request could not be made.
    Request(String),
    /// A JSON answer that breaks the client rules (tools not an array, a
    /// tool without a name).
    Response(ResponseError),
}

impl RemoteError {
    /// A stable code.
    pub fn code(&self) -> &str {
        match &self.failure {
            RemoteFailure::Unreachable(_) => "cave_unreachable",
            RemoteFailure::Timeout(_) => "cave_request_timeout",
            RemoteFailure::Redirect(_) => "cave_redirect_not_allowed",
            RemoteFailure::Status { code, .. } => code.as_deref().unwrap_or("http_error"),
            RemoteFailure::NotJson(_) => "response_not_json",
            RemoteFailure::Transport(_) => "cave_transport",
            RemoteFailure::Request(_) => "invalid_request",
            RemoteFailure::Response(e) => e.code(),
        }
    }

    /// The HTTP status, when the service answered.
    pub fn status(&self) -> Option<u16> {
        match &self.failure {
            RemoteFailure::Redirect(s) | RemoteFailure::Status { status: s, .. } => Some(*s),
            _ => None,
        }
    }
}

impl std::fmt::Display for RemoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let service = &self.service;
        match &self.failure {
            RemoteFailure::Unreachable(why) => {
                write!(
                    f,
                    "cannot reach the tool-search service at {service}: {why}"
                )
            }
            RemoteFailure::Timeout(t) => write!(
                f,
                "the tool-search service at {service} did not answer within {} s (cave_request_timeout)",
                t.as_secs_f64()
            ),
            RemoteFailure::Redirect(status) => write!(
                f,
                "the tool-search service at {service} answered with a redirect (HTTP {status}), which is not followed (cave_redirect_not_allowed)"
            ),
            RemoteFailure::Status {
                status,
                code,
                message,
            } => {
                write!(f, "tool search failed with HTTP {status}")?;
                if let Some(m) = message {
                    write!(f, ": {m}")?;
                }
                if let Some(c) = code {
                    write!(f, " ({c})")?;
                }
                write!(f, " [service {service}]")
            }
            RemoteFailure::NotJson(why) => write!(
                f,
                "the tool-search service at {service} answered with a body that is not JSON: {why}"
            ),
            RemoteFailure::Transport(why) => {
                write!(
                    f,
                    "the connection to the tool-search service at {service} failed: {why}"
                )
            }
            RemoteFailure::Request(why) => write!(f, "the request could not be made: {why}"),
            RemoteFailure::Response(e) => write!(f, "{e}"),
        }
    }
}

#[cfg(test)]
mod tests;
