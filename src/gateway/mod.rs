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
mod approve;
mod call;
mod compact;
mod describe;
mod drain;
mod error;
mod find;
mod first_view;
mod hidden;
mod http;
mod http_sessions;
mod http_wire;
mod meta;
mod offered;
mod prefix;
mod record;
mod recursion;
mod relayed;
mod reload;
mod rounds;
mod rule_warnings;
mod rules;
mod saving;
mod session;
mod settings;
mod stdio;
mod validate;

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use crate::catalog::Catalog;
use crate::engine::Ranker;
use crate::service::{Service, ServiceConfig};
use crate::sources::mcp::{Gathered, McpHost};

pub use approve::TOOL_META;
pub use drain::{DEFAULT_SHUTDOWN_GRACE, Drain, Stopped};
pub use error::GatewayError;
pub use hidden::{HiddenCounts, HiddenText};
pub use http::{HttpConfig, MCP_PATH, bind, check_bind, serve_http, serve_http_on};
pub use http_sessions::{DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SESSIONS_PER_KEY, SessionLimits};
pub use meta::{CALL_READ_TOOL, CALL_TOOL, SEARCH_TOOLS};
pub use record::{Log, Recorder};
pub use recursion::{PARENT_VAR, starts_a_gateway};
pub use rules::{ToolRule, ToolRules};
pub use saving::{ListSaving, list_saving};
pub use session::GatewaySession;
pub use settings::check_max_tools;
pub use stdio::serve_stdio;

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
        }
    }
}

/// The catalog as of the last listing, with what the servers wrote.
pub(crate) struct Snapshot {
    pub(crate) catalog: Arc<Catalog>,
    /// Each catalog tool as its server listed it (renamed when prefixed).
    pub(crate) listed: Vec<rmcp::model::Tool>,
    pub(crate) validators: validate::Validators,
    /// `search_tools`'s description, made from this catalog.
    pub(crate) search_description: String,
    /// Per tool: whether `call_read_tool` runs it (marked read-only and
    /// closed-world by its server, or a `read` rule vouches for it).
    pub(crate) reads: Vec<bool>,
    /// Per tool: whether an `ask` rule holds it until the user approves.
    pub(crate) asks: Vec<bool>,
}

