//! The catalog a command works on: its catalog files, the MCP servers its
//! flags name ([`super::mcp`], started by [`super::mcp_live`]), or both.

use std::sync::Arc;

use toolsift::catalog::{self, CatalogSource};

use super::mcp::{Loaded, McpArgs};
use super::mcp_error::McpError;

/// Loads `files` (or `default` when there are none and no MCP server) and
/// gathers the MCP servers of `args`. Each server that failed is a warning on
/// stderr; none loading (and no file) is an error.
pub fn catalogs(
    files: &[String],
    default: Option<&str>,
    args: &McpArgs,
) -> Result<Loaded, McpError> {
    if args.any() {
        #[cfg(feature = "mcp")]
        return super::mcp_live::load_servers(files, args, false).map(|(loaded, _)| loaded);
        #[cfg(not(feature = "mcp"))]
        return Err(McpError::WithoutMcp);
    }
    let sources: Vec<CatalogSource> = if files.is_empty() {
        default.map(CatalogSource::parse).into_iter().collect()
    } else {
        files.iter().map(|f| CatalogSource::parse(f)).collect()
    };
    let catalog = catalog::load_all(&sources)?;
    Ok(Loaded {
        catalog: Arc::new(catalog),
        #[cfg(feature = "mcp")]
        host: None,
        servers: Vec::new(),
    })
}
