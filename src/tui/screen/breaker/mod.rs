//! The breaker simulator: call a tool by hand through the SDK's
//! retry-loop breaker, or replay a trace, and watch where it trips.
//!
//! A tool gathered from a live MCP server (when the explorer has the
//! connection) is called for real: the breaker records the call first (a
//! blocked call never reaches the server), then the app sends it as an
//! effect and its answer comes back through [`BreakerPane::receive`]. A
//! read-only tool is called at once; any other asks for a yes every time.
//! Trace replays stay simulated ([`crate::replay`], a call at a time).
//! Real calls are in `live.rs`.

pub mod actions;
mod call_log;
mod confirm;
pub mod draw;
mod keys;
pub use keys::Breaking;
mod screen;
mod seen;
pub use screen::open;

use crate::tui::action::KeyGroup;

use super::Outcome;

pub mod jobs;
pub mod layout;
mod live;

use serde_json::{Value, json};

pub use live::{LiveCall, LiveEntry, LiveState, PendingCall, answer_text};

use crate::breaker::{RetryLoopBreaker, signature};
use crate::catalog::schema::example_arguments;
use crate::catalog::{Catalog, Tool};
use crate::replay::{Replay, TraceCall, TraceError};
use crate::tui::action::Action;
use crate::tui::line_input::LineInput;
use crate::tui::list::Scroll;

/// Thresholds the simulator steps through: the SDK's, from 0 (every call
/// blocked; [`crate::breaker::THRESHOLDS`]), up to 20.
pub const THRESHOLDS: std::ops::RangeInclusive<u32> = *crate::breaker::THRESHOLDS.start()..=20;
/// How many times `L` repeats the call, at most.
pub const MAX_LOOP: u32 = 50;
/// How much of a server's answer is kept (characters).
pub const MAX_ANSWER_CHARS: usize = 8000;

/// The key line's own keys (help and quit follow).
pub const KEYS: &[KeyGroup] = &[
    (&[Action::BreakerCall], "call", "call", 1),
    (&[Action::BreakerEdit], "edit args", "edit", 2),
    (&[Action::BreakerLoop], "loop", "loop", 3),
    (
        &[Action::BreakerThresholdUp, Action::BreakerThresholdDown],
        "threshold",
        "thresh",
        4,
    ),
    (
        &[Action::BreakerLoopLess, Action::BreakerLoopMore],
        "loop count",
        "count",
        6,
    ),
    (&[Action::BreakerReset], "reset", "reset", 5),
    (
        &[Action::BreakerNextTool, Action::BreakerPrevTool],
        "tool",
        "tool",
        7,
    ),
    (&[Action::BreakerOpenTrace], "open trace", "trace", 8),
    (&[Action::BreakerStep], "step", "step", 9),
    (&[Action::BreakerRunTrace], "run", "run", 9),
    (
        &[Action::BreakerLogDown, Action::BreakerLogUp],
        "pick call",
        "pick",
        8,
    ),
    (&[Action::BreakerViewCall], "open call", "open", 7),
    (&[Action::BreakerClose], "back", "back", 0),
];

/// The key line's own keys (help and quit follow).
pub const INPUT_KEYS: &[KeyGroup] = &[
    (&[Action::InputSubmit], "send / load", "send", 0),
    (&[Action::InputCancel], "leave the text box", "leave", 0),
    (&[Action::InputClear], "clear", "clear", 2),
    (&[Action::InputDeleteWord], "delete word", "del word", 3),
];

/// The key line's own keys (help and quit follow).
pub const CONFIRM_KEYS: &[KeyGroup] = &[
    (&[Action::ConfirmYes], "call", "call", 0),
    (&[Action::ConfirmNo], "cancel", "cancel", 0),
];

/// The key line's own keys (help and quit follow).
pub const CALL_KEYS: &[KeyGroup] = &[
    (
        &[Action::BreakerLogDown, Action::BreakerLogUp],
        "scroll",
        "scroll",
        1,
    ),
    (
        &[Action::BreakerViewCall, Action::BreakerClose],
        "close",
        "close",
        0,
    ),
];

/// One call in the log.
#[derive(Debug, Clone, PartialEq)]
pub struct CallEntry {
    pub tool: String,
    pub signature: String,
    pub ran: bool,
    pub repeats: u64,
    pub threshold: u32,
    /// The handler's result (compact JSON) or the `RetryLoopError` message.
    pub outcome: String,
    /// The trace line this call came from, if any.
    pub trace_line: Option<usize>,
    /// A real call to an MCP server (its outcome is the answer's text,
    /// escaped, lines joined by `\n`).
    pub live: Option<LiveEntry>,
}

/// A loaded trace and how far its replay has gone.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceState {
    pub origin: String,
    pub replay: Replay,
}

