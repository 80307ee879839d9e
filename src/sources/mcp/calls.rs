//! Tool calls: to a live connection, within the call time limit; a server
//! that exited is started again on its next call (a few times in a row,
//! then once a minute). The server's progress reports of a call go to the
//! caller's sink, and a call given up (the time limit, or the caller gone)
//! is cancelled on the server with `notifications/cancelled`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotification,
    CancelledNotificationParam, ClientRequest, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RoleClient, ServiceError};
use serde_json::Value;

use super::connect::{Client, connect_and_list};
use super::host::Shared;
use super::progress::ProgressSink;
use super::relay::HostLink;
use super::{CallOutcome, McpCallError, McpHost};
use crate::lock::lock;

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
        let fut = call_on(
            self.shared.clone(),
            Call {
                server: server.into(),
                tool: tool.into(),
                key: None,
            },
            arguments,
            None,
            None,
        );
        let result = self.wait(fut).ok_or_else(|| ended(server))??;
        Ok(outcome(&result))
    }

    /// [`McpHost::call`] from async code, with the server's result as it
    /// came (content, structured content, `isError`); the progress the
    /// server reports goes to `progress`. Dropping the future cancels the
    /// call on the server.
    /// What the server asks of its client during the call (elicitation,
    /// sampling) and the log messages it sends go to `link`'s host. `key`
    /// is the digest of the API key that made the call: the keys take
    /// turns on a busy server, and a server of `"isolation": "per-key"`
    /// runs the call on that key's own connection.
    pub async fn call_result(
        &self,
        server: &str,
        tool: &str,
        key: Option<&str>,
        arguments: serde_json::Map<String, Value>,
        progress: Option<ProgressSink>,
        link: Option<HostLink>,
    ) -> Result<CallToolResult, McpCallError> {
        // The call's span goes with it to the connection's task.
        let traced = crate::telemetry::spans::carry();
        let fut = call_on(
            self.shared.clone(),
            Call {
                server: server.into(),
                tool: tool.into(),
                key: key.map(str::to_string),
            },
            arguments,
            progress,
            link,
        );
        let fut = traced.within(fut);
        self.run_abortable(fut).await.ok_or_else(|| ended(server))?
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

/// One call: the server, its tool, and the key that made it.
struct Call {
    server: String,
    tool: String,
    key: Option<String>,
}

/// How long a server whose call ran out of time gets to answer a ping
/// before it is taken as stuck (and started again).
const STUCK_AFTER: Duration = Duration::from_secs(5);

/// Sends one call: the connection (the key's own, or the server's shared
/// one), a place among the server's running calls, the call (with a login
/// and once more when the server asks), then what its answer says of the
/// connection.
async fn call_on(
    shared: Arc<Shared>,
    call: Call,
    arguments: serde_json::Map<String, Value>,
    progress: Option<ProgressSink>,
    link: Option<HostLink>,
) -> Result<CallToolResult, McpCallError> {
    let Call { server, tool, key } = call;
    // A per-user server's call carries its key's own login, on its key's
    // own connection; a key with none is refused, told how to log in.
    let login_as = super::key_logins::login_as(&shared, &server, key.as_deref()).await?;
    let own = login_as.as_deref().or(key
        .as_deref()
        .filter(|_| super::own_connection::per_key(&shared, &server)));
    let client = match own {
        Some(own) => {
            super::own_connection::connection(&shared, &server, own, login_as.as_deref()).await?
        }
        None => shared_connection(&shared, &server).await?,
    };
    let on = OnConnection {
        shared: &shared,
        server: &server,
        own,
        login_as: login_as.as_deref(),
        client: &client,
        limit: shared.call_timeout,
    };
    // Alone when the server may ask this call's host and could not say for
    // which call it asks.
    let alone = link.is_some() && runs_alone(&client);
    let place = on.admit(key.as_deref().unwrap_or(""), alone).await?;
    let mut params = CallToolRequestParams::new(tool).with_arguments(arguments);
    // The W3C trace context of the call's span, for a server that traces
    // (`traceparent` is a key `_meta` reserves for it; others ignore it).
    let mut traced = serde_json::Map::new();
    crate::telemetry::spans::inject(&mut traced);
    if !traced.is_empty() {
        params.meta = Some(rmcp::model::RequestMetaObject(rmcp::model::MetaObject(traced)));
    }
    let answered = on.send(params, progress, link).await;
    drop(place);
    on.settle(answered?).await
}

/// A call's connection, and what the steps of the call share.
struct OnConnection<'a> {
    shared: &'a Arc<Shared>,
    server: &'a str,
    /// The API key whose own connection this is (none: the shared one).
    own: Option<&'a str>,
    /// The key whose own login the connection carries (a per-user
    /// server's).
    login_as: Option<&'a str>,
    client: &'a Arc<Client>,
    /// The call's time limit.
    limit: Duration,
}

