//! Catalogs from live MCP servers, with the official Rust SDK (`rmcp`):
//! start or connect to each configured server in parallel, list every page
//! of its tools, and turn them into a [`Catalog`] through the MCP importer
//! (so a hostile server's names and schemas get the same checks as a file's).
//! The connections stay open in an [`McpHost`] for real tool calls.
//!
//! Child processes never outlive toolsift: each runs in its own process
//! group, which is killed when the host is dropped, on a panic, and on
//! SIGINT, SIGTERM or SIGHUP ([`install_exit_guards`]).

pub mod config;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{
    StreamableHttpClientTransport, TokioChildProcess,
    streamable_http_client::StreamableHttpClientTransportConfig,
};
use serde_json::Value;
use tokio::io::AsyncReadExt;

use crate::catalog::{self, Catalog, McpOrigin, SourceKind, Tool};
pub use config::{McpConfig, McpConfigError, McpServer, Transport};

/// How much of a server's stderr is kept for its error report.
const STDERR_TAIL_BYTES: usize = 2048;

/// What became of one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    Loaded {
        tools: usize,
        /// Tools renamed `server__tool` because another server has the name.
        prefixed: usize,
        /// The lints of hidden text in its tools (tag, zero-width, invisible
        /// or bidi characters), as sentences naming the tool and field; not
        /// escaped (the catalog's text is quoted raw).
        hidden_text: Vec<String>,
    },
    Failed {
        why: String,
        /// The last lines the server wrote on stderr.
        stderr_tail: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    pub name: String,
    pub state: ServerState,
}

impl ServerStatus {
    /// One line for a warning or a header: `time: 2 tools`, `git: failed: ...`.
    pub fn summary(&self) -> String {
        match &self.state {
            ServerState::Loaded {
                tools,
                prefixed,
                hidden_text,
            } => {
                let mut s = format!("{}: {tools} tools", self.name);
                if *prefixed > 0 {
                    s.push_str(&format!(
                        " ({prefixed} prefixed {}__ because another server has the name)",
                        self.name
                    ));
                }
                match hidden_text.len() {
                    0 => {}
                    1 => s.push_str("; 1 warning of hidden text"),
                    n => s.push_str(&format!("; {n} warnings of hidden text")),
                }
                s
            }
            ServerState::Failed { .. } => {
                format!(
                    "{}: failed: {}",
                    self.name,
                    self.failure().unwrap_or_default()
                )
            }
        }
    }

    /// The warnings about the tools it listed (hidden text), as sentences
    /// naming the tool and field (to escape before printing).
    pub fn warnings(&self) -> &[String] {
        match &self.state {
            ServerState::Loaded { hidden_text, .. } => hidden_text,
            ServerState::Failed { .. } => &[],
        }
    }

    /// Why the server failed, with the end of its stderr; `None` if it loaded.
    pub fn failure(&self) -> Option<String> {
        let ServerState::Failed { why, stderr_tail } = &self.state else {
            return None;
        };
        let tail = stderr_tail.trim();
        Some(if tail.is_empty() {
            why.clone()
        } else {
            format!("{why}; its stderr ended with: {tail}")
        })
    }
}

/// The tools gathered and what became of each server.
#[derive(Debug)]
pub struct Gathered {
    /// `None` when no server loaded a tool.
    pub catalog: Option<Catalog>,
    pub servers: Vec<ServerStatus>,
}

/// A tool call's outcome as the server gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    /// MCP `isError`: the tool ran and reported a failure.
    pub is_error: bool,
    /// The text content, joined; other content as JSON.
    pub text: String,
    /// The whole result.
    pub raw: Value,
}

/// Why a call did not happen or did not finish.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpCallError {
    #[error("no connection to MCP server {0:?} (it did not load)")]
    NoServer(String),
    #[error("MCP server {server:?}: {message}")]
    Failed { server: String, message: String },
    #[error("MCP server {server:?} did not answer within {secs} s")]
    Timeout { server: String, secs: u64 },
}

