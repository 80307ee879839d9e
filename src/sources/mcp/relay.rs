//! What a server asks of its client, passed on to the host: during one of
//! its tool calls, a server's elicitation (form or URL) and sampling
//! requests go to the host that made the call, and its log messages too;
//! a resource it says changed reaches each host that subscribed to it.
//!
//! A host that cannot answer a request (it did not declare the capability,
//! or its protocol revision takes no request from a server during a call)
//! is not sent it: the server gets the error the specification gives for
//! a method the client does not offer, and the host reads in the call's
//! result what the server asked for and why it did not reach it.

// Sampling and logging are deprecated for 2026-07-28 (SEP-2577); they
// are the handshake revisions' own, and passed on for them.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ErrorCode, LoggingLevel, LoggingMessageNotificationParam, ResourceUpdatedNotificationParam,
};
use rmcp::model::{CancelledNotificationParam, ClientResult, ServerRequest};
use rmcp::service::{Peer, PeerRequestOptions, RoleServer, ServiceError};
use rmcp::ErrorData;

use crate::lock::lock;

/// What a server asked during a call of a 2026-07-28 host, for the
/// gateway to put to that host as an `input_required` round: the request,
/// and where the host's answer goes (as JSON, as the retry carries it).
pub struct Question {
    pub asked: Asked,
    pub answer: tokio::sync::oneshot::Sender<serde_json::Value>,
}

/// A server's request to put to the host.
pub enum Asked {
    Elicit(ElicitRequestParams),
    Sample(CreateMessageRequestParams),
}

/// The host of one call: where the server's requests during it go, what
/// that host can answer, and what could not be passed on.
#[derive(Clone)]
pub struct HostLink {
    peer: Peer<RoleServer>,
    /// A 2026-07-28 host: requests become `input_required` rounds, put
    /// through here (none: the host takes requests itself).
    rounds: Option<tokio::sync::mpsc::UnboundedSender<Question>>,
    can_elicit: bool,
    can_sample: bool,
    /// Why requests cannot reach this host at all (its revision), if so.
    no_requests: Option<&'static str>,
    /// The least severe log message this host asked for
    /// (`logging/setLevel`); all when it asked nothing.
    log_level: Option<LoggingLevel>,
    notes: Arc<Mutex<Vec<String>>>,
    /// The span of the call this link serves: what the server asks the
    /// host during it is traced under it.
    traced: crate::telemetry::spans::Carried,
}

impl HostLink {
    /// The host `peer`, which declared elicitation and sampling as its
    /// capabilities say; `no_requests` when its revision takes none.
    pub fn new(
        peer: Peer<RoleServer>,
        can_elicit: bool,
        can_sample: bool,
        no_requests: Option<&'static str>,
    ) -> HostLink {
        HostLink {
            peer,
            rounds: None,
            can_elicit,
            can_sample,
            no_requests,
            log_level: None,
            notes: Arc::default(),
            traced: crate::telemetry::spans::carry(),
        }
    }

    /// The same host, a 2026-07-28 one: what the server asks goes to
    /// `rounds`, for the gateway to ask the host in an `input_required`
    /// answer and to hand back the answer of its retry.
    pub fn by_rounds(mut self, rounds: tokio::sync::mpsc::UnboundedSender<Question>) -> HostLink {
        self.rounds = Some(rounds);
        self.no_requests = None;
        self
    }