/// A call sent within its time limit: its answer, or `Err` when the limit
/// ran out.
type Sent = Result<Result<CallToolResult, ServiceError>, tokio::time::error::Elapsed>;

impl OnConnection<'_> {
    /// The call's error from the server, with `message`.
    fn failed(&self, message: String) -> McpCallError {
        McpCallError::Failed {
            server: self.server.to_string(),
            message,
        }
    }

    /// A place among the server's running calls (its lane: the server, or
    /// the key's own connection), waited for in turn within the call's
    /// time limit; a call refused a place is not sent, and says why.
    async fn admit(&self, key: &str, alone: bool) -> Result<super::admission::Place, McpCallError> {
        let lane = match self.own {
            Some(key) => format!("{}\u{1f}{key}", self.server),
            None => self.server.to_string(),
        };
        let entered = self.shared.admission.enter(&lane, key, alone);
        match tokio::time::timeout(self.limit, entered).await {
            Ok(Ok(place)) => Ok(place),
            Ok(Err(super::admission::Refused::Full)) => Err(self.failed(format!(
                "it is running {} calls and {} more wait: this call was not sent; try again shortly",
                super::admission::MAX_RUNNING,
                super::admission::MAX_WAITING
            ))),
            Ok(Err(super::admission::Refused::KeyFull)) => Err(self.failed(format!(
                "{} calls of this API key already wait for it: this call was not sent; try again shortly",
                super::admission::MAX_WAITING_PER_KEY
            ))),
            Err(_) => Err(self.failed(format!(
                "it stayed busy with other calls for {} s: this call was not sent; try again shortly",
                self.limit.as_secs()
            ))),
        }
    }

    /// Sends the call within what is left of its time limit, counted from
    /// its place (waiting for one is not the server hanging). A server
    /// that refuses it for want of a token, or of scopes (or whose refresh
    /// its authorization server refused), gets a login (its page opened)
    /// and the call again, at most [`super::logins::MAX_LOGINS_PER_CALL`]
    /// times.
    async fn send(
        &self,
        params: CallToolRequestParams,
        progress: Option<ProgressSink>,
        link: Option<HostLink>,
    ) -> Result<Sent, McpCallError> {
        let (shared, server) = (self.shared, self.server);
        let started = Instant::now();
        let mut logins = 0;
        loop {
            let left = self.limit.saturating_sub(started.elapsed());
            let sent = send_call(self.client, params.clone(), progress.clone(), link.clone());
            let got = tokio::time::timeout(left, sent).await;
            let need = match &got {
                Ok(Err(e)) => super::logins::login_need(shared, server, e).await,
                _ => None,
            };
            let Some(need) = need else {
                return Ok(got);
            };
            if let Some(name) = self.login_as {
                // A key's own login refused: that key logs in again; no
                // page is opened here and no other login is tried.
                return Err(super::key_logins::refused(shared, server, name));
            }
            let challenge = need.challenge;
            if !need.more_scopes {
                // Every state shown says it waits for a login, until one
                // is kept (a step-up is this call's, not the server's).
                super::logins::mark_call_waiting(shared, server, challenge.as_deref(), &need.before);
            }
            let command = shared.logins.command_for(server);
            if logins == super::logins::MAX_LOGINS_PER_CALL {
                return Err(McpCallError::NeedsLogin {
                    message: format!(
                        "it still refuses the call after a login ({}); log in with `{command}` and call again",
                        super::sdk_text::plain(challenge.as_deref().unwrap_or("no challenge"))
                    ),
                    server: server.to_string(),
                });
            }
            logins += 1;
            // The page waits as long as the call may (a person at a
            // browser answers within it, or the call says how to log in).
            let wait = self
                .limit
                .saturating_sub(started.elapsed())
                .max(Duration::from_secs(5));
            if let Err(why) = super::logins::log_in_to(shared, server, challenge, wait, false).await {
                return Err(McpCallError::NeedsLogin {
                    message: format!(
                        "it needs a login for this call, which did not complete: {why}; log in with `{command}` and call again"
                    ),
                    server: server.to_string(),
                });
            }
        }
    }

    /// The call's answer, and what it says of the connection: a server
    /// stuck or gone is stopped (the next call starts it again); one that
    /// answered is counted as running, and logged in.
    async fn settle(&self, answered: Sent) -> Result<CallToolResult, McpCallError> {
        let (shared, server, client) = (self.shared, self.server, self.client);
        match answered {
            Err(_) => {
                // The call was cancelled on the server. A server that does
                // not answer a ping, or whose calls ran out of time twice
                // in a row with none answered between and no other
                // running, is stuck, and may hang every later call (many
                // answer one request at a time): it starts again on the
                // next call, as after a crash. One that answers keeps
                // running, with the other calls on it.
                let listener = client.service();
                let in_a_row = listener.timed_out();
                // This call's own entry went with its future.
                let alone = listener.wire().in_flight() == 0;
                if (in_a_row >= 2 && alone) || is_stuck(client).await {
                    stop_connection(shared, server, self.own, client);
                }
                Err(McpCallError::Timeout {
                    server: server.to_string(),
                    secs: self.limit.as_secs(),
                })
            }
            Ok(Err(e)) => {
                client.service().answered();
                let closed = matches!(e, rmcp::service::ServiceError::TransportClosed);
                let message = if closed || client.is_closed() {
                    // Dropped: the next call starts it again.
                    stop_connection(shared, server, self.own, client);
                    format!(
                        "it exited or closed the connection during the call ({})",
                        super::sdk_text::plain(&e.to_string())
                    )
                } else {
                    super::sdk_text::plain(&e.to_string())
                };
                Err(self.failed(message))
            }
            Ok(Ok(result)) => {
                client.service().answered();
                if let Some(e) = lock(&shared.entries)
                    .iter_mut()
                    .find(|e| e.server.name == server)
                {
                    e.restarts_in_a_row = 0;
                }
                if self.login_as.is_none() {
                    super::logins::mark_logged_in(shared, server);
                }
                Ok(result)
            }
        }
    }
}

