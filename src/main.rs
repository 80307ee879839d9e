//! The `toolsift` command line.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};

use toolsift::catalog::{self, Catalog, CatalogSource};
use toolsift::check::CheckReport;
use toolsift::engine::Ranker;
use toolsift::search::{SearchRequest, Searcher};
use toolsift::select::{HandleOptions, SelectError, Strategy, ToolsHandle};
use toolsift::tokens::{TokenBasis, TokenCounter};
use toolsift::tui::app::Settings;
use toolsift::tui::keymap::Keymap;

#[derive(Parser)]
#[command(
    name = "toolsift",
    version,
    about = "See what a tool catalog costs, how deferred loading and search treat it, and why a tool was or was not found",
    after_help = "CATALOG is a file (TOML, Caveman/TypeScript/MCP/OpenAI/Anthropic JSON), `-` for standard input, or a built-in catalog: @demo (the default), @github-mcp, @synthetic-N."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Open the terminal explorer (the default when no command is given).
    Explore(ExploreArgs),
    /// Report a catalog's tools, flags, token costs, initial set and lints.
    Check(CheckArgs),
    /// Search a catalog the way a deferred app would: loaded set, scores, why, tokens.
    Search(SearchArgs),
    /// Run a trace of tool calls through the retry-loop breaker: would it stop the loop, and where?
    Replay(ReplayArgs),
    /// Measure search quality on requests with known answers (bfcl-dev JSONL).
    Eval(EvalArgs),
}

#[derive(Args, Default)]
struct ExploreArgs {
    /// Catalogs to load (several files merge; a name in two files is an error). Default: @demo.
    #[arg(value_name = "CATALOG")]
    catalogs: Vec<String>,
    /// all | deferred (default from the config file: deferred)
    #[arg(long, value_name = "STRATEGY")]
    strategy: Option<String>,
    /// Non-mandatory tools in the deferred initial set (default 8).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    initial_tool_count: Option<String>,
    /// Cap for the deferred initial set and default search cap (default: none).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_loaded_tools: Option<String>,
    /// Cap on tools a search returns (default: the service's 8).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_tools: Option<String>,
    /// o200k_base | cl100k_base | estimated_bytes_div_4
    #[arg(long, value_name = "BASIS")]
    token_basis: Option<String>,
    /// Config file (else $TOOLSIFT_CONFIG, $XDG_CONFIG_HOME/toolsift/config.toml, ~/.config/toolsift/config.toml).
    #[arg(long, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
}

#[derive(Args)]
struct SearchArgs {
    /// Catalog: a path, `-` (stdin) or @demo.
    #[arg(value_name = "CATALOG")]
    catalog: String,
    /// The request to find tools for.
    #[arg(value_name = "QUERY")]
    query: String,
    /// Cap on returned tools (always-load tools count); default: --max-loaded-tools, else the service's 8.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_tools: Option<String>,
    #[command(flatten)]
    handle: HandleArgs,
    /// bm25 | embeddings
    #[arg(long, value_name = "RANKER")]
    ranker: Option<Ranker>,
    /// More text about the task (weighted below the query).
    #[arg(long, value_name = "TEXT")]
    context: Option<String>,
    /// Continue a tool session.
    #[arg(long, value_name = "ID")]
    session_id: Option<String>,
    /// One JSON object on stdout instead of the table.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ReplayArgs {
    /// JSON lines of {"name": "...", "arguments": {...}}, or @example.
    #[arg(value_name = "TRACE.jsonl")]
    trace: String,
    /// Identical consecutive calls allowed before the next is blocked.
    #[arg(
        long,
        value_name = "N",
        default_value = "3",
        allow_hyphen_values = true
    )]
    threshold: String,
    /// One JSON object on stdout instead of the text report.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct EvalArgs {
    /// Catalog: a path, `-` (stdin) or @demo.
    #[arg(value_name = "CATALOG")]
    catalog: String,
    /// JSON lines: {"query", "expected": [names], "equivalents"?, "id"?, "category"?}
    #[arg(value_name = "QUERIES.jsonl")]
    queries: std::path::PathBuf,
    /// List the requests whose expected tool is not in the top K.
    #[arg(long, value_name = "N", default_value_t = 10)]
    k: usize,
    /// More tools added to the catalog (repeatable).
    #[arg(long, value_name = "FILE")]
    extra_catalog: Vec<String>,
    /// One JSON object on stdout instead of the text report.
    #[arg(long)]
    json: bool,
}

