//! `toolsift eval`'s flags: search quality on requests with known answers,
//! the gate on questions where nothing may fit, and (`--costs`) what
//! sessions cost with prompt caching.

use clap::Args;
use toolsift::engine::Ranker;

use super::args::{ServiceArgs, Switch, choices};
use super::embed::EmbeddingArgs;
use super::mcp::McpArgs;

#[derive(Args)]
#[command(mut_arg("max_tools", |a| a.help(format!("With --abstain: max_tools of each search (default {})", super::eval::ABSTAIN_MAX_TOOLS))))]
pub struct EvalArgs {
    /// Catalog: a path, `-` (stdin) or @demo (leave it out with --mcp or --abstain).
    #[arg(value_name = "CATALOG", required_unless_present = "abstain")]
    pub catalog: Option<String>,
    /// JSON lines: {"query", "expected": [names], "equivalents"?, "id"?, "category"?}
    #[arg(value_name = "QUERIES.jsonl")]
    pub queries: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub remote: ServiceArgs,
    #[command(flatten)]
    pub mcp: McpArgs,
    /// List the requests whose expected tool is not in the top K.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub k: usize,
    /// More tools added to the catalog (repeatable).
    #[arg(long, value_name = "FILE")]
    pub extra_catalog: Vec<String>,
    #[arg(long, value_name = "RANKER", help = format!("{} (default: hybrid with the search model, else bm25)", choices(&Ranker::ALL)))]
    pub ranker: Option<Ranker>,
    #[command(flatten)]
    pub embed: EmbeddingArgs,
    /// How long to time the ranker, in milliseconds (0: one pass).
    #[arg(long, value_name = "MS", default_value_t = 400)]
    pub time_budget_ms: u64,
    /// The relevance gate: on, a request whose best tool does not fit ranks nothing.
    #[arg(long, value_enum, value_name = "on|off", default_value = "on")]
    pub gate: Switch,
    /// Questions that each carry their own catalog, some with no fitting tool (JSONL: kind, query, tools, expected): how often the search answers with nothing when nothing fits, and loads every expected tool when something does, with the gate's curve.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["catalog", "queries", "extra_catalog"])]
    pub abstain: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub cap: toolsift::settings::flags::MaxToolsFlag,
    #[command(flatten)]
    pub costs: CostArgs,
    /// One JSON object on stdout instead of the text report.
    /// Write each request's candidate tools with their learned-ranking features and labels (JSONL, for scripts/train-ranker.py).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["abstain", "costs"])]
    pub features_out: Option<std::path::PathBuf>,
    #[arg(long)]
    pub json: bool,
}

/// `eval --costs`: what sessions cost with prompt caching, each way of
/// sending tools.
#[derive(Args, Default)]
pub struct CostArgs {
    /// Instead of search quality: what the sessions cost with the provider's prompt caching, for all tools up front, deferred with found tools in the conversation, and deferred with found tools added to the tool list (a trace's recorded sessions, or a session simulated per request).
    #[arg(long, conflicts_with = "abstain")]
    pub costs: bool,
    /// With --costs: the caching rules priced (repeatable): anthropic, openai, anthropic-1h, openai-gpt-4.1, openai-gpt-4o, openai-gpt-5.6 (default: anthropic and openai).
    #[arg(long, value_name = "NAME", requires = "costs")]
    pub provider: Vec<String>,
    /// With --costs: turns of a simulated session.
    #[arg(long, value_name = "N", default_value_t = 10, requires = "costs")]
    pub turns: usize,
    /// With --costs: the turn a simulated session searches on (1-based).
    #[arg(long, value_name = "K", default_value_t = 2, requires = "costs")]
    pub found_on: usize,
    /// With --costs: message tokens each turn adds.
    #[arg(long, value_name = "TOKENS", default_value_t = 400, requires = "costs")]
    pub turn_tokens: u64,
    /// With --costs: the system prompt's tokens.
    #[arg(
        long,
        value_name = "TOKENS",
        default_value_t = 1000,
        requires = "costs"
    )]
    pub system_tokens: u64,
    #[arg(long, value_name = "N", allow_hyphen_values = true, requires = "costs", value_parser = toolsift::settings::flags::initial_tool_count, help = format!("With --costs: the deferred initial set's non-mandatory tools (default {})", toolsift::tools_handle::DEFAULT_INITIAL_TOOL_COUNT))]
    pub initial_tool_count: Option<toolsift::tools_handle::InitialToolCount>,
    /// With --costs: cap on the initial set and on each search (default: none; a search loads the service's default).
    #[arg(long, value_name = "N", allow_hyphen_values = true, requires = "costs", value_parser = toolsift::settings::flags::max_loaded_tools)]
    pub max_loaded_tools: Option<toolsift::tools_handle::MaxTools>,
}