/// The server's shared connection; a server that exited since its last
/// call (killed, crashed) is noticed here and started again, rather than
/// failing this call.
async fn shared_connection(shared: &Shared, server: &str) -> Result<Arc<Client>, McpCallError> {
    let exited = lock(&shared.pids)
        .get(server)
        .is_some_and(|&pid| super::reaper::has_exited(pid));
    match shared.client(server) {
        Some(c) if !c.is_closed() && !exited => Ok(c),
        _ => {
            if exited {
                lock(&shared.clients).remove(server);
                lock(&shared.pids).remove(server);
            }
            restart(shared, server).await
        }
    }
}

/// Stops `client`, the connection a call ran on (the key's own, or the
/// server's shared one unless a call has started it again since), its
/// process killed: the next call starts it again.
fn stop_connection(shared: &Shared, server: &str, own: Option<&str>, client: &Arc<Client>) {
    if let Some(key) = own {
        shared.tenants.stop(server, key);
        return;
    }
    let mut clients = lock(&shared.clients);
    if clients.get(server).is_some_and(|c| Arc::ptr_eq(c, client)) {
        clients.remove(server);
        drop(clients);
        if let Some(pgid) = lock(&shared.pids).remove(server) {
            super::reaper::kill_group(pgid);
        }
    }
}

