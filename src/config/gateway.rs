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
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::file_value;

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewaySection {
    /// HOST:PORT to serve streamable HTTP on.
    #[serde(default, deserialize_with = "super::address")]
    pub http: Option<std::net::SocketAddr>,
    pub api_key_env: Option<Vec<String>>,
    #[serde(default, deserialize_with = "file_value::flag")]
    pub insecure_no_auth: Option<bool>,
    #[serde(default, deserialize_with = "file_value::positive")]
    pub max_tools: Option<u64>,
    /// Over HTTP: most MCP sessions alive at once.
    #[serde(default, deserialize_with = "file_value::positive")]
    pub max_sessions: Option<u64>,
    /// Over HTTP: most MCP sessions of one API key alive at once.
    #[serde(default, deserialize_with = "file_value::positive")]
    pub max_sessions_per_key: Option<u64>,
    #[serde(default, deserialize_with = "file_value::one_of")]
    pub ranker: Option<crate::engine::Ranker>,
    #[serde(default, deserialize_with = "file_value::flag")]
    pub gate: Option<bool>,
    #[serde(default, deserialize_with = "file_value::count")]
    pub breaker_threshold: Option<u32>,
    #[serde(default, deserialize_with = "file_value::count")]
    pub breaker_threshold_read_only: Option<u32>,
    #[serde(default, deserialize_with = "file_value::positive")]
    pub call_timeout_secs: Option<u64>,
    /// Seconds a stop lets the calls in flight finish.
    #[serde(default, deserialize_with = "file_value::count")]
    pub shutdown_grace_secs: Option<u64>,
    /// The file of search-then-call pairs to learn from and record in
    /// (`--learn`): `~/` is the home directory, a relative path is the
    /// config file's directory's.
    pub learn: Option<String>,
    #[serde(default, deserialize_with = "file_value::flag")]
    pub expose_found: Option<bool>,
    #[serde(default, deserialize_with = "file_value::flag")]
    pub log_calls: Option<bool>,
    #[serde(default, deserialize_with = "file_value::one_of")]
    pub token_basis: Option<crate::tokens::TokenBasis>,
    /// What the host receives of text a reader cannot see.
    #[serde(default)]
    pub hidden_text: Option<HiddenText>,
    /// What the host receives of hidden text in a call's result (strip or
    /// keep).
    #[serde(default)]
    pub hidden_text_results: Option<HiddenText>,
    /// `[gateway.tools]`: pattern → read, allow, ask or deny.
    #[serde(default)]
    pub tools: std::collections::BTreeMap<String, ToolRule>,
}

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

impl std::str::FromStr for HiddenText {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "strip" => Ok(HiddenText::Strip),
            "drop" => Ok(HiddenText::Drop),
            "keep" => Ok(HiddenText::Keep),
            _ => Err(format!("must be strip, drop or keep, not {s:?}")),
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
