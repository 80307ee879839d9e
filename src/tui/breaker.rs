//! The breaker simulator: call a tool by hand through the SDK's
//! retry-loop breaker, or replay a trace, and watch where it trips.
//!
//! A tool gathered from a live MCP server (when the explorer has the
//! connection) is called for real: the breaker records the call first (a
//! blocked call never reaches the server), then the app sends it as an
//! effect and its answer comes back through [`BreakerPane::receive`]. A
//! read-only tool is called at once; any other asks for a yes every time.
//! Trace replays stay simulated.

use serde_json::{Map, Value, json};

use super::action::Action;
use super::line_input::LineInput;
use crate::breaker::{RetryLoopBreaker, signature};
use crate::catalog::schema::example_arguments;
use crate::catalog::{Catalog, McpOrigin, Tool};
use crate::replay::{Replay, TraceCall, TraceError};
use crate::sources::mcp::{CallOutcome, McpCallError};
use crate::terminal_text::{escape, escape_lines};

/// Thresholds the simulator offers.
pub const THRESHOLDS: std::ops::RangeInclusive<u32> = 1..=20;
/// How many times `L` repeats the call, at most.
pub const MAX_LOOP: u32 = 50;
/// How much of a server's answer is kept (characters).
pub const MAX_ANSWER_CHARS: usize = 8000;

/// A real call to an MCP server, for the app to send (as an effect).
#[derive(Debug, Clone, PartialEq)]
pub struct LiveCall {
    /// Matches the answer to its log entry.
    pub id: u64,
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    pub arguments: Map<String, Value>,
}

/// A real call waiting for a yes or a no.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingCall {
    /// The tool's name in the catalog (what the breaker records).
    pub name: String,
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    pub arguments: Value,
}

/// Where a real call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveState {
    /// Sent; its answer has not come back.
    Calling(u64),
    /// The tool answered.
    Answered,
    /// The tool answered with `isError`.
    ToolError,
    /// The call failed on the way (no connection, timeout, protocol).
    Failed,
}

/// A call to a live MCP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveEntry {
    pub server: String,
    pub state: LiveState,
}

