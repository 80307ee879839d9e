//! `toolsift gateway`: an MCP server in front of the user's MCP servers.
//! The host sees the always-load tools and three meta-tools, `search_tools`
//! (the engine's ranking, with the relevance gate), `call_read_tool` (the
//! reads that stay on this machine) and `call_tool` (any tool; the name and
//! arguments checked, the call made through the session's retry-loop
//! breaker). Upstream faults come back as `isError` results
//! naming the server; a server whose tools change is listed again and the
//! catalog re-indexed. The servers' resources and prompts are passed on,
//! and so are a call's progress reports and its cancellation.
//!
//! Transport-free here: [`session::GatewaySession`] is the rmcp handler of
//! one MCP session; `stdio.rs` and `http.rs` serve it.

mod answer;
mod error;
mod logins;
mod own_logins;
mod policy;
mod record;
mod reload;
mod saving;
mod session;
mod settings;
mod snapshot;
mod transport;
mod view;

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use crate::catalog::Catalog;
use crate::engine::Ranker;
use crate::service::{Service, ServiceConfig};
use crate::sources::mcp::McpHost;

pub use answer::meta::{CALL_READ_TOOL, CALL_TOOL, SEARCH_TOOLS};
pub use error::GatewayError;
pub use logins::key_logins;
pub use policy::access::{Access, AccessError, Reach};
pub use policy::approve::TOOL_META;
pub use policy::hidden::{HiddenCounts, HiddenText};
pub use policy::recursion::{PARENT_VAR, starts_a_gateway};
pub use policy::rules::{ToolRule, ToolRules};
pub use record::{Log, Recorder};
pub use saving::{ListSaving, list_saving};
pub use session::GatewaySession;
pub use settings::check_max_tools;
pub(crate) use snapshot::Snapshot;
use snapshot::{catalog_bound, merged, without_denied};
pub use transport::drain::{DEFAULT_SHUTDOWN_GRACE, Drain, Stopped};
pub use transport::http::{HttpConfig, MCP_PATH, bind, check_bind, serve_http, serve_http_on};
pub use transport::http_sessions::{
    DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SESSIONS_PER_KEY, SessionLimits,
};
pub use transport::stdio::serve_stdio;

/// The SDK's `retry_loop_breaker()` threshold, for both kinds of tool.
pub const DEFAULT_BREAKER_THRESHOLD: u32 = 3;
/// The longest a tool call may take upstream, unless configured.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// `search_tools` answers at most this many tools unless configured: the
/// service's default, one for every front end.
pub use crate::service::DEFAULT_MAX_TOOLS;
/// How long the gateway's start waits for its servers before it answers
/// the host, unless told (`--start-wait`); a server slower than that joins
/// when it has listed its tools.
pub const START_WAIT: Duration = Duration::from_secs(2);
/// The largest `max_tools` the gateway takes (in the limit table).
pub use crate::tools_handle::GATEWAY_MAX_TOOLS;

/// What the gateway does, from flags and `[gateway]`.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    /// Tools `search_tools` answers at most (its `limit` may ask fewer).
    pub max_tools: crate::tools_handle::MaxTools,
    pub ranker: Ranker,
    /// The service behind `search_tools` (embeddings, token basis; the gate
    /// is on unless turned off).
    pub service: ServiceConfig,
    pub breaker_threshold: u32,
    pub breaker_threshold_read_only: u32,
    /// Found tools join the session's `tools/list` (with
    /// `notifications/tools/list_changed`), for hosts that honour it.
    pub expose_found: bool,
    /// `--learn` pairs shared by every API key (off: each key's own).
    pub learn_shared: bool,
    /// Per-tool rules: allow, deny (left out of the catalog), ask.
    pub rules: ToolRules,
    /// What the host receives of a tool whose text hides something.
    pub hidden_text: HiddenText,
    /// Strip hidden text from call results (`--hidden-text-results`).
    pub hidden_text_results: bool,
    /// The named API keys and what each may reach (over HTTP).
    pub access: Access,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        GatewayConfig {
            max_tools: DEFAULT_MAX_TOOLS,
            ranker: Ranker::Bm25,
            service: ServiceConfig {
                gate: crate::service::GATE_IN_PROCESS,
                ..ServiceConfig::default()
            },
            breaker_threshold: DEFAULT_BREAKER_THRESHOLD,
            breaker_threshold_read_only: DEFAULT_BREAKER_THRESHOLD,
            expose_found: false,
            learn_shared: false,
            rules: ToolRules::default(),
            hidden_text: HiddenText::default(),
            hidden_text_results: true,
            access: Access::default(),
        }
    }
}

