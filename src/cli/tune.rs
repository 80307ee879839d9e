//! `toolsift tune CATALOG QUERIES.jsonl`: the search cap and initial set a
//! catalog wants, measured on requests with known answers ([`toolsift::tune`]).

use std::sync::Arc;

use clap::Args;
use toolsift::engine::Ranker;
use toolsift::select::ToolsHandle;
use toolsift::tune::{TuneError, TuneOptions};

use crate::{CliError, HandleArgs, ServiceArgs, choices, emit};

#[derive(Args)]
pub struct TuneArgs {
    /// Catalog: a path, `-` (stdin) or @demo.
    #[arg(value_name = "CATALOG")]
    catalog: String,
    /// JSON lines: {"query", "expected": [names], "equivalents"?, "id"?}; @demo for the demo catalog's.
    #[arg(value_name = "QUERIES.jsonl")]
    queries: String,
    /// The current settings, marked in the tables (and checked as the SDK would).
    #[command(flatten)]
    handle: HandleArgs,
    /// Strict share (percent) the recommended cap must reach (default: 95 % of the best any cap reaches).
    #[arg(long, value_name = "PCT")]
    target: Option<f64>,
    #[arg(long, value_name = "RANKER", help = choices(&Ranker::ALL))]
    ranker: Option<Ranker>,
    #[command(flatten)]
    remote: ServiceArgs,
    #[command(flatten)]
    embed: super::embed::EmbeddingArgs,
    /// One JSON object on stdout instead of the tables.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &TuneArgs) -> Result<(), CliError> {
    if let Some(t) = args.target
        && !(t > 0.0 && t <= 100.0)
    {
        return Err(CliError::Input(format!(
            "--target must be a percentage above 0 and at most 100, not {t}"
        )));
    }
    let (options, basis) = args.handle.options()?;
    let loaded = super::mcp::load(
        std::slice::from_ref(&args.catalog),
        None,
        &super::mcp::McpArgs::default(),
    )
    .map_err(CliError::Input)?;
    let catalog: Arc<_> = loaded.catalog;
    let handle = ToolsHandle::new(catalog.clone(), &options)?;
    let queries = toolsift::eval::load_queries_arg(&args.queries)?;
    let searcher = args
        .remote
        .searcher(crate::embeddings_for(&args.embed, args.ranker)?)?;
    let report = toolsift::tune::tune(
        &searcher,
        &catalog,
        &queries,
        &TuneOptions {
            ranker: args.ranker,
            token_basis: basis,
            target_pct: args.target,
        },
    )
    .map_err(|e| match e {
        TuneError::Input(e) => CliError::from(e),
        e @ TuneError::Search { .. } => CliError::SearchFailed(e.to_string()),
    })?;
    // The flags' settings, when deferred: the cap a search sends and the
    // initial count the handle keeps.
    let current = toolsift::tune::current_setting(&handle, None, report.always_load);
    emit(args.json, &report, || report.render_text(current))
}