/// Why typed arguments cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadArgs {
    #[error("arguments must be a JSON object")]
    NotAnObject,
    /// serde_json's words, where the text stops being JSON.
    #[error("invalid JSON: {0}")]
    Json(String),
    /// Where the tool's input schema refuses them, and why.
    #[error("not what the tool's schema takes: {0}")]
    Schema(String),
}

/// The simulator's state.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakerPane {
    /// Catalog index of the tool being called.
    pub tool: usize,
    pub args: LineInput,
    pub editing: bool,
    pub breaker: RetryLoopBreaker,
    pub log: Vec<CallEntry>,
    pub loop_count: u32,
    pub trace: Option<TraceState>,
    /// The trace path being typed, while the prompt is open.
    pub path: Option<LineInput>,
    /// Why the trace named in the prompt was not loaded (shown under it).
    pub trace_error: Option<String>,
    pub message: Option<String>,
    /// The real call waiting for a yes, if any.
    pub confirm: Option<PendingCall>,
    /// The id of the next real call.
    pub next_id: u64,
    /// The log row picked (0-based; `None`: the newest call).
    pub picked: Option<usize>,
    /// The call opened whole (its log row) and how far it is scrolled.
    pub view: Option<(usize, Scroll)>,
}

/// What a simulated call returns: the catalog's `handler.result`, else a
/// clear stand-in.
pub fn handler_result(tool: &Tool) -> Value {
    tool.handler_result.clone().unwrap_or_else(|| {
        json!({"simulated": true, "tool": tool.name, "note": "no handler.result in the catalog"})
    })
}

impl BreakerPane {
    pub fn new(catalog: &Catalog, tool: usize) -> BreakerPane {
        let mut pane = BreakerPane {
            tool,
            args: LineInput::default(),
            editing: false,
            breaker: RetryLoopBreaker::default(),
            log: Vec::new(),
            loop_count: 5,
            trace: None,
            path: None,
            trace_error: None,
            message: None,
            confirm: None,
            next_id: 1,
            picked: None,
            view: None,
        };
        pane.pick(catalog, tool);
        pane
    }

    /// Calls another tool from now on (the streak is the breaker's business:
    /// a different call starts a new one).
    pub fn pick(&mut self, catalog: &Catalog, tool: usize) {
        if let Some(t) = catalog.tools().get(tool) {
            self.tool = tool;
            self.args
                .set(&example_arguments(&t.input_schema).to_string());
        }
    }