/// The gateway's state, shared by every session.
pub struct Gateway {
    pub(crate) config: GatewayConfig,
    pub(crate) host: Arc<McpHost>,
    pub(crate) service: Arc<Service>,
    snapshot: RwLock<Arc<Snapshot>>,
    pub(crate) recorder: Recorder,
    /// Over HTTP on 2026-07-28 (no sessions): one breaker per API key.
    stateless: Mutex<HashMap<String, Arc<answer::call::SessionBreaker>>>,
    /// The catalog files' tools, merged again after each change.
    files: Vec<Catalog>,
    /// The tools of the catalog in use that hid text (for /metrics).
    hidden: Mutex<policy::hidden::HiddenCounts>,
    /// Which server a resource read or prompt get goes to, per reach
    /// (keys that reach alike share one; "" for everything).
    routes: Mutex<HashMap<String, answer::offered::Routes>>,
    /// Each limited reach's view of the catalog in use, and the snapshot
    /// it was cut from.
    views: Mutex<HashMap<String, view::Cut>>,
    /// `search_tools`' description as of now, followed by the sessions
    /// that announce its changes.
    description: tokio::sync::watch::Sender<String>,
    /// The servers starting and down when the description was made.
    described_states: Mutex<answer::first_view::NotUp>,
    /// The questions of `ask` rules awaiting a 2026-07-28 host's retry.
    pub(crate) pending_asks: policy::approve::PendingAsks,
    /// 2026-07-28 calls waiting for their host's answer to their server's
    /// request (`input_required` rounds).
    pub(crate) rounds: answer::rounds::Rounds,
    /// The calls in flight, for a stop that lets them finish.
    pub(crate) drain: Arc<Drain>,
    /// With `--learn`: each session's last search request, which a call
    /// that answers pairs with the tool it called.
    /// Each session's last search and the key that made it (`--learn`).
    pub(crate) last_search: Mutex<HashMap<String, (String, Option<String>)>>,
    /// Whether the tool rules' warnings were said (once the servers
    /// answered, `rule_warnings.rs`).
    rules_warned: AtomicBool,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("tools", &self.snapshot().catalog.len())
            .finish()
    }
}

impl Gateway {
    /// A gateway over what `host` gathered (`mcp`) and the tools of catalog
    /// `files` (searchable; a call answers their `handler.result`).
    pub fn new(
        config: GatewayConfig,
        host: Arc<McpHost>,
        mcp: Option<Catalog>,
        files: Vec<Catalog>,
        recorder: Recorder,
    ) -> Result<Gateway, GatewayError> {
        let (all, notes) = merged(mcp, &files)?;
        for note in notes {
            recorder.info(&crate::terminal_text::escape(&note));
        }
        let tools = all.tools().to_vec();
        let (catalog, hidden) = policy::hidden::sanitize(
            without_denied(all, &config.rules)?,
            config.hidden_text,
            &recorder,
        )?;
        let snapshot = Arc::new(Snapshot::new(Arc::new(catalog), &host, &config));
        let description = tokio::sync::watch::Sender::new(snapshot.search_description.clone());
        let states = answer::first_view::states_of(&host);
        let gateway = Gateway {
            description,
            described_states: Mutex::new(states),
            pending_asks: policy::approve::PendingAsks::default(),
            rounds: answer::rounds::Rounds::default(),
            service: Arc::new(Service::new(ServiceConfig {
                max_catalog_tools: catalog_bound(&files),
                ..config.service.clone()
            })),
            config,
            host,
            snapshot: RwLock::new(snapshot),
            recorder,
            stateless: Mutex::new(HashMap::new()),
            files,
            hidden: Mutex::new(hidden),
            routes: Mutex::default(),
            views: Mutex::default(),
            drain: Arc::default(),
            last_search: Mutex::default(),
            rules_warned: AtomicBool::new(false),
        };
        gateway.warn_rules_when_answered(&tools);
        Ok(gateway)
    }

    /// The calls in flight: [`Drain::stop`] lets them finish on a signal.
    pub fn drain(&self) -> Arc<Drain> {
        self.drain.clone()
    }

    /// The breaker of sessionless calls made with API key `scope` (one per
    /// configured key, so the map stays as small as the key list).
    pub(crate) fn stateless_breaker(&self, scope: &str) -> Arc<answer::call::SessionBreaker> {
        self.stateless
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(scope.to_string())
            .or_insert_with(|| Arc::new(self.new_breaker()))
            .clone()
    }

    /// The catalog and definitions as of now.
    pub(crate) fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The log, trace and counters.
    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// How many tools of the catalog in use hid text (cleaned, left out).
    pub fn hidden_counts(&self) -> policy::hidden::HiddenCounts {
        *self.hidden.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Each server's state as of now (loaded, starting, failed).
    pub fn server_states(&self) -> Vec<crate::sources::mcp::ServerStatus> {
        self.host.states()
    }

    /// The catalog as of now.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.snapshot().catalog.clone()
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_rules;
