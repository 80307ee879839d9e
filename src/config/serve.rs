//! `[serve]`: `toolsift serve`'s settings. One record is both the config
//! file's section and the command's flags (each field's comment is its
//! `--help`); the built-in config gives the defaults, and the command lays
//! its flags over the file over those ([`crate::layer`]). A bad value in the
//! file is refused saying what was found ([`file_value`]).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::file_value;
use crate::layer::layer_of_options;

#[derive(Debug, Clone, PartialEq, Default, Deserialize, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct ServeSection {
    /// HOST:PORT to listen on; port 0 picks a free one.
    #[serde(default, deserialize_with = "address")]
    #[arg(long, value_name = "HOST:PORT")]
    pub addr: Option<std::net::SocketAddr>,
    /// An environment variable holding an accepted API key (repeatable). With keys, requests need `authorization: Bearer KEY`.
    #[arg(long, value_name = "NAME")]
    pub api_key_env: Option<Vec<String>>,
    /// An environment variable holding an operator's API key (repeatable): accepted as a key is, and its holder follows every key's traffic on /events (another key's follower sees its own).
    #[arg(long, value_name = "NAME")]
    pub operator_key_env: Option<Vec<String>>,
    /// Largest request body in bytes.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub max_body_bytes: Option<usize>,
    /// Largest catalog a request may carry, in tools.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub max_catalog_tools: Option<usize>,
    /// `max_tools` when a request gives none.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub default_max_tools: Option<u64>,
    /// Token basis when a request names none: o200k_base | cl100k_base | estimated_bytes_div_4.
    #[serde(default, deserialize_with = "file_value::one_of")]
    #[arg(long, value_name = "BASIS")]
    pub token_basis: Option<crate::tokens::TokenBasis>,
    /// Time limit of one request, body included, in milliseconds.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "MS")]
    pub request_timeout_ms: Option<u64>,
    /// Searches ranked at once (default: the number of cores).
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub max_in_flight: Option<usize>,
    /// Searches that may wait for one of those, then 503 (default: 64 per core).
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub max_queued: Option<usize>,
    /// Tool sessions kept at once (the oldest idle one goes first).
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub max_sessions: Option<usize>,
    /// Seconds a tool session lives unused.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "SECS")]
    pub session_idle_secs: Option<u64>,
    /// Bytes the rankers' cache may take.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub cache_bytes: Option<usize>,
    /// Bytes the cache of single definitions' token counts may take.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub token_cache_bytes: Option<usize>,
    /// Put each request's query text in the access log.
    #[serde(default, deserialize_with = "file_value::flag")]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = switch)]
    pub log_queries: Option<bool>,
    /// Allow a non-loopback address without an API key.
    #[serde(default, deserialize_with = "file_value::flag")]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = switch)]
    pub insecure_no_auth: Option<bool>,
    /// Where tool sessions live: memory, redis://HOST:PORT/DB (Redis or Valkey, shared by several instances) or redis+cluster://HOST:PORT,HOST:PORT (a Redis Cluster).
    #[arg(long, value_name = "STORE")]
    pub sessions: Option<String>,
    /// Replicas that must hold a session write before it is answered (Redis WAIT, up to 500 ms).
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub sessions_wait_replicas: Option<u32>,
    /// MiB the fleet's shared catalogs and vectors may take in the session store (0 shares none).
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "MIB")]
    pub shared_cache_mb: Option<u64>,
    /// Seconds a shared catalog or vector lives unless written again.
    #[serde(default, deserialize_with = "file_value::positive")]
    #[arg(long, value_name = "SECS")]
    pub shared_cache_ttl_secs: Option<u64>,
    /// Longest wait for an upstream's answer to begin, and between two of its reads, in milliseconds.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "MS")]
    pub upstream_timeout_ms: Option<u64>,
    /// Longest wait for a request head, from its first byte, in milliseconds; then 408 and closed.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "MS")]
    pub head_timeout_ms: Option<u64>,
    /// Longest a kept-alive connection may wait for its next request, in milliseconds.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "MS")]
    pub idle_timeout_ms: Option<u64>,
    /// Connections open at once (default: half the open-file limit, 16 to 4,096); one more gets 503.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// How long shutdown waits for requests in flight, in milliseconds.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "MS")]
    pub shutdown_grace_ms: Option<u64>,
    /// Provider calls passed through at once; as many more may wait (max_passthrough_queued), then 503.
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub max_passthrough: Option<usize>,
    /// Provider calls that may wait for one of those (default: max_passthrough).
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N")]
    pub max_passthrough_queued: Option<usize>,
    /// An environment variable holding the key GET /metrics needs (default: none, /metrics is open like /healthz).
    #[arg(long, value_name = "NAME")]
    pub metrics_key_env: Option<String>,
    /// Ranker of requests that name none (`--help` lists the rankers).
    #[serde(default, deserialize_with = "file_value::one_of")]
    #[arg(long, value_name = "RANKER", help = rankers("Ranker of requests that name none", &crate::engine::Ranker::ALL))]
    pub default_ranker: Option<crate::engine::Ranker>,
    /// The relevance gate for requests that do not set `gate`: on, a request no tool fits gets no searched tool (off: Caveman clients expect up to max_tools tools).
    #[serde(default, deserialize_with = "file_value::flag")]
    #[arg(long, value_name = "on|off", value_parser = switch)]
    pub gate: Option<bool>,
    /// `[serve.upstreams.openai]`, `[serve.upstreams.anthropic]` (the
    /// flags' `--upstream PROVIDER=URL` lie over them).
    #[serde(default)]
    #[arg(skip)]
    pub upstreams: BTreeMap<String, UpstreamSection>,
}

layer_of_options!(ServeSection {
    addr,
    api_key_env,
    operator_key_env,
    max_body_bytes,
    max_catalog_tools,
    default_max_tools,
    token_basis,
    request_timeout_ms,
    max_in_flight,
    max_queued,
    max_sessions,
    session_idle_secs,
    cache_bytes,
    token_cache_bytes,
    log_queries,
    insecure_no_auth,
    sessions,
    sessions_wait_replicas,
    shared_cache_mb,
    shared_cache_ttl_secs,
    upstream_timeout_ms,
    head_timeout_ms,
    idle_timeout_ms,
    max_connections,
    shutdown_grace_ms,
    max_passthrough,
    max_passthrough_queued,
    metrics_key_env,
    default_ranker,
    gate;
    maps: upstreams
});

/// `addr = "HOST:PORT"`.
pub(super) fn address<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<std::net::SocketAddr>, D::Error> {
    file_value::parsed(d, "an IP address and a port (HOST:PORT)").map(Some)
}

/// A ranker flag's help: `text`, then the rankers it takes.
pub(super) fn rankers(text: &str, rankers: &[crate::engine::Ranker]) -> String {
    let names: Vec<String> = rankers.iter().map(ToString::to_string).collect();
    format!("{text}: {}", names.join(" | "))
}

/// A switch's value on the command line: on, off, true or false.
pub fn switch(text: &str) -> Result<bool, NotASwitch> {
    match text {
        "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        _ => Err(NotASwitch(text.to_string())),
    }
}

/// A switch's value that is none of on, off, true or false.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be on or off, not {0:?}")]
pub struct NotASwitch(pub String);

/// One provider's upstream in the config file.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamSection {
    /// The provider API's base URL, or "none" for no pass-through.
    pub url: Option<String>,
    /// An environment variable holding the upstream key.
    pub key_env: Option<String>,
}
