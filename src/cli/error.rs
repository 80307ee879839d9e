//! Why a command failed, and its exit code: 2 for what the user gave us
//! (flags, files, configs, the terminal), 1 for a search that failed.

use toolsift::search::SearchError;

/// A command's failure, printed on stderr after `toolsift: `.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A flag or argument out of its range, missing, or in conflict.
    #[error("error: {0}")]
    Usage(String),
    #[error("error: {0}")]
    Catalog(#[from] toolsift::catalog::CatalogError),
    #[error("error: {0}")]
    Export(#[from] toolsift::export::ExportError),
    #[error("error: {0}")]
    Config(#[from] toolsift::config::ConfigError),
    #[cfg(feature = "tui")]
    #[error("error: {0}")]
    Keymap(#[from] toolsift::tui::keymap::KeymapError),
    #[cfg(feature = "tui")]
    #[error("error: {0}")]
    DemoScript(#[from] toolsift::tui::demo::ScriptError),
    /// Requests with known answers that cannot be read or do not fit.
    #[error("error: {0}")]
    Queries(#[from] toolsift::eval::EvalError),
    #[error("error: {0}")]
    Trace(#[from] toolsift::replay::TraceError),
    /// The SDK's own checks of the handle's options.
    #[error("error: {0}")]
    Handle(#[from] toolsift::tools_handle::SelectError),
    #[error("error: {0}")]
    Basis(#[from] toolsift::tokens::UnknownBasis),
    /// A remote service's settings.
    #[error("error: {0}")]
    Service(#[from] toolsift::client::ClientConfigError),
    #[error("error: {0}")]
    Embeddings(#[from] toolsift::embed::SettingsError),
    /// The gateway's settings, rules, address or trace, or its transport.
    #[cfg(feature = "mcp")]
    #[error("error: {0}")]
    Gateway(#[from] toolsift::gateway::GatewayError),
    /// An OpenTelemetry variable this build cannot honour, or an exporter
    /// that could not be made.
    #[error("error: {0}")]
    Telemetry(#[from] toolsift::telemetry::TelemetryError),
    /// `--follow`'s source, or the followed gateway's catalog.
    #[error("error: {0}")]
    Follow(#[from] toolsift::follow::FollowError),
    /// MCP servers that could not be configured, started, listed or
    /// logged in to.
    #[error("error: {0}")]
    Mcp(#[from] super::mcp_error::McpError),
    /// `check --strict`: the catalog hides text (the report says where).
    #[error("error: {0}")]
    HiddenText(String),
    /// `toolsift serve` could not start.
    #[error("error: {0}")]
    Serve(#[from] toolsift::server::ServeError),
    /// The terminal could not be set up or drawn on.
    #[cfg_attr(not(feature = "tui"), allow(dead_code))]
    #[error("error: terminal: {0}")]
    Terminal(std::io::Error),
    /// A file named on the command line that cannot be read.
    #[error("error: {path}: cannot read: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    /// A file named on the command line that cannot be written.
    #[cfg_attr(not(feature = "tui"), allow(dead_code))]
    #[error("error: {path}: cannot write: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("error: {0}")]
    Io(#[from] std::io::Error),
    #[error("error: {0}")]
    Json(#[from] serde_json::Error),
    /// A search the service refused, or whose answer broke the client rules.
    #[error("search failed: {0}")]
    Search(#[from] SearchError),
    /// A ranking that failed part way (eval, tune), with the request named.
    #[error("search failed: {0}")]
    Ranking(String),
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Search(_) | CliError::Ranking(_) => 1,
            _ => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolsift::tokens::TokenBasis;
    use toolsift::tools_handle::SelectError;
    use toolsift::wire::ResponseError;

    #[test]
    fn one_error_type_with_its_exit_code() {
        let e = CliError::from(SelectError::Strategy);
        assert_eq!(e.exit_code(), 2);
        assert_eq!(e.to_string(), "error: strategy must be all or deferred");
        let e = CliError::from("x".parse::<TokenBasis>().unwrap_err());
        assert_eq!(e.exit_code(), 2);
        let e = CliError::from(SearchError::Response(ResponseError::UnknownOrDuplicate));
        assert_eq!(e.exit_code(), 1);
        assert_eq!(
            e.to_string(),
            "search failed: tool search response contained an unknown or duplicate tool"
        );
        let e = CliError::Terminal(std::io::Error::other("gone"));
        assert_eq!(e.to_string(), "error: terminal: gone");
    }
}
