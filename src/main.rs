//! The `toolsift` command line.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod cli;
use cli::embed::EmbeddingArgs;
use cli::mcp::McpArgs;

use toolsift::breaker::DEFAULT_THRESHOLD;

use toolsift::check::CheckReport;
use toolsift::embed::Embeddings;
use toolsift::engine::Ranker;
use toolsift::search::{SearchError, SearchRequest, Searcher};
use toolsift::select::{
    DEFAULT_INITIAL_TOOL_COUNT, HandleOptions, SelectError, Strategy, ToolsHandle,
};
use toolsift::service::DEFAULT_MAX_TOOLS;
use toolsift::terminal_text;
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
    /// Serve the Caveman-compatible tool-search API over HTTP (POST /sdk/v1/tool-search).
    Serve(ServeArgs),
    /// Find the search cap and initial set a catalog wants, on requests with known answers.
    Tune(cli::tune::TuneArgs),
    /// Write a catalog (files and/or MCP servers) in one format on stdout, to version, diff or serve it.
    ExportCatalog(ExportArgs),
    /// Play a captioned tour of the explorer on the demo catalog (Space pauses, → steps, q quits).
    Demo(DemoArgs),
}

#[derive(Args)]
struct DemoArgs {
    /// A tour of your own (TOML [[step]] list: action, type, pause, caption; see README). Default: the built-in tour.
    #[arg(long, value_name = "FILE")]
    script: Option<std::path::PathBuf>,
    /// Playing speed: 2 plays twice as fast, 0.5 at half speed.
    #[arg(long, value_name = "X", default_value = "1")]
    speed: f64,
}

#[derive(Args)]
struct ExportArgs {
    /// Catalogs to include (several merge); with --mcp, leave them out to export the servers' tools alone.
    #[arg(value_name = "CATALOG")]
    catalogs: Vec<String>,
    #[command(flatten)]
    mcp: McpArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "caveman")]
    format: toolsift::catalog::export::ExportFormat,
}

#[derive(Args)]
struct ServeArgs {
    /// HOST:PORT to listen on (default 127.0.0.1:8787; port 0 picks a free one).
    #[arg(long, value_name = "HOST:PORT")]
    addr: Option<std::net::SocketAddr>,
    /// An environment variable holding an accepted API key (repeatable). With keys, requests need `authorization: Bearer KEY`.
    #[arg(long, value_name = "NAME")]
    api_key_env: Vec<String>,
    /// Largest request body in bytes (default 16 MiB).
    #[arg(long, value_name = "N")]
    max_body_bytes: Option<usize>,
    /// Largest catalog a request may carry (default 10,000 tools).
    #[arg(long, value_name = "N")]
    max_catalog_tools: Option<usize>,
    /// `max_tools` when a request gives none (default 8).
    #[arg(long, value_name = "N")]
    default_max_tools: Option<u64>,
    /// Token basis when a request names none: o200k_base | cl100k_base | estimated_bytes_div_4.
    #[arg(long, value_name = "BASIS")]
    token_basis: Option<TokenBasis>,
    /// Time limit of one request, body included, in milliseconds (default 10,000).
    #[arg(long, value_name = "MS")]
    request_timeout_ms: Option<u64>,
    /// Searches ranked at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    max_in_flight: Option<usize>,
    /// Put each request's query text in the access log.
    #[arg(long)]
    log_queries: bool,
    /// Allow a non-loopback address without an API key.
    #[arg(long)]
    insecure_no_auth: bool,
    /// A provider's upstream for the pass-through, PROVIDER=URL (openai, anthropic; repeatable; URL "none" turns it off). Defaults: https://api.openai.com/v1, https://api.anthropic.com.
    #[arg(long, value_name = "PROVIDER=URL")]
    upstream: Vec<String>,
    /// An environment variable holding a provider's upstream key, PROVIDER=NAME (repeatable); a request's x-cave-upstream-key wins.
    #[arg(long, value_name = "PROVIDER=NAME")]
    upstream_key_env: Vec<String>,
    /// Longest wait for an upstream's answer to begin, and between two of its reads, in milliseconds (default 300,000).
    #[arg(long, value_name = "MS")]
    upstream_timeout_ms: Option<u64>,
    /// Where tool sessions live: memory (default) or redis://HOST:PORT/DB (Redis or Valkey, shared by several instances).
    #[arg(long, value_name = "STORE")]
    sessions: Option<String>,
    /// Config file (its [serve] and [embeddings] sections; flags win).
    #[arg(long, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
    #[arg(long, value_name = "RANKER", help = format!("Ranker of requests that name none: {} (default bm25)", choices(&Ranker::ALL)))]
    default_ranker: Option<Ranker>,
    #[command(flatten)]
    embed: EmbeddingArgs,
}

