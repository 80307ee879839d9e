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

use super::Gateway;
use super::offered::upstream_error;
use crate::sources::mcp::Offer;
use crate::terminal_text::escape;

impl Gateway {
    /// `completion/complete`: the prompt's or template's server completes
    /// the argument (the reference in that server's own names).
    pub(crate) async fn complete(
        &self,
        mut params: CompleteRequestParams,
    ) -> Result<CompleteResult, ErrorData> {
        let server = match &mut params.r#ref {
            Reference::Prompt(prompt) => {
                let (server, original) = self.prompt_route(&prompt.name).await?;
                prompt.name = original;
                server
            }
            Reference::Resource(template) => self.resource_server(&template.uri).await?,
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

    /// `logging/setLevel`: every live server that logs gets the level; one
    /// that fails is logged here, the others keep theirs.
    pub(crate) async fn set_level(&self, level: LoggingLevel) -> Result<(), ErrorData> {
        for server in self.host.servers_offering(Offer::Logging) {
            if let Err(e) = self.host.set_level(&server, level).await {
                self.recorder.warn(&format!(
                    "{}: logging/setLevel failed: {}",
                    escape(&server),
                    escape(&e.to_string())
                ));
            }
        }
        Ok(())
    }

    /// `resources/subscribe` of `uri` for `session` (whose host is `peer`):
    /// the resource's server is asked once, by the first host that
    /// subscribes.
    pub(crate) async fn subscribe(
        &self,
        uri: &str,
        session: u64,
        peer: Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        let server = self.resource_server(uri).await?;
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
    pub(crate) async fn unsubscribe(&self, uri: &str, session: u64) -> Result<(), ErrorData> {
        if self.host.subscribers().remove(uri, session)
            && let Ok(server) = self.resource_server(uri).await
            && let Err(e) = self.host.subscribe(&server, uri, false).await
        {
            return Err(upstream_error(&e));
        }
        Ok(())
    }
}
