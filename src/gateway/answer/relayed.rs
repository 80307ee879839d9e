//! What a host asks of the servers beside tools, passed on to the server
//! it concerns: `completion/complete` (to the server of the prompt or the
//! resource template), `logging/setLevel` (to every server that logs, each
//! set to the level asked), `resources/subscribe` and `unsubscribe` (to
//! the server of the resource; its updates reach each host subscribed).
//! These are handshake-revision methods: 2026-07-28 has no setLevel and no
//! subscriptions, and its hosts are answered by rmcp that they do not exist.

// Sampling and logging are deprecated for 2026-07-28 (SEP-2577); they
// are the handshake revisions' own, and passed on for them.
#![allow(deprecated)]

use rmcp::ErrorData;
use rmcp::model::{CompleteRequestParams, CompleteResult, LoggingLevel, Reference};
use rmcp::service::{Peer, RoleServer};

use super::offered::upstream_error;
use crate::gateway::{Gateway, Reach};
use crate::sources::mcp::Offer;
use crate::terminal_text::escape;

/// How often an HTTP gateway looks for subscriptions of ended sessions.
pub(crate) const RELEASE_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

impl Gateway {
    /// `completion/complete`: the prompt's or template's server completes
    /// the argument (the reference in that server's own names).
    pub(crate) async fn complete(
        &self,
        mut params: CompleteRequestParams,
        reach: &Reach,
    ) -> Result<CompleteResult, ErrorData> {
        let server = match &mut params.r#ref {
            Reference::Prompt(prompt) => {
                let (server, original) = self.prompt_route(&prompt.name, reach).await?;
                prompt.name = original;
                server
            }
            Reference::Resource(template) => self.resource_server(&template.uri, reach).await?,
            _ => {
                return Err(ErrorData::invalid_params(
                    "completion/complete: a reference of a kind this gateway does not know",
                    None,
                ));
            }
        };
        if !self
            .host
            .servers_offering(Offer::Completions)
            .contains(&server)
        {
            // As a server without completions answers: nothing to offer.
            return Ok(CompleteResult::default());
        }
        self.host
            .complete(&server, params)
            .await
            .map_err(|e| upstream_error(&e))
    }

    /// `logging/setLevel` from a session: every live server that logs is
    /// set to the most detailed level (servers are shared by sessions), and
    /// each session is sent the messages at the level it asked for and
    /// above (`HostLink::with_log_level`). One that fails is logged here.
    pub(crate) async fn set_level(&self) -> Result<(), ErrorData> {
        for server in self.host.servers_offering(Offer::Logging) {
            if let Err(e) = self.host.set_level(&server, LoggingLevel::Debug).await {
                self.recorder.warn(&format!(
                    "{}: logging/setLevel failed: {}",
                    escape(&server),
                    escape(&e.to_string())
                ));
            }
        }
        Ok(())
    }

    /// Tells the servers of resources only ended sessions were subscribed
    /// to that nobody is: run at each subscribe and unsubscribe, and every
    /// [`RELEASE_EVERY`] over HTTP.
    pub(crate) async fn release_abandoned(&self) {
        for uri in self.host.subscribers().abandoned() {
            if let Ok(server) = self.resource_server(&uri, &Reach::default()).await
                && let Err(e) = self.host.subscribe(&server, &uri, false).await
            {
                self.recorder.warn(&format!(
                    "{}: unsubscribing from {} for a session that ended failed: {}",
                    escape(&server),
                    escape(&uri),
                    escape(&e.to_string())
                ));
            }
        }
    }

    /// `resources/subscribe` of `uri` for `session` (whose host is `peer`):
    /// the resource's server is asked once, by the first host that
    /// subscribes.
    pub(crate) async fn subscribe(
        &self,
        uri: &str,
        reach: &Reach,
        session: u64,
        peer: Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.release_abandoned().await;
        let server = self.resource_server(uri, reach).await?;
        if !self
            .host
            .servers_offering(Offer::Subscriptions)
            .contains(&server)
        {
            return Err(ErrorData::invalid_params(
                format!(
                    "the server of {} ({}) does not offer resource subscriptions",
                    escape(uri),
                    escape(&server)
                ),
                None,
            ));
        }
        let first = self.host.subscribers().add(uri, session, peer);
        if first && let Err(e) = self.host.subscribe(&server, uri, true).await {
            self.host.subscribers().remove(uri, session);
            return Err(upstream_error(&e));
        }
        Ok(())
    }

    /// `resources/unsubscribe` of `uri` for `session`; the server is told
    /// when no host is left subscribed.
    pub(crate) async fn unsubscribe(
        &self,
        uri: &str,
        reach: &Reach,
        session: u64,
    ) -> Result<(), ErrorData> {
        self.release_abandoned().await;
        if self.host.subscribers().remove(uri, session)
            && let Ok(server) = self.resource_server(uri, reach).await
            && let Err(e) = self.host.subscribe(&server, uri, false).await
        {
            return Err(upstream_error(&e));
        }
        Ok(())
    }
}