#[derive(Args, Default)]
struct ExploreArgs {
    /// Catalogs to load (several files merge; a name in two files is an error). Default: @demo, or none with --mcp.
    #[arg(value_name = "CATALOG")]
    catalogs: Vec<String>,
    #[command(flatten)]
    mcp: McpArgs,
    #[arg(long, value_name = "STRATEGY", help = from_config(&choices(&Strategy::ALL), Settings::default().strategy))]
    strategy: Option<String>,
    #[arg(long, value_name = "N", allow_hyphen_values = true, help = from_config("Non-mandatory tools in the deferred initial set", Settings::default().initial_tool_count))]
    initial_tool_count: Option<String>,
    /// Cap for the deferred initial set and default search cap (default: none).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_loaded_tools: Option<String>,
    #[arg(long, value_name = "N", allow_hyphen_values = true, help = format!("Cap on tools a search returns (default: the service's {DEFAULT_MAX_TOOLS})"))]
    max_tools: Option<String>,
    #[arg(long, value_name = "BASIS", help = from_config(&choices(&TokenBasis::ALL), Settings::default().token_basis))]
    token_basis: Option<String>,
    /// Config file (else $TOOLSIFT_CONFIG, $XDG_CONFIG_HOME/toolsift/config.toml, ~/.config/toolsift/config.toml).
    #[arg(long, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
    /// Requests with known answers for the Tune screen (JSONL: query, expected; @demo for the demo catalog's). Default: the config's, or @demo on the demo catalog.
    #[arg(long, value_name = "FILE")]
    queries: Option<String>,
    /// Tokens the model's context can spend on tool definitions: after a failed search the full catalog is offered only if it fits (default: the config's, else never offered).
    #[arg(long, value_name = "TOKENS")]
    context_budget: Option<u64>,
    #[command(flatten)]
    remote: ServiceArgs,
    #[arg(long, value_name = "RANKER", help = from_config(&choices(&Ranker::ALL), Settings::default().ranker))]
    ranker: Option<Ranker>,
    #[command(flatten)]
    embed: EmbeddingArgs,
}

/// Where searches go: a remote compatible service, or (by default) the
/// embedded one.
#[derive(Args, Default)]
struct ServiceArgs {
    /// A compatible tool-search service to use instead of the embedded one (else $CAVE_BASE_URL).
    #[arg(long, value_name = "URL")]
    service: Option<String>,
    /// Environment variable that holds the service's API key (else $CAVE_API_KEY).
    #[arg(long, value_name = "NAME")]
    service_key_env: Option<String>,
    /// x-cave-agent (default toolsift).
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// x-cave-workflow (else $CAVE_WORKFLOW, else unlabeled-workflow).
    #[arg(long, value_name = "NAME")]
    workflow: Option<String>,
    /// x-cave-retention (default metadata).
    #[arg(long, value_name = "POLICY")]
    retention: Option<String>,
    /// x-cave-user-hash, sent only when given.
    #[arg(long, value_name = "HASH")]
    user_hash: Option<String>,
}

impl ServiceArgs {
    /// The searcher these settings name: remote when a service is given
    /// here or in $CAVE_BASE_URL, else embedded.
    fn searcher(&self, embeddings: Option<Embeddings>) -> Result<Searcher, CliError> {
        self.searcher_or(None, embeddings)
    }