/// A server's answer as the log shows it: at most [`MAX_ANSWER_CHARS`]
/// characters, its lines kept, everything unsafe escaped
/// ([`escape_lines`]).
pub fn answer_text(text: &str) -> String {
    let total = text.chars().count();
    let kept: String = text.chars().take(MAX_ANSWER_CHARS).collect();
    let mut out = escape_lines(&kept);
    if total > MAX_ANSWER_CHARS {
        out.push_str(&format!("\n… (cut: the answer has {total} characters)"));
    }
    out
}

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
    pub message: Option<String>,
    /// The real call waiting for a yes, if any.
    pub confirm: Option<PendingCall>,
    /// The id of the next real call.
    pub next_id: u64,
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
            message: None,
            confirm: None,
            next_id: 1,
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

    /// The arguments as typed, if they can be sent: a JSON object.
    pub fn parsed_args(&self) -> Result<Value, String> {
        match serde_json::from_str::<Value>(&self.args.text) {
            Ok(v @ Value::Object(_)) => Ok(v),
            Ok(_) => Err("arguments must be a JSON object".into()),
            Err(e) => Err(format!("invalid JSON: {e}")),
        }
    }

    /// The current call's signature, when its arguments are valid.
    pub fn current_signature(&self, catalog: &Catalog) -> Option<String> {
        let name = &catalog.tools().get(self.tool)?.name;
        self.parsed_args().ok().map(|a| signature(name, &a))
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
        let args = match self.parsed_args() {
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
            if self.parsed_args().is_err() {
                self.call(catalog);
                return;
            }
            self.call(catalog);
        }
    }

    /// The tool's server and name there, when calls to the current tool
    /// are real (`live`: the explorer has the servers' connections).
    pub fn live_origin<'a>(&self, catalog: &'a Catalog, live: bool) -> Option<&'a McpOrigin> {
        if !live {
            return None;
        }
        catalog.tools().get(self.tool)?.mcp.as_ref()
    }

    /// Calls the current tool once. A simulated tool runs here; a live MCP
    /// tool goes through the breaker and comes back as a call to send:
    /// read-only at once, any other after a yes ([`Self::answer`]). A call
    /// the breaker blocks is logged and never asked about.
    pub fn request(&mut self, catalog: &Catalog, live: bool) -> Vec<LiveCall> {
        let Some(origin) = self.live_origin(catalog, live).cloned() else {
            self.call(catalog);
            return Vec::new();
        };
        let args = match self.parsed_args() {
            Ok(a) => a,
            Err(e) => {
                self.message = Some(format!("not sent: {e}"));
                return Vec::new();
            }
        };
        let Some(tool) = catalog.tools().get(self.tool) else {
            return Vec::new();
        };
        self.message = None;
        let pending = PendingCall {
            name: tool.name.clone(),
            server: origin.server.to_string(),
            tool: origin.name.clone(),
            arguments: args,
        };
        if !tool.read_only
            && self
                .breaker
                .clone()
                .record(&tool.name, &pending.arguments)
                .is_ok()
        {
            self.confirm = Some(pending);
            return Vec::new();
        }
        self.send(pending).into_iter().collect()
    }

    /// The user's answer to the question before a real call.
    pub fn answer(&mut self, yes: bool) -> Vec<LiveCall> {
        let Some(pending) = self.confirm.take() else {
            return Vec::new();
        };
        if !yes {
            self.message = Some(format!(
                "cancelled: nothing was sent to server {}",
                escape(&pending.server)
            ));
            return Vec::new();
        }
        self.send(pending).into_iter().collect()
    }

    /// Records a real call with the breaker; one it lets through is logged
    /// as calling and returned, to be sent.
    fn send(&mut self, call: PendingCall) -> Option<LiveCall> {
        let id = self.next_id;
        let live = |state| {
            Some(LiveEntry {
                server: call.server.clone(),
                state,
            })
        };
        match self.breaker.record(&call.name, &call.arguments) {
            Ok(record) => {
                self.next_id += 1;
                self.log.push(CallEntry {
                    tool: call.name.clone(),
                    signature: record.signature,
                    ran: true,
                    repeats: record.repeats,
                    threshold: self.breaker.threshold(),
                    outcome: "calling…".into(),
                    trace_line: None,
                    live: live(LiveState::Calling(id)),
                });
                Some(LiveCall {
                    id,
                    server: call.server.clone(),
                    tool: call.tool.clone(),
                    arguments: call.arguments.as_object().cloned().unwrap_or_default(),
                })
            }
            Err(e) => {
                self.log.push(CallEntry {
                    tool: call.name.clone(),
                    signature: e.signature.clone(),
                    ran: false,
                    repeats: e.repeats,
                    threshold: e.threshold,
                    outcome: format!("{e} (nothing was sent to server {})", escape(&call.server)),
                    trace_line: None,
                    live: None,
                });
                None
            }
        }
    }

    /// The answer of real call `id`, shown in its log entry.
    pub fn receive(&mut self, id: u64, result: Result<CallOutcome, McpCallError>) {
        let Some(entry) = self.log.iter_mut().find(|e| {
            e.live
                .as_ref()
                .is_some_and(|l| l.state == LiveState::Calling(id))
        }) else {
            return;
        };
        let (state, text) = match result {
            Ok(outcome) => {
                let text = if outcome.text.trim().is_empty() {
                    outcome.raw.to_string()
                } else {
                    outcome.text
                };
                let state = if outcome.is_error {
                    LiveState::ToolError
                } else {
                    LiveState::Answered
                };
                (state, text)
            }
            Err(e) => (LiveState::Failed, e.to_string()),
        };
        entry.outcome = answer_text(&text);
        if let Some(live) = &mut entry.live {
            live.state = state;
        }
    }

    /// Real calls sent whose answers have not come back.
    pub fn in_flight(&self) -> usize {
        self.log
            .iter()
            .filter(|e| {
                matches!(
                    e.live,
                    Some(LiveEntry {
                        state: LiveState::Calling(_),
                        ..
                    })
                )
            })
            .count()
    }

    /// The newest real call that has its answer.
    pub fn last_answer(&self) -> Option<&CallEntry> {
        self.log.iter().rev().find(|e| {
            e.live
                .as_ref()
                .is_some_and(|l| !matches!(l.state, LiveState::Calling(_)))
        })
    }

    /// Calls the current tool `loop_count` times; a live tool only when it
    /// is read-only (the calls go out together).
    pub fn request_loop(&mut self, catalog: &Catalog, live: bool) -> Vec<LiveCall> {
        let Some(read_only) = self
            .live_origin(catalog, live)
            .and_then(|_| catalog.tools().get(self.tool))
            .map(|t| t.read_only)
        else {
            self.call_loop(catalog);
            return Vec::new();
        };
        if !read_only {
            self.message = Some(
                "no loop of real calls to a tool that may write: call it once at a time, each after a yes"
                    .into(),
            );
            return Vec::new();
        }
        let mut calls = Vec::new();
        for _ in 0..self.loop_count {
            calls.extend(self.request(catalog, live));
            if self.parsed_args().is_err() {
                break;
            }
        }
        calls
    }

    /// The question before a real call is open.
    pub fn confirming(&self) -> bool {
        self.confirm.is_some()
    }

    pub fn change_threshold(&mut self, delta: i64) {
        let t = (i64::from(self.breaker.threshold()) + delta)
            .clamp(i64::from(*THRESHOLDS.start()), i64::from(*THRESHOLDS.end()))
            as u32;
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
                self.breaker.reset();
                self.message = Some(format!(
                    "loaded {} calls from {path}; the breaker starts fresh",
                    calls.len()
                ));
                self.trace = Some(TraceState {
                    origin: path.to_string(),
                    replay: Replay::new(calls),
                });
            }
            Err(e) => self.message = Some(e.to_string()),
        }
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
                "the breaker trips at call {} (line {})",
                step.seen.index, step.call.line
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
                "the breaker (threshold {}) never tripped on {} calls",
                self.breaker.threshold(),
                t.replay.calls.len()
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

    /// The simulator's keys: `breaker_*` actions, `input_*` ones while a
    /// text box has the keyboard, `confirm_*` ones while a real call waits
    /// for a yes. `tools` are the catalog pane's rows (what next/previous
    /// tool step through); `live`: MCP tools are called for real.
    pub fn handle(
        &mut self,
        action: Action,
        catalog: &Catalog,
        tools: &[usize],
        live: bool,
    ) -> BreakerOutcome {
        let send = |calls: Vec<LiveCall>| {
            if calls.is_empty() {
                BreakerOutcome::Stay
            } else {
                BreakerOutcome::Call(calls)
            }
        };
        if self.confirm.is_some() {
            return match action {
                Action::ConfirmYes => send(self.answer(true)),
                Action::ConfirmNo => send(self.answer(false)),
                _ => BreakerOutcome::Stay,
            };
        }
        if let Some(path) = &mut self.path {
            match action {
                Action::InputCancel => self.path = None,
                Action::InputSubmit => {
                    let p = path.text.trim().to_string();
                    self.path = None;
                    return BreakerOutcome::Load(p);
                }
                other => {
                    path.edit(other);
                }
            }
            return BreakerOutcome::Stay;
        }
        if self.editing {
            match action {
                Action::InputCancel => self.editing = false,
                Action::InputSubmit => return send(self.request(catalog, live)),
                other => {
                    self.args.edit(other);
                }
            }
            return BreakerOutcome::Stay;
        }
        match action {
            Action::BreakerClose => return BreakerOutcome::Close,
            Action::BreakerCall => return send(self.request(catalog, live)),
            Action::BreakerEdit => self.editing = true,
            Action::BreakerLoop => return send(self.request_loop(catalog, live)),
            Action::BreakerThresholdUp => self.change_threshold(1),
            Action::BreakerThresholdDown => self.change_threshold(-1),
            Action::BreakerLoopMore => self.loop_count = (self.loop_count + 1).min(MAX_LOOP),
            Action::BreakerLoopLess => self.loop_count = self.loop_count.saturating_sub(1).max(1),
            Action::BreakerReset => self.reset(),
            Action::BreakerNextTool | Action::BreakerPrevTool => {
                if let Some(pos) = tools.iter().position(|&i| i == self.tool) {
                    let n = tools.len();
                    let next = if action == Action::BreakerNextTool {
                        (pos + 1) % n
                    } else {
                        (pos + n - 1) % n
                    };
                    self.pick(catalog, tools[next]);
                } else if let Some(&first) = tools.first() {
                    self.pick(catalog, first);
                }
            }
            Action::BreakerOpenTrace => {
                self.path = Some(LineInput::new(
                    self.trace
                        .as_ref()
                        .map_or("@example", |t| t.origin.as_str()),
                ));
            }
            Action::BreakerStep => {
                self.step(catalog);
            }
            Action::BreakerRunTrace => self.run_trace(catalog),
            _ => {}
        }
        BreakerOutcome::Stay
    }
}

