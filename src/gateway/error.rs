//! Why the gateway will not start as asked, typed so a caller acts on the
//! kind (a command line names a setting by its flag, a file by its key)
//! and the text a person reads is said here once.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::catalog::CatalogError;
use crate::config::HiddenText;
use crate::http::PublicWithoutKey;

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// A number outside its range; `key` as the config file spells it.
    #[error("{key} must be from {min} to {max}, not {value}")]
    OutOfRange {
        key: String,
        min: u64,
        max: u64,
        value: u64,
    },
    /// `hidden_text_results = "drop"`: a call's result cannot be left out.
    #[error("{key} must be strip or keep (a result cannot be left out), not drop")]
    ResultsCannotBeDropped { key: String },
    /// A tool rule's pattern that is empty.
    #[error("a tool rule's pattern is empty")]
    EmptyRule,
    /// A tool rule's pattern that is not `server/tool`, `server/*` or `tool`.
    #[error("tool rule {pattern:?}: a pattern is server/tool, server/* or tool")]
    RuleShape { pattern: String },
    /// A public address without keys.
    #[error(transparent)]
    PublicWithoutKey(#[from] PublicWithoutKey),
    /// The address cannot be listened on (taken, not this machine's).
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// Serving over HTTP stopped on an error of the socket.
    #[error("serving on {addr}: {source}")]
    Serving {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// The host's `initialize` (or its first request) could not be served.
    #[error("the host's handshake failed: {0}")]
    Handshake(String),
    /// A stdio session that ended other than by the host closing it.
    #[error("the session ended abnormally: {0}")]
    SessionEnded(String),
    /// The catalog the servers and files make together is not one.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The tool rules deny every tool.
    #[error("every one of the {tools} tools is denied by the tool rules ([gateway.tools], --deny)")]
    AllDenied { tools: usize },
    /// Every tool hides text and `--hidden-text` left each out.
    #[error("every one of the {tools} tools hides text and was left out (--hidden-text {mode})")]
    AllHideText { tools: usize, mode: HiddenText },
    /// A server to list again that the gateway is not connected to.
    #[error("no connection to MCP server {server:?}")]
    NotConnected { server: String },
    /// The trace file cannot be opened as the trace must be.
    #[error("--trace {}: {source}", path.display())]
    Trace {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl GatewayError {
    /// This error with its setting named as `name` says (a flag, or a
    /// file's key with the file); the others as they are.
    pub fn naming(self, name: impl Fn(&str) -> String) -> GatewayError {
        match self {
            GatewayError::OutOfRange {
                key,
                min,
                max,
                value,
            } => GatewayError::OutOfRange {
                key: name(&key),
                min,
                max,
                value,
            },
            GatewayError::ResultsCannotBeDropped { key } => {
                GatewayError::ResultsCannotBeDropped { key: name(&key) }
            }
            other => other,
        }
    }
}