    /// [`ServiceArgs::searcher`] with a service from the config file, used
    /// when the flag names none (before $CAVE_BASE_URL).
    fn searcher_or(
        &self,
        from_config: Option<&str>,
        embeddings: Option<Embeddings>,
    ) -> Result<Searcher, CliError> {
        use toolsift::client::{Client, ClientConfig, ClientSettings};
        let env = |n: &str| std::env::var(n).ok();
        let api_key = match &self.service_key_env {
            None => None,
            Some(name) => Some(env(name).filter(|k| !k.is_empty()).ok_or_else(|| {
                CliError::Input(format!(
                    "--service-key-env {name}: the environment variable is not set or empty"
                ))
            })?),
        };
        let settings = ClientSettings {
            service: self
                .service
                .clone()
                .or_else(|| from_config.map(str::to_string)),
            api_key,
            agent: self.agent.clone(),
            workflow: self.workflow.clone(),
            retention: self.retention.clone(),
            user_hash: self.user_hash.clone(),
        };
        match ClientConfig::resolve(&settings, &env).map_err(|e| CliError::Input(e.to_string()))? {
            None => Ok(Searcher::Embedded(std::sync::Arc::new(
                toolsift::service::Service::new(toolsift::service::ServiceConfig {
                    embeddings,
                    ..Default::default()
                }),
            ))),
            Some(_) if embeddings.is_some() => Err(CliError::Input(
                "an embedding provider serves the embedded search; with a remote service (--service, $CAVE_BASE_URL or the config's service) the service ranks, so leave the --embeddings-* flags out".into(),
            )),
            Some(config) => Ok(Searcher::remote(
                Client::new(config).map_err(|e| CliError::Input(e.to_string()))?,
            )),
        }
    }
}

#[derive(Args)]
struct SearchArgs {
    /// Catalog: a path, `-` (stdin) or @demo (leave it out with --mcp).
    #[arg(value_name = "CATALOG")]
    catalog: String,
    /// The request to find tools for.
    #[arg(value_name = "QUERY")]
    query: Option<String>,
    #[command(flatten)]
    remote: ServiceArgs,
    #[command(flatten)]
    mcp: McpArgs,
    #[arg(long, value_name = "N", allow_hyphen_values = true, help = format!("Cap on returned tools (always-load tools count); default: --max-loaded-tools, else the service's {DEFAULT_MAX_TOOLS}"))]
    max_tools: Option<String>,
    #[command(flatten)]
    handle: HandleArgs,
    #[arg(long, value_name = "RANKER", help = choices(&Ranker::ALL))]
    ranker: Option<Ranker>,
    #[command(flatten)]
    embed: EmbeddingArgs,
    /// More text about the task (weighted below the query).
    #[arg(long, value_name = "TEXT")]
    context: Option<String>,
    /// Continue a tool session.
    #[arg(long, value_name = "ID")]
    session_id: Option<String>,
    /// One JSON object on stdout instead of the table.
    #[arg(long)]
    json: bool,
    /// Print only the loaded tools as a provider payload (a JSON array in that provider's shape).
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "json")]
    export: Option<toolsift::catalog::export::PayloadFormat>,
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
        default_value_t = DEFAULT_THRESHOLD.to_string(),
        allow_hyphen_values = true
    )]
    threshold: String,
    /// One JSON object on stdout instead of the text report.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct EvalArgs {
    /// Catalog: a path, `-` (stdin) or @demo (leave it out with --mcp).
    #[arg(value_name = "CATALOG")]
    catalog: String,
    /// JSON lines: {"query", "expected": [names], "equivalents"?, "id"?, "category"?}
    #[arg(value_name = "QUERIES.jsonl")]
    queries: Option<std::path::PathBuf>,
    #[command(flatten)]
    remote: ServiceArgs,
    #[command(flatten)]
    mcp: McpArgs,
    /// List the requests whose expected tool is not in the top K.
    #[arg(long, value_name = "N", default_value_t = 10)]
    k: usize,
    /// More tools added to the catalog (repeatable).
    #[arg(long, value_name = "FILE")]
    extra_catalog: Vec<String>,
    #[arg(long, value_name = "RANKER", default_value_t = Ranker::Bm25, help = choices(&Ranker::ALL))]
    ranker: Ranker,
    #[command(flatten)]
    embed: EmbeddingArgs,
    /// How long to time the ranker, in milliseconds (0: one pass).
    #[arg(long, value_name = "MS", default_value_t = 400)]
    time_budget_ms: u64,
    /// One JSON object on stdout instead of the text report.
    #[arg(long)]
    json: bool,
}

