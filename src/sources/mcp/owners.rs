//! Which call a server's message belongs to, read off the wire: the
//! connection's transport is wrapped so that every `tools/call` sent is
//! noted (by the gateway's own tag for the call) until its answer or its
//! cancellation, and every request and notification the server sends is
//! marked with the calls that were in flight at the moment it was read.
//!
//! A streamable HTTP server says which call it asks for when its request
//! comes on the response stream of that call's POST (rmcp marks the
//! stream); otherwise (a stdio server, or a request on the standalone
//! stream) a message belongs to the one call in flight, or to none, or
//! cannot be told when several were. Nothing is ever routed by recency.
//!
//! Each notification read for a call is owed to it until the listener has
//! handled it: a call waits for what it is owed (bounded) before its
//! result goes back, so a log line or a progress report the server sent
//! just before its result reaches the host first, with no fixed grace.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, GetExtensions, GetMeta,
    JsonRpcMessage, ProgressToken, RequestId, ServerJsonRpcMessage, ServerNotification,
};
use rmcp::service::{InboundStreamOrigin, RoleClient};
use rmcp::transport::Transport;

use crate::lock::lock;

/// The gateway's tag for one call, put in the call request's extensions
/// (never on the wire) before it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct CallTag(pub(super) u64);

/// What a message the server sent belongs to, as the wire shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Owner {
    /// The one call in flight (or the call whose stream it came on).
    Call(CallTag),
    /// No call was in flight, or it came on no call's stream.
    NoCall,
    /// Several calls were in flight and the transport does not say which.
    Unknown(usize),
}

/// The notifications read for one call and those handled so far.
#[derive(Default)]
pub(super) struct Owed {
    read: AtomicU64,
    handled: AtomicU64,
    changed: tokio::sync::Notify,
}

impl Owed {
    /// Waits until every notification read for the call so far has been
    /// handled, at most `bound`.
    pub(super) async fn settled(&self, bound: Duration) {
        let read = self.read.load(Ordering::Acquire);
        let _ = tokio::time::timeout(bound, async {
            loop {
                let changed = self.changed.notified();
                if self.handled.load(Ordering::Acquire) >= read {
                    return;
                }
                changed.await;
            }
        })
        .await;
    }
}

/// Marks one notification as handled when dropped (however its handling
/// ends).
pub(super) struct Handled(Arc<Owed>);

impl Drop for Handled {
    fn drop(&mut self) {
        self.0.handled.fetch_add(1, Ordering::AcqRel);
        self.0.changed.notify_waiters();
    }
}

/// A call in flight on the wire.
struct InFlight {
    tag: CallTag,
    progress: Option<ProgressToken>,
}

/// The calls in flight on one connection.
#[derive(Default)]
pub(super) struct Wire {
    calls: std::sync::Mutex<HashMap<RequestId, InFlight>>,
    by_tag: std::sync::Mutex<HashMap<CallTag, Arc<Owed>>>,
    next: AtomicU64,
    /// Requests and notifications that could not be told apart.
    unknown: AtomicU64,
}

impl Wire {
    /// A tag for a new call, and what it will be owed; [`Wire::forget`]
    /// it when the call is over.
    pub(super) fn begin(&self) -> (CallTag, Arc<Owed>) {
        let tag = CallTag(self.next.fetch_add(1, Ordering::Relaxed));
        let owed = Arc::new(Owed::default());
        lock(&self.by_tag).insert(tag, owed.clone());
        (tag, owed)
    }

    /// The call tagged `tag` is over, answered or not.
    pub(super) fn forget(&self, tag: CallTag) {
        lock(&self.by_tag).remove(&tag);
        lock(&self.calls).retain(|_, c| c.tag != tag);
    }

    /// How many of the server's messages could not be told apart.
    pub(super) fn unknown(&self) -> u64 {
        self.unknown.load(Ordering::Relaxed)
    }

    /// How many calls are in flight.
    pub(super) fn in_flight(&self) -> usize {
        lock(&self.calls).len()
    }

