//! Tool calls: to a live connection, within the call time limit; a server
//! that exited is started again on its next call (a few times in a row,
//! then once a minute).

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::Value;

use super::connect::{Client, connect_and_list};
use super::host::{Shared, lock};
use super::{CallOutcome, McpCallError, McpHost};

/// Restarts tried in a row (with no call reaching the server between them)
/// before a server waits [`RESTART_PAUSE`] for the next.
pub const MAX_RESTARTS_IN_A_ROW: u32 = 3;
/// How long a server that failed its restarts waits for the next try.
pub const RESTART_PAUSE: Duration = Duration::from_secs(60);

impl McpHost {
    /// Calls `tool` (its name on the server) of `server` with `arguments`,
    /// from any thread.
    pub fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<CallOutcome, McpCallError> {
        let fut = call_on(self.shared.clone(), server.into(), tool.into(), arguments);
        let result = self.wait(fut).ok_or_else(|| ended(server))??;
        Ok(outcome(&result))
    }

    /// [`McpHost::call`] from async code, with the server's result as it
    /// came (content, structured content, `isError`).
    pub async fn call_result(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<CallToolResult, McpCallError> {
        let fut = call_on(self.shared.clone(), server.into(), tool.into(), arguments);
        self.run(fut).await.ok_or_else(|| ended(server))?
    }
}

fn ended(server: &str) -> McpCallError {
    McpCallError::Failed {
        server: server.to_string(),
        message: "the connection task ended".into(),
    }
}

/// The text and the whole result of a call.
fn outcome(result: &CallToolResult) -> CallOutcome {
    let raw = serde_json::to_value(result).unwrap_or(Value::Null);
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
    CallOutcome {
        is_error: result.is_error.unwrap_or(false),
        text,
        raw,
    }
}

async fn call_on(
    shared: Arc<Shared>,
    server: String,
    tool: String,
    arguments: serde_json::Map<String, Value>,
) -> Result<CallToolResult, McpCallError> {
    // A server that exited since its last call (killed, crashed) is noticed
    // here and started again, rather than failing this call.
    let exited = lock(&shared.pids)
        .get(&server)
        .is_some_and(|&pid| super::reaper::has_exited(pid));
    let client = match shared.client(&server) {
        Some(c) if !c.is_closed() && !exited => c,
        _ => {
            if exited {
                lock(&shared.clients).remove(&server);
                lock(&shared.pids).remove(&server);
            }
            restart(&shared, &server).await?
        }
    };
    let limit = shared.call_timeout;
    let params = CallToolRequestParams::new(tool).with_arguments(arguments);
    match tokio::time::timeout(limit, client.call_tool(params)).await {
        Err(_) => Err(McpCallError::Timeout {
            server,
            secs: limit.as_secs(),
        }),
        Ok(Err(e)) => {
            let closed = matches!(e, rmcp::service::ServiceError::TransportClosed);
            let message = if closed || client.is_closed() {
                // Dropped: the next call starts it again.
                lock(&shared.clients).remove(&server);
                format!("it exited or closed the connection during the call ({e})")
            } else {
                e.to_string()
            };
            Err(McpCallError::Failed { server, message })
        }
        Ok(Ok(result)) => {
            if let Some(e) = lock(&shared.entries)
                .iter_mut()
                .find(|e| e.server.name == server)
            {
                e.restarts_in_a_row = 0;
            }
            Ok(result)
        }
    }
}

/// Starts `server` again (bounded), lists its tools, and keeps the new
/// connection; a changed listing is announced as a change.
async fn restart(shared: &Shared, server: &str) -> Result<Arc<Client>, McpCallError> {
    let config = {
        let mut entries = lock(&shared.entries);
        let entry = entries
            .iter_mut()
            .find(|e| e.server.name == server)
            .ok_or_else(|| McpCallError::NoServer(server.to_string()))?;
        let paused = entry.restarts_in_a_row >= MAX_RESTARTS_IN_A_ROW
            && entry
                .last_restart
                .is_some_and(|at| at.elapsed() < RESTART_PAUSE);
        if paused {
            return Err(McpCallError::Failed {
                server: server.to_string(),
                message: format!(
                    "it is not running: it exited and {MAX_RESTARTS_IN_A_ROW} restarts in a row did not keep it up; the next try is within {} s",
                    RESTART_PAUSE.as_secs()
                ),
            });
        }
        entry.restarts_in_a_row += 1;
        entry.last_restart = Some(Instant::now());
        entry.server.clone()
    };
    let limit = *lock(&shared.start_timeout);
    let listener = shared.listener(server);
    match connect_and_list(&config, limit, listener).await {
        Ok(connected) => {
            let client = Arc::new(connected.client);
            if shared.adopt_arc(server, client.clone(), connected.tools, connected.pgid) {
                shared.notify_changed(server);
            }
            Ok(client)
        }
        Err(failure) => {
            if let Some(pgid) = failure.pgid {
                super::reaper::kill_group(pgid);
            }
            let tail = failure.stderr_tail.trim();
            let message = if tail.is_empty() {
                format!("it is not running and did not restart: {}", failure.why)
            } else {
                format!(
                    "it is not running and did not restart: {}; its stderr ended with: {tail}",
                    failure.why
                )
            };
            Err(McpCallError::Failed {
                server: server.to_string(),
                message,
            })
        }
    }
}
