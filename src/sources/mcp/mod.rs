//! Catalogs from live MCP servers, with the official Rust SDK (`rmcp`):
//! start or connect to each configured server in parallel, list every page
//! of its tools, and turn them into a [`Catalog`] through the MCP importer
//! (so a hostile server's names and schemas get the same checks as a file's).
//! The connections stay open in an [`McpHost`] for real tool calls; a
//! server that exited starts again on its next call, and one that says its
//! tools changed is listed again. Their resources and prompts are listed,
//! read and got through the same connections.
//!
//! Child processes never outlive toolsift: each runs in its own process
//! group, which is killed when the host is dropped, on a panic, and on
//! SIGINT, SIGTERM or SIGHUP ([`install_exit_guards`]).

#[cfg(feature = "mcp")]
mod background;
#[cfg(feature = "mcp")]
mod calls;
pub mod config;
mod config_error;
#[cfg(feature = "mcp")]
mod connect;
mod editors;
#[cfg(feature = "mcp")]
mod host;
#[cfg(feature = "mcp")]
mod lenient;
#[cfg(feature = "mcp")]
mod listed;
#[cfg(feature = "mcp")]
mod listener;
#[cfg(feature = "mcp")]
mod offered;
#[cfg(feature = "mcp")]
mod reaper;
#[cfg(feature = "mcp")]
mod reconfigure;
mod status;
mod vars;

#[cfg(feature = "mcp")]
pub use background::MAX_RETRY_PAUSE;
#[cfg(feature = "mcp")]
pub use calls::{MAX_RESTARTS_IN_A_ROW, RESTART_PAUSE};
pub use config::{McpConfig, McpServer, Transport};
pub use config_error::McpConfigError;
#[cfg(feature = "mcp")]
pub use host::McpHost;
#[cfg(feature = "mcp")]
pub use listed::unmatched_always_load;
#[cfg(feature = "mcp")]
pub use listener::ProgressSink;
#[cfg(feature = "mcp")]
pub use offered::{Offer, ServerList};
#[cfg(feature = "mcp")]
pub use reaper::{before_exit, install_exit_guards, kill_all_servers};
#[cfg(feature = "mcp")]
pub use reconfigure::Reconfigured;
pub use status::{CallOutcome, Gathered, McpCallError, ServerState, ServerStatus};

#[cfg(test)]
mod config_tests;
#[cfg(all(test, feature = "mcp"))]
mod tests;