type Client = RunningService<RoleClient, ()>;

/// Live connections to MCP servers, on a runtime of their own (so any
/// thread, inside another runtime or not, can use them).
pub struct McpHost {
    runtime: Option<tokio::runtime::Runtime>,
    clients: Mutex<HashMap<String, Arc<Client>>>,
    groups: Mutex<Vec<i32>>,
    call_timeout: Duration,
}

impl std::fmt::Debug for McpHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let servers: Vec<String> = self
            .clients
            .lock()
            .map(|c| c.keys().cloned().collect())
            .unwrap_or_default();
        f.debug_struct("McpHost")
            .field("servers", &servers)
            .finish()
    }
}

/// Process groups of every server started, for the exit guards.
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

fn register_group(pgid: i32) {
    if let Ok(mut g) = GROUPS.lock() {
        g.push(pgid);
    }
}

fn kill_group(pgid: i32) {
    if pgid > 1 {
        // SAFETY: killpg only sends a signal to the process group we created.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

/// Kills every MCP server process group still registered.
pub fn kill_all_servers() {
    let groups = GROUPS
        .lock()
        .map(|mut g| std::mem::take(&mut *g))
        .unwrap_or_default();
    for pgid in groups {
        kill_group(pgid);
    }
}

/// Kills the servers on a panic and on SIGINT, SIGTERM or SIGHUP (then runs
/// `on_signal`, e.g. to restore the terminal, and exits 128 + signal).
pub fn install_exit_guards(on_signal: fn()) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            kill_all_servers();
            previous(info);
        }));
        let _ = std::thread::Builder::new()
            .name("toolsift-signals".into())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return;
                };
                rt.block_on(async {
                    use tokio::signal::unix::{SignalKind, signal};
                    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
                        signal(SignalKind::interrupt()),
                        signal(SignalKind::terminate()),
                        signal(SignalKind::hangup()),
                    ) else {
                        return;
                    };
                    let code = tokio::select! {
                        _ = int.recv() => 130,
                        _ = term.recv() => 143,
                        _ = hup.recv() => 129,
                    };
                    kill_all_servers();
                    on_signal();
                    std::process::exit(code);
                });
            });
    });
}

impl McpHost {
    /// A host with its own runtime; `call_timeout` bounds each tool call.
    pub fn new(call_timeout: Duration) -> std::io::Result<McpHost> {
        crate::tls::install_provider();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("toolsift-mcp")
            .enable_all()
            .build()?;
        Ok(McpHost {
            runtime: Some(runtime),
            clients: Mutex::new(HashMap::new()),
            groups: Mutex::new(Vec::new()),
            call_timeout,
        })
    }

    fn handle(&self) -> &tokio::runtime::Handle {
        // The runtime is only taken in drop.
        self.runtime
            .as_ref()
            .map(|r| r.handle())
            .expect("runtime present until drop")
    }

