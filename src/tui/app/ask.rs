//! The app answering what one screen asks of it ([`Ask`]): the highlighted
//! tool, the catalog pane's rows, the MCP servers, the query box, the
//! export's tools, the counted tokens. No screen is named here.

use std::sync::Arc;

use super::App;
use crate::caching::Pricing;
use crate::provider::PayloadFormat;
use crate::search::Searcher;
use crate::sources::mcp::{McpHost, ServerStatus};
use crate::tui::screen::{Ask, NothingToExport, ToolsFrom, ToolsOut};

impl Ask for App {
    fn current_tool(&self) -> Option<usize> {
        App::current_tool(self).map(|(index, _)| index)
    }

    fn rows(&self) -> &[usize] {
        &self.catalog_view.rows
    }

    fn host(&self) -> Option<&Arc<McpHost>> {
        self.mcp.as_ref()
    }

    fn servers(&self) -> &[ServerStatus] {
        &self.mcp_servers
    }

    fn catalog_servers(&self) -> bool {
        !self.catalog_view.servers.is_empty()
    }

    fn ranker_chosen(&self) -> bool {
        App::ranker_chosen(self)
    }

    fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    fn query(&self) -> &str {
        self.query.text()
    }

    fn regex(&self) -> bool {
        self.query.is_regex()
    }

    fn history(&self) -> &[String] {
        &self.query.history
    }

    fn export(&self) -> Result<ToolsOut<'_>, NothingToExport> {
        let tools: Vec<_> = (self.export_set().unwrap_or_default().iter())
            .map(|&i| &self.catalog.tools()[i])
            .collect();
        let from = if tools.is_empty() {
            return Err(self.nothing_to_export());
        } else if !self.picked.is_empty() {
            ToolsFrom::Picked
        } else if self.search.full_catalog {
            ToolsFrom::FullCatalog
        } else {
            ToolsFrom::Loaded
        };
        Ok(ToolsOut { tools, from })
    }

    fn tool_format(&self) -> PayloadFormat {
        self.tool_format
    }

    fn costs(&self) -> Option<&[u64]> {
        self.costs.as_deref().map(Vec::as_slice)
    }

    fn caching(&self) -> Option<Pricing> {
        self.caching
    }
}
