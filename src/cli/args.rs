//! The command line's definitions (clap): every command, its flags and their
//! help. What each command does is in the file named after it.

use clap::{Args, Parser, Subcommand};
use toolsift::breaker::DEFAULT_THRESHOLD;
use toolsift::engine::Ranker;
use toolsift::service::DEFAULT_MAX_TOOLS;
pub use toolsift::settings::flags::{basis_choices, choices};
use toolsift::settings::{HandleSettings, PartialSettings, flags};
use toolsift::tokens::TokenBasis;
use toolsift::tools_handle::{DEFAULT_INITIAL_TOOL_COUNT, Strategy};

use super::embed::EmbeddingArgs;
pub use super::eval_args::EvalArgs;
use super::mcp::McpArgs;

#[derive(Parser)]
#[command(
    name = "toolsift",
    version = crate::cli::VERSION,
    about = "See what a tool catalog costs, how deferred loading and search treat it, and why a tool was or was not found",
    after_help = "CATALOG is a file (TOML, Caveman/TypeScript/MCP/OpenAI/Anthropic JSON), `-` for standard input, or a built-in catalog: @demo (the default), @github-mcp, @synthetic-N."
)]
pub struct Cli {
    /// Never fetch the search model: the explorer's when no command is given, else the command's own --offline.
    #[arg(long)]
    pub offline: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// The command to run (none: the explorer), `--offline` given before
    /// it handed to its own flag; a command that fetches no model refuses
    /// it, saying which do.
    pub fn into_command(self) -> Result<Option<Command>, super::error::CliError> {
        if !self.offline {
            return Ok(self.command);
        }
        let mut command = self
            .command
            .unwrap_or_else(|| Command::Explore(ExploreArgs::default()));
        let embed = match &mut command {
            Command::Explore(a) => &mut a.embed,
            Command::Search(a) => &mut a.embed,
            Command::Eval(a) => &mut a.embed,
            Command::Tune(a) => &mut a.embed,
            Command::Check(a) => &mut a.embed,
            Command::Serve(a) => &mut a.embed,
            Command::Gateway(a) => &mut a.embed,
            _ => {
                return Err(super::error::CliError::Usage(
                    "--offline is for the explorer and the commands that rank with the search model (explore, search, eval, tune, check, serve, gateway)".into(),
                ));
            }
        };
        embed.offline = true;
        Ok(Some(command))
    }
}

#[derive(Subcommand)]
pub enum Command {
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
    /// An MCP server in front of your MCP servers: the host gets search_tools, call_read_tool and call_tool (through the breaker) instead of every tool.
    Gateway(GatewayArgs),
    /// Log in to a hosted MCP server that asks for OAuth (its page opens in the browser); the gateway and the explorer then use the kept tokens.
    Login(super::login::LoginArgs),
    /// Forget the tokens kept for a hosted MCP server.
    Logout(super::login::LogoutArgs),
    /// Find the search cap and initial set a catalog wants, on requests with known answers.
    Tune(TuneArgs),
    /// Write a catalog (files and/or MCP servers) in one format on stdout, to version, diff or serve it.
    ExportCatalog(ExportArgs),
    /// The search model (fetched once on first use): status, fetch now, or remove.
    Model(super::model::ModelArgs),
    /// Play a captioned tour of the explorer on the demo catalog (Space pauses, → steps, q quits).
    Demo(DemoArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish) on stdout.
    Completions(CompletionsArgs),
    /// Print the manual page (roff) on stdout: `toolsift man > toolsift.1`.
    Man,
}

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell: bash | zsh | fish | powershell | elvish.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(Args)]
pub struct DemoArgs {
    /// A tour of your own (TOML [[step]] list: action, type, pause, caption; see README). Default: the built-in tour.
    #[arg(long, value_name = "FILE")]
    pub script: Option<std::path::PathBuf>,
    /// Playing speed: 2 plays twice as fast, 0.5 at half speed.
    #[arg(long, value_name = "X", default_value = "1")]
    pub speed: f64,
    /// Write the tour to FILE as an asciicast v2 recording (asciinema play FILE), played unattended with no terminal; it takes as long as the tour.
    #[arg(long, value_name = "FILE")]
    pub record: Option<std::path::PathBuf>,
    /// The recording's size, COLSxROWS (with --record).
    #[arg(
        long,
        value_name = "COLSxROWS",
        default_value = "80x24",
        requires = "record"
    )]
    pub size: TermSize,
}

