//! What a connection hears from its server: `notifications/tools/list_changed`
//! is passed on, by the server's name, to whoever watches the host; a
//! `notifications/progress` of a call in flight goes to that call's
//! [`ProgressSink`]; its requests (elicitation, sampling) and log messages
//! during a call go to that call's host ([`HostLink`]), and a resource it
//! says changed to the hosts subscribed to it.

// Sampling and logging are deprecated for 2026-07-28 (SEP-2577); they
// are the handshake revisions' own, and passed on for them (relay.rs).
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationCapability, ErrorCode, FormElicitationCapability,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
    ResourceUpdatedNotificationParam, SamplingCapability, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData};
use tokio::sync::mpsc::UnboundedSender;

use super::relay::{HostLink, Subscribers};

/// Where the progress a server reports of one call goes (the gateway hands
/// it on to its host, under the host's own token).
pub type ProgressSink = UnboundedSender<ProgressNotificationParam>;

/// The client side of one connection.
#[derive(Clone, Default)]
pub(super) struct Listener {
    server: String,
    changes: Option<UnboundedSender<String>>,
    /// The calls in flight that want their progress, by the token this
    /// connection sent with each.
    progress: Arc<Mutex<HashMap<ProgressToken, ProgressSink>>>,
    /// The hosts of the calls in flight, newest last: the server's
    /// requests and log messages go to the newest.
    links: Arc<Mutex<Vec<(u64, HostLink)>>>,
    next_link: Arc<std::sync::atomic::AtomicU64>,
    subscribers: Subscribers,
}

impl Listener {
    pub(super) fn new(
        server: &str,
        changes: Option<UnboundedSender<String>>,
        subscribers: Subscribers,
    ) -> Listener {
        Listener {
            server: server.to_string(),
            changes,
            progress: Arc::default(),
            links: Arc::default(),
            next_link: Arc::default(),
            subscribers,
        }
    }

    /// Sends the server's requests and log messages to `link` until
    /// [`Listener::forget_link`] with the id returned.
    pub(super) fn follow_link(&self, link: HostLink) -> u64 {
        let id = self
            .next_link
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        crate::lock::lock(&self.links).push((id, link));
        id
    }

    pub(super) fn forget_link(&self, id: u64) {
        crate::lock::lock(&self.links).retain(|(i, _)| *i != id);
    }

    /// The host of the newest call in flight.
    fn link(&self) -> Option<HostLink> {
        crate::lock::lock(&self.links)
            .last()
            .map(|(_, l)| l.clone())
    }

    /// A server's request when no call of it runs: nobody to ask.
    fn no_call(&self, what: &str) -> ErrorData {
        ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "toolsift's gateway passes {what} on to the host only during a tool call of this server, and none is running"
            ),
            None,
        )
    }

    /// Sends the progress reported under `token` to `sink` until
    /// [`Listener::forget_progress`].
    pub(super) fn follow_progress(&self, token: ProgressToken, sink: ProgressSink) {
        crate::lock::lock(&self.progress).insert(token, sink);
    }

    pub(super) fn forget_progress(&self, token: &ProgressToken) {
        crate::lock::lock(&self.progress).remove(token);
    }
}

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.client_info.name = "toolsift".into();
        config.client_info.version = env!("CARGO_PKG_VERSION").into();
        // The handshake's own revision: a server of any revision answers
        // it (2026-07-28 ones keep the handshake for older clients), and
        // the gateway relays to its hosts on either revision.
        config.protocol_version = rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE;
        // Declared so servers ask: each request goes to the host of the
        // call it belongs to, or is answered that that host cannot.
        let mut elicitation = ElicitationCapability::new();
        elicitation.form = Some(FormElicitationCapability::new());
        elicitation.url = Some(UrlElicitationCapability::new());
        config.capabilities.elicitation = Some(elicitation);
        config.capabilities.sampling = Some(SamplingCapability::default());
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        // The server's notifications/cancelled for this request cancels
        // context.ct: the host's request is cancelled too.
        match self.link() {
            Some(link) => link.elicit(&self.server, request, context.ct.cancelled()).await,
            None => Err(self.no_call("elicitation")),
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        match self.link() {
            Some(link) => link.sample(&self.server, params, context.ct.cancelled()).await,
            None => Err(self.no_call("sampling")),
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // Outside a call there is no host to tell: dropped.
        if let Some(link) = self.link() {
            link.log(&self.server, params).await;
        }
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.subscribers.updated(params).await;
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(tx) = &self.changes {
            let _ = tx.send(self.server.clone());
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // Progress under a token no call follows (late, or never asked
        // for) is dropped.
        let sink = crate::lock::lock(&self.progress)
            .get(&params.progress_token)
            .cloned();
        if let Some(sink) = sink {
            let _ = sink.send(params);
        }
    }
}
