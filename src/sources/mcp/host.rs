//! Live connections to MCP servers: gathering their tools in parallel, and
//! real tool calls.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use serde_json::Value;

use super::connect::{Client, connect_and_list};
use super::listed::build_catalog;
use super::reaper::kill_group;
use super::{CallOutcome, Gathered, McpCallError, McpConfig, McpServer, ServerState, ServerStatus};

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
