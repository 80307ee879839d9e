//! A call admitted, sent to its server and its answer passed on: the
//! host's progress reports and its link for what the server asks during
//! the call (a 2026-07-28 host's as `input_required` rounds, the call
//! running on between its retries), then the result with hidden text
//! taken out and `_meta` naming the tool, or the failure said.

use rmcp::model::{CallToolResponse, CallToolResult, JsonObject};

use super::call::{Admitted, Ledger, SessionBreaker, Via};
use super::results::error_result;
use crate::catalog::McpOrigin;
use crate::gateway::Gateway;
use crate::gateway::record::Ended;
use crate::sources::mcp::{HostLink, McpCallError};

/// What a server answered a call.
type Answer = Result<CallToolResult, McpCallError>;

/// How long the progress reports sent before a result may take to reach
/// the host before the result goes.
const PROGRESS_FLUSH: std::time::Duration = std::time::Duration::from_secs(2);

impl Gateway {
    /// Sends the admitted call to `origin`'s server and waits for its
    /// answer, with what the server asked and did not get added for the
    /// host to read. `Err` is what the host is answered instead (a round
    /// that cannot resume, or the server's question on 2026-07-28).
    pub(super) async fn send(
        &self,
        ledger: &Ledger<'_>,
        admitted: &Admitted,
        origin: &McpOrigin,
        arguments: JsonObject,
        via: &Via<'_>,
    ) -> Result<Answer, CallToolResponse> {
        let (progress, relay) = match via.host.zip(via.progress.clone()) {
            Some((host, token)) => {
                let (sink, reports) = crate::sources::mcp::progress_channel();
                let relay = tokio::spawn(reports.relay(host.clone(), token));
                (Some(sink), Some(relay))
            }
            None => (None, None),
        };
        let link = host_link(via);
        let answer = match &link {
            Some(link) if via.asking.by_retry => {
                let sent = Sent {
                    origin,
                    arguments,
                    progress,
                    link,
                };
                self.send_in_rounds(ledger, admitted, sent, via).await?
            }
            _ => {
                let key = via.key.as_deref();
                let (server, name) = (&origin.server, &origin.name);
                self.host
                    .call_result(server, name, key, arguments, progress, link.clone())
                    .await
            }
        };
        // The host reads what its server asked for and did not get.
        let answer = answer.map(|mut result| {
            for note in link.iter().flat_map(|l| l.notes()) {
                result.content.push(rmcp::model::ContentBlock::text(note));
            }
            result
        });
        if let Some(relay) = relay {
            // The reports sent before the result reach the host before it
            // (a host drops the progress of a call it has the answer of).
            let _ = tokio::time::timeout(PROGRESS_FLUSH, relay).await;
        }
        Ok(answer)
    }

    /// A 2026-07-28 call: the server's requests become `input_required`
    /// rounds; the call runs on in a task between the host's retries, and
    /// a retry that answers a round resumes it.
    async fn send_in_rounds(
        &self,
        ledger: &Ledger<'_>,
        admitted: &Admitted,
        sent: Sent<'_>,
        via: &Via<'_>,
    ) -> Result<Answer, CallToolResponse> {
        let tool = admitted.tool();
        let (owner, arguments) = (&admitted.owner, &ledger.arguments);
        let round = match via.asking.state.filter(|_| admitted.resuming) {
            Some(state) => {
                let responses = via.asking.responses;
                self.rounds
                    .resume(owner, state, &tool.name, arguments, responses)
                    .await
                    .map_err(|why| {
                        CallToolResponse::from(admitted.refused(ledger, why.to_string()))
                    })?
            }
            None => {
                let (asks, questions) = tokio::sync::mpsc::unbounded_channel();
                let link = sent.link.clone().by_rounds(asks);
                let (host, origin) = (self.host.clone(), sent.origin.clone());
                let key = via.key.clone();
                let (call_arguments, progress) = (sent.arguments, sent.progress);
                let traced = crate::telemetry::spans::carry();
                let call = tokio::spawn(traced.within(async move {
                    host.call_result(
                        &origin.server,
                        &origin.name,
                        key.as_deref(),
                        call_arguments,
                        progress,
                        Some(link),
                    )
                    .await
                }));
                self.rounds
                    .start(owner, &tool.name, arguments, call, questions)
                    .await
            }
        };
        match round {
            super::rounds::Round::Done(answer) => Ok(answer),
            super::rounds::Round::Asks(question) => {
                let server = admitted.server.as_deref();
                crate::telemetry::spans::note_call(server, &tool.name, "input_required");
                self.recorder.info(&format!(
                    "{}: {}'s server asks the host (input_required)",
                    ledger.session,
                    crate::terminal_text::escape(&tool.name)
                ));
                Err(CallToolResponse::InputRequired(question))
            }
        }
    }

    /// The server's answer as the host gets it: recorded (a success
    /// learned with `--learn`), hidden text taken out of the result
    /// (`--hidden-text-results`), `_meta` naming the tool; a failure said,
    /// and a call refused for a login taken back from the breaker (its
    /// retry after the login is not a repeat).
    pub(super) fn pass_on(
        &self,
        ledger: &Ledger<'_>,
        breaker: &SessionBreaker,
        admitted: &Admitted,
        answer: Answer,
    ) -> CallToolResult {
        let tool = admitted.tool();
        let server = admitted.server.as_deref();
        match answer {
            Ok(mut result) => {
                let ended = Ended::Answered {
                    is_error: result.is_error.unwrap_or(false),
                };
                if ended == (Ended::Answered { is_error: false }) {
                    self.learn_call(ledger.session, &tool.name);
                }
                let raw = serde_json::to_value(&result).ok();
                ledger.write(&tool.name, server, ended, raw.as_ref(), false);
                if self.config.hidden_text_results
                    && crate::gateway::policy::hidden::clean_result(&mut result)
                {
                    self.recorder.warn(&format!(
                        "{}: hidden text taken out of its result (--hidden-text-results strip)",
                        crate::terminal_text::escape(&tool.name)
                    ));
                    metrics::counter!(
                        "toolsift_gateway_hidden_text_results_total",
                        "server" => server.unwrap_or("-").to_string()
                    )
                    .increment(1);
                }
                crate::gateway::policy::approve::tell_host(&mut result, tool, admitted.listed());
                result
            }
            Err(e) => {
                if !admitted.retry && matches!(e, McpCallError::NeedsLogin { .. }) {
                    breaker.take_back(&tool.name, &ledger.arguments);
                }
                ledger.write(&tool.name, server, Ended::UpstreamError, None, false);
                error_result(format!("{} failed: {e}", tool.name))
            }
        }
    }
}

/// What a call sends: to which tool of which server, its arguments, the
/// sink of its progress reports and its link to the host.
struct Sent<'a> {
    origin: &'a McpOrigin,
    arguments: JsonObject,
    progress: Option<crate::sources::mcp::ProgressSink>,
    link: &'a HostLink,
}

/// What the server asks of its host during the call goes to this call's
/// host (2026-07-28 hosts take no request during a call).
fn host_link(via: &Via<'_>) -> Option<HostLink> {
    via.host.map(|host| {
        HostLink::new(
            host.clone(),
            via.asking.can_elicit,
            via.asking.can_sample,
            via.asking.by_retry.then_some(
                "the host speaks MCP 2026-07-28, which takes no request from a server during a call",
            ),
        )
        .with_log_level(via.log_level)
    })
}
