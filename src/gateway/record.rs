//! What the gateway tells: one log line per search and call (no arguments
//! or results unless asked), a trace of the calls that `toolsift replay`
//! and the explorer's breaker read, and the counters `/metrics` shows.
//! Every name written here is escaped: the servers are untrusted.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};

use crate::terminal_text::escape;

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
}

/// One finished call, as recorded.
pub(crate) struct CallRecord<'a> {
    pub(crate) session: &'a str,
    pub(crate) name: &'a str,
    pub(crate) server: Option<&'a str>,
    pub(crate) arguments: &'a Value,
    pub(crate) ended: Ended,
    pub(crate) elapsed: Duration,
    pub(crate) result: Option<&'a Value>,
    /// No tool has the name: the counters group such calls under
    /// [`UNKNOWN_TOOL`] (one series, whatever names a model makes up).
    pub(crate) unknown: bool,
}

/// The `tool` label of calls of a name no tool has.
pub const UNKNOWN_TOOL: &str = "(unknown)";

/// The log, the trace and the counters.
pub struct Recorder {
    log: Log,
    log_calls: bool,
    trace: Option<Mutex<std::io::BufWriter<std::fs::File>>>,
}

impl Recorder {
    /// `log_calls` puts queries, arguments and results in the log; `trace`
    /// is created (or truncated) now.
    pub fn new(log: Log, log_calls: bool, trace: Option<&Path>) -> Result<Recorder, String> {
        let trace = match trace {
            None => None,
            Some(path) => Some(Mutex::new(std::io::BufWriter::new(
                std::fs::File::create(path)
                    .map_err(|e| format!("--trace {}: {e}", path.display()))?,
            ))),
        };
        Ok(Recorder {
            log,
            log_calls,
            trace,
        })
    }

    /// A recorder that says nothing.
    pub fn quiet() -> Recorder {
        Recorder {
            log: Log::Quiet,
            log_calls: false,
            trace: None,
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
    pub(crate) fn search(
        &self,
        session: &str,
        query: &str,
        found: usize,
        held_back: usize,
        elapsed: Duration,
    ) {
        metrics::counter!(SEARCHES).increment(1);
        let mut text = format!(
            "session {} search: {found} tools{}, {:.2} ms",
            escape(session),
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
    }

    /// One call, whatever became of it.
    pub(crate) fn call(&self, r: &CallRecord<'_>) {
        let server = r.server.unwrap_or("-");
        let label = r.ended.label();
        let tool = if r.unknown { UNKNOWN_TOOL } else { r.name };
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
            "session {} call {} on {}: {label}, {:.2} ms",
            escape(r.session),
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
        if let Some(trace) = &self.trace {
            let entry = json!({
                "name": r.name,
                "arguments": r.arguments,
                "session": r.session,
                "server": r.server,
                "outcome": label,
                "ms": (r.elapsed.as_secs_f64() * 1000.0 * 100.0).round() / 100.0,
            });
            let mut w = trace.lock().unwrap_or_else(|p| p.into_inner());
            let _ = writeln!(w, "{entry}");
            let _ = w.flush();
        }
    }
}