    /// Runs `fut` on the host's runtime and waits for it from any thread.
    fn wait<T: Send + 'static>(
        &self,
        fut: impl std::future::Future<Output = T> + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.handle().spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv().ok()
    }

    /// Starts or connects to every server of `config` in parallel, each
    /// within the config's time limit, and gathers their tools.
    pub fn gather(&self, config: &McpConfig) -> Gathered {
        let timeout = config.timeout;
        let servers = config.servers.clone();
        let results = self
            .wait(async move {
                let tasks = servers.into_iter().map(|server| async move {
                    let outcome = connect_and_list(&server, timeout).await;
                    (server, outcome)
                });
                futures_util::future::join_all(tasks).await
            })
            .unwrap_or_default();
        let mut listed: Vec<(McpServer, Vec<rmcp::model::Tool>)> = Vec::new();
        let mut statuses: Vec<ServerStatus> = Vec::new();
        for (server, outcome) in results {
            match outcome {
                Ok(connected) => {
                    if let (Some(pgid), Ok(mut g)) = (connected.pgid, self.groups.lock()) {
                        g.push(pgid);
                    }
                    if let Ok(mut c) = self.clients.lock() {
                        c.insert(server.name.clone(), Arc::new(connected.client));
                    }
                    statuses.push(ServerStatus {
                        name: server.name.clone(),
                        state: ServerState::Loaded {
                            tools: connected.tools.len(),
                            prefixed: 0,
                            hidden_text: Vec::new(),
                        },
                    });
                    listed.push((server, connected.tools));
                }
                Err(failure) => {
                    if let Some(pgid) = failure.pgid {
                        kill_group(pgid);
                    }
                    statuses.push(ServerStatus {
                        name: server.name.clone(),
                        state: ServerState::Failed {
                            why: failure.why,
                            stderr_tail: failure.stderr_tail,
                        },
                    });
                }
            }
        }
        let (catalog, failed) = build_catalog(listed, &config.always_load, &mut statuses);
        for server in failed {
            self.disconnect(&server);
        }
        Gathered {
            catalog,
            servers: statuses,
        }
    }

    /// Closes the connection to `server` (its process is killed).
    pub fn disconnect(&self, server: &str) {
        if let Ok(mut c) = self.clients.lock() {
            c.remove(server);
        }
    }

    /// Calls `tool` (its name on the server) of `server` with `arguments`.
    pub fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<CallOutcome, McpCallError> {
        let client = self
            .clients
            .lock()
            .ok()
            .and_then(|c| c.get(server).cloned())
            .ok_or_else(|| McpCallError::NoServer(server.to_string()))?;
        let limit = self.call_timeout;
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let name = server.to_string();
        let answer = self
            .wait(async move { tokio::time::timeout(limit, client.call_tool(params)).await })
            .ok_or_else(|| McpCallError::Failed {
                server: name.clone(),
                message: "the connection task ended".into(),
            })?;
        let result = match answer {
            Err(_) => {
                return Err(McpCallError::Timeout {
                    server: name,
                    secs: limit.as_secs(),
                });
            }
            Ok(Err(e)) => {
                return Err(McpCallError::Failed {
                    server: name,
                    message: e.to_string(),
                });
            }
            Ok(Ok(result)) => result,
        };
        let raw = serde_json::to_value(&result).unwrap_or(Value::Null);
        let text = raw
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .map(|b| match b.get("text").and_then(Value::as_str) {
                        Some(t) => t.to_string(),
                        None => b.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        Ok(CallOutcome {
            is_error: result.is_error.unwrap_or(false),
            text,
            raw,
        })
    }
}

impl Drop for McpHost {
    fn drop(&mut self) {
        if let Ok(mut c) = self.clients.lock() {
            c.clear();
        }
        for pgid in self
            .groups
            .lock()
            .map(|mut g| std::mem::take(&mut *g))
            .unwrap_or_default()
        {
            kill_group(pgid);
        }
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

struct Connected {
    client: Client,
    tools: Vec<rmcp::model::Tool>,
    pgid: Option<i32>,
}

struct Failure {
    why: String,
    stderr_tail: String,
    pgid: Option<i32>,
}

/// Connects to one server and lists every page of its tools, within `limit`.
async fn connect_and_list(server: &McpServer, limit: Duration) -> Result<Connected, Failure> {
    match &server.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args).envs(env).kill_on_drop(true).process_group(0);
            if let Some(dir) = cwd {
                cmd.current_dir(dir);
            }
            let spawned = TokioChildProcess::builder(cmd)
                .stderr(std::process::Stdio::piped())
                .spawn();
            let (process, stderr) = match spawned {
                Ok(p) => p,
                Err(e) => {
                    return Err(Failure {
                        why: format!("cannot start {command:?}: {e}"),
                        stderr_tail: String::new(),
                        pgid: None,
                    });
                }
            };
            let pgid = process.id().and_then(|id| i32::try_from(id).ok());
            if let Some(p) = pgid {
                register_group(p);
            }
            let tail = Arc::new(Mutex::new(Vec::<u8>::new()));
            if let Some(mut stderr) = stderr {
                let sink = tail.clone();
                tokio::spawn(async move {
                    let mut buf = [0u8; 1024];
                    while let Ok(n) = stderr.read(&mut buf).await {
                        if n == 0 {
                            break;
                        }
                        if let Ok(mut t) = sink.lock() {
                            t.extend_from_slice(&buf[..n]);
                            let excess = t.len().saturating_sub(STDERR_TAIL_BYTES);
                            t.drain(..excess);
                        }
                    }
                });
            }
            let outcome = tokio::time::timeout(limit, async {
                let client = ().serve(process).await.map_err(|e| e.to_string())?;
                let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
                Ok::<_, String>((client, tools))
            })
            .await;
            if !matches!(outcome, Ok(Ok(_))) {
                // Give the reader a moment to catch the last words.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            let stderr_tail = || {
                tail.lock()
                    .map(|t| String::from_utf8_lossy(&t).into_owned())
                    .unwrap_or_default()
            };
            match outcome {
                Ok(Ok((client, tools))) => Ok(Connected {
                    client,
                    tools,
                    pgid,
                }),
                Ok(Err(why)) => Err(Failure {
                    why: describe_failure(&why),
                    stderr_tail: stderr_tail(),
                    pgid,
                }),
                Err(_) => Err(Failure {
                    why: format!("did not answer within {} s", limit.as_secs_f64()),
                    stderr_tail: stderr_tail(),
                    pgid,
                }),
            }
        }
        Transport::Http { url, headers } => {
            let mut custom = HashMap::new();
            for (k, v) in headers {
                let name = reqwest::header::HeaderName::from_bytes(k.as_bytes());
                let value = reqwest::header::HeaderValue::from_str(v);
                match (name, value) {
                    (Ok(n), Ok(v)) => {
                        custom.insert(n, v);
                    }
                    _ => {
                        return Err(Failure {
                            why: format!("header {k:?} is not a valid HTTP header"),
                            stderr_tail: String::new(),
                            pgid: None,
                        });
                    }
                }
            }
            let config =
                StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
            let transport = StreamableHttpClientTransport::from_config(config);
            let outcome = tokio::time::timeout(limit, async {
                let client = ().serve(transport).await.map_err(|e| e.to_string())?;
                let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
                Ok::<_, String>((client, tools))
            })
            .await;
            match outcome {
                Ok(Ok((client, tools))) => Ok(Connected {
                    client,
                    tools,
                    pgid: None,
                }),
                Ok(Err(why)) => Err(Failure {
                    why: describe_failure(&why),
                    stderr_tail: String::new(),
                    pgid: None,
                }),
                Err(_) => Err(Failure {
                    why: format!("did not answer within {} s", limit.as_secs_f64()),
                    stderr_tail: String::new(),
                    pgid: None,
                }),
            }
        }
    }
}

