//! `toolsift eval CATALOG QUERIES.jsonl`: search quality on requests with
//! known answers, and the ranker's speed.

use toolsift::engine::Gate;
use toolsift::search::Searcher;
use toolsift::tools_handle::MaxTools;

/// `max_tools` of each `--abstain` search, unless `--max-tools` says.
pub const ABSTAIN_MAX_TOOLS: MaxTools = MaxTools::of(5);

use super::args::EvalArgs;
use super::error::CliError;
use super::output::emit;

/// Search quality on requests with known answers (or `--abstain`'s
/// searches, or `--costs`), with the ranker's speed.
pub fn run(args: &EvalArgs) -> Result<(), CliError> {
    if args.k == 0 {
        return Err(CliError::Usage("--k must be a positive integer".into()));
    }
    if let Some(path) = &args.abstain {
        return abstain(args, path);
    }
    if args.cap.max_tools.is_some() {
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
    let loaded = super::load::catalogs(&files, None, &args.mcp)?;
    let catalog = loaded.catalog;
    if args.costs.costs {
        return costs(args, &catalog, &queries.to_string_lossy());
    }
    let queries = toolsift::eval::load_queries_arg(&queries.to_string_lossy())?;
    let (ranker, searcher) = chosen(args)?;
    let started = std::time::Instant::now();
    let ranker_kind = ranker;
    let ranker = searcher.ranker_for(&catalog, ranker_kind)?;
    let build_ms = started.elapsed().as_secs_f64() * 1000.0;
    if let Some(path) = &args.features_out {
        write_features(path, &catalog, &queries, ranker.as_ref())?;
    }
    // A pattern's matches are what was asked for: no gate for regex.
    let gate = (args.gate.on() && !ranker_kind.is_regex())
        .then(|| Gate::for_ranker(ranker_kind, gate_cosine(&searcher)));
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
    add_speed(
        &mut report,
        args,
        &searcher,
        ranker.as_ref(),
        &queries,
        build_ms,
    );
    emit(args.json, &report, || report.render_text())
}

/// `--features-out`: each request's candidates' features, for training
/// the learned ranking.
fn write_features(
    path: &std::path::Path,
    catalog: &toolsift::catalog::Catalog,
    queries: &[toolsift::eval::EvalQuery],
    ranker: &dyn toolsift::engine::CatalogRanker,
) -> Result<(), CliError> {
    let text = toolsift::eval::features::dump(catalog, queries, ranker)
        .map_err(|e| CliError::Ranking(e.to_string()))?;
    std::fs::write(path, text).map_err(|e| {
        CliError::Usage(format!(
            "--features-out {}: cannot write: {e}",
            path.display()
        ))
    })
}

/// The report's speed: in-process, the ranker timed within
/// `--time-budget-ms` (a remote one reports its latency); a dense ranker's
/// from each request's latency (its query embedding included), the build
/// the catalog's embedding.
fn add_speed(
    report: &mut toolsift::eval::EvalReport,
    args: &EvalArgs,
    searcher: &Searcher,
    ranker: &dyn toolsift::engine::CatalogRanker,
    queries: &[toolsift::eval::EvalQuery],
    build_ms: f64,
) {
    if report.latency.is_none() {
        report.speed = Some(toolsift::eval::measure_speed(
            ranker,
            queries,
            args.k,
            std::time::Duration::from_millis(args.time_budget_ms),
            build_ms,
        ));
    } else if searcher.remote_host().is_none() {
        report.speed = Some(toolsift::eval::Speed {
            queries_per_second: report
                .latency
                .as_ref()
                .map_or(0.0, |l| 1000.0 / l.p50_ms.max(1e-6)),
            index_build_ms: build_ms,
        });
    }
}

/// The ranker `eval` measures (named, else hybrid with the search model,
/// else BM25F) and the searcher that ranks with it.
fn chosen(args: &EvalArgs) -> Result<(toolsift::engine::Ranker, Searcher), CliError> {
    let remote = super::embed::remote_named(args.remote.service.as_deref(), None);
    let choice = super::embed::choose(&args.embed, args.ranker, remote, "toolsift eval")?;
    Ok((choice.ranker, args.remote.searcher(choice.embeddings)?))
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
    let max_tools = args.cap.max_tools.unwrap_or(ABSTAIN_MAX_TOOLS);
    let questions = toolsift::eval::abstain::load(path)?;
    let (ranker, searcher) = chosen(args)?;
    let Searcher::Embedded(service) = &searcher else {
        return Err(CliError::Usage(
            "--abstain searches with the embedded service; leave --service out".into(),
        ));
    };
    let gate = Gate::for_ranker(ranker, service.gate_cosine());
    let report =
        match toolsift::eval::abstain::evaluate(service, &questions, ranker, max_tools, gate) {
            Err(e @ toolsift::eval::EvalError::Rank { .. }) => {
                return Err(CliError::Ranking(e.to_string()));
            }
            other => other?,
        };
    emit(args.json, &report, || report.render_text())
}

/// `eval --costs`: the requests' (or a trace's) sessions priced with prompt
/// caching.
fn costs(
    args: &EvalArgs,
    catalog: &std::sync::Arc<toolsift::catalog::Catalog>,
    source: &str,
) -> Result<(), CliError> {
    use toolsift::eval::costs::{self, CostOptions};
    let c = &args.costs;
    if c.turns == 0 || c.found_on == 0 || c.found_on > c.turns {
        return Err(CliError::Usage(format!(
            "--found-on must be a turn from 1 to --turns ({}), not {}",
            c.turns, c.found_on
        )));
    }
    let pricings = if c.provider.is_empty() {
        CostOptions::default().pricings
    } else {
        c.provider
            .iter()
            .map(|p| {
                toolsift::caching::Pricing::named(p)
                    .map_err(|e| CliError::Usage(format!("--provider: {e}")))
            })
            .collect::<Result<_, _>>()?
    };
    let options = CostOptions {
        pricings,
        turns: c.turns,
        found_on: c.found_on,
        turn_tokens: c.turn_tokens,
        system_tokens: c.system_tokens,
        ..CostOptions::default()
    };
    let handle = toolsift::tools_handle::ToolsHandle::new(
        catalog.clone(),
        &toolsift::tools_handle::HandleOptions {
            strategy: toolsift::tools_handle::Strategy::Deferred,
            initial_tool_count: c
                .initial_tool_count
                .unwrap_or(toolsift::tools_handle::DEFAULT_INITIAL_TOOL_COUNT),
            max_loaded_tools: c.max_loaded_tools,
        },
    )?;
    let (_, searcher) = chosen(args)?;
    let tool_costs = searcher.tool_costs(catalog, options.token_basis);
    let text = if source == "@demo" {
        toolsift::eval::DEMO_QUERIES.to_string()
    } else {
        std::fs::read_to_string(source).map_err(|e| CliError::Read {
            path: source.to_string(),
            source: e,
        })?
    };
    let report = if toolsift::traffic::looks_like_traffic(&text) {
        let events =
            toolsift::traffic::parse(&text, source).map_err(|e| CliError::Usage(e.to_string()))?;
        let (sessions, _unknown) = costs::recorded_sessions(catalog, &events, &options);
        costs::report(&tool_costs, &handle, &sessions, "recorded", &options)
    } else {
        let queries = toolsift::eval::parse_queries(&text, source)?;
        let sessions = costs::simulated_sessions(&searcher, catalog, &handle, &queries, &options)
            .map_err(|e| CliError::Ranking(e.to_string()))?;
        costs::report(&tool_costs, &handle, &sessions, "simulated", &options)
    };
    emit(args.json, &report, || report.render_text())
}