/// `a | b`: the values a flag takes.
fn choices<T: std::fmt::Display>(all: &[T]) -> String {
    all.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// A flag's help when its default comes from the config file, whose built-in
/// values are the explorer's defaults.
fn from_config(text: &str, default: impl std::fmt::Display) -> String {
    format!("{text} (default: the config file's, else {default})")
}

/// The tools-handle options, taken as text so that a bad value gets the SDK's
/// own message (`initial_tool_count must be a non-negative integer`, ...).
#[derive(Args)]
struct HandleArgs {
    #[arg(long, value_name = "STRATEGY", help = choices(&Strategy::ALL), default_value_t = Strategy::default().to_string())]
    strategy: String,
    /// Non-mandatory tools in the deferred initial set.
    #[arg(
        long,
        value_name = "N",
        default_value_t = DEFAULT_INITIAL_TOOL_COUNT.to_string(),
        allow_hyphen_values = true
    )]
    initial_tool_count: String,
    /// Cap for the deferred initial set and default search cap.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    max_loaded_tools: Option<String>,
    #[arg(long, value_name = "BASIS", help = choices(&TokenBasis::ALL), default_value_t = TokenBasis::default().to_string())]
    token_basis: String,
}

#[derive(Args)]
struct CheckArgs {
    /// Catalogs (several merge): paths, `-` (stdin) or @demo; default @demo, or none with --mcp.
    #[arg(value_name = "CATALOG")]
    catalogs: Vec<String>,
    #[command(flatten)]
    mcp: McpArgs,
    #[command(flatten)]
    handle: HandleArgs,
    /// One JSON object on stdout instead of the text report.
    #[arg(long)]
    json: bool,
    /// Hidden text (tag, zero-width, invisible or bidi characters in a name, description or schema) is an error: the report, then exit code 2.
    #[arg(long)]
    strict: bool,
}

/// Why a command failed: printed on stderr, with its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
enum CliError {
    /// Bad input (usage, catalog, config, trace, queries, I/O): exit code 2.
    Input(String),
    /// A search the service refused: exit code 1.
    SearchFailed(String),
}

impl CliError {
    fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::SearchFailed(_) => 1,
        }
    }
}

/// The stderr line, after `toolsift: `.
impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Input(message) => write!(f, "error: {message}"),
            CliError::SearchFailed(message) => write!(f, "search failed: {message}"),
        }
    }
}

/// The library's errors about what the user gave us.
macro_rules! input_errors {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for CliError {
            fn from(e: $error) -> Self {
                CliError::Input(e.to_string())
            }
        }
    )*};
}

input_errors!(
    toolsift::catalog::CatalogError,
    toolsift::config::ConfigError,
    toolsift::eval::EvalError,
    toolsift::replay::TraceError,
    toolsift::tokens::UnknownBasis,
    SelectError,
    std::io::Error,
    serde_json::Error,
);

impl From<SearchError> for CliError {
    fn from(e: SearchError) -> Self {
        CliError::SearchFailed(e.to_string())
    }
}

