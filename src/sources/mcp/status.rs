//! What became of each server, and of a tool call.

use serde_json::Value;

use crate::catalog::Catalog;

/// What became of one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    Loaded {
        tools: usize,
        /// Tools renamed `server__tool` because another server has the name.
        prefixed: usize,
        /// The lints of hidden text in its tools (tag, zero-width, invisible
        /// or bidi characters), as sentences naming the tool and field; not
        /// escaped (the catalog's text is quoted raw).
        hidden_text: Vec<String>,
        /// The tools it listed that could not be read and were left out,
        /// each a sentence naming the tool and why (not escaped).
        skipped: Vec<String>,
    },
    Failed {
        why: String,
        /// The last lines the server wrote on stderr.
        stderr_tail: String,
    },
    /// Being started in the background (the gateway's start), maybe again
    /// after a failure.
    Starting { failed_before: Option<String> },
    /// It answered with an OAuth challenge: it joins once someone logs in
    /// (`toolsift login NAME`, or the login toolsift opened).
    WaitingForLogin {
        /// What is being done about it, a sentence (not escaped).
        how: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    pub name: String,
    pub state: ServerState,
}

impl ServerStatus {
    /// One line for a warning or a header: `time: 2 tools`, `git: failed: ...`.
    pub fn summary(&self) -> String {
        match &self.state {
            ServerState::Loaded {
                tools,
                prefixed,
                hidden_text,
                skipped,
            } => {
                let mut s = format!("{}: {}", self.name, crate::numbers::counted(*tools, "tool"));
                if *prefixed > 0 {
                    s.push_str(&format!(
                        " ({prefixed} prefixed {}__ because another server has the name)",
                        self.name
                    ));
                }
                match skipped.len() {
                    0 => {}
                    n => s.push_str(&format!(
                        "; {} skipped (a definition that does not read)",
                        crate::numbers::counted(n, "tool")
                    )),
                }
                match hidden_text.len() {
                    0 => {}
                    1 => s.push_str("; 1 warning of hidden text"),
                    n => s.push_str(&format!("; {n} warnings of hidden text")),
                }
                s
            }
            ServerState::Failed { .. } => {
                format!(
                    "{}: failed: {}",
                    self.name,
                    self.failure().unwrap_or_default()
                )
            }
            ServerState::Starting { failed_before } => match failed_before {
                None => format!("{}: starting", self.name),
                Some(why) => format!("{}: starting again (it failed: {why})", self.name),
            },
            ServerState::WaitingForLogin { how } => {
                format!("{}: waiting for login ({how})", self.name)
            }
        }
    }

    /// The warnings about the tools it listed (those skipped, then hidden
    /// text), as sentences naming the tool and field (to escape before
    /// printing).
    pub fn warnings(&self) -> Vec<&str> {
        match &self.state {
            ServerState::Loaded {
                hidden_text,
                skipped,
                ..
            } => skipped
                .iter()
                .chain(hidden_text)
                .map(String::as_str)
                .collect(),
            ServerState::Failed { .. }
            | ServerState::Starting { .. }
            | ServerState::WaitingForLogin { .. } => Vec::new(),
        }
    }

    /// A word for the state: `loaded`, `starting`, `failed` or
    /// `waiting for login`.
    pub fn state_word(&self) -> &'static str {
        match &self.state {
            ServerState::Loaded { .. } => "loaded",
            ServerState::Starting { .. } => "starting",
            ServerState::Failed { .. } => "failed",
            ServerState::WaitingForLogin { .. } => "waiting for login",
        }
    }

    /// Why the server failed, with the end of its stderr; `None` if it loaded.
    pub fn failure(&self) -> Option<String> {
        let ServerState::Failed { why, stderr_tail } = &self.state else {
            return None;
        };
        Some(with_tail(why, stderr_tail))
    }
}

/// Why a server failed, with the end of its stderr when it wrote any.
pub(super) fn with_tail(why: &str, stderr_tail: &str) -> String {
    let tail = stderr_tail.trim();
    if tail.is_empty() {
        why.to_string()
    } else {
        format!("{why}; its stderr ended with: {tail}")
    }
}

