//! What a screen asks of the app that only it needs ([`Ask`], beside
//! [`super::On`]'s shared part): the app answers when asked, and no screen
//! is named by it nor names it. The export's tools come as a [`ToolsOut`]
//! or [`NothingToExport`], why none.

use std::sync::Arc;

use crate::caching::Pricing;
use crate::provider::PayloadFormat;
use crate::search::Searcher;
use crate::sources::mcp::{McpHost, ServerStatus};

/// The app, asked read-only for what one screen needs (which one, on each
/// method).
pub trait Ask {
    /// The highlighted tool (results or catalog), by catalog place (the
    /// breaker opens on it).
    fn current_tool(&self) -> Option<usize>;

    /// The catalog pane's rows, in their order, by catalog place (the
    /// breaker steps through them).
    fn rows(&self) -> &[usize];

    /// The live MCP servers' host, when tool calls are real (the breaker).
    fn host(&self) -> Option<&Arc<McpHost>>;

    /// What became of each MCP server (help).
    fn servers(&self) -> &[ServerStatus];

    /// Whether the catalog's tools came from MCP servers (help).
    fn catalog_servers(&self) -> bool;

    /// Whether the user named the ranker in force (Tune saves it only
    /// then).
    fn ranker_chosen(&self) -> bool;

    /// The searcher, which says what ranker can run here (the comparison).
    fn searcher(&self) -> &Searcher;

    /// The query box's request, and whether it is a regex (the
    /// comparison searches it).
    fn query(&self) -> &str;
    fn regex(&self) -> bool;

    /// The query box's committed queries, oldest first (the history).
    fn history(&self) -> &[String];

    /// The tools an export writes and where they come from, or why there
    /// are none (export).
    fn export(&self) -> Result<ToolsOut<'_>, NothingToExport>;

    /// The provider format last exported (export opens on it).
    fn tool_format(&self) -> PayloadFormat;

    /// Per-tool tokens, once counted, and the provider whose caching the
    /// Tokens box prices, if any (the comparison's cost line).
    fn costs(&self) -> Option<&[u64]>;
    fn caching(&self) -> Option<Pricing>;
}

/// The tools taken out of the explorer (an export writes them), by
/// catalog place, and where they come from.
#[derive(Debug, Clone)]
pub struct ToolsOut<'a> {
    pub tools: Vec<&'a crate::catalog::Tool>,
    pub from: ToolsFrom,
}

/// Where the tools taken out come from: picked by hand, the full catalog
/// (after a failed search), or the search's loaded set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolsFrom {
    Picked,
    FullCatalog,
    Loaded,
}

/// Why there are no tools to take out, as the search stands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NothingToExport {
    #[error("nothing to export yet: the first search has not come back")]
    Waiting,
    /// The search failed (`retry`: the key that retries it).
    #[error("nothing to export: the search failed, so no tools are loaded ({retry} retries)")]
    Failed { retry: String },
    #[error(
        "nothing to export: an empty query loads only the always-load tools, and this catalog has none; type a query first"
    )]
    EmptyQuery,
    #[error("nothing to export: the search loaded no tools (none matched the query)")]
    NoneMatched,
}
