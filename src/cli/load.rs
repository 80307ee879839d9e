//! The catalog a command works on: its catalog files, the MCP servers its
//! flags name ([`super::mcp`], started by [`super::mcp_live`]), or both.

use std::sync::Arc;

use toolsift::catalog::{self, CatalogSource};

use super::error::CliError;
use super::mcp::{Loaded, McpArgs};

/// Why a command has no catalog: its MCP servers (what the start said), or
/// its files.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{0}")]
    Servers(String),
    #[error(transparent)]
    Files(#[from] catalog::CatalogError),
}

/// Said as the MCP servers' failures are (the same words and exit code as
/// before the files and the servers were told apart).
impl From<LoadError> for CliError {
    fn from(e: LoadError) -> CliError {
        CliError::Mcp(e.to_string())
    }
}

/// Loads `files` (or `default` when there are none and no MCP server) and
/// gathers the MCP servers of `args`. Each server that failed is a warning on
/// stderr; none loading (and no file) is an error.
pub fn catalogs(
    files: &[String],
    default: Option<&str>,
    args: &McpArgs,
) -> Result<Loaded, LoadError> {
    if args.any() {
        #[cfg(feature = "mcp")]
        return super::mcp_live::load_servers(files, args, false)
            .map(|(loaded, _)| loaded)
            .map_err(LoadError::Servers);
        #[cfg(not(feature = "mcp"))]
        return Err(LoadError::Servers(super::mcp::WITHOUT_MCP.into()));
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
