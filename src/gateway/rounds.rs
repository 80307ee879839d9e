//! A server's requests during a call of a 2026-07-28 host, as that
//! revision has them: `input_required` rounds. The server's call runs on
//! while the gateway answers the host `input_required` with the server's
//! request and a state of its own; the host's retry (the same call, its
//! answer, that state) hands the answer to the waiting server, and the
//! call goes on to its result or to the next round.

// Sampling is deprecated for 2026-07-28 (SEP-2577), but a server on the
// handshake revision may still ask for it: passed on in a round.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolResult, CreateMessageRequest, ElicitRequest, InputRequest, InputRequests,
    InputRequiredResult, InputResponses,
};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;

use crate::sources::mcp::{Asked, McpCallError, Question};

/// How long a round waits for the host's retry.
pub(crate) const ROUND_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// Rounds waiting at once (the oldest gives way).
const MAX_WAITING: usize = 256;
/// The key of the server's request in `inputRequests`.
const KEY: &str = "server_request";

/// The server's call: its result to come.
pub(crate) type Running = JoinHandle<Result<CallToolResult, McpCallError>>;

/// A call waiting for its host's retry.
struct Waiting {
    tool: String,
    arguments: Value,
    answer: tokio::sync::oneshot::Sender<Value>,
    questions: UnboundedReceiver<Question>,
    call: Running,
    at: Instant,
}

/// What a round came to.
pub(crate) enum Round {
    /// The server's result (or why there is none).
    Done(Result<CallToolResult, McpCallError>),
    /// The host is asked: answered `input_required`.
    Asks(InputRequiredResult),
}

/// The calls waiting for their hosts' retries, by the state each was
/// given (random, single use, bound to the call).
#[derive(Default)]
pub(crate) struct Rounds(Mutex<HashMap<String, Waiting>>);

/// A host's retry that does not resume a call (the tool named).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotResumed {
    #[error(
        "this retry's requestState is not a question the gateway put about {0} (or it expired): call it again"
    )]
    Unknown(String),
    #[error("this retry's requestState belongs to another call than this one of {0}: nothing ran")]
    OtherCall(String),
    #[error(
        "the host called {0} again without the answer to the server's request: the call was given up"
    )]
    NoAnswer(String),
}

impl Rounds {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Waiting>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether `state` is a round of this gateway's.
    pub(crate) fn holds(&self, state: &str) -> bool {
        self.lock().contains_key(state)
    }

    /// Runs `call` until its result or its server's first request.
    pub(crate) async fn start(
        &self,
        tool: &str,
        arguments: &Value,
        call: Running,
        questions: UnboundedReceiver<Question>,
    ) -> Round {
        self.drive(tool, arguments, call, questions).await
    }

    /// The host's retry of the round `state`: its answer to the server,
    /// then the call on to its result or its next request. `Err` when the
    /// state is not one for this call (or it expired), or the retry
    /// carries no answer.
    pub(crate) async fn resume(
        &self,
        state: &str,
        tool: &str,
        arguments: &Value,
        responses: Option<&InputResponses>,
    ) -> Result<Round, NotResumed> {
        let tool_name = || tool.to_string();
        let waiting = self.lock().remove(state);
        let Some(waiting) = waiting else {
            return Err(NotResumed::Unknown(tool_name()));
        };
        if waiting.tool != tool || waiting.arguments != *arguments {
            waiting.call.abort();
            return Err(NotResumed::OtherCall(tool_name()));
        }
        let Some(answer) = responses.and_then(|r| r.get(KEY)).cloned() else {
            waiting.call.abort();
            return Err(NotResumed::NoAnswer(tool_name()));
        };
        let _ = waiting.answer.send(answer);
        Ok(self
            .drive(tool, arguments, waiting.call, waiting.questions)
            .await)
    }

    async fn drive(
        &self,
        tool: &str,
        arguments: &Value,
        mut call: Running,
        mut questions: UnboundedReceiver<Question>,
    ) -> Round {
        tokio::select! {
            biased;
            done = &mut call => Round::Done(done.unwrap_or_else(|e| Err(McpCallError::Failed {
                server: String::new(),
                message: format!("the call's task ended: {e}"),
            }))),
            Some(question) = questions.recv() => {
                let Some(state) = new_state() else {
                    call.abort();
                    return Round::Done(Err(McpCallError::Failed {
                        server: String::new(),
                        message: "no unguessable state could be made to ask the host".into(),
                    }));
                };
                let request = match question.asked {
                    Asked::Elicit(params) => InputRequest::Elicitation(ElicitRequest::new(params)),
                    Asked::Sample(params) => InputRequest::CreateMessage(CreateMessageRequest::new(params)),
                };
                let mut all = self.lock();
                // Expired rounds end their calls (cancelled on the server).
                all.retain(|_, w| {
                    let keep = w.at.elapsed() < ROUND_TIMEOUT;
                    if !keep {
                        w.call.abort();
                    }
                    keep
                });
                if all.len() >= MAX_WAITING
                    && let Some(oldest) = all.iter().min_by_key(|(_, w)| w.at).map(|(k, _)| k.clone())
                    && let Some(gone) = all.remove(&oldest)
                {
                    gone.call.abort();
                }
                all.insert(state.clone(), Waiting {
                    tool: tool.to_string(),
                    arguments: arguments.clone(),
                    answer: question.answer,
                    questions,
                    call,
                    at: Instant::now(),
                });
                let requests = InputRequests::from([(KEY.to_string(), request)]);
                Round::Asks(InputRequiredResult::new(Some(requests), Some(state)))
            }
        }
    }
}

/// A random state (16 bytes, hex): the host echoes it, nobody can guess it.
fn new_state() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(format!(
        "round-{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ))
}
