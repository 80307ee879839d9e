//! A server's requests during a call of a 2026-07-28 host, as that
//! revision has them: `input_required` rounds. The server's call runs on
//! while the gateway answers the host `input_required` with the server's
//! request and a state of its own; the host's retry (the same call, its
//! answer, that state) hands the answer to the waiting server, and the
//! call goes on to its result or to the next round.

// Sampling is deprecated for 2026-07-28 (SEP-2577), but a server on the
// handshake revision may still ask for it: passed on in a round.
#![allow(deprecated)]

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolResult, CreateMessageRequest, ElicitRequest, InputRequest, InputRequests,
    InputRequiredResult, InputResponses,
};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;

use crate::sources::mcp::{Asked, McpCallError, Question};

/// How long a round waits for the host's retry: then its call is given
/// up (cancelled on the server, its place there given back), whatever is
/// left of the call's own time limit.
pub(crate) const ROUND_TIMEOUT: Duration = Duration::from_secs(30);
/// Rounds waiting at once, in all (a new one is refused past it).
const MAX_WAITING: usize = 256;
/// Rounds waiting at once for one key and session (its oldest gives way).
const MAX_WAITING_PER_OWNER: usize = 16;
/// Expired states remembered, to say so to a late retry.
const REMEMBERED: usize = 1024;
/// The key of the server's request in `inputRequests`.
const KEY: &str = "server_request";

/// The server's call: its result to come.
pub(crate) type Running = JoinHandle<Result<CallToolResult, McpCallError>>;

/// A call waiting for its host's retry.
struct Waiting {
    /// The key and session that got the question: only they resume it.
    owner: String,
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
/// given (random, single use, bound to the call and to the key and session
/// that got it), and the states that expired lately.
#[derive(Default, Clone)]
pub(crate) struct Rounds(Arc<Mutex<State>>);

#[derive(Default)]
struct State {
    waiting: HashMap<String, Waiting>,
    expired: VecDeque<String>,
}

impl State {
    /// Gives up the round `state` (its call cancelled), remembering it.
    fn expire(&mut self, state: &str) {
        if let Some(w) = self.waiting.remove(state) {
            w.call.abort();
            if self.expired.len() >= REMEMBERED {
                self.expired.pop_front();
            }
            self.expired.push_back(state.to_string());
        }
    }
}

/// A host's retry that does not resume a call (the tool named).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotResumed {
    #[error(
        "this retry's requestState is not a question the gateway put to this host about {0}: nothing ran"
    )]
    Unknown(String),
    #[error(
        "the question this retry answers expired: the host did not answer within {secs} s, so the call of {0} was given up on its server and nothing ran now; call it again without requestState to start over",
        secs = ROUND_TIMEOUT.as_secs()
    )]
    Expired(String),
    #[error("this retry's requestState belongs to another call than this one of {0}: nothing ran")]
    OtherCall(String),
    #[error(
        "the host called {0} again without the answer to the server's request: the call was given up"
    )]
    NoAnswer(String),
}

impl Rounds {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether `state` is a round of this gateway's, waiting or expired.
    pub(crate) fn holds(&self, state: &str) -> bool {
        let all = self.lock();
        all.waiting.contains_key(state) || all.expired.iter().any(|s| s == state)
    }

    /// Runs `call` until its result or its server's first request, for
    /// the key and session `owner`.
    pub(crate) async fn start(
        &self,
        owner: &str,
        tool: &str,
        arguments: &Value,
        call: Running,
        questions: UnboundedReceiver<Question>,
    ) -> Round {
        self.drive(owner, tool, arguments, call, questions).await
    }