    fn sent(&self, message: &ClientJsonRpcMessage) {
        match message {
            JsonRpcMessage::Request(request) => {
                if let ClientRequest::CallToolRequest(call) = &request.request
                    && let Some(tag) = call.extensions.get::<CallTag>()
                {
                    lock(&self.calls).insert(
                        request.id.clone(),
                        InFlight {
                            tag: *tag,
                            progress: request.request.get_meta().get_progress_token(),
                        },
                    );
                }
            }
            JsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    self.ended(id);
                }
            }
            _ => {}
        }
    }

    fn ended(&self, id: &RequestId) {
        lock(&self.calls).remove(id);
    }

    /// The owner of a message read now, with nothing said by its stream.
    fn owner_now(&self) -> Owner {
        let calls = lock(&self.calls);
        let mut tags = calls.values().map(|c| c.tag);
        match (tags.next(), tags.next()) {
            (None, _) => Owner::NoCall,
            (Some(tag), None) => Owner::Call(tag),
            _ => Owner::Unknown(calls.len()),
        }
    }

    fn read(&self, message: &mut ServerJsonRpcMessage) {
        match message {
            JsonRpcMessage::Response(r) => self.ended(&r.id),
            JsonRpcMessage::Error(e) => {
                if let Some(id) = &e.id {
                    self.ended(id);
                }
            }
            JsonRpcMessage::Request(request) => {
                let origin = request
                    .request
                    .extensions()
                    .get::<InboundStreamOrigin>()
                    .cloned();
                let owner = match origin {
                    Some(InboundStreamOrigin::OutboundRequest(id)) => {
                        match lock(&self.calls).get(&id) {
                            Some(call) => Owner::Call(call.tag),
                            None => Owner::NoCall,
                        }
                    }
                    // The standalone stream: the server did not say. A
                    // request a call waits on comes while that call is in
                    // flight (the call cannot be answered before it is).
                    Some(InboundStreamOrigin::Unassociated) | None => self.owner_now(),
                };
                if matches!(owner, Owner::Unknown(_)) {
                    self.unknown.fetch_add(1, Ordering::Relaxed);
                }
                request.request.extensions_mut().insert(owner);
            }
            JsonRpcMessage::Notification(n) => {
                let owner = match &n.notification {
                    // Progress names its call by the token it was sent with.
                    ServerNotification::ProgressNotification(p) => {
                        let calls = lock(&self.calls);
                        match calls
                            .values()
                            .find(|c| c.progress.as_ref() == Some(&p.params.progress_token))
                        {
                            Some(call) => Owner::Call(call.tag),
                            None => Owner::NoCall,
                        }
                    }
                    _ => self.owner_now(),
                };
                if let Owner::Call(tag) = &owner
                    && let Some(owed) = lock(&self.by_tag).get(tag).cloned()
                {
                    owed.read.fetch_add(1, Ordering::AcqRel);
                    n.notification.extensions_mut().insert(HandledOnDrop(Arc::new(
                        std::sync::Mutex::new(Some(Handled(owed))),
                    )));
                }
                if matches!(owner, Owner::Unknown(_)) {
                    self.unknown.fetch_add(1, Ordering::Relaxed);
                }
                n.notification.extensions_mut().insert(owner);
            }
        }
    }
}

/// A notification's [`Handled`] mark, carried in its extensions (which
/// must be `Clone`): the listener takes it and drops it when done.
#[derive(Clone)]
pub(super) struct HandledOnDrop(Arc<std::sync::Mutex<Option<Handled>>>);

impl HandledOnDrop {
    pub(super) fn take(&self) -> Option<Handled> {
        lock(&self.0).take()
    }
}

/// A transport whose messages are noted on a [`Wire`].
pub(super) struct Tracked<T> {
    inner: T,
    wire: Arc<Wire>,
}

impl<T> Tracked<T> {
    pub(super) fn new(inner: T, wire: Arc<Wire>) -> Tracked<T> {
        Tracked { inner, wire }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Tracked<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // Noted before it is written: its answer cannot come earlier.
        self.wire.sent(&item);
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        let mut message = self.inner.receive().await?;
        self.wire.read(&mut message);
        Some(message)
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}

#[cfg(test)]
#[allow(deprecated)]
mod tests {
    use super::*;
    use rmcp::model::{
        CallToolRequest, CallToolRequestParams, CancelledNotification,
        CancelledNotificationParam, ElicitRequest, ElicitRequestParams, JsonRpcNotification,
        JsonRpcRequest, JsonRpcResponse, JsonRpcVersion2_0, LoggingLevel,
        LoggingMessageNotification, LoggingMessageNotificationParam, ServerRequest, ServerResult,
    };

    fn call(wire: &Wire, id: i64) -> CallTag {
        let (tag, _) = wire.begin();
        let mut request = CallToolRequest::new(CallToolRequestParams::new("t"));
        request.extensions.insert(tag);
        let message = JsonRpcMessage::Request(JsonRpcRequest::new(
            RequestId::Number(id),
            ClientRequest::CallToolRequest(request),
        ));
        wire.sent(&message);
        tag
    }

