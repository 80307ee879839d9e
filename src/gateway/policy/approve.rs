//! Approvals: a call a rule marks `ask` goes to the tool only when the user
//! says yes through the host: MCP elicitation on the handshake revisions,
//! the `input_required` retry on 2026-07-28 (the host asks the user and
//! calls again with the answer and the state the gateway gave). Every
//! result says which tool ran, so a host that shows it can tell
//! `call_tool` calls apart.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::Instant;

use rmcp::model::{
    CallToolResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequests, InputRequiredResult, InputResponses,
    MetaObject,
};
use serde_json::{Value, json};

use crate::catalog::Tool;
use crate::terminal_text::escape;

/// The `_meta` key of a result that names the tool that ran.
pub const TOOL_META: &str = "io.toolsift/tool";

/// How long the user has to answer the host's question.
const ASK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// The arguments, as the user is shown them, at most this many characters.
const SHOWN_ARGUMENTS: usize = 600;

/// The key of the gateway's question among a 2026-07-28 retry's
/// `inputRequests`.
const ASK_KEY: &str = "approve";
/// Questions awaiting the host's retry, at most, in all (a new one is not
/// put past it).
const PENDING: usize = 256;
/// Questions awaiting the retry of one key and session, at most (its
/// oldest goes first; no one else's does).
const PENDING_PER_OWNER: usize = 32;

/// What the user said, or the question to put to them.
pub(crate) enum Approval {
    Yes,
    /// The refusal the model gets.
    No(String),
    /// 2026-07-28: the host asks the user and calls again with the answer.
    Ask(InputRequiredResult),
}

/// How the host of this request can ask the user.
#[derive(Clone, Default)]
pub(crate) struct Asking<'a> {
    /// The 2026-07-28 revision: a server asks by answering `input_required`
    /// and reads the answer in the host's retry (a request of its own to
    /// the host is not allowed).
    pub(crate) by_retry: bool,
    /// The host declared elicitation (for this request, on 2026-07-28).
    pub(crate) can_elicit: bool,
    /// The host declared sampling: a server's requests for a model's
    /// completion during a call reach it.
    pub(crate) can_sample: bool,
    /// A retry's answers and the state the gateway gave with its question.
    pub(crate) responses: Option<&'a InputResponses>,
    pub(crate) state: Option<&'a str>,
}

/// A question put to the host, awaiting its retry.
struct Pending {
    /// The key and session that were asked: only they answer.
    owner: String,
    tool: String,
    arguments: Value,
    at: Instant,
}

/// The questions the gateway put on 2026-07-28, by the state it gave
/// each (random, single-use, bound to the call it asks about).
#[derive(Default)]
pub(crate) struct PendingAsks(Mutex<HashMap<String, Pending>>);

impl PendingAsks {
    /// The state of a new question (`None` when no unguessable one can be
    /// made: then the gateway does not ask).
    fn put(&self, owner: &str, tool: &str, arguments: &Value) -> Option<String> {
        let mut bytes = [0u8; 16];
        // Unguessable: the host echoes it, nobody else can make one up.
        getrandom::fill(&mut bytes).ok()?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut pending = self.0.lock().unwrap_or_else(|p| p.into_inner());
        pending.retain(|_, p| p.at.elapsed() < ASK_TIMEOUT);
        let mine = pending.values().filter(|p| p.owner == owner).count();
        if mine >= PENDING_PER_OWNER
            && let Some(oldest) = pending
                .iter()
                .filter(|(_, p)| p.owner == owner)
                .min_by_key(|(_, p)| p.at)
                .map(|(k, _)| k.clone())
        {
            pending.remove(&oldest);
        }
        if pending.len() >= PENDING {
            return None;
        }
        pending.insert(
            token.clone(),
            Pending {
                owner: owner.to_string(),
                tool: tool.to_string(),
                arguments: arguments.clone(),
                at: Instant::now(),
            },
        );
        Some(token)
    }