fn describe_failure(why: &str) -> String {
    let why = why.trim();
    if why.is_empty() {
        "the connection closed during the handshake".into()
    } else if why.contains("Broken pipe") || why.contains("connection closed") {
        format!("it exited or closed its input before answering the handshake ({why})")
    } else {
        why.to_string()
    }
}

/// The servers' tools as one catalog: each server's list through the MCP
/// importer (a server whose list fails its checks is failed, naming the
/// tool and field), names present in two servers prefixed `server__` in
/// both, always-load from the config. Returns the failed servers too.
fn build_catalog(
    listed: Vec<(McpServer, Vec<rmcp::model::Tool>)>,
    always_load: &[String],
    statuses: &mut [ServerStatus],
) -> (Option<Catalog>, Vec<String>) {
    let mut failed = Vec::new();
    let mut fail = |statuses: &mut [ServerStatus], server: &str, why: String| {
        if let Some(s) = statuses.iter_mut().find(|s| s.name == server) {
            s.state = ServerState::Failed {
                why,
                stderr_tail: String::new(),
            };
        }
        failed.push(server.to_string());
    };
    let mut per_server: Vec<(McpServer, Vec<Tool>)> = Vec::new();
    for (server, tools) in listed {
        if tools.is_empty() {
            per_server.push((server, Vec::new()));
            continue;
        }
        let text = match serde_json::to_string(&tools) {
            Ok(t) => t,
            Err(e) => {
                fail(statuses, &server.name, e.to_string());
                continue;
            }
        };
        let origin = format!("MCP server {}", server.name);
        let imported = match catalog::parse(&text, &origin, &server.name, SourceKind::Json) {
            Ok(c) => c.tools().to_vec(),
            Err(e) => {
                fail(
                    statuses,
                    &server.name,
                    format!("its tools/list is not a valid catalog: {e}"),
                );
                continue;
            }
        };
        let server_name: Arc<str> = Arc::from(server.name.as_str());
        let with_origin = imported
            .into_iter()
            .zip(&tools)
            .map(|(mut tool, listed)| {
                tool.mcp = Some(McpOrigin {
                    server: server_name.clone(),
                    name: tool.name.clone(),
                    title: listed
                        .title
                        .clone()
                        .or_else(|| listed.annotations.as_ref().and_then(|a| a.title.clone())),
                });
                tool
            })
            .collect();
        per_server.push((server, with_origin));
    }
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for (_, tools) in &per_server {
        for t in tools {
            *count.entry(t.name.clone()).or_default() += 1;
        }
    }
    let mut all = Vec::new();
    for (server, tools) in per_server {
        let mut prefixed = 0;
        let mut hidden_text = Vec::new();
        let n = tools.len();
        for mut tool in tools {
            if count.get(&tool.name).copied().unwrap_or(0) > 1 {
                tool.name = format!("{}__{}", server.name, tool.name);
                prefixed += 1;
            }
            // A server's tools reach the model as it wrote them: what they
            // hide is reported with the server.
            hidden_text.extend(
                catalog::lint_tool(&tool)
                    .iter()
                    .filter(|l| l.hidden_text)
                    .map(ToString::to_string),
            );
            tool.always_load = tool.always_load
                || server.always_load
                || always_load
                    .iter()
                    .any(|p| matches_pattern(p, &server.name, &tool));
            all.push(tool);
        }
        if let Some(s) = statuses.iter_mut().find(|s| s.name == server.name) {
            s.state = ServerState::Loaded {
                tools: n,
                prefixed,
                hidden_text,
            };
        }
    }
    if all.is_empty() {
        return (None, failed);
    }
    let names: Vec<&str> = statuses
        .iter()
        .filter(|s| matches!(s.state, ServerState::Loaded { .. }))
        .map(|s| s.name.as_str())
        .collect();
    let name = format!("mcp: {}", names.join(", "));
    match Catalog::build(name, all, vec![catalog::Format::Mcp], Vec::new(), "") {
        Ok(c) => (Some(c), failed),
        Err(e) => {
            // Only a prefixed name that another server also uses gets here.
            for s in statuses.iter_mut() {
                if matches!(s.state, ServerState::Loaded { .. }) {
                    s.state = ServerState::Failed {
                        why: format!("the servers' tools do not form one catalog: {e}"),
                        stderr_tail: String::new(),
                    };
                    failed.push(s.name.clone());
                }
            }
            (None, failed)
        }
    }
}

/// `server/*`, `server/tool`, or `tool` (the server's name for it or the
/// catalog's).
fn matches_pattern(pattern: &str, server: &str, tool: &Tool) -> bool {
    let original = tool
        .mcp
        .as_ref()
        .map_or(tool.name.as_str(), |m| m.name.as_str());
    match pattern.split_once('/') {
        Some((s, "*")) => s == server,
        Some((s, t)) => s == server && (t == original || t == tool.name),
        None => pattern == original || pattern == tool.name,
    }
}

#[cfg(test)]
mod tests;