/// The tools-handle options, taken as text so that a bad value gets the SDK's
/// own message (`initial_tool_count must be a non-negative integer`, ...).
#[derive(Args)]
struct HandleArgs {
    /// all | deferred
    #[arg(long, value_name = "STRATEGY", default_value = "all")]
    strategy: String,
    /// Non-mandatory tools in the deferred initial set.
    #[arg(
        long,
        value_name = "N",
        default_value = "8",
        allow_hyphen_values = true
    )]
    initial_tool_count: String,
    /// Cap for the deferred initial set and default search cap.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_loaded_tools: Option<String>,
    /// o200k_base | cl100k_base | estimated_bytes_div_4
    #[arg(long, value_name = "BASIS", default_value = "o200k_base")]
    token_basis: String,
}

#[derive(Args)]
struct CheckArgs {
    /// Catalog: a path, `-` (stdin) or @demo.
    #[arg(value_name = "CATALOG", default_value = "@demo")]
    catalog: String,
    #[command(flatten)]
    handle: HandleArgs,
    /// One JSON object on stdout instead of the text report.
    #[arg(long)]
    json: bool,
}

/// An error for the user: printed on stderr, exit code 2.
struct UsageError(String);

impl<E: std::fmt::Display> From<E> for UsageError {
    fn from(e: E) -> Self {
        UsageError(e.to_string())
    }
}

impl HandleArgs {
    /// The SDK's checks in the SDK's order: strategy, initial_tool_count,
    /// max_loaded_tools. (The always-load check needs the catalog.)
    fn options(&self) -> Result<(HandleOptions, TokenBasis), UsageError> {
        let strategy: Strategy = self.strategy.parse()?;
        let initial_tool_count = parse_int(&self.initial_tool_count)
            .filter(|n| *n >= 0)
            .ok_or(SelectError::InitialToolCount)?;
        let max_loaded_tools = match &self.max_loaded_tools {
            None => None,
            Some(text) => Some(
                parse_int(text)
                    .filter(|n| *n >= 1)
                    .ok_or(SelectError::MaxLoadedTools)?,
            ),
        };
        let basis: TokenBasis = self.token_basis.parse()?;
        Ok((
            HandleOptions {
                strategy,
                initial_tool_count,
                max_loaded_tools,
            },
            basis,
        ))
    }
}

/// A whole number as the SDK's `isinstance(x, int)` would see it; anything
/// else (text, fractions, out of range) is `None`.
fn parse_int(text: &str) -> Option<i64> {
    text.trim().parse::<i64>().ok()
}

fn load_catalog(arg: &str) -> Result<Arc<Catalog>, UsageError> {
    Ok(Arc::new(catalog::load(&CatalogSource::parse(arg))?))
}

/// Settings from the config file with the flags over them, checked with the
/// SDK's checks and messages.
fn explore_settings(
    args: &ExploreArgs,
    config: &toolsift::config::Config,
) -> Result<Settings, UsageError> {
    let x = &config.explorer;
    let strategy: Strategy = args
        .strategy
        .as_deref()
        .or(x.strategy.as_deref())
        .unwrap_or("deferred")
        .parse()?;
    let int = |flag: &Option<String>,
               from_file: Option<i64>,
               err: SelectError|
     -> Result<Option<i64>, UsageError> {
        match flag {
            Some(text) => Ok(Some(parse_int(text).ok_or(err)?)),
            None => Ok(from_file),
        }
    };
    let initial_tool_count = int(
        &args.initial_tool_count,
        x.initial_tool_count,
        SelectError::InitialToolCount,
    )?
    .unwrap_or(8);
    let max_loaded_tools = int(
        &args.max_loaded_tools,
        x.max_loaded_tools,
        SelectError::MaxLoadedTools,
    )?;
    let max_tools = int(&args.max_tools, x.max_tools, SelectError::MaxTools)?;
    let ranker = x.ranker.unwrap_or_default();
    let token_basis: TokenBasis = args
        .token_basis
        .as_deref()
        .or(x.token_basis.as_deref())
        .unwrap_or("o200k_base")
        .parse()?;
    Ok(Settings {
        strategy,
        initial_tool_count,
        max_loaded_tools,
        max_tools,
        ranker,
        token_basis,
    })
}

