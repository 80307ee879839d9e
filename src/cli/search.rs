//! `toolsift search CATALOG QUERY`: one search, as a deferred app would make
//! it: the loaded set, scores, why, tokens.

use toolsift::search::SearchRequest;
use toolsift::select::{SelectError, ToolsHandle};

use super::args::SearchArgs;
use super::error::CliError;
use super::handle::parse_int;
use super::output::{emit, write_stdout};

/// `CATALOG QUERY`, or just `QUERY` with MCP servers.
pub fn catalog_and_second<'a, T>(
    first: &'a str,
    second: Option<&'a T>,
    mcp: &super::mcp::McpArgs,
    what: &str,
) -> Result<(Vec<String>, &'a T), CliError>
where
    str: AsRef<T>,
    T: ?Sized,
{
    match second {
        Some(s) => Ok((vec![first.to_string()], s)),
        None if mcp.any() => Ok((Vec::new(), first.as_ref())),
        None => Err(CliError::Usage(format!(
            "give CATALOG and {what} (or {what} alone with --mcp, --mcp-stdio or --mcp-url)"
        ))),
    }
}

pub fn run(args: &SearchArgs) -> Result<(), CliError> {
    let settings = args.handle.settings()?;
    let (files, query) =
        catalog_and_second(&args.catalog, args.query.as_deref(), &args.mcp, "QUERY")?;
    let loaded = super::mcp::load(&files, None, &args.mcp).map_err(CliError::Mcp)?;
    let catalog = loaded.catalog;
    let handle = ToolsHandle::new(catalog.clone(), &settings.handle_options())?;
    let max_tools = match &args.max_tools {
        None => None,
        Some(text) => Some(parse_int(text).ok_or(SelectError::MaxTools)?),
    };
    let cap = handle.search_cap(max_tools)?;
    let request = SearchRequest {
        query: query.to_string(),
        context: args.context.clone(),
        max_tools: cap,
        session_id: args.session_id.clone(),
        ranker: args.ranker,
        // Named only when the user chose one, as the SDKs send none.
        token_basis: settings.token_basis,
        preview: false,
    };
    let embeddings = super::embed::embeddings_for(&args.embed, args.ranker)?;
    let result = args
        .remote
        .searcher(embeddings)?
        .search(&catalog, &request)?;
    if let Some(format) = args.export {
        let tools = result.tools.iter().map(|h| &catalog.tools()[h.index]);
        let text = toolsift::catalog::export::payload(tools, format)?;
        return write_stdout(&text);
    }
    emit(args.json, &result.to_json(&catalog), || {
        result.render_text(&catalog)
    })
}
