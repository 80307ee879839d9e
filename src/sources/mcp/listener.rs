//! What a connection hears from its server: `notifications/tools/list_changed`
//! is passed on, by the server's name, to whoever watches the host; a
//! `notifications/progress` of a call in flight goes to that call's
//! [`ProgressSink`]; its requests (elicitation, sampling, roots) and log
//! messages during a call go to that call's host ([`HostLink`]), found by
//! what the wire says of the message ([`super::owners`]): never to the
//! host of another call. A resource it says changed goes to the hosts
//! subscribed to it.

// Sampling and logging are deprecated for 2026-07-28 (SEP-2577); they
// are the handshake revisions' own, and passed on for them (relay.rs).
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationCapability, ErrorCode, FormElicitationCapability,
    ListRootsResult, LoggingMessageNotificationParam, ProgressNotificationParam,
    ResourceUpdatedNotificationParam, RootsCapabilities, SamplingCapability,
    UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData};
use tokio::sync::mpsc::UnboundedSender;

use super::owners::{CallTag, HandledOnDrop, Owner, Wire};
use super::relay::{HostLink, Subscribers};

use super::progress::ProgressSink;

/// The client side of one connection.
#[derive(Clone, Default)]
pub(super) struct Listener {
    server: String,
    changes: Option<UnboundedSender<String>>,
    /// Where the progress of each call in flight goes, by the call's tag
    /// (the wire finds a report's call by the token it was sent with).
    progress: Arc<Mutex<HashMap<CallTag, ProgressSink>>>,
    /// The hosts of the calls in flight, by each call's tag: the server's
    /// requests and log messages go to the call they belong to.
    links: Arc<Mutex<HashMap<CallTag, HostLink>>>,
    /// The calls in flight as the wire shows them.
    wire: Arc<Wire>,
    /// The server has asked a host something (elicitation, sampling).
    asked: Arc<AtomicBool>,
    /// Its transport says which call a request belongs to (streamable HTTP).
    says: Arc<AtomicBool>,
    /// Calls that ran out of time in a row, none answered between.
    timeouts: Arc<std::sync::atomic::AtomicU32>,
    subscribers: Subscribers,
}

/// Where a server's message goes.
enum Route {
    Host(HostLink),
    /// It belongs to a call with no host to ask (a call of the CLI).
    NoHost,
    /// It belongs to no call.
    NoCall,
    /// Several calls were in flight and the server's transport does not
    /// say which it belongs to.
    Unknown(usize),
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
            wire: Arc::default(),
            asked: Arc::default(),
            says: Arc::default(),
            timeouts: Arc::default(),
            subscribers,
        }
    }

    /// A call ran out of time: how many in a row now.
    pub(super) fn timed_out(&self) -> u32 {
        self.timeouts.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// A call was answered.
    pub(super) fn answered(&self) {
        self.timeouts.store(0, Ordering::Release);
    }

    /// Whether the server has asked a host something during a call.
    pub(super) fn has_asked(&self) -> bool {
        self.asked.load(Ordering::Relaxed)
    }

    /// Whether its transport says which call a request belongs to.
    pub(super) fn says_its_calls(&self) -> bool {
        self.says.load(Ordering::Relaxed)
    }

    /// Its transport says which call a request belongs to.
    pub(super) fn saying_its_calls(self) -> Listener {
        self.says.store(true, Ordering::Relaxed);
        self
    }

    /// The calls in flight on this connection, as its transport notes them.
    pub(super) fn wire(&self) -> Arc<Wire> {
        self.wire.clone()
    }

    /// Sends the server's requests and log messages that belong to the
    /// call tagged `tag` to `link`, until [`Listener::forget_link`].
    pub(super) fn follow_link(&self, tag: CallTag, link: HostLink) {
        crate::lock::lock(&self.links).insert(tag, link);
    }

    pub(super) fn forget_link(&self, tag: CallTag) {
        crate::lock::lock(&self.links).remove(&tag);
    }

    /// Where a message the wire marked goes.
    fn route(&self, extensions: &rmcp::model::Extensions) -> Route {
        match extensions.get::<Owner>() {
            Some(Owner::Call(tag)) => match crate::lock::lock(&self.links).get(tag) {
                Some(link) => Route::Host(link.clone()),
                None => Route::NoHost,
            },
            Some(Owner::Unknown(calls)) => Route::Unknown(*calls),
            Some(Owner::NoCall) | None => Route::NoCall,
        }
    }

    /// Why a server's request reaches no host.
    fn unrouted(&self, route: &Route, what: &str) -> ErrorData {
        let message = match route {
            Route::Unknown(calls) => format!(
                "toolsift's gateway cannot tell which of the {calls} calls in flight on this server asked for {what} (its transport does not say), so it asked no host"
            ),
            Route::NoHost => format!(
                "the call that asked for {what} has no host behind toolsift's gateway to ask"
            ),
            _ => format!(
                "toolsift's gateway passes {what} on to the host only during a tool call of this server, and none is running"
            ),
        };
        ErrorData::new(ErrorCode::METHOD_NOT_FOUND, message, None)
    }

    /// Sends the progress reported for the call tagged `tag` to `sink`
    /// until [`Listener::forget_progress`].
    pub(super) fn follow_progress(&self, tag: CallTag, sink: ProgressSink) {
        crate::lock::lock(&self.progress).insert(tag, sink);
    }

    pub(super) fn forget_progress(&self, tag: CallTag) {
        crate::lock::lock(&self.progress).remove(&tag);
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
        // A server's roots/list goes to the host of the call it belongs to.
        config.capabilities.roots = Some(RootsCapabilities::default());
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.store(true, Ordering::Relaxed);
        // The server's notifications/cancelled for this request cancels
        // context.ct: the host's request is cancelled too.
        match self.route(&context.extensions) {
            Route::Host(link) => link.elicit(&self.server, request, context.ct.cancelled()).await,
            other => Err(self.unrouted(&other, "input from the user (elicitation)")),
        }
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        match self.route(&context.extensions) {
            Route::Host(link) => link.roots(context.ct.cancelled()).await,
            // Outside a call no host's roots are this server's to read.
            _ => Ok(ListRootsResult::default()),
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.asked.store(true, Ordering::Relaxed);
        match self.route(&context.extensions) {
            Route::Host(link) => link.sample(&self.server, params, context.ct.cancelled()).await,
            other => Err(self.unrouted(&other, "a model's completion (sampling)")),
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        context: NotificationContext<RoleClient>,
    ) {
        let _handled = context
            .extensions
            .get::<HandledOnDrop>()
            .and_then(HandledOnDrop::take);
        // Outside a call, or when the call cannot be told, there is no
        // host to tell: dropped.
        if let Route::Host(link) = self.route(&context.extensions) {
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
        context: NotificationContext<RoleClient>,
    ) {
        let _handled = context
            .extensions
            .get::<HandledOnDrop>()
            .and_then(HandledOnDrop::take);
        // Progress of no call in flight (late, or never asked for), or of
        // a call that does not follow it, is dropped.
        let sink = match context.extensions.get::<Owner>() {
            Some(Owner::Call(tag)) => crate::lock::lock(&self.progress).get(tag).cloned(),
            _ => None,
        };
        if let Some(sink) = sink {
            sink.push(params);
        }
    }
}
