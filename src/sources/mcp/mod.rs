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

/// Items only a build with the `mcp` feature has: the connections (rmcp),
/// the calls and the listing. The servers files' reading and the servers'
/// states are always built.
macro_rules! with_the_sdk {
    ($($item:item)*) => { $(#[cfg(feature = "mcp")] $item)* };
}

mod beside_files;
mod child_env;
pub mod config;
mod config_error;
mod editors;
mod isolation;
mod jsonc;
mod login_mode;
mod oauth_entry;
mod sandbox_entry;
mod sandbox_grant;
pub mod sdk_text;
mod server_entry;
mod status;
mod vars;

pub use beside_files::merge_beside_files;
pub use child_env::{InheritEnv, PARENT_VAR, SAFE_VARS, inherited, withhold};
pub use config::{McpConfig, McpServer, Transport};
pub use config_error::McpConfigError;
pub use isolation::Isolation;
pub use login_mode::LoginMode;
pub use oauth_entry::OAuthSettings;
pub use sandbox_entry::{Net, Sandbox, SandboxError, SandboxGrant};
pub use sandbox_grant::{Granted, granted};
#[cfg(test)]
pub(crate) use status::fixtures;
pub use status::{CallOutcome, Gathered, McpCallError, RelistError, ServerState, ServerStatus};

with_the_sdk! {
    mod admission;
    mod background;
    mod calls;
    mod connect;
    mod frame_scan;
    mod host;
    mod key_logins;
    mod key_names;
    mod lenient;
    mod listed;
    mod listener;
    pub mod login;
    mod logins;
    mod offered;
    mod own_connection;
    mod owners;
    mod progress;
    mod reaper;
    mod reconfigure;
    mod relay;
    mod sandbox;
    mod screened;
    mod tenants;
    mod warden;

    pub use admission::{MAX_RUNNING, MAX_WAITING};
    pub use background::MAX_RETRY_PAUSE;
    pub use calls::{MAX_RESTARTS_IN_A_ROW, RESTART_PAUSE};
    pub use host::McpHost;
    pub use key_names::{KeyLogins, NameOf};
    pub use lenient::MAX_SERVER_TOOLS;
    pub use listed::{MAX_CATALOG_TOOLS, unmatched_always_load};
    pub use progress::{KEPT as PROGRESS_KEPT, ProgressReports, ProgressSink, progress_channel};
    pub use logins::{LOGIN_WAIT, LoggedIn, MAX_LOGINS_PER_CALL, NotLoggedIn};
    pub use offered::{ListFailed, Offer, ServerList};
    pub use reaper::{before_exit, install_exit_guards, kill_all_servers};
    pub use reconfigure::Reconfigured;
    pub use relay::{Asked, HostLink, Question, Subscribers};
    pub use sandbox::{SandboxReport, landlock_abi, sandbox_report};
    pub use warden::{LOOK_EVERY, WARDEN_VAR, run_if_warden, start_warden};
}

#[cfg(all(feature = "mcp", target_os = "linux"))]
mod sandbox_landlock;

#[cfg(test)]
mod config_tests;
#[cfg(all(test, feature = "mcp"))]
mod tests;
