//! Traffic: what a running gateway or service did, one event a line. The
//! gateway writes these lines to its `--trace` file and to the event stream
//! a follower reads (`GET /events`); the explorer's live pane, the misses,
//! `toolsift tune` and `toolsift eval` read them back.
//!
//! A line is `{"kind": "search", ...}` or `{"kind": "call", ...}`; a line
//! with a `name` and no `kind` is a call (the trace's older form, which
//! `toolsift replay` also reads). Every string here came from an agent or
//! an MCP server: whoever shows it escapes it.

pub mod misses;
pub mod requests;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Events kept by a reader that holds traffic in memory (the explorer's
/// live pane): the oldest go first, counted.
pub const KEPT_EVENTS: usize = 5_000;

/// One thing the far side did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Search(Search),
    Call(Call),
    /// The stream fell behind: `count` events were dropped for this
    /// follower (the gateway never waits for one).
    Dropped {
        count: u64,
    },
}

/// One `search_tools` (or one `POST /sdk/v1/tool-search`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Search {
    pub session: String,
    /// Unix time in milliseconds, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<u64>,
    pub query: String,
    #[serde(default)]
    pub ranker: String,
    /// The tools returned, best first.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The answer said nothing fits (the gate held the tools back, or no
    /// word matched).
    #[serde(default)]
    pub nothing_fits: bool,
    #[serde(default)]
    pub ms: f64,
}

/// One tool call, whatever became of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    #[serde(default)]
    pub session: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<u64>,
    pub name: String,
    #[serde(default)]
    pub server: Option<String>,
    #[serde(default)]
    pub outcome: Outcome,
    #[serde(default)]
    pub ms: f64,
    /// The breaker's count: how many times in a row this identical call
    /// was made, this one included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_a_row: Option<u64>,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub arguments: Value,
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The server answered.
    #[default]
    Ok,
    /// The server answered with `isError`.
    ToolError,
    /// The retry-loop breaker stopped it.
    Blocked,
    /// Refused before sending: an unknown name, arguments that break the
    /// schema, a rule that denies it, the user said no.
    Refused,
    /// The server failed: did not start, exited, timed out.
    UpstreamError,
    /// A word this reader does not know (a newer writer).
    #[serde(other)]
    Other,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::ToolError => "tool_error",
            Outcome::Blocked => "blocked",
            Outcome::Refused => "refused",
            Outcome::UpstreamError => "upstream_error",
            Outcome::Other => "other",
        }
    }

    /// The call reached the tool and it answered (well or not).
    pub fn ran(self) -> bool {
        matches!(self, Outcome::Ok | Outcome::ToolError)
    }
}

impl Event {
    pub fn session(&self) -> Option<&str> {
        match self {
            Event::Search(s) => Some(&s.session),
            Event::Call(c) => Some(&c.session),
            Event::Dropped { .. } => None,
        }
    }
}

/// A line that is not an event, with its 1-based number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}:{line}: {message}")]
pub struct BadLine {
    pub origin: String,
    pub line: usize,
    pub message: String,
}

/// Why a line is not an event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("not a JSON event: {0}")]
    NotJson(String),
    #[error("expected an object with `kind` (search or call)")]
    NotAnObject,
    #[error("expected `kind` (search or call), or a call's `name`")]
    NoKind,
    /// An event whose fields are missing or of the wrong kind.
    #[error("{0}")]
    Fields(String),
    #[error("a call's `name` is empty")]
    EmptyName,
}

/// One line as an event; `Ok(None)` for a blank line.
pub fn parse_line(line: &str) -> Result<Option<Event>, LineError> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let mut value: Value =
        serde_json::from_str(line).map_err(|e| LineError::NotJson(e.to_string()))?;
    let Some(object) = value.as_object_mut() else {
        return Err(LineError::NotAnObject);
    };
    if !object.contains_key("kind") {
        if object.contains_key("name") {
            object.insert("kind".into(), Value::from("call"));
        } else {
            return Err(LineError::NoKind);
        }
    }
    let event: Event =
        serde_json::from_value(value).map_err(|e| LineError::Fields(e.to_string()))?;
    if let Event::Call(c) = &event
        && c.name.trim().is_empty()
    {
        return Err(LineError::EmptyName);
    }
    Ok(Some(event))
}

/// Every line of `text` as an event; a bad line is an error naming it.
pub fn parse(text: &str, origin: &str) -> Result<Vec<Event>, BadLine> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        match parse_line(line) {
            Ok(Some(event)) => out.push(event),
            Ok(None) => {}
            Err(error) => {
                return Err(BadLine {
                    origin: origin.to_string(),
                    line: i + 1,
                    message: error.to_string(),
                });
            }
        }
    }
    Ok(out)
}

/// Whether `text` reads as traffic: its first non-blank line is an object
/// with `kind` of `search` or `call` (a file of eval requests has none).
pub fn looks_like_traffic(text: &str) -> bool {
    let Some(first) = text.lines().find(|l| !l.trim().is_empty()) else {
        return false;
    };
    serde_json::from_str::<Value>(first)
        .ok()
        .and_then(|v| v.get("kind").and_then(Value::as_str).map(str::to_string))
        .is_some_and(|k| k == "search" || k == "call")
}

/// The event as one JSON line (no newline).
pub fn to_line(event: &Event) -> String {
    serde_json::to_string(event).unwrap_or_default()
}