    /// Puts `asked` to the host in a round; its answer as `T`.
    async fn in_a_round<T: serde::de::DeserializeOwned>(
        rounds: &tokio::sync::mpsc::UnboundedSender<Question>,
        asked: Asked,
    ) -> Result<T, ErrorData> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        rounds
            .send(Question { asked, answer })
            .map_err(|_| ErrorData::internal_error("the call's host is gone", None))?;
        let value = answered.await.map_err(|_| {
            ErrorData::internal_error("the host did not answer (its round expired)", None)
        })?;
        serde_json::from_value(value).map_err(|e| {
            ErrorData::invalid_params(format!("the host's answer does not read: {e}"), None)
        })
    }

    /// The same host, which asked for log messages at `level` and above.
    pub fn with_log_level(mut self, level: Option<LoggingLevel>) -> HostLink {
        self.log_level = level;
        self
    }

    /// What the server asked for that did not reach the host, a sentence
    /// each, for the call's result.
    pub fn notes(&self) -> Vec<String> {
        lock(&self.notes).clone()
    }

    fn refuse(&self, server: &str, what: &str, detail: String, capability: &str) -> ErrorData {
        let why = match self.no_requests {
            Some(why) => why.to_string(),
            None => format!("the host did not declare the {capability} capability"),
        };
        let note = format!(
            "The server {server} asked the host for {what} during this call ({detail}), but {why}: it was answered that the host cannot, and its result may lack what it wanted."
        );
        let mut notes = lock(&self.notes);
        if !notes.contains(&note) {
            notes.push(note);
        }
        ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("the host behind toolsift's gateway cannot answer {what}: {why}"),
            None,
        )
    }

    /// The server's elicitation, put to the host (traced under the call).
    pub(super) async fn elicit(
        &self,
        server: &str,
        request: ElicitRequestParams,
        cancelled: impl Future<Output = ()>,
    ) -> Result<ElicitResult, ErrorData> {
        let asking = self.elicit_host(server, request, cancelled);
        self.traced
            .relayed("elicitation/create", server, asking)
            .await
    }

    async fn elicit_host(
        &self,
        server: &str,
        request: ElicitRequestParams,
        cancelled: impl Future<Output = ()>,
    ) -> Result<ElicitResult, ErrorData> {
        if self.can_elicit
            && let Some(rounds) = &self.rounds
        {
            return Self::in_a_round(rounds, Asked::Elicit(request)).await;
        }
        if !self.can_elicit || self.no_requests.is_some() {
            let detail = serde_json::to_value(&request)
                .ok()
                .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(quoted))
                .unwrap_or_default();
            return Err(self.refuse(server, "input from the user (elicitation)", detail, "elicitation"));
        }
        let request = ServerRequest::ElicitRequest(rmcp::model::ElicitRequest::new(request));
        match self.ask_host(request, cancelled).await? {
            ClientResult::ElicitResult(answer) => Ok(answer),
            _ => Err(ErrorData::internal_error(
                "the host answered the elicitation with something else",
                None,
            )),
        }
    }

    /// Sends `request` to the host and waits for its answer; a server that
    /// gives its request up (`cancelled`) has the host's request cancelled
    /// too (`notifications/cancelled`).
    async fn ask_host(
        &self,
        request: ServerRequest,
        cancelled: impl Future<Output = ()>,
    ) -> Result<ClientResult, ErrorData> {
        let handle = self
            .peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| from_host(&e))?;
        let id = handle.id.clone();
        tokio::select! {
            answer = handle.await_response() => answer.map_err(|e| from_host(&e)),
            () = cancelled => {
                let _ = self
                    .peer
                    .notify_cancelled(CancelledNotificationParam::new(
                        Some(id),
                        Some("the server behind toolsift's gateway gave its request up".into()),
                    ))
                    .await;
                Err(ErrorData::internal_error("cancelled by the server", None))
            }
        }
    }

    /// The server's sampling request, put to the host (traced under the
    /// call).
    #[allow(deprecated)]
    pub(super) async fn sample(
        &self,
        server: &str,
        request: CreateMessageRequestParams,
        cancelled: impl Future<Output = ()>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let asking = self.sample_host(server, request, cancelled);
        self.traced
            .relayed("sampling/createMessage", server, asking)
            .await
    }

    #[allow(deprecated)]
    async fn sample_host(
        &self,
        server: &str,
        request: CreateMessageRequestParams,
        cancelled: impl Future<Output = ()>,
    ) -> Result<CreateMessageResult, ErrorData> {
        if self.can_sample
            && let Some(rounds) = &self.rounds
        {
            return Self::in_a_round(rounds, Asked::Sample(request)).await;
        }
        if !self.can_sample || self.no_requests.is_some() {
            let detail = format!(
                "a completion of {} message{}",
                request.messages.len(),
                if request.messages.len() == 1 { "" } else { "s" }
            );
            return Err(self.refuse(server, "a model's completion (sampling)", detail, "sampling"));
        }
        // The checks rmcp's own create_message makes.
        if (request.tools.is_some() || request.tool_choice.is_some())
            && !self.peer.supports_sampling_tools()
        {
            return Err(ErrorData::invalid_params(
                "tools or toolChoice provided but the host does not support sampling tools",
                None,
            ));
        }
        request
            .validate()
            .map_err(|e| ErrorData::invalid_params(e, None))?;
        let request = ServerRequest::CreateMessageRequest(
            rmcp::model::CreateMessageRequest::new(request),
        );
        match self.ask_host(request, cancelled).await? {
            ClientResult::CreateMessageResult(answer) => Ok(*answer),
            _ => Err(ErrorData::internal_error(
                "the host answered the sampling request with something else",
                None,
            )),
        }
    }

    /// The host's roots, for a server that asks during this call: none
    /// from a host that declared no roots or takes no request mid-call.
    pub(super) async fn roots(
        &self,
        cancelled: impl Future<Output = ()>,
    ) -> Result<rmcp::model::ListRootsResult, ErrorData> {
        let declared = self
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !declared || self.rounds.is_some() || self.no_requests.is_some() {
            return Ok(rmcp::model::ListRootsResult::default());
        }
        tokio::select! {
            roots = self.peer.list_roots() => roots.map_err(|e| from_host(&e)),
            () = cancelled => Err(ErrorData::internal_error("cancelled by the server", None)),
        }
    }

    pub(super) async fn log(&self, server: &str, mut message: LoggingMessageNotificationParam) {
        // The server logs at the most detailed level any host asked for;
        // each host gets what it asked for.
        if let Some(least) = self.log_level
            && (message.level as u8) < (least as u8)
        {
            return;
        }
        // Named by its server when it names no logger of its own.
        if message.logger.is_none() {
            message.logger = Some(server.to_string());
        }
        #[allow(deprecated)]
        let _ = self.peer.notify_logging_message(message).await;
    }
}

