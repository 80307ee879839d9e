//! `toolsift search CATALOG QUERY`: one search, as a deferred app would make
//! it: the loaded set, scores, why, tokens.

use toolsift::catalog::Catalog;
use toolsift::engine::close_names::close_names;
use toolsift::search::SearchRequest;
use toolsift::tools_handle::ToolsHandle;

use super::args::SearchArgs;
use super::error::CliError;
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

/// One search: the catalog (files or MCP servers), the request from the
/// flags, the answer as text, JSON or a tool payload.
pub fn run(args: &SearchArgs) -> Result<(), CliError> {
    let settings = args.handle.settings();
    let (files, query) =
        catalog_and_second(&args.catalog, args.query.as_deref(), &args.mcp, "QUERY")?;
    let loaded = super::load::catalogs(&files, None, &args.mcp)?;
    let catalog = loaded.catalog;
    let why = args
        .why
        .as_deref()
        .map(|name| tool_named(&catalog, name))
        .transpose()?;
    let handle = ToolsHandle::new(catalog.clone(), &settings.handle_options())?;
    let cap = handle.sent_cap(args.cap.max_tools);
    check_intents(&args.intents)?;
    let remote = super::embed::remote_named(args.remote.service.as_deref(), None);
    let choice = super::embed::choose(&args.embed, args.ranker, remote, "toolsift search")?;
    let searcher = args.remote.searcher(choice.embeddings)?;
    // A remote service gets only the SDK's fields unless the user chose an
    // extension: the gate is sent when asked for.
    let gate = match (args.gate, &searcher) {
        (Some(g), _) => Some(g.on()),
        (None, toolsift::search::Searcher::Embedded(_)) => Some(toolsift::service::GATE_IN_PROCESS),
        (None, _) => None,
    };
    let request = SearchRequest {
        query: query.to_string(),
        queries: args.intents.clone(),
        context: args.context.clone(),
        max_tools: cap,
        session_id: args.session_id.clone(),
        // The ranker chosen (named, or the default model's hybrid); a
        // remote service gets one only when the user named it.
        ranker: if remote {
            args.ranker
        } else {
            Some(choice.ranker)
        },
        // Named only when the user chose one, as the SDKs send none.
        token_basis: settings.token_basis,
        preview: false,
        gate,
        // --why tells where the tool stood in the ranking the answer was
        // cut from.
        keep_ranking: why.is_some(),
        ..SearchRequest::default()
    };
    let result = searcher.search(&catalog, &request)?;
    answer(args, &searcher, &catalog, &request, &result, why)
}

/// `--intent`s: at most [`toolsift::engine::intents::MAX_INTENTS`], none
/// empty.
fn check_intents(intents: &[String]) -> Result<(), CliError> {
    if intents.len() > toolsift::engine::intents::MAX_INTENTS {
        return Err(CliError::Usage(format!(
            "--intent is given {} times; at most {} intents are accepted",
            intents.len(),
            toolsift::engine::intents::MAX_INTENTS
        )));
    }
    if let Some(i) = intents.iter().position(|q| q.trim().is_empty()) {
        return Err(CliError::Usage(format!(
            "--intent number {} is empty",
            i + 1
        )));
    }
    Ok(())
}

/// Writes the answer: the tools as a payload (`--export`), else the
/// result as text or JSON, with where `--why`'s tool stood.
fn answer(
    args: &SearchArgs,
    searcher: &toolsift::search::Searcher,
    catalog: &std::sync::Arc<Catalog>,
    request: &SearchRequest,
    result: &toolsift::search::SearchResult,
    why: Option<usize>,
) -> Result<(), CliError> {
    if let Some(format) = args.export {
        let tools = result.tools.iter().map(|h| &catalog.tools()[h.index]);
        let text = toolsift::export::payload(tools, format)?;
        return write_stdout(&text);
    }
    let why = match why {
        Some(tool) => Some(searcher.standing(catalog, request, result)?.why(tool)),
        None => None,
    };
    let mut value = result.to_json(catalog);
    if let Some(why) = &why {
        value["why"] = why.to_json(catalog);
    }
    emit(args.json, &value, || {
        let mut text = result.render_text(catalog);
        if let Some(why) = &why {
            text.push('\n');
            text.push_str(&why.render_text(catalog));
        }
        text
    })
}

/// The catalog index of `--why TOOL`; a name the catalog lacks is an error
/// that names it and the close ones.
fn tool_named(catalog: &Catalog, name: &str) -> Result<usize, CliError> {
    catalog.index_of(name).ok_or_else(|| {
        let close = close_names(catalog, name, 3);
        let hint = if close.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = close.iter().map(|n| format!("{n:?}")).collect();
            format!("; did you mean {}?", quoted.join(", "))
        };
        CliError::Usage(format!(
            "--why: the catalog has no tool named {name:?}{hint}"
        ))
    })
}