    /// The arguments as typed, if they can be sent: a JSON object that the
    /// tool's input schema takes (checked as the gateway checks a call; a
    /// schema that does not compile is left to the server).
    pub fn parsed_args(&self, catalog: &Catalog) -> Result<Value, BadArgs> {
        let args = match serde_json::from_str::<Value>(&self.args.text) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => return Err(BadArgs::NotAnObject),
            Err(e) => return Err(BadArgs::Json(e.to_string())),
        };
        let Some(tool) = catalog.tools().get(self.tool) else {
            return Ok(args);
        };
        let Ok(validator) = jsonschema::validator_for(&tool.input_schema) else {
            return Ok(args);
        };
        let errors = crate::catalog::schema::argument_errors(&validator, &args, 3);
        if errors.is_empty() {
            return Ok(args);
        }
        let said: Vec<String> = errors
            .iter()
            .map(|(at, what)| format!("{at}: {what}"))
            .collect();
        Err(BadArgs::Schema(said.join("; ")))
    }

    /// The current call's signature, when its arguments are valid.
    pub fn current_signature(&self, catalog: &Catalog) -> Option<String> {
        let name = &catalog.tools().get(self.tool)?.name;
        self.parsed_args(catalog).ok().map(|a| signature(name, &a))
    }

    /// Runs one call through `RetryLoopBreaker::guard`.
    fn run(&mut self, tool: &Tool, args: &Value, trace_line: Option<usize>) -> bool {
        let result = self
            .breaker
            .guard(&tool.name, args, || handler_result(tool));
        let entry = match result {
            Ok(value) => CallEntry {
                tool: tool.name.clone(),
                signature: signature(&tool.name, args),
                ran: true,
                repeats: self.breaker.repeats(),
                threshold: self.breaker.threshold(),
                outcome: value.to_string(),
                trace_line,
                live: None,
            },
            Err(e) => CallEntry {
                tool: tool.name.clone(),
                signature: e.signature.clone(),
                ran: false,
                repeats: e.repeats,
                threshold: e.threshold,
                outcome: e.to_string(),
                trace_line,
                live: None,
            },
        };
        let ran = entry.ran;
        self.log.push(entry);
        ran
    }

    /// Calls the current tool once; invalid arguments cannot be sent.
    pub fn call(&mut self, catalog: &Catalog) -> bool {
        let args = match self.parsed_args(catalog) {
            Ok(a) => a,
            Err(e) => {
                self.message = Some(format!("not sent: {e}"));
                return false;
            }
        };
        let Some(tool) = catalog.tools().get(self.tool) else {
            return false;
        };
        self.message = None;
        self.run(tool, &args, None)
    }

    /// Calls the current tool `loop_count` times.
    pub fn call_loop(&mut self, catalog: &Catalog) {
        for _ in 0..self.loop_count {
            if self.parsed_args(catalog).is_err() {
                self.call(catalog);
                return;
            }
            self.call(catalog);
        }
    }

    pub fn change_threshold(&mut self, delta: i64) {
        let t = (i64::from(self.breaker.threshold()) + delta)
            .clamp(i64::from(*THRESHOLDS.start()), i64::from(*THRESHOLDS.end()))
            as u32;
        if t == self.breaker.threshold() {
            // At an end: said, not silent.
            self.message = Some(format!(
                "the threshold is at its {} ({t}): the breaker takes {}..={}",
                if delta < 0 { "least" } else { "most" },
                THRESHOLDS.start(),
                THRESHOLDS.end()
            ));
            return;
        }
        // The streak is kept, as changing the SDK object's threshold would.
        self.breaker.set_threshold(t);
    }

    pub fn reset(&mut self) {
        self.breaker.reset();
        self.message = Some("breaker reset: the next call starts a new streak".into());
    }

    /// Takes a trace read from `path` (the read is an effect of the loop,
    /// never done here) and starts its replay on a fresh breaker.
    pub fn loaded(&mut self, path: &str, result: Result<Vec<TraceCall>, TraceError>) {
        match result {
            Ok(calls) => {
                self.trace_error = None;
                // The replay starts fresh, and so does the log: its rows
                // are then the trace's calls, numbered as the trace is.
                self.breaker.reset();
                self.log.clear();
                self.picked = None;
                self.view = None;
                self.message = Some(format!(
                    "loaded {} from {path}; the breaker and the call log start fresh",
                    crate::tui::text::count(calls.len() as u64, "call", "calls")
                ));
                self.trace = Some(TraceState {
                    origin: path.to_string(),
                    replay: Replay::new(calls),
                });
            }
            Err(e) => {
                // The prompt opens again on the path, the error under it.
                self.message = Some(e.to_string());
                self.trace_error = Some(e.to_string());
                self.path = Some(LineInput::new(path));
            }
        }
    }

    /// The log row picked: the one chosen, else the newest.
    pub fn picked_row(&self) -> Option<usize> {
        let last = self.log.len().checked_sub(1)?;
        Some(self.picked.map_or(last, |p| p.min(last)))
    }

    /// The call opened whole (its log row), while open.
    pub fn viewing(&self) -> Option<usize> {
        self.view.as_ref().map(|(row, _)| *row)
    }

    /// Runs the next call of the trace through the breaker (the one
    /// manual calls go through too); false at the end.
    pub fn step(&mut self, catalog: &Catalog) -> bool {
        let Some(trace) = &mut self.trace else {
            self.message = Some("no trace loaded: open one first".into());
            return false;
        };
        let Some(step) = trace.replay.step(&mut self.breaker) else {
            if trace.replay.tripped_at().is_none() {
                self.message = Some("the trace is over".into());
            }
            return false;
        };
        let outcome = match &step.blocked {
            Some(e) => e.to_string(),
            None => catalog
                .get(&step.call.name)
                .map_or_else(
                    || handler_result(&Tool::new(step.call.name.clone(), "")),
                    handler_result,
                )
                .to_string(),
        };
        if trace.replay.tripped_at() == Some(step.seen.index) {
            self.message = Some(format!(
                "the breaker trips at call {} (trace line {})",
                step.seen.index + 1,
                step.call.line
            ));
        }
        self.log.push(CallEntry {
            tool: step.call.name.clone(),
            signature: step.seen.signature,
            ran: step.seen.ran,
            repeats: step.seen.repeats,
            threshold: self.breaker.threshold(),
            outcome,
            trace_line: Some(step.call.line),
            live: None,
        });
        true
    }

    /// Runs the rest of the trace.
    pub fn run_trace(&mut self, catalog: &Catalog) {
        while self.step(catalog) {}
        if let Some(t) = &self.trace
            && t.replay.tripped_at().is_none()
        {
            self.message = Some(format!(
                "the breaker (threshold {}) never tripped on {}",
                self.breaker.threshold(),
                crate::tui::text::count(t.replay.calls.len() as u64, "call", "calls")
            ));
        }
    }

    /// A text box has the keyboard (the arguments or the trace path).
    pub fn is_typing(&self) -> bool {
        self.editing || self.path.is_some()
    }

    /// Typed text, into the text box being edited.
    pub fn type_text(&mut self, text: &str) {
        if let Some(path) = &mut self.path {
            path.insert(text);
        } else if self.editing {
            self.args.insert(text);
        }
    }
}

#[cfg(test)]
mod tests;
