//! Real calls to the MCP server a tool came from: recorded by the breaker
//! first (a blocked call never reaches the server), sent as an effect, the
//! answer shown escaped. A read-only tool is called at once; any other
//! asks for a yes every time.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::jobs::CallTool;
use super::{BreakerPane, CallEntry, MAX_ANSWER_CHARS};
use crate::catalog::{Catalog, McpOrigin};
use crate::sources::mcp::{CallOutcome, McpCallError, McpHost};
use crate::terminal_text::{escape, escape_lines};
use crate::tui::effect::Effect;
use crate::tui::screen::Popup;
use crate::tui::screen::job::ScreenJob;

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

impl LiveCall {
    /// The call as an effect through `host`.
    pub fn effect(self, host: &Arc<McpHost>) -> Effect {
        Effect::Screen(ScreenJob::new(
            Popup::Breaker,
            CallTool {
                id: self.id,
                host: host.clone(),
                server: self.server,
                tool: self.tool,
                arguments: self.arguments,
            },
        ))
    }
}

impl BreakerPane {
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
        let args = match self.parsed_args(catalog) {
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
            if self.parsed_args(catalog).is_err() {
                break;
            }
        }
        calls
    }

    /// The question before a real call is open.
    pub fn confirming(&self) -> bool {
        self.confirm.is_some()
    }
}
