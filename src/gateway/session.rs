//! One MCP session of the gateway: the rmcp server handler. Over stdio a
//! process is one session; over HTTP each `Mcp-Session-Id` is one (the
//! 2026-07-28 revision has no sessions: its calls share one breaker per API
//! key). A session has its own breaker and, with `--expose-found`, its own
//! found tools.

use std::sync::{Arc, Mutex};

use rmcp::model::SubscriptionFilter;
// setLevel and subscriptions are deprecated for 2026-07-28 (SEP-2577);
// they are the handshake revisions' own, and passed on for them.
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, DiscoverResult,
    GetPromptRequestParams, GetPromptResponse, Implementation, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SetLevelRequestParams, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler};

use super::Gateway;
use super::answer::call::SessionBreaker;
use super::answer::call::Via;
use super::answer::first_view::announce_changes;
use super::answer::meta::{CALL_READ_TOOL, CALL_TOOL, SEARCH_TOOLS, listing};
use super::answer::results::error_result;
use super::policy::access::Reach;
use super::policy::approve::Asking;
use crate::telemetry::spans::{self, Traced};

/// Found tools a session's `tools/list` holds at most with
/// `--expose-found` (the oldest found go first).
pub const MAX_EXPOSED: usize = 32;

/// The id the next session gets.
static NEXT_SESSION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The handler of one session.
#[derive(Clone)]
pub struct GatewaySession {
    gateway: Arc<Gateway>,
    /// How the log names the session.
    label: String,
    breaker: Arc<SessionBreaker>,
    /// Tools found in this session (`--expose-found`), in first-found order.
    exposed: Arc<Mutex<Vec<String>>>,
    /// Bumped when the session's found tools change its `tools/list`.
    own: Arc<tokio::sync::watch::Sender<u64>>,
    /// Which session this is, for its resource subscriptions.
    id: u64,
    /// The log level this session asked for (`logging/setLevel`).
    #[allow(deprecated)]
    log_level: Arc<Mutex<Option<rmcp::model::LoggingLevel>>>,
}

impl GatewaySession {
    /// A new session named `label` in the log.
    pub fn new(gateway: Arc<Gateway>, label: &str) -> GatewaySession {
        let breaker = Arc::new(gateway.new_breaker());
        GatewaySession {
            gateway,
            label: label.to_string(),
            breaker,
            exposed: Arc::new(Mutex::new(Vec::new())),
            own: Arc::new(tokio::sync::watch::Sender::new(0)),
            id: NEXT_SESSION.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            log_level: Arc::default(),
        }
    }

    /// The session's label and breaker for this request: over HTTP without
    /// a session id (2026-07-28), the API key's shared one.
    fn who(&self, context: &RequestContext<RoleServer>) -> (String, Arc<SessionBreaker>) {
        let Some(parts) = context.extensions.get::<axum::http::request::Parts>() else {
            return (self.label.clone(), self.breaker.clone());
        };
        if let Some(id) = parts
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            let short: String = id.chars().take(8).collect();
            return (short, self.breaker.clone());
        }
        // The API key the request proved (set by the HTTP layer's auth).
        let scope = parts
            .extensions
            .get::<super::transport::http::Scope>()
            .map(|s| s.0.clone())
            .unwrap_or_default();
        // Labelled by the key's name, else by its digest, never with the
        // key itself (the label goes to the log, the trace and followers);
        // the learn file and the followers' events carry the same.
        let label = self
            .gateway
            .config
            .access
            .label(&scope)
            .unwrap_or_else(|| "-".to_string());
        (label, self.gateway.stateless_breaker(&scope))
    }
}

impl GatewaySession {
    /// The API key this request proved ("" over stdio and over HTTP
    /// without keys).
    fn scope<'a>(&self, context: &'a RequestContext<RoleServer>) -> &'a str {
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<super::transport::http::Scope>())
            .map_or("", |s| s.0.as_str())
    }

    /// How the API key this request proved is named (its name in
    /// `[gateway.keys]`, else its digest, [`crate::http::keys::digest`]):
    /// whose traffic it is for followers, and whose learned use its
    /// searches rank with. `None` over stdio and over HTTP without keys.
    fn key_of(&self, context: &RequestContext<RoleServer>) -> Option<String> {
        self.gateway.config.access.label(self.scope(context))
    }

    /// What the API key of this request may reach (everything over stdio
    /// and for a key with no name).
    fn reach(&self, context: &RequestContext<RoleServer>) -> Arc<Reach> {
        self.gateway.config.access.of(self.scope(context))
    }

    /// The server's description for this request's key: the instructions
    /// name only what it reaches, and the servers waiting for its own
    /// login.
    fn info_for(&self, context: &RequestContext<RoleServer>) -> ServerConfig {
        let mut info = self.get_info();
        let reach = self.reach(context);
        let key = self.key_of(context);
        info.instructions = Some(self.gateway.instructions_for(&reach, key.as_deref()));
        info
    }
}