/// A terminal's size in columns and rows, written `80x24`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermSize {
    pub cols: u16,
    pub rows: u16,
}

impl TermSize {
    /// The largest recording: far past any screen.
    pub const MAX: TermSize = TermSize {
        cols: 1000,
        rows: 500,
    };
}

/// A `--size` that is not one (the text as given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TermSizeError {
    #[error("{0:?} is not a size: write COLSxROWS, as 80x24")]
    NotASize(String),
    #[error("{0:?}: a size is 1x1 to {cols}x{rows}", cols = TermSize::MAX.cols, rows = TermSize::MAX.rows)]
    OutOfRange(String),
}

impl std::str::FromStr for TermSize {
    type Err = TermSizeError;

    fn from_str(s: &str) -> Result<Self, TermSizeError> {
        let bad = || TermSizeError::NotASize(s.to_string());
        let (cols, rows) = s.split_once(['x', 'X']).ok_or_else(bad)?;
        let (cols, rows): (u16, u16) = (
            cols.trim().parse().map_err(|_| bad())?,
            rows.trim().parse().map_err(|_| bad())?,
        );
        if cols == 0 || rows == 0 || cols > Self::MAX.cols || rows > Self::MAX.rows {
            return Err(TermSizeError::OutOfRange(s.to_string()));
        }
        Ok(TermSize { cols, rows })
    }
}

#[derive(Args)]
pub struct ExportArgs {
    /// Catalogs to include (several merge); with --mcp, leave them out to export the servers' tools alone.
    #[arg(value_name = "CATALOG")]
    pub catalogs: Vec<String>,
    #[command(flatten)]
    pub mcp: McpArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "caveman")]
    pub format: toolsift::export::ExportFormat,
}

#[derive(Args)]
pub struct ServeArgs {
    /// Every `[serve]` setting of the config file, as a flag.
    #[command(flatten)]
    pub settings: toolsift::config::ServeSection,
    /// A provider's upstream for the pass-through, PROVIDER=URL (openai, anthropic; repeatable; URL "none" turns it off).
    #[arg(long, value_name = "PROVIDER=URL", help = upstream_help())]
    pub upstream: Vec<String>,
    /// An environment variable holding a provider's upstream key, PROVIDER=NAME (repeatable); a request's x-cave-upstream-key wins.
    #[arg(long, value_name = "PROVIDER=NAME")]
    pub upstream_key_env: Vec<String>,
    /// Config file (its [serve] and [embeddings] sections; flags win).
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub embed: EmbeddingArgs,
}

/// `--start-wait`'s help, with the gateway's default.
fn start_wait_help() -> String {
    #[cfg(feature = "mcp")]
    let default = format!(" (default {})", toolsift::gateway::START_WAIT.as_secs());
    #[cfg(not(feature = "mcp"))]
    let default = String::new();
    format!(
        "Seconds the start waits for the MCP servers before answering the host{default}; a slower server's tools join when it is up"
    )
}

/// `--upstream`'s help, with each provider's public API as its default.
fn upstream_help() -> String {
    let defaults: Vec<String> = toolsift::provider::Provider::ALL
        .iter()
        .map(|p| format!("{}={}", p.name(), p.api_base()))
        .collect();
    format!(
        "A provider's upstream for the pass-through, PROVIDER=URL (openai, anthropic; repeatable; URL \"none\" turns it off). Defaults: {}",
        defaults.join(", ")
    )
}