/// What the simulator asks of the app.
#[derive(Debug, Clone, PartialEq)]
pub enum BreakerOutcome {
    Stay,
    Close,
    /// Read this trace file (an effect; the answer comes back as a message).
    Load(String),
    /// Send these real calls (effects; each answer comes back as a message).
    Call(Vec<LiveCall>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{CatalogSource, load};
    use crate::replay::load_trace;

    fn demo() -> Catalog {
        load(&CatalogSource::demo()).unwrap()
    }

    fn open(p: &mut BreakerPane, path: &str) {
        p.loaded(path, load_trace(path));
    }

    fn pane_for(catalog: &Catalog, name: &str) -> BreakerPane {
        BreakerPane::new(catalog, catalog.index_of(name).unwrap())
    }

    #[test]
    fn starts_from_the_schemas_required_arguments() {
        let c = demo();
        let p = pane_for(&c, "get_payment");
        assert_eq!(p.args.text, r#"{"payment_id":""}"#);
        assert_eq!(p.breaker.threshold(), 3);
        assert_eq!(
            p.current_signature(&c).as_deref(),
            Some(r#"get_payment({"payment_id":""})"#)
        );
    }

    #[test]
    fn fourth_identical_call_is_blocked_and_its_handler_not_run() {
        let c = demo();
        let mut p = pane_for(&c, "get_payment");
        for i in 1..=3 {
            assert!(p.call(&c));
            assert_eq!(p.log.last().unwrap().repeats, i);
        }
        assert!(!p.call(&c));
        let last = p.log.last().unwrap();
        assert!(!last.ran);
        assert_eq!(last.repeats, 4);
        assert!(
            last.outcome
                .starts_with("retry loop interrupted: tool call")
        );
        // Ran calls carry the catalog's simulated result.
        let expected = c
            .get("get_payment")
            .unwrap()
            .handler_result
            .clone()
            .unwrap();
        assert_eq!(p.log[0].outcome, expected.to_string());
    }

    #[test]
    fn key_order_does_not_matter_and_other_args_start_a_new_streak() {
        let c = demo();
        let mut p = pane_for(&c, "get_ticket");
        p.args.set(r#"{"ticket_id":"T-1","include_comments":true}"#);
        p.call(&c);
        p.args.set(r#"{"include_comments":true,"ticket_id":"T-1"}"#);
        p.call(&c);
        assert_eq!(p.log[1].repeats, 2);
        assert_eq!(p.log[0].signature, p.log[1].signature);
        p.args.set(r#"{"ticket_id":"T-2"}"#);
        p.call(&c);
        assert_eq!(p.log[2].repeats, 1);
    }

    #[test]
    fn invalid_json_cannot_be_sent() {
        let c = demo();
        let mut p = pane_for(&c, "get_ticket");
        p.args.set(r#"{"ticket_id": "#);
        assert!(p.parsed_args().unwrap_err().starts_with("invalid JSON"));
        assert!(!p.call(&c));
        assert!(p.log.is_empty());
        assert!(
            p.message
                .as_deref()
                .unwrap()
                .starts_with("not sent: invalid JSON")
        );
        p.args.set("[1]");
        assert_eq!(
            p.parsed_args().unwrap_err(),
            "arguments must be a JSON object"
        );
        assert!(p.current_signature(&c).is_none());
    }

    #[test]
    fn threshold_changes_keep_the_streak_reset_clears_it() {
        let c = demo();
        let mut p = pane_for(&c, "get_payment");
        p.breaker.set_threshold(5);
        for _ in 0..3 {
            p.call(&c);
        }
        p.change_threshold(-2);
        assert_eq!(p.breaker.threshold(), 3);
        assert_eq!(p.breaker.repeats(), 3);
        assert!(!p.call(&c), "the kept streak trips at once");
        p.change_threshold(-10);
        assert_eq!(p.breaker.threshold(), 1);
        p.change_threshold(100);
        assert_eq!(p.breaker.threshold(), 20);
        p.reset();
        assert_eq!(p.breaker.repeats(), 0);
        assert!(p.call(&c));
    }

    #[test]
    fn loop_calls_n_times() {
        let c = demo();
        let mut p = pane_for(&c, "get_payment");
        p.loop_count = 6;
        p.call_loop(&c);
        assert_eq!(p.log.len(), 6);
        assert_eq!(p.log.iter().filter(|e| e.ran).count(), 3);
    }

    #[test]
    fn replay_steps_and_trips() {
        let c = demo();
        let mut p = pane_for(&c, "get_payment");
        p.call(&c);
        open(&mut p, "@example");
        assert_eq!(p.breaker.repeats(), 0, "a replay starts fresh");
        for _ in 0..9 {
            assert!(p.step(&c));
        }
        assert_eq!(p.trace.as_ref().unwrap().replay.tripped_at(), None);
        assert!(p.step(&c));
        assert_eq!(p.trace.as_ref().unwrap().replay.tripped_at(), Some(9));
        assert!(p.message.as_deref().unwrap().contains("trips at call 9"));
        p.run_trace(&c);
        let t = &p.trace.as_ref().unwrap().replay;
        assert_eq!(t.next(), t.calls.len());
        assert!(!p.step(&c));
        open(&mut p, "/no/such/trace.jsonl");
        assert!(p.message.as_deref().unwrap().contains("cannot read"));
    }

    #[test]
    fn actions_drive_the_simulator() {
        use Action::*;
        let c = demo();
        let tools: Vec<usize> = (0..c.len()).collect();
        let mut p = pane_for(&c, "get_payment");
        let act = |p: &mut BreakerPane, a: Action| p.handle(a, &c, &tools, false);
        assert_eq!(act(&mut p, BreakerCall), BreakerOutcome::Stay);
        assert_eq!(p.log.len(), 1);
        act(&mut p, BreakerEdit);
        assert!(p.editing && p.is_typing());
        p.type_text("x");
        assert!(p.args.text.ends_with('x'));
        act(&mut p, InputCancel);
        assert!(!p.editing);
        act(&mut p, BreakerThresholdUp);
        assert_eq!(p.breaker.threshold(), 4);
        act(&mut p, BreakerLoopMore);
        assert_eq!(p.loop_count, 6);
        act(&mut p, BreakerNextTool);
        assert_ne!(c.tools()[p.tool].name, "get_payment");
        act(&mut p, BreakerPrevTool);
        assert_eq!(c.tools()[p.tool].name, "get_payment");
        act(&mut p, BreakerOpenTrace);
        assert_eq!(p.path.as_ref().unwrap().text, "@example");
        // Opening is asked of the app (file I/O is an effect), not done here.
        assert_eq!(
            act(&mut p, InputSubmit),
            BreakerOutcome::Load("@example".into())
        );
        assert!(p.trace.is_none());
        open(&mut p, "@example");
        act(&mut p, BreakerRunTrace);
        assert!(p.trace.as_ref().unwrap().replay.tripped_at().is_some());
        assert_eq!(act(&mut p, BreakerClose), BreakerOutcome::Close);
    }
}