impl GatewaySession {
    /// The span of a host's `tools/call` of `target` (nothing while
    /// telemetry is off): under the host's span when its `_meta` or the
    /// HTTP request's headers name one.
    fn traced(&self, context: &RequestContext<RoleServer>, target: &str, label: &str) -> Traced {
        let headers = context
            .extensions
            .get::<axum::http::request::Parts>()
            .map(|p| &p.headers);
        let header = |name: &str| {
            headers
                .and_then(|h| h.get(name))
                .and_then(|v| v.to_str().ok())
        };
        let key = self.key_of(context);
        let asked = spans::Request {
            method: "tools/call",
            target: Some(target),
            session: label,
            key: key.as_deref(),
        };
        let parent = spans::Parent {
            meta: Some(&context.meta.0.0),
            traceparent: header("traceparent"),
            tracestate: header("tracestate"),
        };
        spans::request(&asked, parent)
    }
}

impl Gateway {
    pub(crate) fn new_breaker(&self) -> SessionBreaker {
        SessionBreaker::new(
            self.config.breaker_threshold,
            self.config.breaker_threshold_read_only,
        )
    }
}

#[allow(deprecated)]
impl ServerHandler for GatewaySession {
    fn get_info(&self) -> ServerConfig {
        // Resources and prompts are declared whatever the servers offer
        // (they may still be starting); the lists are empty when none does.
        // tools/list changes as servers come up (search_tools' description
        // names them) and, with --expose-found, as tools are found.
        // Logging, completions and subscriptions are passed on to the
        // servers that offer them (relayed.rs).
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_prompts()
            .enable_logging()
            .enable_completions()
            .enable_tool_list_changed()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new("toolsift-gateway", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(self.gateway.instructions());
        info
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let mut info = self.negotiate_initialize(&request)?;
        info.instructions = self.info_for(&context).instructions;
        Ok(info)
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.info_for(&context),
        ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // A handshake revision: the session hears of a changed list.
        let peer = context.peer.clone();
        let closed = peer.clone();
        tokio::spawn(announce_changes(
            self.gateway.description_changes(),
            self.own.subscribe(),
            async move {
                while !closed.is_transport_closed() {
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                }
            },
            move || {
                let peer = peer.clone();
                async move { peer.notify_tool_list_changed().await.is_ok() }
            },
        ));
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // 2026-07-28: a host that listens hears of a changed tools/list.
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        announce_changes(
            self.gateway.description_changes(),
            self.own.subscribe(),
            context.cancelled(),
            move || {
                let sink = sink.clone();
                async move { sink.notify_tool_list_changed().await.is_ok() }
            },
        )
        .await;
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let exposed = self
            .exposed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let reach = self.reach(&context);
        let snapshot = self.gateway.view(&reach);
        let key = self.key_of(&context);
        let description = self
            .gateway
            .description_for_key(&reach, key.as_deref(), &snapshot);
        Ok(ListToolsResult::with_all_items(listing(
            &snapshot,
            self.gateway.config.max_tools,
            &exposed,
            &description,
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (label, breaker) = self.who(&context);
        let cancelled = context.ct.clone();
        let drain = &self.gateway.drain;
        let Some(_in_flight) = drain.enter() else {
            return Ok(error_result("the gateway is stopping: this call was not started").into());
        };
        // A host that cancels the call (notifications/cancelled) stops the
        // wait, which cancels the call on its server; so does a stop whose
        // grace period ran out, answered so the host is not left waiting.
        let traced = self.traced(&context, request.name.as_ref(), &label);
        // Boxed: the answer's future is deep, its span's wrapper deeper.
        let answering = Box::pin(traced.run(self.answer(&label, &breaker, request, &context)));
        let mut response = tokio::select! {
            response = answering => response,
            () = cancelled.cancelled() => {
                self.gateway.recorder.info(&format!("{label}: the host cancelled a call"));
                return Err(ErrorData::internal_error("cancelled by the host", None));
            }
            () = drain.cut() => {
                self.gateway.recorder.warn(&format!("{label}: a call was still running when the gateway stopped"));
                error_result("the gateway stopped (it was told to end) before this call finished; its grace period ran out. The call may or may not have taken effect upstream").into()
            }
        };
        // An older server's result has no resultType; 2026-07-28 hosts need
        // it (rmcp drops it again for peers on the handshake revisions).
        if let CallToolResponse::Complete(result) = &mut response
            && result.result_type.is_none()
        {
            result.result_type = Some(rmcp::model::ResultType::COMPLETE);
        }
        Ok(response)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(self.gateway.list_resources(&self.reach(&context)).await)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(self
            .gateway
            .list_resource_templates(&self.reach(&context))
            .await)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let reach = self.reach(&context);
        let mut read = self.gateway.read_resource(&request.uri, &reach).await?;
        // An older server's answer has no resultType; 2026-07-28 hosts
        // need it (rmcp drops it again for the handshake revisions).
        read.result_type
            .get_or_insert(rmcp::model::ResultType::COMPLETE);
        Ok(read.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let reach = self.reach(&context);
        let mut completed = self.gateway.complete(request, &reach).await?;
        // As for reads and prompts: 2026-07-28 hosts need resultType.
        completed
            .result_type
            .get_or_insert(rmcp::model::ResultType::COMPLETE);
        Ok(completed)
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        *self.log_level.lock().unwrap_or_else(|p| p.into_inner()) = Some(request.level);
        self.gateway.set_level().await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let reach = self.reach(&context);
        self.gateway
            .subscribe(&request.uri, &reach, self.id, context.peer.clone())
            .await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let reach = self.reach(&context);
        self.gateway
            .unsubscribe(&request.uri, &reach, self.id)
            .await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(self.gateway.list_prompts(&self.reach(&context)).await)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let reach = self.reach(&context);
        let mut prompt = self
            .gateway
            .get_prompt(&request.name, &reach, request.arguments)
            .await?;
        prompt
            .result_type
            .get_or_insert(rmcp::model::ResultType::COMPLETE);
        Ok(prompt.into())
    }
}

impl GatewaySession {
    /// What a `tools/call` of the gateway's comes to.
    async fn answer(
        &self,
        label: &str,
        breaker: &SessionBreaker,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let arguments = request.arguments.clone().unwrap_or_default();
        // 2026-07-28 asks by the input_required retry; the handshake
        // revisions by an elicitation request of the gateway's.
        let by_retry = context
            .protocol_version()
            .is_some_and(|v| !v.has_initialize());
        let via = Via {
            read_only: false,
            reach: self.reach(context),
            key: self.key_of(context),
            log_level: *self.log_level.lock().unwrap_or_else(|p| p.into_inner()),
            host: Some(&context.peer),
            progress: context.meta.get_progress_token(),
            asking: Asking {
                by_retry,
                can_elicit: context
                    .client_capabilities()
                    .is_some_and(|c| c.elicitation.is_some()),
                can_sample: context
                    .client_capabilities()
                    .is_some_and(|c| c.sampling.is_some()),
                responses: request.input_responses.as_ref(),
                state: request.request_state.as_deref(),
            },
        };
        match request.name.as_ref() {
            SEARCH_TOOLS => {
                // The same search again and again is a loop too: the
                // breaker stops it as it stops a read-only tool's.
                let as_value = serde_json::Value::Object(arguments.clone());
                if let Err(refusal) = breaker.record(SEARCH_TOOLS, &as_value, true) {
                    return error_result(refusal.to_string()).into();
                }
                let key = self.key_of(context);
                let searching =
                    self.gateway
                        .search_tools(label, key.as_deref(), &via.reach, &arguments);
                let found = spans::search().run(searching).await;
                if self.gateway.config.expose_found && !found.names.is_empty() {
                    let added = expose(
                        &mut self.exposed.lock().unwrap_or_else(|p| p.into_inner()),
                        found.names,
                    );
                    if added {
                        // Announced where the revision lets it be heard.
                        self.own.send_modify(|n| *n += 1);
                    }
                }
                found.result.into()
            }
            meta @ (CALL_TOOL | CALL_READ_TOOL) => {
                let via = Via {
                    read_only: meta == CALL_READ_TOOL,
                    ..via
                };
                let calling = self.gateway.call_tool_meta(label, breaker, &arguments, via);
                spans::call().run(calling).await
            }
            name => {
                let calling = self.gateway.call(label, breaker, name, arguments, via);
                spans::call().run(calling).await
            }
        }
    }
}

/// Adds `found` to a session's `exposed` tools (first found first), keeping
/// the [`MAX_EXPOSED`] found last: a long session's list does not grow
/// without bound. Whether the list changed.
fn expose(exposed: &mut Vec<String>, found: Vec<String>) -> bool {
    let before = exposed.clone();
    for name in found {
        if !exposed.contains(&name) {
            exposed.push(name);
        }
    }
    let over = exposed.len().saturating_sub(MAX_EXPOSED);
    exposed.drain(..over);
    *exposed != before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposed_tools_are_capped_oldest_out_and_a_known_one_changes_nothing() {
        let mut exposed = Vec::new();
        assert!(expose(&mut exposed, vec!["a".into(), "b".into()]));
        assert!(!expose(&mut exposed, vec!["b".into()]));
        let many: Vec<String> = (0..MAX_EXPOSED).map(|i| format!("t{i}")).collect();
        assert!(expose(&mut exposed, many));
        assert_eq!(exposed.len(), MAX_EXPOSED);
        assert_eq!(exposed[0], "t0", "a and b, found first, went first");
        assert_eq!(exposed.last().unwrap(), &format!("t{}", MAX_EXPOSED - 1));
    }
}