#[derive(Args, Default)]
pub struct ExploreArgs {
    /// Catalogs to load (several files merge; a name in two files is an error). Default: @demo, or none with --mcp.
    #[arg(value_name = "CATALOG")]
    pub catalogs: Vec<String>,
    #[command(flatten)]
    pub mcp: McpArgs,
    /// The explorer's settings, over the config file's.
    #[command(flatten)]
    pub settings: PartialSettings,
    /// Config file (else $TOOLSIFT_CONFIG, $XDG_CONFIG_HOME/toolsift/config.toml, ~/.config/toolsift/config.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    /// Requests with known answers for the Tune screen (JSONL: query, expected; @demo for the demo catalog's). Default: the config's, or @demo on the demo catalog.
    #[arg(long, value_name = "FILE")]
    pub queries: Option<String>,
    /// Tokens the model's context can spend on tool definitions: after a failed search the full catalog is offered only if it fits (default: the config's, else never offered).
    #[arg(long, value_name = "TOKENS")]
    pub context_budget: Option<u64>,
    #[command(flatten)]
    pub remote: ServiceArgs,
    #[command(flatten)]
    pub embed: EmbeddingArgs,
    #[command(flatten)]
    pub count: CountArgs,
    /// Follow a running gateway or service (its address, e.g. http://127.0.0.1:8787) or a gateway's --trace file as it grows (@example: a recorded session): the live screen (L) shows its searches, calls and the searches that failed the agent.
    #[arg(long, value_name = "URL|TRACE")]
    pub follow: Option<String>,
    /// Environment variable that holds the followed server's API key (its --api-key-env).
    #[arg(long, value_name = "NAME", requires = "follow")]
    pub follow_key_env: Option<String>,
    /// Where the live screen adds a miss as a request with its answer (JSON lines that toolsift eval and tune read).
    #[arg(long, value_name = "FILE", default_value = "toolsift-misses.jsonl")]
    pub misses_file: String,
}

/// Where searches go: a remote compatible service, or (by default) the
/// embedded one.
#[derive(Args, Default)]
pub struct ServiceArgs {
    /// A compatible tool-search service to use instead of the embedded one (else $CAVE_BASE_URL).
    #[arg(long, value_name = "URL")]
    pub service: Option<String>,
    /// Environment variable that holds the service's API key (else $CAVE_API_KEY).
    #[arg(long, value_name = "NAME")]
    pub service_key_env: Option<String>,
    #[arg(long, value_name = "NAME", help = format!("x-cave-agent (default {})", toolsift::client::DEFAULT_AGENT))]
    pub agent: Option<String>,
    /// x-cave-workflow (else $CAVE_WORKFLOW, else unlabeled-workflow).
    #[arg(long, value_name = "NAME")]
    pub workflow: Option<String>,
    #[arg(long, value_name = "POLICY", help = format!("x-cave-retention (default {})", toolsift::client::DEFAULT_RETENTION))]
    pub retention: Option<String>,
    /// x-cave-user-hash, sent only when given.
    #[arg(long, value_name = "HASH")]
    pub user_hash: Option<String>,
    /// Rank with recorded search-then-call pairs (a gateway's --learn file) beside the ranker, in the embedded search; read only.
    #[arg(long, value_name = "FILE")]
    pub usage: Option<std::path::PathBuf>,
}

#[derive(Args)]
#[command(mut_arg("max_tools", |a| a.help(format!("Cap on returned tools (always-load tools count); default: --max-loaded-tools, else the service's {DEFAULT_MAX_TOOLS}"))))]
pub struct SearchArgs {
    /// Catalog: a path, `-` (stdin) or @demo (leave it out with --mcp).
    #[arg(value_name = "CATALOG")]
    pub catalog: String,
    /// The request to find tools for.
    #[arg(value_name = "QUERY")]
    pub query: Option<String>,
    #[command(flatten)]
    pub remote: ServiceArgs,
    #[command(flatten)]
    pub mcp: McpArgs,
    #[command(flatten)]
    pub cap: flags::MaxToolsFlag,
    #[command(flatten)]
    pub handle: HandleArgs,
    #[arg(long, value_name = "RANKER", help = choices(&Ranker::ALL))]
    pub ranker: Option<Ranker>,
    #[command(flatten)]
    pub embed: EmbeddingArgs,
    /// More text about the task (weighted below the query).
    #[arg(long, value_name = "TEXT")]
    pub context: Option<String>,
    /// Continue a tool session.
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// One JSON object on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Print only the loaded tools as a provider payload (a JSON array in that provider's shape).
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "json")]
    pub export: Option<toolsift::provider::PayloadFormat>,
    /// Then say where TOOL stood: its rank, score, the request's words it matched and did not, and why it was or was not loaded.
    #[arg(long, value_name = "TOOL", conflicts_with = "export")]
    pub why: Option<String>,
    /// The relevance gate: on, a request no tool fits loads no searched tool (the note names the nearest). Default: on in the embedded search; a remote service's own default (not sent) with --service.
    #[arg(long, value_enum, value_name = "on|off")]
    pub gate: Option<Switch>,
    /// One intent of the request, ranked on its own and merged with the others (repeat, at most 16; the wire's `queries`). Without it, a request's own clauses ("stage it, then commit") are its intents.
    #[arg(long = "intent", value_name = "TEXT")]
    pub intents: Vec<String>,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// JSON lines of {"name": "...", "arguments": {...}}, or @example.
    #[arg(value_name = "TRACE.jsonl")]
    pub trace: String,
    /// Identical consecutive calls allowed before the next is blocked.
    #[arg(
        long,
        value_name = "N",
        default_value_t = DEFAULT_THRESHOLD.to_string(),
        allow_hyphen_values = true
    )]
    pub threshold: String,
    /// One JSON object on stdout instead of the text report.
    #[arg(long)]
    pub json: bool,
}

