//! What the servers offer beside tools: resources, resource templates and
//! prompts, listed from every live server that declares them (in parallel,
//! each within the start time limit) and read or got from the one that
//! owns them.

// Sampling and logging are deprecated for 2026-07-28 (SEP-2577); they
// are the handshake revisions' own, and passed on for them (relay.rs).
#![allow(deprecated)]

use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResult, JsonObject,
    LoggingLevel, Prompt, ReadResourceRequestParams, ReadResourceResult, Resource,
    ResourceTemplate, ServerCapabilities, SetLevelRequestParams, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::ServiceError;

use super::connect::Client;
use super::{McpCallError, McpHost};
use crate::lock::lock;

/// One server's list, or why it could not be had.
#[derive(Debug, Clone)]
pub struct ServerList<T> {
    pub server: String,
    pub items: Result<Vec<T>, ListFailed>,
}

/// Why a server's list could not be had: its answer was an error, or it
/// did not answer in time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListFailed {
    #[error("{0}")]
    Answered(String),
    #[error("did not answer within {0} s")]
    TimedOut(u64),
}

/// Which of its offers a server declares in its capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    Resources,
    Prompts,
    /// Log messages at a level the client sets (`logging/setLevel`).
    Logging,
    /// Completions of prompt and resource template arguments.
    Completions,
    /// Resource subscriptions (`resources/subscribe`).
    Subscriptions,
}

impl Offer {
    fn declared(self, c: &ServerCapabilities) -> bool {
        match self {
            Offer::Resources => c.resources.is_some(),
            Offer::Prompts => c.prompts.is_some(),
            Offer::Logging => c.logging.is_some(),
            Offer::Completions => c.completions.is_some(),
            Offer::Subscriptions => c
                .resources
                .as_ref()
                .is_some_and(|r| r.subscribe == Some(true)),
        }
    }
}

impl McpHost {
    /// The live servers that declare `offer`, in the configuration's order.
    fn offering(&self, offer: Offer) -> Vec<(String, Arc<Client>)> {
        let names: Vec<String> = lock(&self.shared.entries)
            .iter()
            .filter(|e| e.loaded)
            .map(|e| e.server.name.clone())
            .collect();
        names
            .into_iter()
            .filter_map(|name| {
                let client = self.shared.client(&name)?;
                let declared = client
                    .peer_info()
                    .is_some_and(|info| offer.declared(&info.capabilities));
                (declared && !client.is_closed()).then_some((name, client))
            })
            .collect()
    }

    /// The live servers that declare `offer`, by name.
    pub fn servers_offering(&self, offer: Offer) -> Vec<String> {
        self.offering(offer)
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    }

    /// `list` of each server declaring `offer`, all at once, each within
    /// the start time limit.
    async fn each<T, F, Fut>(&self, offer: Offer, list: F) -> Vec<ServerList<T>>
    where
        T: Send + 'static,
        F: Fn(Arc<Client>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Vec<T>, ServiceError>> + Send + 'static,
    {
        let limit = *lock(&self.shared.start_timeout);
        let tasks: Vec<_> = self
            .offering(offer)
            .into_iter()
            .map(|(server, client)| {
                let fut = list(client);
                async move {
                    let items = match tokio::time::timeout(limit, fut).await {
                        Ok(Ok(items)) => Ok(items),
                        Ok(Err(e)) => Err(ListFailed::Answered(e.to_string())),
                        Err(_) => Err(ListFailed::TimedOut(limit.as_secs())),
                    };
                    ServerList { server, items }
                }
            })
            .collect();
        self.run(futures_util::future::join_all(tasks))
            .await
            .unwrap_or_default()
    }

    /// Every page of each server's `resources/list`.
    pub async fn list_resources(&self) -> Vec<ServerList<Resource>> {
        self.each(
            Offer::Resources,
            |c| async move { c.list_all_resources().await },
        )
        .await
    }

    /// Every page of each server's `resources/templates/list`.
    pub async fn list_resource_templates(&self) -> Vec<ServerList<ResourceTemplate>> {
        self.each(Offer::Resources, |c| async move {
            c.list_all_resource_templates().await
        })
        .await
    }

    /// Every page of each server's `prompts/list`.
    pub async fn list_prompts(&self) -> Vec<ServerList<Prompt>> {
        self.each(
            Offer::Prompts,
            |c| async move { c.list_all_prompts().await },
        )
        .await
    }

    /// `resources/read` of `uri` on `server`, within the call time limit.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<ReadResourceResult, McpCallError> {
        let params = ReadResourceRequestParams::new(uri);
        self.ask(
            server,
            move |c| async move { c.read_resource(params).await },
        )
        .await
    }

    /// `prompts/get` of `name` (the server's name for it) on `server`.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<GetPromptResult, McpCallError> {
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = arguments;
        self.ask(server, move |c| async move { c.get_prompt(params).await })
            .await
    }

    /// `completion/complete` on `server` (the reference in the server's own
    /// names).
    pub async fn complete(
        &self,
        server: &str,
        params: CompleteRequestParams,
    ) -> Result<CompleteResult, McpCallError> {
        self.ask(server, move |c| async move { c.complete(params).await })
            .await
    }

    /// `logging/setLevel` on `server`.
    #[allow(deprecated)]
    pub async fn set_level(&self, server: &str, level: LoggingLevel) -> Result<(), McpCallError> {
        self.ask(server, move |c| async move {
            c.set_level(SetLevelRequestParams::new(level)).await
        })
        .await
    }

    /// `resources/subscribe` (or, `on` false, `unsubscribe`) of `uri` on
    /// `server`.
    #[allow(deprecated)]
    pub async fn subscribe(&self, server: &str, uri: &str, on: bool) -> Result<(), McpCallError> {
        let uri = uri.to_string();
        self.ask(server, move |c| async move {
            if on {
                c.subscribe(SubscribeRequestParams::new(uri)).await
            } else {
                c.unsubscribe(UnsubscribeRequestParams::new(uri)).await
            }
        })
        .await
    }

    /// The hosts subscribed to each resource: the servers' updates go to
    /// them.
    pub fn subscribers(&self) -> &super::relay::Subscribers {
        &self.shared.subscribers
    }

    /// One request to `server`'s live connection, within the call time limit.
    async fn ask<T, F, Fut>(&self, server: &str, request: F) -> Result<T, McpCallError>
    where
        T: Send + 'static,
        F: FnOnce(Arc<Client>) -> Fut,
        Fut: Future<Output = Result<T, ServiceError>> + Send + 'static,
    {
        let client = self
            .shared
            .client(server)
            .filter(|c| !c.is_closed())
            .ok_or_else(|| McpCallError::NoServer(server.to_string()))?;
        let limit = self.shared.call_timeout;
        let fut = request(client);
        let answer = self
            .run_abortable(async move { tokio::time::timeout(limit, fut).await })
            .await;
        match answer {
            None => Err(McpCallError::Failed {
                server: server.to_string(),
                message: "the connection task ended".into(),
            }),
            Some(Err(_)) => Err(McpCallError::Timeout {
                server: server.to_string(),
                secs: limit.as_secs(),
            }),
            Some(Ok(Err(ServiceError::McpError(data)))) => Err(McpCallError::Answered {
                server: server.to_string(),
                code: data.code.0,
                message: data.message.to_string(),
            }),
            Some(Ok(Err(other))) => Err(McpCallError::Failed {
                server: server.to_string(),
                message: super::sdk_text::plain(&other.to_string()),
            }),
            Some(Ok(Ok(value))) => Ok(value),
        }
    }
}
