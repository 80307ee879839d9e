//! `toolsift eval CATALOG QUERIES.jsonl`: search quality on requests with
//! known answers, and the ranker's speed.

use toolsift::engine::Gate;
use toolsift::search::Searcher;

use super::args::EvalArgs;
use super::error::CliError;
use super::output::emit;

pub fn run(args: &EvalArgs) -> Result<(), CliError> {
    if args.k == 0 {
        return Err(CliError::Usage("--k must be a positive integer".into()));
    }
    if let Some(path) = &args.abstain {
        return abstain(args, path);
    }
    if args.max_tools.is_some() {
        return Err(CliError::Usage(
            "--max-tools is the cap of --abstain's searches; give --abstain FILE".into(),
        ));
    }
    let Some(catalog) = &args.catalog else {
        return Err(CliError::Usage("give CATALOG and QUERIES.jsonl".into()));
    };
    let (mut files, queries) = super::search::catalog_and_second(
        catalog,
        args.queries.as_deref().map(|p| p.as_os_str()),
        &args.mcp,
        "QUERIES.jsonl",
    )?;
    files.extend(args.extra_catalog.iter().cloned());
    let loaded = super::mcp::load(&files, None, &args.mcp).map_err(CliError::Mcp)?;
    let catalog = loaded.catalog;
    let queries = toolsift::eval::load_queries_arg(&queries.to_string_lossy())?;
    let searcher = args.remote.searcher(super::embed::embeddings_for(
        &args.embed,
        Some(args.ranker),
    )?)?;
    let started = std::time::Instant::now();
    let ranker = searcher.ranker_for(&catalog, args.ranker)?;
    let build_ms = started.elapsed().as_secs_f64() * 1000.0;
    // A pattern's matches are what was asked for: no gate for regex.
    let gate = (args.gate.on() && !args.ranker.is_regex())
        .then(|| Gate::for_ranker(args.ranker, gate_cosine(&searcher)));
    let mut report = match toolsift::eval::evaluate(
        &catalog,
        &queries,
        args.k,
        ranker.as_ref(),
        gate.as_ref(),
    ) {
        Err(e @ toolsift::eval::EvalError::Rank { .. }) => {
            return Err(CliError::Ranking(e.to_string()));
        }
        other => other?,
    };
    if report.latency.is_none() {
        // In-process: time the ranker (a remote one reports its latency).
        report.speed = Some(toolsift::eval::measure_speed(
            ranker.as_ref(),
            &queries,
            args.k,
            std::time::Duration::from_millis(args.time_budget_ms),
            build_ms,
        ));
    } else if searcher.remote_host().is_none() {
        // A dense ranker: each request's latency (its query embedding
        // included) is measured; the build is the catalog's embedding.
        report.speed = Some(toolsift::eval::Speed {
            queries_per_second: report
                .latency
                .as_ref()
                .map_or(0.0, |l| 1000.0 / l.p50_ms.max(1e-6)),
            index_build_ms: build_ms,
        });
    }
    emit(args.json, &report, || report.render_text())
}

/// The cosine the gate asks of a dense ranker's best tool, as the
/// embedded service would ask it.
fn gate_cosine(searcher: &Searcher) -> f32 {
    match searcher {
        Searcher::Embedded(service) => service.gate_cosine(),
        _ => Gate::MIN_COSINE,
    }
}

/// `toolsift eval --abstain FILE`: each question searched over its own
/// catalog by the embedded service.
fn abstain(args: &EvalArgs, path: &std::path::Path) -> Result<(), CliError> {
    let max_tools = args.max_tools.unwrap_or(5);
    if max_tools == 0 {
        return Err(CliError::Usage(
            "--max-tools must be a positive integer".into(),
        ));
    }
    let questions = toolsift::eval::abstain::load(path)?;
    let searcher = args.remote.searcher(super::embed::embeddings_for(
        &args.embed,
        Some(args.ranker),
    )?)?;
    let Searcher::Embedded(service) = &searcher else {
        return Err(CliError::Usage(
            "--abstain searches with the embedded service; leave --service out".into(),
        ));
    };
    let gate = Gate::for_ranker(args.ranker, service.gate_cosine());
    let report = match toolsift::eval::abstain::evaluate(
        service,
        &questions,
        args.ranker,
        max_tools,
        gate,
    ) {
        Err(e @ toolsift::eval::EvalError::Rank { .. }) => {
            return Err(CliError::Ranking(e.to_string()));
        }
        other => other?,
    };
    emit(args.json, &report, || report.render_text())
}
