//! `toolsift` and `toolsift explore`: the explorer, with its settings from
//! the config file and the flags.

use toolsift::catalog::CatalogSource;
use toolsift::layer::Layer;
use toolsift::settings::Settings;
use toolsift::tui::keymap::Keymap;

use super::args::ExploreArgs;
use super::error::CliError;

/// The flags' settings over the config file's (and the file's over the
/// built-in defaults), each flag read as its setting's type with the SDK's
/// message. The SDK's checks against the catalog come later.
pub fn explore_settings(args: &ExploreArgs, config: &toolsift::config::Config) -> Settings {
    args.settings
        .clone()
        .over(config.explorer.settings.clone())
        .resolve()
}

/// Opens the explorer: its catalog (files, MCP servers started in the
/// background, or the followed gateway's), its settings checked against
/// it, its keys, its searcher and the Tune screen's requests, all before
/// the terminal is touched.
pub fn run_explore(args: &ExploreArgs) -> Result<(), CliError> {
    use std::io::IsTerminal;
    let config = explore_config(args.config.as_deref())?;
    let mut settings = explore_settings(args, &config);
    let mut follow = follow_setup(args)?;
    let opened = open_catalog(args, &mut follow)?;
    let catalog = opened.catalog;
    // The SDK's checks against this catalog, before the terminal is touched.
    settings.validate(&catalog)?;
    let defaults = Keymap::with_declared(&config.default_keys);
    let keymap = Keymap::build(&defaults, &config.user_keys, &config.origin())?;
    let (searcher, later) = explore_searcher(args, &config, &mut settings)?;
    let queries = tune_queries(args, &config, &catalog, opened.taken, follow.as_ref())?;
    let context_budget = args.context_budget.or(config.explorer.context_budget);
    let count = args.count.config()?;
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(CliError::Usage(
            "the explorer needs a terminal (stdin and stdout are not both a tty); for scripts use `toolsift check` or `toolsift search`".into(),
        ));
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let ranker_chosen = args.settings.ranker.is_some() || config.user_chose_ranker;
    toolsift::tui::run(toolsift::tui::Setup {
        sources: opened.label,
        catalog,
        settings,
        ranker_chosen,
        keymap,
        no_color,
        mcp: opened.loaded.host,
        mcp_servers: opened.loaded.servers,
        mcp_start: opened.mcp_start,
        searcher,
        queries,
        config_path: config.save_path.clone(),
        context_budget,
        demo: false,
        count,
        reload: reload_sources(args),
        follow,
        model_later: later,
    })
    .map_err(CliError::Terminal)
}

/// The catalog the explorer opens on, and where it came from.
struct Opened {
    catalog: std::sync::Arc<toolsift::catalog::Catalog>,
    /// The header's name for it.
    label: String,
    /// It is the followed gateway's catalog.
    taken: bool,
    /// The files' and servers' catalog, with the servers' host and states.
    loaded: super::mcp::Loaded,
    /// The servers still starting, whose tools join as each lists them.
    mcp_start: Option<toolsift::tui::servers::ServersStart>,
}

/// The explorer's catalog: the MCP servers' (started in the background,
/// so the explorer draws at once) with the files', the files' (the demo
/// catalog when none), or, following a gateway with no catalog named, the
/// gateway's own, read over the same route and key as its events (said in
/// the header and on the live screen). A gateway's catalog that cannot be
/// read is said, and the follower told it judges misses by none.
fn open_catalog(
    args: &ExploreArgs,
    follow: &mut Option<toolsift::tui::Follow>,
) -> Result<Opened, CliError> {
    let theirs = match &*follow {
        Some(f) if args.catalogs.is_empty() && !args.mcp.any() => match &f.source {
            toolsift::follow::Source::Url { url, key } => {
                Some(toolsift::follow::catalog::fetch(url, key.as_deref()))
            }
            _ => None,
        },
        _ => None,
    };
    let (loaded, mcp_start) = if args.mcp.any() {
        let opening = super::mcp_live::start_for_explorer(&args.catalogs, &args.mcp)?;
        let start = toolsift::tui::servers::ServersStart {
            changes: opening.changes,
            files: opening.files,
        };
        (opening.loaded, Some(start))
    } else {
        let loaded = super::load::catalogs(&args.catalogs, Some("@demo"), &args.mcp)?;
        (loaded, None)
    };
    let mut opened = Opened {
        catalog: loaded.catalog.clone(),
        label: loaded.catalog.name().to_string(),
        taken: false,
        loaded,
        mcp_start,
    };
    match (theirs, follow) {
        (Some(Ok(c)), Some(f)) => {
            opened.taken = true;
            opened.label = format!("{} (from {})", c.name(), f.source.shown());
            opened.catalog = std::sync::Arc::new(c);
        }
        (Some(Err(why)), Some(f)) => {
            eprintln!(
                "toolsift explore: the followed gateway's catalog could not be read ({why}); misses are judged by no catalog, the demo catalog is shown"
            );
            f.blind = Some(format!(
                "the followed gateway's catalog could not be read as the explorer started ({why}); the demo catalog is shown"
            ));
        }
        _ => {}
    }
    Ok(opened)
}