    fn elicitation(id: i64) -> ServerJsonRpcMessage {
        let params: ElicitRequestParams = serde_json::from_value(serde_json::json!({
            "message": "otp?", "requestedSchema": {"type": "object", "properties": {}}
        }))
        .unwrap();
        JsonRpcMessage::Request(JsonRpcRequest::new(
            RequestId::Number(id),
            ServerRequest::ElicitRequest(ElicitRequest::new(params)),
        ))
    }

    #[allow(deprecated)]
    fn log() -> ServerJsonRpcMessage {
        JsonRpcMessage::Notification(JsonRpcNotification {
            jsonrpc: JsonRpcVersion2_0,
            notification: ServerNotification::LoggingMessageNotification(
                LoggingMessageNotification::new(LoggingMessageNotificationParam::new(
                    LoggingLevel::Info,
                    serde_json::json!("secret"),
                )),
            ),
        })
    }

    fn answer(id: i64) -> ServerJsonRpcMessage {
        JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id: RequestId::Number(id),
            result: ServerResult::empty(()),
        })
    }

    fn owner_of(message: &ServerJsonRpcMessage) -> Owner {
        match message {
            JsonRpcMessage::Request(r) => r.request.extensions().get::<Owner>().cloned(),
            JsonRpcMessage::Notification(n) => {
                n.notification.extensions().get::<Owner>().cloned()
            }
            _ => None,
        }
        .unwrap()
    }

    #[test]
    fn a_message_belongs_to_the_one_call_in_flight_never_to_the_newest_of_several() {
        let wire = Wire::default();
        let mut asked = elicitation(1);
        wire.read(&mut asked);
        assert_eq!(owner_of(&asked), Owner::NoCall);
        let alice = call(&wire, 10);
        let mut asked = elicitation(2);
        wire.read(&mut asked);
        assert_eq!(owner_of(&asked), Owner::Call(alice));
        // Bob's call starts: the next question cannot be told apart, and
        // goes to neither (not to the newest).
        let _bob = call(&wire, 11);
        let mut asked = elicitation(3);
        wire.read(&mut asked);
        assert_eq!(owner_of(&asked), Owner::Unknown(2));
        let mut logged = log();
        wire.read(&mut logged);
        assert_eq!(owner_of(&logged), Owner::Unknown(2));
        assert_eq!(wire.unknown(), 2);
        // Alice's answer read: what comes next is Bob's.
        wire.read(&mut answer(10));
        let mut logged = log();
        wire.read(&mut logged);
        assert!(matches!(owner_of(&logged), Owner::Call(t) if t != alice));
    }

    #[test]
    fn a_request_on_a_calls_stream_is_that_calls_and_a_cancelled_call_is_over() {
        let wire = Wire::default();
        let alice = call(&wire, 10);
        let _bob = call(&wire, 11);
        let mut asked = elicitation(1);
        if let JsonRpcMessage::Request(r) = &mut asked {
            r.request
                .extensions_mut()
                .insert(InboundStreamOrigin::OutboundRequest(RequestId::Number(10)));
        }
        wire.read(&mut asked);
        assert_eq!(owner_of(&asked), Owner::Call(alice));
        let cancelled = JsonRpcMessage::Notification(JsonRpcNotification {
            jsonrpc: JsonRpcVersion2_0,
            notification: ClientNotification::CancelledNotification(CancelledNotification::new(
                CancelledNotificationParam::new(Some(RequestId::Number(11)), None),
            )),
        });
        wire.sent(&cancelled);
        assert_eq!(wire.in_flight(), 1);
        let mut asked = elicitation(2);
        wire.read(&mut asked);
        assert_eq!(owner_of(&asked), Owner::Call(alice));
    }

    #[tokio::test]
    async fn a_call_waits_for_the_notifications_read_before_its_answer() {
        let wire = Wire::default();
        let tag = call(&wire, 10);
        let owed = lock(&wire.by_tag).get(&tag).cloned().unwrap();
        let mut logged = log();
        wire.read(&mut logged);
        let JsonRpcMessage::Notification(n) = &logged else {
            unreachable!()
        };
        let mark = n
            .notification
            .extensions()
            .get::<HandledOnDrop>()
            .and_then(HandledOnDrop::take)
            .unwrap();
        wire.read(&mut answer(10));
        let waiting = tokio::spawn(async move {
            owed.settled(Duration::from_secs(30)).await;
        });
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert!(!waiting.is_finished(), "settled before the log was handled");
        drop(mark);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("settled once handled")
            .unwrap();
    }
}
