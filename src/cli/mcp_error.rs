//! Why the MCP servers a command names could not be read, started, listed
//! or logged in to: each with what and where (the file and line, the flag,
//! the server), as `toolsift: error: ...` says it.

use toolsift::catalog::CatalogError;
#[cfg(feature = "mcp")]
use toolsift::sources::mcp::McpConfigError;
#[cfg(feature = "mcp")]
use toolsift::terminal_text::escape;

/// MCP servers that could not be configured, started, listed or logged in
/// to.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[cfg(feature = "mcp")]
    /// A servers file, `--mcp-stdio` or `--mcp-url` that cannot be used.
    #[error("{0}")]
    Config(#[from] McpConfigError),
    #[cfg(feature = "mcp")]
    #[error("--project picks a project of the --mcp file (~/.claude.json)")]
    ProjectWithoutFile,
    #[cfg(feature = "mcp")]
    /// `--mcp-timeout`'s value.
    #[error("--mcp-timeout must be between 0 and 3600 seconds, not {0}")]
    Timeout(f64),
    #[cfg(feature = "mcp")]
    #[error("no MCP server is configured")]
    NoServer,
    #[cfg(feature = "mcp")]
    #[error("no MCP server loaded")]
    NoneLoaded,
    #[cfg(feature = "mcp")]
    /// No server listed a tool, and some wait for a login: their names
    /// (escaped), and the command that logs the first in.
    #[error(
        "no MCP server listed a tool: {} {} for a login (`{}` makes it)",
        .names.join(", "),
        if .names.len() == 1 { "waits" } else { "wait" },
        escape(.command)
    )]
    WaitingForLogin { names: Vec<String>, command: String },
    #[cfg(feature = "mcp")]
    #[error("the MCP servers list no tools")]
    NoTools,
    #[cfg(feature = "mcp")]
    /// The servers' host (its runtime) could not start.
    #[error("MCP: {0}")]
    Host(std::io::Error),
    /// A catalog file given beside the servers, or the servers' tools
    /// merged with it.
    #[error("{0}")]
    Catalog(#[from] CatalogError),
    #[cfg(feature = "mcp")]
    /// A login that did not complete.
    #[error("login to {}: {}", escape(.server), escape(&.why.to_string()))]
    Login {
        server: String,
        why: toolsift::sources::mcp::login::LoginError,
    },
    #[cfg(feature = "mcp")]
    /// A login that could not be forgotten.
    #[error("logout of {}: {}", escape(.server), escape(&.why.to_string()))]
    Logout {
        server: String,
        why: toolsift::sources::mcp::login::LoginError,
    },
    /// A build without the `mcp` feature starts no server.
    #[cfg(not(feature = "mcp"))]
    #[error("{}", WITHOUT_MCP)]
    WithoutMcp,
}

#[cfg(all(test, feature = "mcp"))]
mod tests {
    use super::*;

    #[test]
    fn each_says_what_and_where() {
        let e = McpError::from(McpConfigError::Server {
            origin: "servers.json:3:5".into(),
            server: "time".into(),
            message: "needs `command` (stdio) or `url` (streamable HTTP)".into(),
        });
        assert_eq!(
            e.to_string(),
            "servers.json:3:5: server \"time\": needs `command` (stdio) or `url` (streamable HTTP)"
        );
        assert_eq!(
            McpError::Timeout(0.0).to_string(),
            "--mcp-timeout must be between 0 and 3600 seconds, not 0"
        );
        let one = McpError::WaitingForLogin {
            names: vec!["tracker".into()],
            command: "toolsift login tracker --mcp /x.json".into(),
        };
        assert_eq!(
            one.to_string(),
            "no MCP server listed a tool: tracker waits for a login (`toolsift login tracker --mcp /x.json` makes it)"
        );
        let two = McpError::WaitingForLogin {
            names: vec!["a".into(), "b".into()],
            command: "toolsift login a".into(),
        };
        assert!(two.to_string().contains("a, b wait for a login"), "{two}");
    }

    #[test]
    fn a_server_name_is_escaped() {
        let e = McpError::Login {
            server: "evil\u{1b}[2J".into(),
            why: toolsift::sources::mcp::login::LoginError::TimedOut(300),
        };
        assert!(!e.to_string().contains('\u{1b}'), "{e}");
        assert!(e.to_string().starts_with("login to evil"), "{e}");
    }
}

/// What a build without the `mcp` feature says of MCP servers.
#[cfg(not(feature = "mcp"))]
pub const WITHOUT_MCP: &str = "this toolsift was built without the mcp feature, so it starts no MCP server and has no gateway: give catalog files, or install toolsift with its default features";