/// Whether a call whose host the server may ask runs alone on `client`:
/// when the server logs (its log messages carry no call, whatever its
/// transport), or when it has asked a host before and its transport cannot
/// say for which call (stdio), or when a message of its could not be told
/// apart already.
fn runs_alone(client: &Client) -> bool {
    let logs = client
        .peer_info()
        .is_some_and(|info| info.capabilities.logging.is_some());
    let listener = client.service();
    logs || (listener.has_asked() && !listener.says_its_calls()) || listener.wire().unknown() > 0
}

/// Whether the server does not answer a ping within [`STUCK_AFTER`].
async fn is_stuck(client: &Client) -> bool {
    let ping = ClientRequest::PingRequest(rmcp::model::PingRequest {
        method: Default::default(),
        extensions: Default::default(),
    });
    !matches!(
        tokio::time::timeout(STUCK_AFTER, client.peer().send_request(ping)).await,
        Ok(Ok(_))
    )
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
    let config = super::key_logins::listing_config(shared, &config).await;
    match connect_and_list(&config, limit, listener).await {
        Ok(connected) => {
            let client = Arc::new(connected.client);
            if shared.adopt_arc(
                server,
                client.clone(),
                connected.tools,
                connected.skipped,
                connected.pgid,
            ) {
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

/// How long a call waits, once answered, for the notifications the server
/// sent it before its answer (log messages, progress) to be handed on.
const OWED_BOUND: Duration = Duration::from_secs(2);

/// Sends one `tools/call` and waits for its result; the server's progress
/// reports go to `progress` meanwhile, and what it asks of its client to
/// `link`'s host. Dropped before the result (the time limit, the caller
/// gone), it tells the server the call is cancelled.
async fn send_call(
    client: &Client,
    params: CallToolRequestParams,
    progress: Option<ProgressSink>,
    link: Option<HostLink>,
) -> Result<CallToolResult, ServiceError> {
    let listener = client.service();
    let wire = listener.wire();
    // The call's tag rides with its request to the transport, which notes
    // it in flight: what the server sends while it is the one call in
    // flight (or on its stream) is its, and goes to its host alone.
    let (tag, owed) = wire.begin();
    let _following = Following {
        tag,
        listener: listener.clone(),
    };
    if let Some(link) = link {
        listener.follow_link(tag, link);
    }
    if let Some(sink) = progress {
        listener.follow_progress(tag, sink);
    }
    let mut request = CallToolRequest::new(params);
    request.extensions.insert(tag);
    let handle = client
        .peer()
        .send_cancellable_request(
            ClientRequest::CallToolRequest(request),
            PeerRequestOptions::no_options(),
        )
        .await?;
    let mut guard = CancelOnDrop {
        peer: client.peer().clone(),
        id: Some(handle.id.clone()),
    };
    let answer = handle.await_response().await;
    guard.id = None;
    // rmcp hands each notification to a task of its own: those the server
    // sent before its result reach the host before it, waited for by
    // count (bounded), not by a fixed pause.
    owed.settled(OWED_BOUND).await;
    match answer? {
        ServerResult::CallToolResult(result) => Ok(result),
        // A result without content decodes as an empty one.
        ServerResult::EmptyResult(_) => Ok(CallToolResult::default()),
        ServerResult::InputRequiredResult(_) => {
            Err(ServiceError::McpError(rmcp::ErrorData::internal_error(
                "the tool asked the host for input in another round (an input_required result), which the gateway does not relay",
                None,
            )))
        }
        ServerResult::CreateTaskResult(_) => {
            Err(ServiceError::McpError(rmcp::ErrorData::internal_error(
                "the tool answered with a task to poll, which the gateway does not relay",
                None,
            )))
        }
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// A call's host and progress, followed by the connection until dropped.
struct Following {
    tag: super::owners::CallTag,
    listener: super::listener::Listener,
}

impl Drop for Following {
    fn drop(&mut self) {
        self.listener.forget_link(self.tag);
        self.listener.forget_progress(self.tag);
        self.listener.wire().forget(self.tag);
    }
}

/// Tells the server a call is cancelled when the wait for it is dropped.
struct CancelOnDrop {
    peer: rmcp::Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let notification = CancelledNotification::new(CancelledNotificationParam::new(
                Some(id),
                Some("the gateway's caller gave up the call".into()),
            ));
            let _ = peer.send_notification(notification.into()).await;
        });
    }
}