/// An on-or-off flag's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Switch {
    On,
    Off,
}

impl Switch {
    pub fn on(self) -> bool {
        self == Switch::On
    }
}

/// The tools handle's settings as `check`, `search` and `tune` take them:
/// the explorer's own record of them, whose defaults here are the SDK's
/// (each flag's help says so).
#[derive(Args)]
#[command(
    mut_arg("strategy", |a| a.help(format!("{} (default {}, the SDK's)", choices(&Strategy::ALL), Strategy::default()))),
    mut_arg("initial_tool_count", |a| a.help(format!("Non-mandatory tools in the deferred initial set (default {DEFAULT_INITIAL_TOOL_COUNT})"))),
    mut_arg("token_basis", |a| a.help(format!("{} (default {}; a search names a basis only when given)", basis_choices(), TokenBasis::default()))),
)]
pub struct HandleArgs {
    #[command(flatten)]
    pub settings: HandleSettings,
}

#[derive(Args)]
pub struct CheckArgs {
    /// Catalogs (several merge): paths, `-` (stdin) or @demo; default @demo, or none with --mcp.
    #[arg(value_name = "CATALOG")]
    pub catalogs: Vec<String>,
    #[command(flatten)]
    pub mcp: McpArgs,
    #[command(flatten)]
    pub handle: HandleArgs,
    /// One JSON object on stdout instead of the text report.
    #[arg(long)]
    pub json: bool,
    /// Hidden text (tag, zero-width, invisible or bidi characters in a name, description or schema) is an error: the report, then exit code 2.
    #[arg(long)]
    pub strict: bool,
    /// With MCP servers: also the tokens of tools/list direct and through `toolsift gateway`.
    #[arg(long)]
    pub gateway: bool,
    /// The full catalog and the initial set under every token basis, side by side (JSON encodings, bytes/4, OpenAI's rendering of functions).
    #[arg(long, value_name = "all", value_parser = ["all"])]
    pub bases: Option<String>,
    #[command(flatten)]
    pub count: CountArgs,
    /// With --count-with: each tool's exact share too (one count per tool, kept on disk: a changed tool is counted again, the others are not).
    #[arg(long, requires = "count_with")]
    pub count_tools: bool,
    /// Can each tool be found from its own words? Searches its name's words and its description's first sentence, and lists the tools neither brings into the top K and the tools another tool outranks on both.
    #[arg(long)]
    pub findability: bool,
    /// With --findability: the top K that counts as found.
    #[arg(long, value_name = "K", default_value_t = toolsift::findability::DEFAULT_K as u64, requires = "findability", value_parser = clap::value_parser!(u64).range(1..=20))]
    pub findability_k: u64,
    #[arg(long, value_name = "RANKER", requires = "findability", help = format!("With --findability: the ranker searched with, {} (default {})", choices(&Ranker::WORDS), toolsift::service::ServiceConfig::default().default_ranker))]
    pub ranker: Option<Ranker>,
    #[command(flatten)]
    pub embed: super::embed::EmbeddingArgs,
}