impl HandleArgs {
    /// The SDK's checks in the SDK's order: strategy, initial_tool_count,
    /// max_loaded_tools. (The always-load check needs the catalog.)
    fn options(&self) -> Result<(HandleOptions, TokenBasis), CliError> {
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

/// Settings from the config file with the flags over them, checked with the
/// SDK's checks and messages.
fn explore_settings(
    args: &ExploreArgs,
    config: &toolsift::config::Config,
) -> Result<Settings, CliError> {
    let x = &config.explorer;
    // What neither the flags nor a config file set (the built-in file sets
    // them all, so this is a backstop).
    let defaults = Settings::default();
    let strategy = match &args.strategy {
        Some(text) => text.parse()?,
        None => x.strategy.unwrap_or(defaults.strategy),
    };
    let int = |flag: &Option<String>,
               from_file: Option<i64>,
               err: SelectError|
     -> Result<Option<i64>, CliError> {
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
    .unwrap_or(defaults.initial_tool_count);
    let max_loaded_tools = int(
        &args.max_loaded_tools,
        x.max_loaded_tools,
        SelectError::MaxLoadedTools,
    )?;
    let max_tools = int(&args.max_tools, x.max_tools, SelectError::MaxTools)?;
    let ranker = args.ranker.or(x.ranker).unwrap_or(defaults.ranker);
    let token_basis = match &args.token_basis {
        Some(text) => text.parse()?,
        None => x.token_basis.unwrap_or(defaults.token_basis),
    };
    Ok(Settings {
        strategy,
        initial_tool_count,
        max_loaded_tools,
        max_tools,
        ranker,
        token_basis,
    })
}

fn run_explore(args: &ExploreArgs) -> Result<(), CliError> {
    use std::io::IsTerminal;
    let config = toolsift::config::Config::load(args.config.as_deref())?;
    let settings = explore_settings(args, &config)?;
    let loaded =
        cli::mcp::load(&args.catalogs, Some("@demo"), &args.mcp).map_err(CliError::Input)?;
    let catalog = loaded.catalog;
    // The SDK's checks against this catalog, before the terminal is touched.
    settings.validate(&catalog)?;
    let keymap = Keymap::build(&config.default_keys, &config.user_keys, &config.origin())
        .map_err(|e| CliError::Input(e.to_string()))?;
    let embeddings = args.embed.build(Some(&config.embeddings), false)?;
    let searcher = args
        .remote
        .searcher_or(config.explorer.service.as_deref(), embeddings)?;
    // The Tune screen's requests: the flag, the config, or the demo
    // catalog's own. A file that cannot be read, or names tools the catalog
    // lacks, is an error here, before the terminal is touched.
    let on_demo = args.catalogs.iter().all(|c| c == "@demo") && !args.mcp.any();
    let queries = args
        .queries
        .clone()
        .or_else(|| config.explorer.queries.clone())
        .or_else(|| on_demo.then(|| "@demo".to_string()));
    if let Some(q) = &queries {
        let parsed = toolsift::eval::load_queries_arg(q)?;
        toolsift::tune::resolve(&catalog, &parsed)?;
    }
    let context_budget = args.context_budget.or(config.explorer.context_budget);
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(CliError::Input(
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
        mcp: loaded.host,
        mcp_servers: loaded.servers,
        searcher,
        queries,
        config_path: config.save_path.clone(),
        context_budget,
    })
    .map_err(|e| CliError::Input(format!("terminal: {e}")))
}

/// `toolsift demo`: the script is read and checked before the terminal is
/// touched; the tour runs on the demo catalog with the built-in settings
/// and keys (what its captions describe), whatever the user's config says.
fn run_demo(args: &DemoArgs) -> Result<(), CliError> {
    use std::io::IsTerminal;
    if !(args.speed.is_finite() && args.speed > 0.0 && args.speed <= 100.0) {
        return Err(CliError::Input(format!(
            "--speed must be above 0 and at most 100, not {}",
            args.speed
        )));
    }
    let steps = match &args.script {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError::Input(format!("{}: cannot read: {e}", path.display())))?;
            toolsift::tui::demo::parse_script(&text, &path.display().to_string())
        }
        None => toolsift::tui::demo::parse_script(
            toolsift::tui::demo::DEFAULT_SCRIPT,
            "built-in demo script",
        ),
    }
    .map_err(|e| CliError::Input(e.to_string()))?;
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(CliError::Input(
            "the demo needs a terminal (stdin and stdout are not both a tty)".into(),
        ));
    }
    let catalog = std::sync::Arc::new(toolsift::catalog::load(
        &toolsift::catalog::CatalogSource::demo(),
    )?);
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let setup = toolsift::tui::Setup {
        sources: catalog.name().to_string(),
        catalog,
        settings: Settings::default(),
        keymap: Keymap::defaults(),
        no_color,
        mcp: None,
        mcp_servers: Vec::new(),
        searcher: Searcher::embedded(),
        queries: Some("@demo".into()),
        // The demo never writes the user's config.
        config_path: None,
        context_budget: None,
    };
    toolsift::tui::run_demo(setup, steps, args.speed)
        .map_err(|e| CliError::Input(format!("terminal: {e}")))
}

/// `CATALOG QUERY`, or just `QUERY` with MCP servers.
fn catalog_and_second<'a, T>(
    first: &'a str,
    second: Option<&'a T>,
    mcp: &McpArgs,
    what: &str,
) -> Result<(Vec<String>, &'a T), CliError>
where
    str: AsRef<T>,
    T: ?Sized,
{
    match second {
        Some(s) => Ok((vec![first.to_string()], s)),
        None if mcp.any() => Ok((Vec::new(), first.as_ref())),
        None => Err(CliError::Input(format!(
            "give CATALOG and {what} (or {what} alone with --mcp, --mcp-stdio or --mcp-url)"
        ))),
    }
}

fn run_search(args: &SearchArgs) -> Result<(), CliError> {
    let (options, basis) = args.handle.options()?;
    let (files, query) =
        catalog_and_second(&args.catalog, args.query.as_deref(), &args.mcp, "QUERY")?;
    let loaded = cli::mcp::load(&files, None, &args.mcp).map_err(CliError::Input)?;
    let catalog = loaded.catalog;
    let handle = ToolsHandle::new(catalog.clone(), &options)?;
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
        token_basis: Some(basis),
        preview: false,
    };
    let embeddings = embeddings_for(&args.embed, args.ranker)?;
    let result = args
        .remote
        .searcher(embeddings)?
        .search(&catalog, &request)?;
    if let Some(format) = args.export {
        let tools = result.tools.iter().map(|h| &catalog.tools()[h.index]);
        let text = toolsift::catalog::export::payload(tools, format)
            .map_err(|e| CliError::Input(e.to_string()))?;
        return write_stdout(&text);
    }
    emit(args.json, &result.to_json(&catalog), || {
        result.render_text(&catalog)
    })
}

