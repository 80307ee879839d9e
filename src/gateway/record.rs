//! What the gateway tells: one log line per search and call (no arguments
//! or results unless asked), a trace of its searches and calls
//! ([`crate::traffic`] events, which `toolsift replay`, the explorer and
//! `toolsift tune` read), the same events to followers (`GET /events`), and
//! the counters `/metrics` shows, and what a search or call came to on its
//! OpenTelemetry span. Every name written to the log is escaped: the
//! servers are untrusted.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};

use super::GatewayError;
use crate::http::events::Followers;
use crate::terminal_text::escape;
use crate::traffic;

pub(crate) const SEARCHES: &str = "toolsift_gateway_searches_total";
pub(crate) const CALLS: &str = "toolsift_gateway_calls_total";
pub(crate) const BLOCKED: &str = "toolsift_gateway_blocked_calls_total";
pub(crate) const UPSTREAM_ERRORS: &str = "toolsift_gateway_upstream_errors_total";

/// Where log lines go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Log {
    /// stderr, prefixed `toolsift gateway:`.
    Stderr,
    /// Nowhere (tests, benchmarks).
    Quiet,
}

/// How a call ended, for the log, the trace and the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The server answered (its `isError` as given).
    Answered { is_error: bool },
    /// The retry-loop breaker stopped it; not sent.
    Blocked,
    /// Refused before sending: unknown name or arguments that break the schema.
    Refused,
    /// The server failed: did not start, exited, timed out.
    UpstreamError,
}

impl Ended {
    fn label(self) -> &'static str {
        match self {
            Ended::Answered { is_error: false } => "ok",
            Ended::Answered { is_error: true } => "tool_error",
            Ended::Blocked => "blocked",
            Ended::Refused => "refused",
            Ended::UpstreamError => "upstream_error",
        }
    }

    fn outcome(self) -> traffic::Outcome {
        match self {
            Ended::Answered { is_error: false } => traffic::Outcome::Ok,
            Ended::Answered { is_error: true } => traffic::Outcome::ToolError,
            Ended::Blocked => traffic::Outcome::Blocked,
            Ended::Refused => traffic::Outcome::Refused,
            Ended::UpstreamError => traffic::Outcome::UpstreamError,
        }
    }
}

/// One finished call, as recorded.
pub(crate) struct CallRecord<'a> {
    pub(crate) session: &'a str,
    /// The digest of the API key that made it: its followers see it.
    pub(crate) key: Option<&'a str>,
    pub(crate) name: &'a str,
    pub(crate) server: Option<&'a str>,
    pub(crate) arguments: &'a Value,
    pub(crate) ended: Ended,
    pub(crate) elapsed: Duration,
    pub(crate) result: Option<&'a Value>,
    /// No tool has the name: the counters group such calls under
    /// [`UNKNOWN_TOOL`] (one series, whatever names a model makes up).
    pub(crate) unknown: bool,
    /// The breaker's count of this identical call in a row, when the call
    /// reached the breaker.
    pub(crate) in_a_row: Option<u64>,
}

/// One finished search, as recorded.
pub(crate) struct SearchRecord<'a> {
    pub(crate) session: &'a str,
    /// The digest of the API key that made it: its followers see it.
    pub(crate) key: Option<&'a str>,
    pub(crate) query: &'a str,
    pub(crate) ranker: &'a str,
    pub(crate) tools: &'a [String],
    /// The gate held these many back (the answer says nothing fits).
    pub(crate) held_back: usize,
    pub(crate) nothing_fits: bool,
    pub(crate) elapsed: Duration,
}

/// The `tool` label of calls of a name no tool has.
pub const UNKNOWN_TOOL: &str = "(unknown)";

/// The size at which the trace is moved aside to `TRACE.1` and started
/// again (the one before is dropped): at most twice this on disk.
pub const TRACE_LIMIT: u64 = 64 * 1024 * 1024;

/// The log, the trace and the counters.
pub struct Recorder {
    log: Log,
    log_calls: bool,
    trace: Option<Mutex<crate::private_file::Rotating>>,
    /// Followers of `GET /events`; a send never waits.
    pub(crate) followers: Followers,
}

impl Recorder {
    /// `log_calls` puts queries, arguments and results in the log; `trace`
    /// is opened now: appended to (a restart keeps what it held), created
    /// 0600 (it holds every call's arguments), never through a symbolic
    /// link, and moved aside to `TRACE.1` at [`TRACE_LIMIT`] bytes.
    pub fn new(log: Log, log_calls: bool, trace: Option<&Path>) -> Result<Recorder, GatewayError> {
        let trace = match trace {
            None => None,
            Some(path) => Some(Mutex::new(
                crate::private_file::Rotating::open(path, TRACE_LIMIT).map_err(|source| {
                    GatewayError::Trace {
                        path: path.to_path_buf(),
                        source,
                    }
                })?,
            )),
        };
        Ok(Recorder {
            log,
            log_calls,
            trace,
            followers: Followers::new(crate::http::events::BUFFER),
        })
    }

    /// Whether an event would go anywhere (built only then).
    fn wanted(&self) -> bool {
        self.trace.is_some() || self.followers.any()
    }