    /// Takes the question `state` names when it asked about this call.
    fn take(&self, owner: &str, state: &str, tool: &str, arguments: &Value) -> bool {
        let mut pending = self.0.lock().unwrap_or_else(|p| p.into_inner());
        // Another key's or session's question stays theirs.
        if pending.get(state).is_some_and(|p| p.owner != owner) {
            return false;
        }
        match pending.remove(state) {
            Some(p) => p.at.elapsed() < ASK_TIMEOUT && p.tool == tool && p.arguments == *arguments,
            None => false,
        }
    }

    /// Whether `state` is a question the gateway put and still awaits.
    pub(crate) fn holds(&self, state: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(state)
    }
}

/// Asks the user, through `host`, whether `tool` may run with `arguments`:
/// on the handshake revisions with an elicitation request, on 2026-07-28
/// with an `input_required` answer the host retries; the model is told to
/// ask the user itself only when the host cannot ask at all.
pub(crate) async fn ask(
    owner: &str,
    host: Option<&rmcp::Peer<rmcp::RoleServer>>,
    asking: &Asking<'_>,
    pending: &PendingAsks,
    tool: &Tool,
    arguments: &Value,
) -> Approval {
    let cannot_ask = || {
        format!(
            "{} needs the user's approval on this gateway (rule \"ask\"), and this host cannot ask for it (it declared no MCP elicitation), so the call was not sent. Tell the user which tool you want to run and with which arguments, and let them run it or allow the tool in the gateway's [gateway.tools].",
            tool.name
        )
    };
    let said = |action: &ElicitationAction| match action {
        ElicitationAction::Accept => Approval::Yes,
        other => Approval::No(format!(
            "the user {} running {} through the host's prompt, so the call was not sent. Do not try it again unless the user asks.",
            match other {
                ElicitationAction::Decline => "declined",
                _ => "cancelled",
            },
            tool.name
        )),
    };
    if asking.by_retry {
        if let Some(state) = asking.state {
            if !pending.take(owner, state, &tool.name, arguments) {
                return Approval::No(format!(
                    "the approval this call carries is not one the gateway asked for this call of {} (or it expired), so the call was not sent. Call it again to be asked.",
                    tool.name
                ));
            }
            let answer = asking
                .responses
                .and_then(|r| r.get(ASK_KEY))
                .and_then(|v| serde_json::from_value::<ElicitResult>(v.clone()).ok());
            return match answer {
                Some(answer) => said(&answer.action),
                None => Approval::No(format!(
                    "the host called {} again without the user's answer, so the call was not sent",
                    tool.name
                )),
            };
        }
        if !asking.can_elicit {
            return Approval::No(cannot_ask());
        }
        let Some(token) = pending.put(owner, &tool.name, arguments) else {
            return Approval::No(format!(
                "{} needs the user's approval on this gateway (rule \"ask\"), and {PENDING} questions already await their hosts' answers, so the call was not sent; try again shortly",
                tool.name
            ));
        };
        let request = ElicitRequest::new(question(tool, arguments));
        let requests =
            InputRequests::from([(ASK_KEY.to_string(), InputRequest::Elicitation(request))]);
        return Approval::Ask(InputRequiredResult::new(Some(requests), Some(token)));
    }
    let Some(host) = host.filter(|_| asking.can_elicit) else {
        return Approval::No(cannot_ask());
    };
    match host
        .create_elicitation_with_timeout(question(tool, arguments), Some(ASK_TIMEOUT))
        .await
    {
        Ok(answer) => said(&answer.action),
        // A host that declared elicitation and then fails: refused, never
        // run unasked.
        Err(e) => Approval::No(format!(
            "{}. (Asking the host failed: {})",
            cannot_ask(),
            escape(&e.to_string())
        )),
    }
}

/// "Allow the tool X (server S) to run with these arguments? {...}".
fn question(tool: &Tool, arguments: &Value) -> ElicitRequestParams {
    let mut shown = arguments.to_string();
    if shown.chars().count() > SHOWN_ARGUMENTS {
        shown = shown.chars().take(SHOWN_ARGUMENTS).collect::<String>() + "…";
    }
    let server = tool
        .mcp
        .as_ref()
        .map(|m| format!(" (server {})", escape(&m.server)))
        .unwrap_or_default();
    let message = format!(
        "Allow the tool {}{server} to run with these arguments?\n{}",
        escape(&tool.name),
        escape(&shown)
    );
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: ElicitationSchema::new(BTreeMap::new()),
    }
}