/// The explorer's searcher, and the search model to fetch off the UI
/// thread. No ranker and no provider named, no remote service: hybrid with
/// the default model when the hub cache holds it; not cached and fetching
/// on, the explorer opens at once with BM25F, fetches the model (its
/// header shows the progress) and ranks with hybrid once it is here. The
/// header says why it ranks with BM25F alone.
fn explore_searcher(
    args: &ExploreArgs,
    config: &toolsift::config::Config,
    settings: &mut Settings,
) -> Result<
    (
        toolsift::search::Searcher,
        Option<toolsift::embed::ModelJob>,
    ),
    CliError,
> {
    let mut embeddings = args.embed.build(Some(&config.embeddings), false)?;
    let remote = args.remote.service.is_some()
        || config.explorer.service.is_some()
        || std::env::var_os("CAVE_BASE_URL").is_some_and(|v| !v.is_empty());
    let mut plain_because = None;
    let mut later = None;
    let may_default = args.settings.ranker.is_none()
        && !config.user_chose_ranker
        && embeddings.is_none()
        && !remote;
    if may_default {
        later = super::embed::default_model_later(&args.embed, &config.embeddings);
        if later.is_some() {
            plain_because = Some(format!(
                "fetching the search model {} (about {} MB, once)",
                toolsift::embed::DEFAULT_MODEL,
                toolsift::embed::DEFAULT_MODEL_BYTES / 1_000_000
            ));
        }
    }
    if may_default && later.is_none() {
        match super::embed::default_model(&args.embed, &config.embeddings) {
            Ok(Some((model, _))) => {
                embeddings = Some(model);
                settings.ranker = toolsift::engine::Ranker::Hybrid;
            }
            Ok(None) => {}
            // The header says "BM25F alone (no search model)".
            Err(why) => plain_because = Some(why.to_string()),
        }
    }
    let searcher = args.remote.searcher_plain(
        config.explorer.service.as_deref(),
        embeddings,
        plain_because,
    )?;
    Ok((searcher, later))
}

/// The Tune screen's requests: the flag, the config, or the demo
/// catalog's own. A file that cannot be read, or names tools the catalog
/// lacks, is an error here, before the terminal is touched. Following a
/// trace file: its searches, answered by the calls after them, are the
/// requests unless others were named (when it has some yet, of tools this
/// catalog has).
fn tune_queries(
    args: &ExploreArgs,
    config: &toolsift::config::Config,
    catalog: &toolsift::catalog::Catalog,
    taken: bool,
    follow: Option<&toolsift::tui::Follow>,
) -> Result<Option<String>, CliError> {
    let on_demo = args.catalogs.iter().all(|c| c == "@demo") && !args.mcp.any() && !taken;
    let queries = args
        .queries
        .clone()
        .or_else(|| config.explorer.queries.clone())
        .or_else(|| on_demo.then(|| "@demo".to_string()));
    if let Some(q) = &queries {
        let parsed = toolsift::eval::load_queries_arg(q)?;
        toolsift::tune::resolve(catalog, &parsed)?;
    }
    Ok(match (&queries, follow) {
        (None, Some(f)) if matches!(f.source, toolsift::follow::Source::File(_)) => {
            let path = f.source.shown();
            toolsift::eval::load_queries_arg(&path)
                .ok()
                .filter(|q| toolsift::tune::resolve(catalog, q).is_ok())
                .map(|_| path)
        }
        _ => queries,
    })
}

/// The catalog files read again when they change: not standard input
/// (read once), nor a catalog with MCP servers' tools in it.
fn reload_sources(args: &ExploreArgs) -> Vec<CatalogSource> {
    let sources: Vec<CatalogSource> = args
        .catalogs
        .iter()
        .map(|c| CatalogSource::parse(c))
        .collect();
    if !args.mcp.any()
        && sources.iter().any(|s| matches!(s, CatalogSource::Path(_)))
        && !sources.iter().any(|s| matches!(s, CatalogSource::Stdin))
    {
        sources
    } else {
        Vec::new()
    }
}

/// `--follow` and its key, checked before the terminal is touched.
fn follow_setup(args: &ExploreArgs) -> Result<Option<toolsift::tui::Follow>, CliError> {
    let Some(text) = &args.follow else {
        return Ok(None);
    };
    let key = match &args.follow_key_env {
        Some(name) => match std::env::var(name) {
            Ok(v) if !v.is_empty() => Some(v),
            _ => {
                return Err(CliError::Usage(format!(
                    "--follow-key-env {name}: the variable {name} is not set"
                )));
            }
        },
        None => None,
    };
    let source = toolsift::follow::Source::parse(text, key)?;
    Ok(Some(toolsift::tui::Follow {
        source,
        requests_file: args.misses_file.clone(),
        open_first: true,
        blind: None,
    }))
}

/// The config file: `--config` may name one that does not exist yet, in a
/// directory that does (the Tune screen's save creates it); the explorer
/// then starts on the built-in settings.
fn explore_config(flag: Option<&std::path::Path>) -> Result<toolsift::config::Config, CliError> {
    use toolsift::config::{Config, ConfigError};
    match Config::load(flag) {
        Err(ConfigError::Io { path, source })
            if source.kind() == std::io::ErrorKind::NotFound
                && flag == Some(path.as_path())
                && path
                    .parent()
                    .is_none_or(|d| d.as_os_str().is_empty() || d.is_dir()) =>
        {
            let mut config = Config::load_with(None, &|_| None)?;
            config.save_path = Some(path);
            Ok(config)
        }
        other => Ok(other?),
    }
}