impl Snapshot {
    fn new(catalog: Arc<Catalog>, host: &McpHost, config: &GatewayConfig) -> Snapshot {
        let hidden_text = config.hidden_text;
        let by_origin = host.listed_by_origin();
        let listed = catalog
            .tools()
            .iter()
            .map(|t| {
                let mut listed = meta::upstream_definition(t, &by_origin);
                hidden::clean_listed(&mut listed, hidden_text);
                listed
            })
            .collect();
        let validators = validate::Validators::new(catalog.len());
        let reads = catalog
            .tools()
            .iter()
            .zip(&listed)
            .map(|(t, l)| {
                config.rules.rule_for(t) == ToolRule::Read || call::not_a_plain_read(t, l).is_none()
            })
            .collect();
        let asks = catalog
            .tools()
            .iter()
            .map(|t| config.rules.rule_for(t) == ToolRule::Ask)
            .collect();
        let search_description =
            describe::search_description(&catalog, &first_view::states_of(host));
        Snapshot {
            catalog,
            listed,
            validators,
            search_description,
            reads,
            asks,
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
    stateless: Mutex<HashMap<String, Arc<call::SessionBreaker>>>,
    /// The catalog files' tools, merged again after each change.
    files: Vec<Catalog>,
    /// The tools of the catalog in use that hid text (for /metrics).
    hidden: Mutex<hidden::HiddenCounts>,
    /// Which server a resource read or prompt get goes to.
    routes: Mutex<offered::Routes>,
    /// `search_tools`' description as of now, followed by the sessions
    /// that announce its changes.
    description: tokio::sync::watch::Sender<String>,
    /// The servers starting and down when the description was made.
    described_states: Mutex<first_view::NotUp>,
    /// The questions of `ask` rules awaiting a 2026-07-28 host's retry.
    pub(crate) pending_asks: approve::PendingAsks,
    /// 2026-07-28 calls waiting for their host's answer to their server's
    /// request (`input_required` rounds).
    pub(crate) rounds: rounds::Rounds,
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
        let (catalog, hidden) = hidden::sanitize(
            without_denied(all, &config.rules)?,
            config.hidden_text,
            &recorder,
        )?;
        let snapshot = Arc::new(Snapshot::new(Arc::new(catalog), &host, &config));
        let description = tokio::sync::watch::Sender::new(snapshot.search_description.clone());
        let states = first_view::states_of(&host);
        let gateway = Gateway {
            description,
            described_states: Mutex::new(states),
            pending_asks: approve::PendingAsks::default(),
            rounds: rounds::Rounds::default(),
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
    pub(crate) fn stateless_breaker(&self, scope: &str) -> Arc<call::SessionBreaker> {
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
    pub fn hidden_counts(&self) -> hidden::HiddenCounts {
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

    /// Lists `server` again and, when the catalog changed, swaps in the new
    /// one (the rankers are cached by fingerprint, so the next search
    /// indexes it once). Returns whether anything changed.
    pub async fn relist(&self, server: &str) -> Result<bool, crate::sources::mcp::RelistError> {
        self.host.relist(server).await?;
        Ok(self.reindex())
    }

    /// Swaps in the catalog of the servers' last listings (a restart may
    /// have listed them already) when it differs from the one in use.
    pub fn reindex(&self) -> bool {
        let Gathered { catalog, servers } = self.host.rebuild();
        let all = merged(catalog, &self.files).map(|(c, _)| c);
        if let Ok(all) = &all {
            self.warn_rules_when_answered(all.tools());
        }
        let (catalog, hidden) = match all
            .and_then(|c| without_denied(c, &self.config.rules))
            .and_then(|c| hidden::sanitize(c, self.config.hidden_text, &self.recorder))
        {
            Ok(c) => c,
            Err(e) => {
                self.recorder.warn(&format!(
                    "after a change the tools do not form a catalog ({e}); keeping the last one"
                ));
                return false;
            }
        };
        if catalog.fingerprint() == self.snapshot().catalog.fingerprint() {
            self.refresh_description();
            return false;
        }
        let tools = catalog.len();
        let snapshot = Arc::new(Snapshot::new(Arc::new(catalog), &self.host, &self.config));
        *self.hidden.lock().unwrap_or_else(|p| p.into_inner()) = hidden;
        let description = snapshot.search_description.clone();
        *self.snapshot.write().unwrap_or_else(|p| p.into_inner()) = snapshot;
        self.adopt_description(description);
        let names: Vec<String> = servers.iter().map(|s| s.summary()).collect();
        self.recorder.info(&format!(
            "re-indexed: {} ({})",
            crate::numbers::counted(tools, "tool"),
            names.join("; ")
        ));
        for s in &servers {
            if let crate::sources::mcp::ServerState::Loaded { skipped, .. } = &s.state {
                for why in skipped {
                    self.recorder.warn(&format!(
                        "MCP server {}: {}",
                        crate::terminal_text::escape(&s.name),
                        crate::terminal_text::escape(why)
                    ));
                }
            }
        }
        true
    }

    /// Follows the servers' `list_changed` notifications (and restarts that
    /// found a different list) for as long as `changes` is open.
    pub async fn follow_changes(
        self: Arc<Self>,
        mut changes: tokio::sync::mpsc::UnboundedReceiver<String>,
    ) {
        // A server's state can change without a listing (starting, then
        // down): the description follows it too.
        let mut states = tokio::time::interval(first_view::STATES_EVERY);
        loop {
            tokio::select! {
                server = changes.recv() => {
                    let Some(server) = server else { return };
                    if let Err(e) = self.relist(&server).await {
                        self.recorder.warn(&format!(
                            "{server}: listing its tools again after a change failed: {e}"
                        ));
                    }
                }
                _ = states.tick() => {
                    self.refresh_description();
                    if self.rules_warnings_pending() {
                        self.reindex();
                    }
                }
            }
        }
    }
}

/// The MCP servers' catalog and the files' as one (while the servers are
/// still starting, the files' alone, or an empty one: their tools join as
/// they come). A server's tool named as a file's takes its server's
/// prefix, and a sentence says so.
fn merged(mcp: Option<Catalog>, files: &[Catalog]) -> Result<(Catalog, Vec<String>), GatewayError> {
    Ok(crate::sources::mcp::merge_beside_files(mcp, files)?)
}

/// The most tools the gateway's catalog can hold, which `search_tools`
/// searches whole: the servers' share ([`MAX_CATALOG_TOOLS`], each server
/// at most [`crate::sources::mcp::MAX_SERVER_TOOLS`]) and the catalog
/// files' tools. Not `serve`'s limit on a request's catalog: this one is
/// the gateway's own, built here.
///
/// [`MAX_CATALOG_TOOLS`]: crate::sources::mcp::MAX_CATALOG_TOOLS
fn catalog_bound(files: &[Catalog]) -> usize {
    crate::sources::mcp::MAX_CATALOG_TOOLS + files.iter().map(Catalog::len).sum::<usize>()
}

/// `catalog` without the tools a rule denies.
fn without_denied(catalog: Catalog, rules: &ToolRules) -> Result<Catalog, GatewayError> {
    let denied = |t: &crate::catalog::Tool| rules.rule_for(t) == ToolRule::Deny;
    if rules.is_empty() || catalog.is_empty() || !catalog.tools().iter().any(denied) {
        return Ok(catalog);
    }
    let kept: Vec<crate::catalog::Tool> = catalog
        .tools()
        .iter()
        .filter(|t| !denied(t))
        .cloned()
        .collect();
    if kept.is_empty() {
        return Err(GatewayError::AllDenied {
            tools: catalog.len(),
        });
    }
    Ok(Catalog::new(catalog.name(), kept)?)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_rules;