/// Exact token counts from a provider (check, explore).
#[derive(Args, Default)]
pub struct CountArgs {
    /// Exact counts from a provider's counting endpoint (OpenAI's responses/input_tokens, Anthropic's messages/count_tokens), beside the estimates (with check: implies --bases all). The key comes from OPENAI_API_KEY or ANTHROPIC_API_KEY (or --count-key-env).
    #[arg(long, value_name = "openai|anthropic")]
    pub count_with: Option<toolsift::provider::Provider>,
    #[arg(long, value_name = "MODEL", requires = "count_with", help = format!("The model counted (default {}, or {})", toolsift::provider::Provider::Openai.count_model(), toolsift::provider::Provider::Anthropic.count_model()))]
    pub count_model: Option<String>,
    #[arg(long, value_name = "URL", requires = "count_with", help = format!("The provider's base URL (a proxy; default {} or {})", toolsift::provider::Provider::Openai.api_origin(), toolsift::provider::Provider::Anthropic.api_origin()))]
    pub count_url: Option<String>,
    /// The environment variable holding the provider's key.
    #[arg(long, value_name = "NAME", requires = "count_with")]
    pub count_key_env: Option<String>,
    #[arg(long, value_name = "MS", requires = "count_with", help = format!("The longest wait for one count, in milliseconds (default {})", toolsift::numbers::thousands(toolsift::provider_count::DEFAULT_TIMEOUT.as_millis() as u64)))]
    pub count_timeout_ms: Option<u64>,
}

#[derive(Args)]
pub struct TuneArgs {
    /// Catalog: a path, `-` (stdin) or @demo.
    #[arg(value_name = "CATALOG")]
    pub catalog: String,
    /// JSON lines: {"query", "expected": [names], "equivalents"?, "id"?}; @demo for the demo catalog's.
    #[arg(value_name = "QUERIES.jsonl")]
    pub queries: String,
    /// The current settings, marked in the tables (and checked as the SDK would).
    #[command(flatten)]
    pub handle: HandleArgs,
    /// Strict share (percent) the recommended cap must reach (default: 95 % of the best any cap reaches).
    #[arg(long, value_name = "PCT")]
    pub target: Option<f64>,
    #[arg(long, value_name = "RANKER", help = choices(&Ranker::ALL))]
    pub ranker: Option<Ranker>,
    #[command(flatten)]
    pub remote: ServiceArgs,
    #[command(flatten)]
    pub embed: EmbeddingArgs,
    /// One JSON object on stdout instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// `toolsift gateway`.
#[derive(Args)]
#[command(
    after_help = "The host sees the always-load tools and three meta-tools: search_tools(query, queries?, limit?), call_read_tool(name, arguments) for reads that stay on this machine, and call_tool(name, arguments) for any tool. Over stdio the gateway logs on stderr; stdout is the MCP connection. Servers files: mcpServers JSON (Claude Desktop, Claude Code, Cursor), VS Code's .vscode/mcp.json, ~/.claude.json (--project DIR), or TOML; see docs/gateway.md."
)]
pub struct GatewayArgs {
    /// Catalog files whose tools join the search (a call answers their handler.result).
    #[arg(value_name = "CATALOG")]
    pub catalogs: Vec<String>,
    #[command(flatten)]
    pub mcp: McpArgs,
    /// Every `[gateway]` setting of the config file, as a flag.
    #[command(flatten)]
    pub settings: toolsift::config::GatewaySection,
    #[arg(long, value_name = "SECS", help = start_wait_help())]
    pub start_wait: Option<f64>,
    /// Tools that run without asking (the default): server/tool, server/* or tool, `*` anywhere (repeatable; over [gateway.tools]).
    #[arg(long, value_name = "PATTERN")]
    pub allow: Vec<String>,
    /// Tools whose every call needs the user's yes (asked through the host's MCP elicitation; refused where the host cannot ask) (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub ask: Vec<String>,
    /// Tools never listed, found or called (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub deny: Vec<String>,
    /// Tools call_read_tool may run although their server does not mark them read-only and closed-world (openWorldHint false), such as a fetch you trust (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub allow_read: Vec<String>,
    /// Write every call as a trace (JSON lines) that `toolsift replay` and the explorer's breaker read.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<std::path::PathBuf>,
    /// Learn from use: record which tool a session called after its search (JSON lines in FILE, kept local, the newest 10,000), and rank with those pairs beside the ranker (a request like one that led to a tool finds it first).
    #[arg(long, value_name = "FILE")]
    pub learn: Option<std::path::PathBuf>,
    /// Print the tokens of tools/list direct and through the gateway, then exit.
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run: one JSON object on stdout.
    #[arg(long, requires = "dry_run")]
    pub json: bool,
    /// The config file (default ~/.config/toolsift/config.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub embed: EmbeddingArgs,
}