    fn to_trace(&self, event: &traffic::Event) {
        if let Some(trace) = &self.trace {
            let line = traffic::to_line(event);
            let mut w = trace.lock().unwrap_or_else(|p| p.into_inner());
            let _ = w.write_line(&line);
        }
    }

    fn to_followers(&self, event: &traffic::Event, key: Option<&str>) {
        self.followers.send_as(event, key);
    }

    /// A recorder that says nothing.
    pub fn quiet() -> Recorder {
        Recorder {
            log: Log::Quiet,
            log_calls: false,
            trace: None,
            followers: Followers::new(crate::http::events::BUFFER),
        }
    }

    fn line(&self, text: &str) {
        if self.log == Log::Stderr {
            // One write per line, so concurrent sessions do not interleave.
            let line = format!("toolsift gateway: {text}\n");
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
        }
    }

    /// A line about the gateway itself (`text` is escaped).
    pub fn info(&self, text: &str) {
        self.line(&escape(text));
    }

    pub fn warn(&self, text: &str) {
        self.line(&format!("warning: {}", escape(text)));
    }

    /// One `search_tools`.
    pub(crate) fn search(&self, r: &SearchRecord<'_>) {
        let SearchRecord {
            session,
            query,
            held_back,
            elapsed,
            ..
        } = *r;
        let found = r.tools.len();
        metrics::counter!(SEARCHES).increment(1);
        let query_chars = query.chars().count();
        crate::telemetry::spans::note_search(r.ranker, query_chars, found, held_back);
        let mut text = format!(
            "{} search: {}{}, {:.2} ms",
            whose(session, r.key),
            crate::numbers::counted(found, "tool"),
            if held_back > 0 {
                format!(" (none fits; {held_back} held back)")
            } else {
                String::new()
            },
            elapsed.as_secs_f64() * 1000.0
        );
        if self.log_calls {
            text.push_str(&format!("; query {}", escape(&json!(query).to_string())));
        }
        self.line(&text);
        if self.wanted() {
            let mut event = traffic::Search {
                session: session.to_string(),
                at: Some(now_ms()),
                query: query.to_string(),
                ranker: r.ranker.to_string(),
                tools: r.tools.to_vec(),
                nothing_fits: r.nothing_fits,
                ms: round_ms(elapsed),
            };
            // The trace keeps the query; followers see it only with
            // --log-calls, as the log does.
            self.to_trace(&traffic::Event::Search(event.clone()));
            if !self.log_calls {
                event.query = String::new();
            }
            self.to_followers(&traffic::Event::Search(event), r.key);
        }
    }

    /// One call, whatever became of it.
    pub(crate) fn call(&self, r: &CallRecord<'_>) {
        let server = r.server.unwrap_or("-");
        let label = r.ended.label();
        let tool = if r.unknown { UNKNOWN_TOOL } else { r.name };
        crate::telemetry::spans::note_call(r.server, tool, label);
        metrics::counter!(CALLS, "server" => server.to_string(), "tool" => tool.to_string(), "outcome" => label)
            .increment(1);
        match r.ended {
            Ended::Blocked => {
                metrics::counter!(BLOCKED, "server" => server.to_string(), "tool" => r.name.to_string())
                    .increment(1);
            }
            Ended::UpstreamError => {
                metrics::counter!(UPSTREAM_ERRORS, "server" => server.to_string()).increment(1);
            }
            _ => {}
        }
        let mut text = format!(
            "{} call {} on {}: {label}, {:.2} ms",
            whose(r.session, r.key),
            escape(r.name),
            escape(server),
            r.elapsed.as_secs_f64() * 1000.0
        );
        if self.log_calls {
            text.push_str(&format!("; arguments {}", escape(&r.arguments.to_string())));
            if let Some(result) = r.result {
                text.push_str(&format!("; result {}", escape(&result.to_string())));
            }
        }
        self.line(&text);
        if self.wanted() {
            let mut event = traffic::Call {
                session: r.session.to_string(),
                at: Some(now_ms()),
                name: r.name.to_string(),
                server: r.server.map(str::to_string),
                outcome: r.ended.outcome(),
                ms: round_ms(r.elapsed),
                in_a_row: r.in_a_row,
                arguments: r.arguments.clone(),
            };
            // The trace keeps arguments (the breaker's replay needs them);
            // followers see them only with --log-calls.
            self.to_trace(&traffic::Event::Call(event.clone()));
            if !self.log_calls {
                event.arguments = Value::Null;
            }
            self.to_followers(&traffic::Event::Call(event), r.key);
        }
    }
}

/// `session S` for the log, and `(key NAME)` after it when the key
/// has a name of its own (`[gateway.keys]`; a key with none is its
/// digest, `key-…`, and said where it labels the session).
fn whose(session: &str, key: Option<&str>) -> String {
    match key {
        Some(name) if !name.starts_with("key-") && name != session => {
            format!("session {} (key {})", escape(session), escape(name))
        }
        _ => format!("session {}", escape(session)),
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Milliseconds to two decimals.
fn round_ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}