fn run_explore(args: &ExploreArgs) -> Result<(), UsageError> {
    use std::io::IsTerminal;
    let config = toolsift::config::Config::load(args.config.as_deref())?;
    let settings = explore_settings(args, &config)?;
    let sources: Vec<CatalogSource> = args
        .catalogs
        .iter()
        .map(|c| CatalogSource::parse(c))
        .collect();
    let catalog = Arc::new(catalog::load_all(&sources)?);
    // The SDK's checks against this catalog, before the terminal is touched.
    settings.validate(&catalog)?;
    let keymap = Keymap::build(&config.default_keys, &config.user_keys, &config.origin())
        .map_err(|e| UsageError(e.to_string()))?;
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(UsageError(
            "the explorer needs a terminal (stdin and stdout are not both a tty); for scripts use `toolsift check` or `toolsift search`".into(),
        ));
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    toolsift::tui::run(toolsift::tui::Setup {
        sources: catalog.name().to_string(),
        catalog,
        settings,
        keymap,
        no_color,
    })
    .map_err(|e| UsageError(format!("terminal: {e}")))
}

/// A search the service refused: exit code 1.
struct SearchFailed(String);

fn run_search(args: &SearchArgs) -> Result<Result<(), SearchFailed>, UsageError> {
    let (options, basis) = args.handle.options()?;
    let catalog = load_catalog(&args.catalog)?;
    let handle = ToolsHandle::new(catalog.clone(), &options)?;
    let max_tools = match &args.max_tools {
        None => None,
        Some(text) => Some(parse_int(text).ok_or(SelectError::MaxTools)?),
    };
    let cap = handle.search_cap(max_tools)?;
    let request = SearchRequest {
        query: args.query.clone(),
        context: args.context.clone(),
        max_tools: cap,
        session_id: args.session_id.clone(),
        ranker: args.ranker,
        token_basis: Some(basis),
        preview: false,
    };
    let result = match Searcher::embedded().search(&catalog, &request) {
        Ok(r) => r,
        Err(e) => return Ok(Err(SearchFailed(e.to_string()))),
    };
    emit(args.json, &result.to_json(&catalog), || {
        result.render_text(&catalog)
    })?;
    Ok(Ok(()))
}

fn run_replay(args: &ReplayArgs) -> Result<(), UsageError> {
    let threshold: u32 = args
        .threshold
        .trim()
        .parse()
        .map_err(|_| UsageError("threshold must be a non-negative integer".into()))?;
    let calls = toolsift::replay::load_trace(&args.trace)?;
    let report = toolsift::replay::replay(&calls, threshold);
    emit(args.json, &report, || report.render_text())
}

fn run_eval(args: &EvalArgs) -> Result<(), UsageError> {
    if args.k == 0 {
        return Err(UsageError("--k must be a positive integer".into()));
    }
    let mut sources = vec![CatalogSource::parse(&args.catalog)];
    sources.extend(args.extra_catalog.iter().map(|c| CatalogSource::parse(c)));
    let catalog = catalog::load_all(&sources)?;
    let queries = toolsift::eval::load_queries(&args.queries)?;
    let report = toolsift::eval::evaluate(&catalog, &queries, args.k)?;
    emit(args.json, &report, || report.render_text())
}

fn run_check(args: &CheckArgs) -> Result<(), UsageError> {
    let (options, basis) = args.handle.options()?;
    let catalog = load_catalog(&args.catalog)?;
    let report = CheckReport::new(catalog, &options, basis, &TokenCounter::new())?;
    emit(args.json, &report, || report.render_text())
}

/// Prints `value` as pretty JSON with `--json`, else the text report.
fn emit<T: serde::Serialize>(
    json: bool,
    value: &T,
    text: impl FnOnce() -> String,
) -> Result<(), UsageError> {
    if json {
        let mut out = serde_json::to_string_pretty(value)?;
        out.push('\n');
        write_stdout(&out)
    } else {
        write_stdout(&text())
    }
}

/// Writes to stdout; a closed pipe (`| head`) is not an error worth a message.
fn write_stdout(text: &str) -> Result<(), UsageError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn main() -> ExitCode {
    let _ = color_eyre::install();
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Check(args)) => run_check(args),
        Some(Command::Eval(args)) => run_eval(args),
        Some(Command::Replay(args)) => run_replay(args),
        Some(Command::Search(args)) => match run_search(args) {
            Ok(Err(SearchFailed(message))) => {
                eprintln!("toolsift: search failed: {message}");
                return ExitCode::from(1);
            }
            Ok(Ok(())) => Ok(()),
            Err(e) => Err(e),
        },
        Some(Command::Explore(args)) => run_explore(args),
        None => run_explore(&ExploreArgs::default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(UsageError(message)) => {
            eprintln!("toolsift: error: {message}");
            ExitCode::from(2)
        }
    }
}
