//! `[gateway]`: the defaults of `toolsift gateway` (its flags win).
//!
//! ```toml
//! [gateway]
//! http = "127.0.0.1:8788"          # serve streamable HTTP instead of stdio
//! api_key_env = ["GATEWAY_KEY"]
//! max_tools = 8                    # search_tools answers at most this many
//! max_sessions = 1024              # over HTTP: MCP sessions alive at once
//! max_sessions_per_key = 256       # of one API key
//! ranker = "bm25"                  # or hybrid, embeddings (with [embeddings])
//! gate = true                      # "nothing fits" instead of padding
//! breaker_threshold = 3            # identical calls in a row allowed
//! breaker_threshold_read_only = 3  # the same, for read-only tools
//! call_timeout_secs = 60
//! shutdown_grace_secs = 10         # on SIGTERM: calls in flight may finish
//! learn = "~/.local/state/toolsift/learned.jsonl"  # learn from use (off when absent)
//! expose_found = false
//! log_calls = false
//! hidden_text = "strip"            # or drop, keep
//! hidden_text_results = "strip"    # or keep: in call results
//!
//! [gateway.tools]                  # per tool: allow (default), ask, deny, read
//! "filesystem/*" = "ask"
//! "fetch/fetch" = "read"           # call_read_tool may run it (open-world)
//! "filesystem/read_*" = "allow"
//! "*delete*" = "deny"
//!
//! [gateway.keys.alice]             # a named key and what it may reach
//! env = "ALICE_KEY"                # (`access.rs`)
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::file_value;

/// `[gateway]` and the gateway's flags: one record (each field's comment
/// is its `--help`), laid over the built-in config's defaults.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, clap::Args)]
#[serde(deny_unknown_fields)]
#[command(mut_arg("max_tools", |a| a.help("Most tools search_tools returns (the SDK's max_tools)")))]
pub struct GatewaySection {
    /// Serve streamable HTTP on HOST:PORT (at /mcp) instead of stdio.
    #[serde(default, deserialize_with = "super::serve::address")]
    #[arg(long, value_name = "HOST:PORT")]
    pub http: Option<std::net::SocketAddr>,
    /// Environment variable holding an accepted API key over HTTP (repeatable).
    #[arg(long, value_name = "NAME")]
    pub api_key_env: Option<Vec<String>>,
    /// An environment variable holding an operator's API key (repeatable): accepted as a key is, and its holder follows every key's traffic on /events (another key's follower sees its own).
    #[arg(long, value_name = "NAME")]
    pub operator_key_env: Option<Vec<String>>,
    /// Allow --http on a non-loopback address without an API key.
    #[serde(default, deserialize_with = "file_value::flag")]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = super::switch)]
    pub insecure_no_auth: Option<bool>,
    /// The file's `max_tools` key and the `--max-tools` flag (declared once,
    /// in [`crate::settings::flags`]; its help is the gateway's, above).
    #[serde(
        default,
        rename = "max_tools",
        deserialize_with = "crate::settings::flags::max_tools_key"
    )]
    #[command(flatten)]
    pub cap: crate::settings::flags::MaxToolsFlag,
    /// Over HTTP: most MCP sessions alive at once; a new one past it closes the idlest.
    #[serde(default, deserialize_with = "file_value::positive")]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_sessions: Option<u64>,
    /// Over HTTP: most MCP sessions of one API key alive at once.
    #[serde(default, deserialize_with = "file_value::positive")]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_sessions_per_key: Option<u64>,
    /// The ranker of search_tools, one that takes words (`--help` lists them).
    #[serde(default, deserialize_with = "file_value::one_of")]
    #[arg(long, value_name = "RANKER", help = super::serve::rankers("The ranker of search_tools", &crate::engine::Ranker::WORDS))]
    pub ranker: Option<crate::engine::Ranker>,
    /// The relevance gate: "nothing fits" instead of unrelated tools.
    #[serde(default, deserialize_with = "file_value::flag")]
    #[arg(long, value_name = "on|off", value_parser = super::switch)]
    pub gate: Option<bool>,
    /// Identical calls in a row allowed before the breaker blocks.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub breaker_threshold: Option<u32>,
    /// The same, for read-only tools.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub breaker_threshold_read_only: Option<u32>,
    /// Seconds a tool call may take upstream.
    #[serde(default, deserialize_with = "file_value::positive")]
    #[arg(long = "call-timeout", value_name = "SECS")]
    pub call_timeout_secs: Option<u64>,
    /// Seconds a stop (SIGTERM, SIGINT, SIGHUP) lets the calls in flight finish before answering them that the gateway stopped.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long = "shutdown-grace", value_name = "SECS")]
    pub shutdown_grace_secs: Option<u64>,
    /// The file of search-then-call pairs to learn from and record in
    /// (`--learn`): `~/` is the home directory, a relative path is the
    /// config file's directory's.
    #[arg(skip)]
    pub learn: Option<String>,
    /// With --learn over HTTP: one API key's use steers every key's searches (off: each key learns from its own use only).
    #[serde(default, deserialize_with = "file_value::flag")]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = super::switch)]
    pub learn_shared: Option<bool>,
    /// Add found tools to the session's tools/list and send list_changed (for hosts that honour it).
    #[serde(default, deserialize_with = "file_value::flag")]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = super::switch)]
    pub expose_found: Option<bool>,
    /// Put queries, arguments and results in the log.
    #[serde(default, deserialize_with = "file_value::flag")]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = super::switch)]
    pub log_calls: Option<bool>,
    /// The token basis of --dry-run.
    #[serde(default, deserialize_with = "file_value::one_of")]
    #[arg(long, value_name = "BASIS")]
    pub token_basis: Option<crate::tokens::TokenBasis>,
    /// Text a reader cannot see in a server's tools (ANSI, control, tag, zero-width, bidi characters): strip it from what the model receives, drop the tool, or keep it.
    #[serde(default)]
    #[arg(long, value_name = "strip|drop|keep")]
    pub hidden_text: Option<HiddenText>,
    /// Hidden text in a tool's results (tag characters, ANSI, bidirectional controls in text and structured content): strip it (emoji sequences stay) or keep it.
    #[serde(default)]
    #[arg(long, value_name = "strip|keep")]
    pub hidden_text_results: Option<HiddenText>,
    /// `[gateway.tools]`: pattern → read, allow, ask or deny (the flags'
    /// `--allow`, `--ask`, `--deny` and `--allow-read` come after them).
    #[serde(default)]
    #[arg(skip)]
    pub tools: std::collections::BTreeMap<String, ToolRule>,
    /// `[gateway.keys.NAME]`: API keys with a name and what each may
    /// reach (`super::access`).
    #[serde(default)]
    #[arg(skip)]
    pub keys: std::collections::BTreeMap<String, super::access::KeyEntry>,
    /// `[gateway.groups.NAME]`: what the keys of a group may reach.
    #[serde(default)]
    #[arg(skip)]
    pub groups: std::collections::BTreeMap<String, super::access::GroupEntry>,
}

