//! `toolsift tune CATALOG QUERIES.jsonl`: the search cap and initial set a
//! catalog wants, measured on requests with known answers ([`toolsift::tune`]).

use std::sync::Arc;

use toolsift::tools_handle::ToolsHandle;
use toolsift::tune::{TuneError, TuneOptions};

use super::args::TuneArgs;
use super::error::CliError;
use super::output::emit;

pub fn run(args: &TuneArgs) -> Result<(), CliError> {
    if let Some(t) = args.target
        && !(t > 0.0 && t <= 100.0)
    {
        return Err(CliError::Usage(format!(
            "--target must be a percentage above 0 and at most 100, not {t}"
        )));
    }
    let settings = args.handle.settings();
    let loaded = super::load::catalogs(
        std::slice::from_ref(&args.catalog),
        None,
        &super::mcp::McpArgs::default(),
    )?;
    let catalog: Arc<_> = loaded.catalog;
    let handle = ToolsHandle::new(catalog.clone(), &settings.handle_options())?;
    let remote = super::embed::remote_named(args.remote.service.as_deref(), None);
    let choice = super::embed::choose(&args.embed, args.ranker, remote, "toolsift tune")?;
    let searcher = args.remote.searcher(choice.embeddings)?;
    let report = toolsift::tune::tune_source(
        &searcher,
        &catalog,
        &args.queries,
        &TuneOptions {
            ranker: if remote {
                args.ranker
            } else {
                Some(choice.ranker)
            },
            token_basis: settings.basis(),
            target_pct: args.target,
        },
    )
    .map_err(|e| match e {
        TuneError::Input(e) => CliError::from(e),
        e @ TuneError::Search { .. } => CliError::Ranking(e.to_string()),
    })?;
    // The flags' settings, when deferred: the cap a search sends and the
    // initial count the handle keeps.
    let current = toolsift::tune::current_setting(&handle, None, report.always_load);
    emit(args.json, &report, || report.render_text(current))
}