/// The tools gathered and what became of each server.
#[derive(Debug)]
pub struct Gathered {
    /// `None` when no server loaded a tool.
    pub catalog: Option<Catalog>,
    pub servers: Vec<ServerStatus>,
}

/// A tool call's outcome as the server gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    /// MCP `isError`: the tool ran and reported a failure.
    pub is_error: bool,
    /// The text content, joined; other content as JSON.
    pub text: String,
    /// The whole result.
    pub raw: Value,
}

/// Why a call did not happen or did not finish.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpCallError {
    #[error("no connection to MCP server {0:?} (it did not load)")]
    NoServer(String),
    #[error("MCP server {server:?}: {message}")]
    Failed { server: String, message: String },
    #[error("MCP server {server:?} did not answer within {secs} s")]
    Timeout { server: String, secs: u64 },
    /// The call was not run: the server waits for a login (the message
    /// says how to make it); called again once logged in, it goes.
    #[error("MCP server {server:?}: {message}")]
    NeedsLogin { server: String, message: String },
    /// The server answered the request with a JSON-RPC error: passed on to
    /// the host as it came (its code kept).
    #[error("MCP server {server:?}: {message}")]
    Answered {
        server: String,
        code: i32,
        message: String,
    },
}

/// Why a server's tools could not be listed again after it said they
/// changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RelistError {
    /// It loaded, but its connection is gone.
    #[error("no connection to MCP server {0:?}")]
    NotConnected(String),
    /// The task that holds its connection ended.
    #[error("the connection task ended")]
    TaskEnded,
    /// No listing within the start's time limit.
    #[error("did not list its tools within {secs} s")]
    Slow { secs: f64 },
    /// It refused, or its answer was not a listing.
    #[error("{0}")]
    Refused(String),
    /// It was taken out of the servers file meanwhile.
    #[error("no MCP server {0:?}")]
    Gone(String),
}

/// Servers as tests write them: one constructor per state, the fields a
/// test does not name empty.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{ServerState, ServerStatus};

    /// Server `name` in `state`.
    pub(crate) fn status(name: &str, state: ServerState) -> ServerStatus {
        ServerStatus {
            name: name.into(),
            state,
        }
    }

    /// Listed `tools` tools, `prefixed` of them renamed `name__tool`.
    pub(crate) fn loaded_prefixed(name: &str, tools: usize, prefixed: usize) -> ServerStatus {
        status(
            name,
            ServerState::Loaded {
                tools,
                prefixed,
                hidden_text: Vec::new(),
                skipped: Vec::new(),
            },
        )
    }

    /// Listed `tools` tools, none renamed, hidden or skipped.
    pub(crate) fn loaded(name: &str, tools: usize) -> ServerStatus {
        loaded_prefixed(name, tools, 0)
    }

    /// Listed `tools` tools whose text hides something (`hidden_text`'s
    /// lints).
    pub(crate) fn hiding(name: &str, tools: usize, hidden_text: Vec<String>) -> ServerStatus {
        status(
            name,
            ServerState::Loaded {
                tools,
                prefixed: 0,
                hidden_text,
                skipped: Vec::new(),
            },
        )
    }

    /// Failed for `why`, its stderr ending with `stderr_tail`.
    pub(crate) fn failed(name: &str, why: &str, stderr_tail: &str) -> ServerStatus {
        status(
            name,
            ServerState::Failed {
                why: why.into(),
                stderr_tail: stderr_tail.into(),
            },
        )
    }

    /// Being started, for the first time.
    pub(crate) fn starting(name: &str) -> ServerStatus {
        status(
            name,
            ServerState::Starting {
                failed_before: None,
            },
        )
    }

    /// Waiting for a login, `how` saying what is done about it.
    pub(crate) fn waiting_for_login(name: &str, how: &str) -> ServerStatus {
        status(name, ServerState::WaitingForLogin { how: how.into() })
    }
}