fn run_replay(args: &ReplayArgs) -> Result<(), CliError> {
    let threshold: u32 = args
        .threshold
        .trim()
        .parse()
        .map_err(|_| CliError::Input("threshold must be a non-negative integer".into()))?;
    let calls = toolsift::replay::load_trace(&args.trace)?;
    let report = toolsift::replay::replay(&calls, threshold);
    emit(args.json, &report, || report.render_text())
}

fn run_eval(args: &EvalArgs) -> Result<(), CliError> {
    if args.k == 0 {
        return Err(CliError::Input("--k must be a positive integer".into()));
    }
    let (mut files, queries) = catalog_and_second(
        &args.catalog,
        args.queries.as_deref().map(|p| p.as_os_str()),
        &args.mcp,
        "QUERIES.jsonl",
    )?;
    files.extend(args.extra_catalog.iter().cloned());
    let loaded = cli::mcp::load(&files, None, &args.mcp).map_err(CliError::Input)?;
    let catalog = loaded.catalog;
    let queries = toolsift::eval::load_queries_arg(&queries.to_string_lossy())?;
    let searcher = args
        .remote
        .searcher(embeddings_for(&args.embed, Some(args.ranker))?)?;
    let started = std::time::Instant::now();
    let ranker = searcher.ranker_for(&catalog, args.ranker)?;
    let build_ms = started.elapsed().as_secs_f64() * 1000.0;
    let mut report = match toolsift::eval::evaluate(&catalog, &queries, args.k, ranker.as_ref()) {
        Err(e @ toolsift::eval::EvalError::Rank { .. }) => {
            return Err(CliError::SearchFailed(e.to_string()));
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

fn run_export(args: &ExportArgs) -> Result<(), CliError> {
    if args.catalogs.is_empty() && !args.mcp.any() {
        return Err(CliError::Input(
            "nothing to export: give CATALOG files, --mcp CONFIG, --mcp-stdio or --mcp-url".into(),
        ));
    }
    let loaded = cli::mcp::load(&args.catalogs, None, &args.mcp).map_err(CliError::Input)?;
    let text = toolsift::catalog::export::export(&loaded.catalog, args.format)
        .map_err(|e| CliError::Input(e.to_string()))?;
    // The payload is data, exact: JSON escapes control characters itself;
    // TOML strings do too (basic strings escape controls).
    write_stdout(&text)
}

fn run_check(args: &CheckArgs) -> Result<(), CliError> {
    let (options, basis) = args.handle.options()?;
    let loaded =
        cli::mcp::load(&args.catalogs, Some("@demo"), &args.mcp).map_err(CliError::Input)?;
    let mut report = CheckReport::new(loaded.catalog, &options, basis, &TokenCounter::new())?;
    report.servers = loaded.servers.iter().map(Into::into).collect();
    emit(args.json, &report, || report.render_text())?;
    match report.strict_error() {
        Some(e) if args.strict => Err(CliError::Input(e)),
        _ => Ok(()),
    }
}

/// The embedding provider for a command that ranks with `ranker`: the flags,
/// else (when the ranker needs one) the user config's `[embeddings]` and
/// the environment.
fn embeddings_for(
    args: &EmbeddingArgs,
    ranker: Option<Ranker>,
) -> Result<Option<Embeddings>, CliError> {
    if args.any() {
        return args.build(None, true);
    }
    if ranker.is_some_and(Ranker::needs_embeddings) {
        let config = toolsift::config::Config::load(None)?;
        return args.build(Some(&config.embeddings), true);
    }
    Ok(None)
}

/// Prints `value` as pretty JSON with `--json`, else the text report. Both
/// are safe on a terminal: the JSON escapes every control character (and
/// still parses to the exact strings), each report escapes the untrusted
/// text it shows, and any control character left (none should be) is escaped
/// here, newlines and tabs of the layout aside.
fn emit<T: serde::Serialize>(
    json: bool,
    value: &T,
    text: impl FnOnce() -> String,
) -> Result<(), CliError> {
    if json {
        let mut out = terminal_text::json_for_terminal(value)?;
        out.push('\n');
        write_stdout(&out)
    } else {
        write_stdout(&terminal_text::escape_layout(&text()))
    }
}

/// Writes to stdout; a closed pipe (`| head`) is not an error worth a message.
fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// The server's settings: flags, then the config file's `[serve]`, then the
/// defaults.
fn serve_config(args: &ServeArgs) -> Result<toolsift::server::ServeConfig, CliError> {
    use toolsift::server::{ApiKeys, ServeConfig};
    let config = toolsift::config::Config::load(args.config.as_deref())?;
    let file = &config.serve;
    let mut c = ServeConfig::default();
    c.addr = args.addr.or(file.addr).unwrap_or(c.addr);
    let names = if args.api_key_env.is_empty() {
        file.api_key_env.clone().unwrap_or_default()
    } else {
        args.api_key_env.clone()
    };
    c.keys = ApiKeys::from_env(&names, &|n| std::env::var(n).ok())
        .map_err(|e| CliError::Input(e.to_string()))?;
    c.max_body_bytes = args
        .max_body_bytes
        .or(file.max_body_bytes)
        .unwrap_or(c.max_body_bytes);
    if let Some(ms) = args.request_timeout_ms.or(file.request_timeout_ms) {
        c.request_timeout = std::time::Duration::from_millis(ms.max(1));
    }
    c.max_in_flight = args
        .max_in_flight
        .or(file.max_in_flight)
        .unwrap_or(c.max_in_flight)
        .max(1);
    c.max_queued = file.max_queued.unwrap_or(c.max_queued);
    c.log_queries = args.log_queries || file.log_queries.unwrap_or(false);
    c.insecure_no_auth = args.insecure_no_auth || file.insecure_no_auth.unwrap_or(false);
    let s = &mut c.service;
    s.max_catalog_tools = args
        .max_catalog_tools
        .or(file.max_catalog_tools)
        .unwrap_or(s.max_catalog_tools);
    s.default_max_tools = args
        .default_max_tools
        .or(file.default_max_tools)
        .unwrap_or(s.default_max_tools);
    if s.default_max_tools == 0 {
        return Err(CliError::Input(
            "--default-max-tools must be a positive integer".into(),
        ));
    }
    s.token_basis = args
        .token_basis
        .or(file.token_basis)
        .unwrap_or(s.token_basis);
    s.max_sessions = file.max_sessions.unwrap_or(s.max_sessions);
    if let Some(secs) = file.session_idle_secs {
        s.session_idle = std::time::Duration::from_secs(secs);
    }
    s.cache_bytes = file.cache_bytes.unwrap_or(s.cache_bytes);
    if let Some(ms) = args.upstream_timeout_ms.or(file.upstream_timeout_ms) {
        c.upstream_timeout = std::time::Duration::from_millis(ms.max(1));
    }
    if let Some(spec) = args.sessions.as_ref().or(file.sessions.as_ref()) {
        c.sessions = spec
            .parse()
            .map_err(|e| CliError::Input(format!("--sessions {e}")))?;
    }
    c.upstreams = upstreams(args, file, &|n| std::env::var(n).ok())?;
    s.embeddings = args.embed.build(Some(&config.embeddings), false)?;
    s.default_ranker = args
        .default_ranker
        .or(file.default_ranker)
        .unwrap_or(s.default_ranker);
    if s.default_ranker.needs_embeddings() && s.embeddings.is_none() {
        return Err(CliError::Input(format!(
            "--default-ranker {}: needs an embedding provider (--embeddings-local or --embeddings-url, or [embeddings] in the config)",
            s.default_ranker
        )));
    }
    Ok(c)
}

/// `PROVIDER=VALUE` of `flag`.
fn provider_pair(flag: &str, text: &str) -> Result<(toolsift::server::Provider, String), CliError> {
    let (p, v) = text.split_once('=').ok_or_else(|| {
        CliError::Input(format!(
            "--{flag} {text:?}: write PROVIDER=VALUE, e.g. openai=..."
        ))
    })?;
    let p = p
        .parse()
        .map_err(|e| CliError::Input(format!("--{flag} {text:?}: {e}")))?;
    Ok((p, v.to_string()))
}

/// The upstreams: flags, then `[serve.upstreams.PROVIDER]`, then the
/// providers' public URLs; keys from the named environment variables.
fn upstreams(
    args: &ServeArgs,
    file: &toolsift::config::ServeSection,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<toolsift::server::Upstreams, CliError> {
    use toolsift::server::{Provider, Upstream, Upstreams};
    for name in file.upstreams.keys() {
        name.parse::<Provider>()
            .map_err(|e| CliError::Input(format!("config [serve.upstreams.{name}]: {e}")))?;
    }
    let mut urls = std::collections::BTreeMap::new();
    for text in &args.upstream {
        let (p, url) = provider_pair("upstream", text)?;
        urls.insert(p.as_str(), url);
    }
    let mut key_envs = std::collections::BTreeMap::new();
    for text in &args.upstream_key_env {
        let (p, name) = provider_pair("upstream-key-env", text)?;
        key_envs.insert(p.as_str(), name);
    }
    let mut out = Upstreams::default();
    for p in Provider::ALL {
        let section = file.upstreams.get(p.as_str());
        let url = urls
            .get(p.as_str())
            .cloned()
            .or_else(|| section.and_then(|s| s.url.clone()))
            .unwrap_or_else(|| p.default_base().to_string());
        let key_env = key_envs
            .get(p.as_str())
            .cloned()
            .or_else(|| section.and_then(|s| s.key_env.clone()));
        let key = match key_env {
            None => None,
            Some(name) => {
                let key = env(&name).filter(|k| !k.is_empty()).ok_or_else(|| {
                    CliError::Input(format!(
                        "--upstream-key-env {}={name}: the environment variable is not set or empty",
                        p.as_str()
                    ))
                })?;
                if key.chars().any(|c| c.is_whitespace() || c.is_control()) {
                    return Err(CliError::Input(format!(
                        "--upstream-key-env {}={name}: the key has white space or control characters",
                        p.as_str()
                    )));
                }
                Some(key)
            }
        };
        *out.get_mut(p) = if url == "none" {
            None
        } else {
            Some(
                Upstream::new(&url, key)
                    .map_err(|e| CliError::Input(format!("--upstream {}: {e}", p.as_str())))?,
            )
        };
    }
    Ok(out)
}

fn run_serve(args: &ServeArgs) -> Result<(), CliError> {
    let config = serve_config(args)?;
    toolsift::server::check_bind(&config).map_err(|e| CliError::Input(e.to_string()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let shutdown = toolsift::server::shutdown_signal()?;
        let listener = toolsift::server::bind(&config)
            .await
            .map_err(|e| CliError::Input(e.to_string()))?;
        toolsift::server::warm_up(&config).await;
        let local = listener.local_addr()?;
        write_stdout(&format!("listening on http://{local}\n"))?;
        toolsift::server::serve_on(listener, &config, shutdown)
            .await
            .map_err(|e| CliError::Input(e.to_string()))
    })
}

fn main() -> ExitCode {
    let _ = color_eyre::install();
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Check(args)) => run_check(args),
        Some(Command::Replay(args)) => run_replay(args),
        Some(Command::Eval(args)) => run_eval(args),
        Some(Command::Search(args)) => run_search(args),
        Some(Command::Explore(args)) => run_explore(args),
        Some(Command::Serve(args)) => run_serve(args),
        Some(Command::ExportCatalog(args)) => run_export(args),
        Some(Command::Tune(args)) => cli::tune::run(args),
        Some(Command::Demo(args)) => run_demo(args),
        None => run_explore(&ExploreArgs::default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Messages quote catalogs, configs and traces: escape what a
            // terminal would act on (the messages' own newlines stay).
            eprintln!("toolsift: {}", terminal_text::escape_layout(&e.to_string()));
            ExitCode::from(e.exit_code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_error_type_with_its_exit_code() {
        let e = CliError::from(SelectError::Strategy);
        assert_eq!(e.exit_code(), 2);
        assert_eq!(e.to_string(), "error: strategy must be all or deferred");
        let e = CliError::from("x".parse::<TokenBasis>().unwrap_err());
        assert_eq!(e.exit_code(), 2);
        let e = CliError::from(SearchError::UnknownOrDuplicate);
        assert_eq!(e.exit_code(), 1);
        assert_eq!(
            e.to_string(),
            "search failed: tool search response contained an unknown or duplicate tool"
        );
    }
}