    /// The host's retry of the round `state`: its answer to the server,
    /// then the call on to its result or its next request. `Err` when the
    /// state is not one for this call (or it expired), or the retry
    /// carries no answer.
    pub(crate) async fn resume(
        &self,
        owner: &str,
        state: &str,
        tool: &str,
        arguments: &Value,
        responses: Option<&InputResponses>,
    ) -> Result<Round, NotResumed> {
        let tool_name = || tool.to_string();
        let waiting = {
            let mut all = self.lock();
            // Another key's or session's question is not this host's to
            // answer, nor to learn of.
            match all.waiting.get(state) {
                Some(w) if w.owner == owner => all.waiting.remove(state),
                Some(_) => return Err(NotResumed::Unknown(tool_name())),
                None if all.expired.iter().any(|s| s == state) => {
                    return Err(NotResumed::Expired(tool_name()));
                }
                None => None,
            }
        };
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
            .drive(owner, tool, arguments, waiting.call, waiting.questions)
            .await)
    }

    async fn drive(
        &self,
        owner: &str,
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
                // This owner's oldest round gives way to its new one; no
                // other owner's does.
                let mine: Vec<(&String, &Waiting)> =
                    all.waiting.iter().filter(|(_, w)| w.owner == owner).collect();
                if mine.len() >= MAX_WAITING_PER_OWNER
                    && let Some(oldest) = mine.iter().min_by_key(|(_, w)| w.at).map(|(k, _)| (*k).clone())
                {
                    all.expire(&oldest);
                }
                if all.waiting.len() >= MAX_WAITING {
                    call.abort();
                    return Round::Done(Err(McpCallError::Failed {
                        server: String::new(),
                        message: format!(
                            "{MAX_WAITING} questions of servers already wait for their hosts' answers on this gateway: this call was given up; try again shortly"
                        ),
                    }));
                }
                // Given up when the host does not retry in time: the call
                // is cancelled on its server, and its place there freed.
                let rounds = self.clone();
                let expiring = state.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(ROUND_TIMEOUT).await;
                    rounds.lock().expire(&expiring);
                });
                all.waiting.insert(state.clone(), Waiting {
                    owner: owner.to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ElicitRequestParams;

    /// A call that asks its host once and then waits for ever.
    fn asking_call() -> (
        Running,
        UnboundedReceiver<Question>,
        tokio::sync::oneshot::Receiver<Value>,
    ) {
        let (asks, questions) = tokio::sync::mpsc::unbounded_channel();
        let (answer, answered) = tokio::sync::oneshot::channel();
        let params: ElicitRequestParams = serde_json::from_value(serde_json::json!({
            "message": "enter your OTP", "requestedSchema": {"type": "object", "properties": {}}
        }))
        .unwrap();
        asks.send(Question {
            asked: Asked::Elicit(params),
            answer,
        })
        .unwrap();
        let call = tokio::spawn(async move {
            let _asks = asks;
            std::future::pending::<()>().await;
            Ok(CallToolResult::default())
        });
        (call, questions, answered)
    }

    fn state_of(round: Round) -> String {
        match round {
            Round::Asks(asks) => asks.request_state.unwrap(),
            Round::Done(_) => panic!("a question"),
        }
    }

    fn answer() -> InputResponses {
        InputResponses::from([(KEY.to_string(), serde_json::json!({"action": "accept"}))])
    }

    #[tokio::test]
    async fn another_keys_host_cannot_answer_or_learn_of_a_question() {
        let rounds = Rounds::default();
        let args = serde_json::json!({});
        let (call, questions, answered) = asking_call();
        let state = state_of(
            rounds
                .start("alice|s1", "transfer", &args, call, questions)
                .await,
        );
        let bob = rounds
            .resume("bob|s2", &state, "transfer", &args, Some(&answer()))
            .await;
        assert!(matches!(bob, Err(NotResumed::Unknown(_))));
        // Alice's question is still hers, and her answer reaches her call.
        assert!(rounds.holds(&state));
        let resumed = tokio::spawn({
            let rounds = rounds.clone();
            let state = state.clone();
            async move {
                rounds
                    .resume(
                        "alice|s1",
                        &state,
                        "transfer",
                        &serde_json::json!({}),
                        Some(&answer()),
                    )
                    .await
                    .map(|_| ())
            }
        });
        assert_eq!(
            answered.await.unwrap(),
            serde_json::json!({"action": "accept"})
        );
        resumed.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn an_abandoned_round_is_given_up_in_its_own_time_and_says_so() {
        let rounds = Rounds::default();
        let args = serde_json::json!({});
        let (call, questions, _answered) = asking_call();
        let aborted = call.abort_handle();
        let state = state_of(
            rounds
                .start("alice|s1", "transfer", &args, call, questions)
                .await,
        );
        tokio::time::sleep(ROUND_TIMEOUT + Duration::from_secs(1)).await;
        tokio::task::yield_now().await;
        assert!(aborted.is_finished(), "the call still runs on its server");
        let late = rounds
            .resume("alice|s1", &state, "transfer", &args, Some(&answer()))
            .await;
        let Err(why) = late else {
            panic!("resumed an expired round")
        };
        assert_eq!(why, NotResumed::Expired("transfer".into()));
        assert!(why.to_string().contains("nothing ran"), "{why}");
        // Still known as this gateway's: a retry with it never runs anew.
        assert!(rounds.holds(&state));
    }

    #[tokio::test]
    async fn one_owners_flood_of_rounds_gives_way_within_itself() {
        let rounds = Rounds::default();
        let args = serde_json::json!({});
        let (call, questions, _a) = asking_call();
        let alices = state_of(rounds.start("alice|s1", "t", &args, call, questions).await);
        let mut keep = Vec::new();
        for _ in 0..MAX_WAITING_PER_OWNER * 2 {
            let (call, questions, answered) = asking_call();
            keep.push(answered);
            rounds.start("bob|s2", "t", &args, call, questions).await;
        }
        assert!(rounds.lock().waiting.contains_key(&alices));
        let bobs = rounds
            .lock()
            .waiting
            .values()
            .filter(|w| w.owner == "bob|s2")
            .count();
        assert_eq!(bobs, MAX_WAITING_PER_OWNER);
    }
}