fn quoted(text: &str) -> String {
    let mut cut: String = text.chars().take(120).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    crate::terminal_text::escape(&serde_json::Value::from(cut).to_string()).into_owned()
}

/// The host's answer as the server gets it: the host's own error, or what
/// went wrong reaching it.
fn from_host(e: &ServiceError) -> ErrorData {
    match e {
        ServiceError::McpError(data) => data.clone(),
        other => ErrorData::internal_error(
            format!(
                "the host behind toolsift's gateway did not answer: {}",
                super::sdk_text::plain(&other.to_string())
            ),
            None,
        ),
    }
}

/// A host's session subscribed to a resource, and the host.
type Subscribed = (u64, Peer<RoleServer>);

/// The hosts subscribed to each resource (by the URI its server knows),
/// each under the id of its session.
#[derive(Clone, Default)]
pub struct Subscribers {
    by_uri: Arc<Mutex<HashMap<String, Vec<Subscribed>>>>,
}

impl Subscribers {
    /// Whether `uri` had no live subscriber before this one (hosts whose
    /// session ended are forgotten first).
    pub fn add(&self, uri: &str, session: u64, peer: Peer<RoleServer>) -> bool {
        let mut map = lock(&self.by_uri);
        let list = map.entry(uri.to_string()).or_default();
        list.retain(|(_, p)| !p.is_transport_closed());
        let first = list.is_empty();
        if !list.iter().any(|(s, _)| *s == session) {
            list.push((session, peer));
        }
        first
    }

    /// Whether the server should be told to unsubscribe: `session` was
    /// subscribed to `uri`, and no live host is left subscribed.
    pub fn remove(&self, uri: &str, session: u64) -> bool {
        let mut map = lock(&self.by_uri);
        let Some(list) = map.get_mut(uri) else {
            return false;
        };
        let before = list.len();
        list.retain(|(s, p)| *s != session && !p.is_transport_closed());
        let was_subscribed = list.len() < before;
        let empty = list.is_empty();
        if empty {
            map.remove(uri);
        }
        was_subscribed && empty
    }

    /// The URIs only hosts whose session ended are subscribed to, now
    /// forgotten: their servers should be told to unsubscribe.
    pub fn abandoned(&self) -> Vec<String> {
        let mut map = lock(&self.by_uri);
        let mut gone = Vec::new();
        map.retain(|uri, list| {
            list.retain(|(_, p)| !p.is_transport_closed());
            if list.is_empty() {
                gone.push(uri.clone());
                false
            } else {
                true
            }
        });
        gone
    }

    /// Tells each host subscribed to the resource that it changed; hosts
    /// gone are forgotten.
    pub(super) async fn updated(&self, params: ResourceUpdatedNotificationParam) {
        let peers: Vec<Peer<RoleServer>> = {
            let mut map = lock(&self.by_uri);
            let Some(list) = map.get_mut(&params.uri) else {
                return;
            };
            list.retain(|(_, p)| !p.is_transport_closed());
            list.iter().map(|(_, p)| p.clone()).collect()
        };
        for peer in peers {
            let _ = peer.notify_resource_updated(params.clone()).await;
        }
    }
}
