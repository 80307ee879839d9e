//! `[gateway]`: the defaults of `toolsift gateway` (its flags win).
//!
//! ```toml
//! [gateway]
//! http = "127.0.0.1:8788"          # serve streamable HTTP instead of stdio
//! api_key_env = ["GATEWAY_KEY"]
//! max_tools = 8                    # search_tools answers at most this many
//! ranker = "bm25"                  # or hybrid, embeddings (with [embeddings])
//! gate = true                      # "nothing fits" instead of padding
//! breaker_threshold = 3            # identical calls in a row allowed
//! breaker_threshold_read_only = 3  # the same, for read-only tools
//! call_timeout_secs = 60
//! expose_found = false
//! log_calls = false
//! ```

use serde::Deserialize;

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
    #[serde(default, deserialize_with = "file_value::flag")]
    pub expose_found: Option<bool>,
    #[serde(default, deserialize_with = "file_value::flag")]
    pub log_calls: Option<bool>,
    #[serde(default, deserialize_with = "file_value::one_of")]
    pub token_basis: Option<crate::tokens::TokenBasis>,
}