/// Names in `result`'s `_meta` the tool that ran, its server and its
/// annotations as the server listed them (`listed`).
pub(crate) fn tell_host(result: &mut CallToolResult, tool: &Tool, listed: &rmcp::model::Tool) {
    let mut about = json!({ "name": tool.name });
    if let Some(m) = &tool.mcp {
        about["server"] = json!(m.server.as_ref());
    }
    if let Some(a) = listed
        .annotations
        .as_ref()
        .and_then(|a| serde_json::to_value(a).ok())
    {
        about["annotations"] = a;
    }
    let meta = result
        .meta
        .get_or_insert_with(|| MetaObject(Default::default()));
    meta.0.insert(TOOL_META.to_string(), about);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retry<'a>(responses: &'a InputResponses, state: &'a str) -> Asking<'a> {
        Asking {
            by_retry: true,
            can_elicit: true,
            can_sample: false,
            responses: Some(responses),
            state: Some(state),
        }
    }

    #[test]
    fn the_retry_flow_asks_once_and_takes_only_the_answer_to_its_own_question() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let pending = PendingAsks::default();
        let tool = Tool::new("git_add", "Stage files");
        let args = serde_json::json!({"files": ["a"]});
        let asked = |owner: &str, asking: &Asking, arguments: &Value| {
            rt.block_on(ask(owner, None, asking, &pending, &tool, arguments))
        };
        let first = Asking {
            by_retry: true,
            can_elicit: true,
            ..Asking::default()
        };
        let state_of = |approval: Approval| match approval {
            Approval::Ask(question) => question.request_state.unwrap(),
            _ => panic!("a question"),
        };
        let Approval::Ask(question) = asked("alice", &first, &args) else {
            panic!("a question")
        };
        let state = question.request_state.clone().unwrap();
        assert_eq!(state.len(), 32);
        assert!(question.input_requests.unwrap().contains_key(ASK_KEY));
        let yes = InputResponses::from([(
            ASK_KEY.to_string(),
            serde_json::json!({"action": "accept", "content": {}}),
        )]);
        let said_no = |a: Approval| matches!(a, Approval::No(_));
        // The answer to another call's question (other arguments) is refused.
        let other = serde_json::json!({"files": ["b"]});
        assert!(said_no(asked("alice", &retry(&yes, &state), &other)));
        // And a question is answered once: its state is gone now.
        assert!(said_no(asked("alice", &retry(&yes, &state), &args)));
        let state = state_of(asked("alice", &first, &args));
        assert!(matches!(
            asked("alice", &retry(&yes, &state), &args),
            Approval::Yes
        ));
        // A made-up state is refused; a host that cannot elicit is told so.
        assert!(said_no(asked("alice", &retry(&yes, "00ff"), &args)));
        let mute = Asking {
            by_retry: true,
            ..Asking::default()
        };
        let Approval::No(why) = asked("alice", &mute, &args) else {
            panic!("refused")
        };
        assert!(why.contains("cannot ask"), "{why}");
        // Another key's host cannot answer alice's question, nor use it up.
        let state = state_of(asked("alice", &first, &args));
        assert!(said_no(asked("bob", &retry(&yes, &state), &args)));
        assert!(matches!(
            asked("alice", &retry(&yes, &state), &args),
            Approval::Yes
        ));
    }

    #[test]
    fn one_keys_flood_of_questions_never_evicts_another_keys() {
        let pending = PendingAsks::default();
        let args = serde_json::json!({});
        let alices = pending.put("alice", "transfer", &args).unwrap();
        for _ in 0..PENDING {
            pending.put("bob", "delete_repo", &args);
        }
        assert!(pending.holds(&alices), "bob's questions evicted alice's");
        assert!(pending.take("alice", &alices, "transfer", &args));
    }
}
