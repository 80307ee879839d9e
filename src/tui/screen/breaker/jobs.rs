//! The breaker's work off the UI thread: a trace file read, a real call
//! sent to an MCP server; each answer comes back to the breaker.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::BreakerPane;
use crate::replay::{TraceCall, TraceError};
use crate::search::Searcher;
use crate::sources::mcp::{CallOutcome, McpCallError, McpHost};
use crate::tui::effect::Effect;
use crate::tui::screen::Popup;
use crate::tui::screen::job::{Answer, Job, ScreenJob};

/// Read a trace file (or `@example`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadTrace {
    pub path: String,
}

/// A trace file read, or why not.
#[derive(Debug)]
pub struct TraceRead {
    pub path: String,
    pub result: Result<Vec<TraceCall>, TraceError>,
}

impl Job for ReadTrace {
    fn run(&self, _searcher: &Searcher) -> Answer {
        let result = crate::replay::load_trace(&self.path);
        Answer::new(
            Popup::Breaker,
            TraceRead {
                path: self.path.clone(),
                result,
            },
        )
    }
}

/// Call `tool` (its name on `server`) for real through `host`, which
/// blocks until the answer or its time limit.
#[derive(Debug)]
pub struct CallTool {
    pub id: u64,
    pub host: Arc<McpHost>,
    pub server: String,
    pub tool: String,
    pub arguments: Map<String, Value>,
}

/// The answer of real call `id`.
#[derive(Debug)]
pub struct Called {
    pub id: u64,
    pub result: Result<CallOutcome, McpCallError>,
}

impl Job for CallTool {
    fn run(&self, _searcher: &Searcher) -> Answer {
        let result = self
            .host
            .call(&self.server, &self.tool, self.arguments.clone());
        Answer::new(
            Popup::Breaker,
            Called {
                id: self.id,
                result,
            },
        )
    }
}

/// The effect that reads the trace at `path`.
pub(super) fn read_trace(path: String) -> Effect {
    Effect::Screen(ScreenJob::new(Popup::Breaker, ReadTrace { path }))
}

impl BreakerPane {
    /// Takes a job's answer: a trace read, a call answered.
    pub(super) fn answered(&mut self, answer: &Answer) {
        if let Some(read) = answer.get::<TraceRead>() {
            self.loaded(&read.path, read.result.clone());
        } else if let Some(called) = answer.get::<Called>() {
            self.receive(called.id, called.result.clone());
        }
    }
}
