//! Exact token counts from the providers' own counting endpoints, when the
//! user gives a key: OpenAI's `POST /v1/responses/input_tokens` and
//! Anthropic's `POST /v1/messages/count_tokens`. What a set of tools costs is
//! the count of a one-word request with them, less the count without them.
//! Each count is asked once per (provider, model, exact tool set) and kept
//! on disk ([`cache`]), so a second run asks nothing. A failure names the
//! provider and what happened; the caller keeps its estimate.

mod cache;
mod shared;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use crate::catalog::Tool;
use crate::provider::payload_tool;

pub use cache::CountCache;
pub use shared::SharedCounter;

pub use crate::provider::Provider;

/// The body of a count request: one user word, the model, and the tools in
/// the provider's shape (none: no `tools` key).
fn count_body(provider: Provider, model: &str, tools: &[&Tool]) -> Value {
    let mut body = match provider {
        Provider::Openai => json!({"model": model, "input": "hi"}),
        Provider::Anthropic => {
            json!({"model": model, "messages": [{"role": "user", "content": "hi"}]})
        }
    };
    if !tools.is_empty() {
        let format = provider.count_api().tool_format();
        let shaped: Vec<Value> = tools.iter().map(|t| payload_tool(t, format)).collect();
        body["tools"] = Value::Array(shaped);
    }
    body
}

/// The longest wait for one count, unless configured.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Where and how to count.
#[derive(Debug, Clone)]
pub struct CountConfig {
    pub provider: Provider,
    pub model: String,
    /// Scheme, host and optional path prefix; the endpoint's path is added.
    pub base_url: String,
    pub key: String,
    pub timeout: Duration,
    /// Where counts are kept; `None` keeps nothing.
    pub cache_dir: Option<PathBuf>,
}

impl CountConfig {
    /// The basis name the counts are shown under: `openai:gpt-4o (exact)`.
    pub fn label(&self) -> String {
        format!("{}:{} (exact)", self.provider.name(), self.model)
    }
}

/// Why a count failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{provider} token counting ({url}): {message}")]
pub struct CountError {
    pub provider: &'static str,
    pub url: String,
    pub message: String,
}

/// Counts from one provider, with the disk cache.
pub struct Counter {
    config: CountConfig,
    http: reqwest::blocking::Client,
    cache: CountCache,
    /// Requests made (cache misses), for the report and the tests.
    pub asked: u64,
    /// Counts found on disk.
    pub kept: u64,
    /// The count without tools, once known (every set is measured from it).
    baseline: Option<u64>,
}

impl Counter {
    pub fn new(config: CountConfig) -> Result<Counter, CountError> {
        let http = crate::http::client::blocking_builder()
            .timeout(config.timeout)
            .build()
            .map_err(|e| CountError {
                provider: config.provider.name(),
                url: config.base_url.clone(),
                message: e.to_string(),
            })?;
        let cache = CountCache::open(config.cache_dir.clone());
        Ok(Counter {
            config,
            http,
            cache,
            asked: 0,
            kept: 0,
            baseline: None,
        })
    }

    pub fn config(&self) -> &CountConfig {
        &self.config
    }

    /// What `tools` add to a request: its count with them, less without.
    pub fn tools_cost(&mut self, tools: &[&Tool]) -> Result<u64, CountError> {
        if tools.is_empty() {
            return Ok(0);
        }
        let with = self.count(tools)?;
        let without = match self.baseline {
            Some(n) => n,
            None => {
                let n = self.count(&[])?;
                self.baseline = Some(n);
                n
            }
        };
        Ok(with.saturating_sub(without))
    }

    /// Each tool's share of a request: its cost alone less the overhead of
    /// a request with tools, measured on the first two tools (alone each,
    /// then together: the overhead is counted twice, then once). With
    /// fewer than two tools the overhead is not known and counts as 0.
    pub fn tool_shares(&mut self, tools: &[&Tool]) -> Result<Vec<u64>, CountError> {
        let overhead = match tools {
            [a, b, ..] => {
                let (a1, b1) = (self.tools_cost(&[a])?, self.tools_cost(&[b])?);
                (a1 + b1).saturating_sub(self.tools_cost(&[a, b])?)
            }
            _ => 0,
        };
        tools
            .iter()
            .map(|t| Ok(self.tools_cost(&[t])?.saturating_sub(overhead)))
            .collect()
    }

    /// The provider's count of the one-word request with `tools`, from the
    /// cache or asked.
    fn count(&mut self, tools: &[&Tool]) -> Result<u64, CountError> {
        let p = self.config.provider;
        let body = count_body(p, &self.config.model, tools);
        let key = cache::key(p.name(), &self.config.model, &body);
        if let Some(n) = self.cache.get(&key) {
            self.kept += 1;
            return Ok(n);
        }
        let n = self.ask(&body)?;
        self.asked += 1;
        self.cache.put(&key, n);
        Ok(n)
    }

    fn ask(&self, body: &Value) -> Result<u64, CountError> {
        let p = self.config.provider;
        let url = format!(
            "{}{}",
            self.config.base_url.trim_end_matches('/'),
            p.count_path()
        );
        let fail = |message: String| CountError {
            provider: p.name(),
            url: url.clone(),
            message,
        };
        // One retry after a 429, waiting as told (at most 10 s).
        for attempt in 0..2 {
            let mut req = self.http.post(&url).json(body);
            req = match p {
                Provider::Openai => req.bearer_auth(&self.config.key),
                Provider::Anthropic => req
                    .header("x-api-key", &self.config.key)
                    .header("anthropic-version", "2023-06-01"),
            };
            let response = req.send().map_err(|e| {
                fail(if e.is_timeout() {
                    format!("no answer within {} s", self.config.timeout.as_secs_f64())
                } else {
                    format!("cannot reach it: {e}")
                })
            })?;
            let status = response.status();
            if status.as_u16() == 429 && attempt == 0 {
                let wait = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(1.0)
                    .clamp(0.0, 10.0);
                std::thread::sleep(Duration::from_secs_f64(wait));
                continue;
            }
            let text = response.text().unwrap_or_default();
            if !status.is_success() {
                let said = serde_json::from_str::<Value>(&text)
                    .ok()
                    .and_then(|v| {
                        v.pointer("/error/message")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                    })
                    .unwrap_or_else(|| text.chars().take(200).collect());
                return Err(fail(format!("{status}: {said}")));
            }
            let value: Value = serde_json::from_str(&text).map_err(|_| {
                fail(format!(
                    "the answer is not JSON: {:?}",
                    text.chars().take(120).collect::<String>()
                ))
            })?;
            return value
                .get("input_tokens")
                .and_then(Value::as_u64)
                .ok_or_else(|| fail(format!("the answer has no input_tokens: {value}")));
        }
        Err(fail("429 Too Many Requests, twice".into()))
    }
}
