//! `toolsift check`: a catalog's tools, flags, token costs, initial set and
//! lints.

use toolsift::check::CheckReport;
use toolsift::tokens::TokenCounter;

use super::args::CheckArgs;
use super::error::CliError;
use super::output::emit;

pub fn run(args: &CheckArgs) -> Result<(), CliError> {
    let settings = args.handle.settings();
    let loaded = super::load::catalogs(&args.catalogs, Some("@demo"), &args.mcp)?;
    let catalog = loaded.catalog.clone();
    let mut report = CheckReport::new(
        loaded.catalog.clone(),
        &settings.handle_options(),
        settings.basis(),
        &TokenCounter::new(),
    )?;
    report.servers = loaded.servers.iter().map(Into::into).collect();
    report.strategy_chosen = args.handle.strategy_chosen();
    if args.bases.is_some() || args.count.count_with.is_some() {
        report.add_bases(&catalog, &TokenCounter::new());
    }
    if let Some(config) = args.count.config()? {
        exact_counts(config, &catalog, args.count_tools, &mut report);
    }
    let saving = if args.gateway {
        Some(gateway_saving(&loaded, settings.basis())?)
    } else {
        None
    };
    if args.findability {
        let embeddings = super::embed::embeddings_for(&args.embed, args.ranker)?;
        let searcher = toolsift::search::Searcher::Embedded(std::sync::Arc::new(
            toolsift::service::Service::new(toolsift::service::ServiceConfig {
                embeddings,
                ..Default::default()
            }),
        ));
        let base = toolsift::search::SearchRequest {
            ranker: args.ranker,
            ..Default::default()
        };
        let audit = toolsift::findability::audit(
            &searcher,
            &catalog,
            &base,
            usize::try_from(args.findability_k).unwrap_or(3),
        )?;
        let mut value = serde_json::to_value(&report)?;
        value["findability"] = serde_json::to_value(&audit)?;
        emit(args.json, &value, || {
            format!(
                "{}\n{}",
                report.render_text(),
                toolsift::findability::render_text(&audit)
            )
        })?;
        return match report.strict_error() {
            Some(e) if args.strict => Err(CliError::HiddenText(e)),
            _ => Ok(()),
        };
    }
    match &saving {
        None => emit(args.json, &report, || report.render_text())?,
        Some((saving, text)) => {
            let mut value = serde_json::to_value(&report)?;
            value["gateway"] = saving.clone();
            emit(args.json, &value, || {
                // Two counts of one catalog, each said for what it is.
                format!(
                    "{}\nThrough toolsift gateway (the always-load tools, search_tools, call_read_tool and call_tool):\n{text}counted on the tools/list JSON a host receives; the tokens above ({}) count the same tools as the model's provider definitions\n",
                    report.render_text(),
                    toolsift::numbers::thousands(report.full_schema_tokens),
                )
            })?;
        }
    }
    match report.strict_error() {
        Some(e) if args.strict => Err(CliError::HiddenText(e)),
        _ => Ok(()),
    }
}

/// `--gateway`: what `tools/list` costs through the gateway, measured on
/// the MCP servers loaded, as JSON and as text.
#[cfg(feature = "mcp")]
fn gateway_saving(
    loaded: &super::mcp::Loaded,
    basis: toolsift::tokens::TokenBasis,
) -> Result<(serde_json::Value, String), CliError> {
    let Some(host) = &loaded.host else {
        return Err(CliError::Usage(
            "--gateway: the saving of toolsift gateway is measured on MCP servers: give --mcp CONFIG, --mcp-stdio or --mcp-url".into(),
        ));
    };
    let gateway = toolsift::gateway::Gateway::new(
        Default::default(),
        host.clone(),
        Some((*loaded.catalog).clone()),
        Vec::new(),
        toolsift::gateway::Recorder::quiet(),
    )?;
    let saving = toolsift::gateway::list_saving(&gateway, basis);
    Ok((
        serde_json::to_value(&saving)?,
        super::gateway::saving_text(&saving),
    ))
}

/// `--gateway` in a build without the gateway.
#[cfg(not(feature = "mcp"))]
fn gateway_saving(
    _: &super::mcp::Loaded,
    _: toolsift::tokens::TokenBasis,
) -> Result<(serde_json::Value, String), CliError> {
    Err(CliError::Usage(format!(
        "--gateway: {}",
        super::mcp_error::WITHOUT_MCP
    )))
}

/// The provider's exact counts of the full catalog and the initial set, as
/// one more row; a failure is a warning and the estimates stand.
fn exact_counts(
    config: toolsift::provider_count::CountConfig,
    catalog: &toolsift::catalog::Catalog,
    each: bool,
    report: &mut CheckReport,
) {
    use toolsift::provider_count::Counter;
    let label = config.label();
    let (all, initial) = report.bases_sets(catalog);
    let counted = Counter::new(config).and_then(|mut c| {
        let full = c.tools_cost(&all)?;
        let initial = c.tools_cost(&initial)?;
        let shares = if each {
            eprintln!("toolsift: {label}: counting each of {} tools…", all.len());
            Some(c.tool_shares(&all)?)
        } else {
            None
        };
        Ok((full, initial, shares, c.asked, c.kept))
    });
    match counted {
        Ok((full, initial, shares, asked, kept)) => {
            report.add_exact(&label, full, initial);
            if let Some(shares) = shares {
                report.add_exact_tools(&shares);
            }
            eprintln!(
                "toolsift: {label}: {asked} counted by the provider now, {kept} kept from an earlier run"
            );
        }
        Err(e) => eprintln!(
            "toolsift: warning: {}; the estimates stand",
            toolsift::terminal_text::escape(&e.to_string())
        ),
    }
}