crate::layer::layer_of_options!(GatewaySection {
    http,
    api_key_env,
    operator_key_env,
    insecure_no_auth,
    cap,
    max_sessions,
    max_sessions_per_key,
    ranker,
    gate,
    breaker_threshold,
    breaker_threshold_read_only,
    call_timeout_secs,
    shutdown_grace_secs,
    learn,
    learn_shared,
    expose_found,
    log_calls,
    token_basis,
    hidden_text,
    hidden_text_results;
    maps: tools, keys, groups
});

/// What a rule of the gateway does with the tools it matches (see
/// `gateway::ToolRules`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolRule {
    /// Allowed, and `call_read_tool` runs it even when its server does not
    /// mark it read-only and closed-world (the user vouches for it).
    Read,
    Allow,
    Ask,
    Deny,
}

impl ToolRule {
    pub const WORDS: [&'static str; 4] = ["read", "allow", "ask", "deny"];

    pub fn parse(word: &str) -> Option<ToolRule> {
        match word {
            "read" => Some(ToolRule::Read),
            "allow" => Some(ToolRule::Allow),
            "ask" => Some(ToolRule::Ask),
            "deny" => Some(ToolRule::Deny),
            _ => None,
        }
    }
}

impl fmt::Display for ToolRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ToolRule::Read => "read",
            ToolRule::Allow => "allow",
            ToolRule::Ask => "ask",
            ToolRule::Deny => "deny",
        })
    }
}

impl<'de> Deserialize<'de> for ToolRule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        word(
            d,
            "a tool rule must be read, allow, ask or deny",
            ToolRule::parse,
        )
    }
}

/// What the gateway does with a tool whose text hides something (ANSI
/// sequences, control, tag, zero-width or bidirectional characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HiddenText {
    /// Take the hidden text out of what the host receives; the tool is
    /// still served (one whose name or schema keys hide text is left out).
    #[default]
    Strip,
    /// Leave the tool out.
    Drop,
    /// Pass it on as the server wrote it (a warning on stderr).
    Keep,
}

impl HiddenText {
    pub const WORDS: [&'static str; 3] = ["strip", "drop", "keep"];
}

/// A `--hidden-text` word that is none of the three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be strip, drop or keep, not {0:?}")]
pub struct NotHiddenText(pub String);

impl std::str::FromStr for HiddenText {
    type Err = NotHiddenText;

    fn from_str(s: &str) -> Result<Self, NotHiddenText> {
        match s {
            "strip" => Ok(HiddenText::Strip),
            "drop" => Ok(HiddenText::Drop),
            "keep" => Ok(HiddenText::Keep),
            _ => Err(NotHiddenText(s.to_string())),
        }
    }
}

impl fmt::Display for HiddenText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HiddenText::Strip => "strip",
            HiddenText::Drop => "drop",
            HiddenText::Keep => "keep",
        })
    }
}

impl<'de> Deserialize<'de> for HiddenText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        word(d, "hidden_text must be strip, drop or keep", |t| {
            t.parse().ok()
        })
    }
}

/// A setting written as one of a few words: `parse` reads the word; any
/// other value is refused as `expected, not VALUE`.
fn word<'de, D: serde::Deserializer<'de>, T>(
    d: D,
    expected: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, D::Error> {
    let found = crate::file_value::Found::deserialize(d)?;
    match &found {
        crate::file_value::Found::Text(t) => parse(t),
        _ => None,
    }
    .ok_or_else(|| serde::de::Error::custom(format!("{expected}, not {found}")))
}

/// Where a path a config file gives points: `~/` under `home`, a relative
/// path beside the file (`config`), an absolute one as it is.
pub fn path_in(
    value: &str,
    config: Option<&std::path::Path>,
    home: Option<&str>,
) -> std::path::PathBuf {
    use std::path::{Path, PathBuf};
    if let (Some(rest), Some(home)) = (value.strip_prefix("~/"), home) {
        return PathBuf::from(home).join(rest);
    }
    let path = Path::new(value);
    match config.and_then(Path::parent) {
        Some(dir) if path.is_relative() => dir.join(path),
        _ => path.to_path_buf(),
    }
}
