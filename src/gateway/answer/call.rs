//! A tool call through the gateway: the name checked against the gathered
//! catalog (an unknown one gets the closest names), the session's
//! retry-loop breaker, the arguments checked against the tool's input
//! schema, then the owning server called and its result passed through as
//! it came. Nothing refused is ever sent.

use std::sync::Mutex;
use std::time::Instant;

use rmcp::model::{CallToolResponse, CallToolResult, JsonObject};
use serde_json::{Value, json};

use super::find::kind;
use super::meta::{CALL_READ_TOOL, CALL_TOOL};
use super::results::error_result;
use crate::breaker::RetryLoopBreaker;
use crate::engine::close_names::close_names;
use crate::engine::syntax::Names;
use crate::gateway::Gateway;
use crate::gateway::policy::rules::ToolRule;
use crate::gateway::policy::validate::Checked;
use crate::gateway::record::{CallRecord, Ended};

/// The catalog's tool `written` names: exactly, or in another spelling.
fn resolve(catalog: &crate::catalog::Catalog, written: &str) -> Option<usize> {
    catalog.index_of(written).or_else(|| {
        let names: Vec<&str> = catalog.tools().iter().map(|t| t.name.as_str()).collect();
        Names::new(&names).resolve(written)
    })
}

/// Closest names offered for an unknown one.
const CLOSEST: usize = 5;

/// One session's breaker: the SDK's semantics (identical name and
/// arguments in a row, reset by any other call), with the threshold of the
/// called tool's kind.
#[derive(Debug)]
pub(crate) struct SessionBreaker {
    breaker: Mutex<RetryLoopBreaker>,
    threshold: u32,
    threshold_read_only: u32,
}

impl SessionBreaker {
    pub(crate) fn new(threshold: u32, threshold_read_only: u32) -> SessionBreaker {
        SessionBreaker {
            breaker: Mutex::new(RetryLoopBreaker::new(threshold)),
            threshold,
            threshold_read_only,
        }
    }

    /// Records a call; `Err` with the refusal when it is blocked.
    pub(crate) fn record(
        &self,
        name: &str,
        arguments: &Value,
        read_only: bool,
    ) -> Result<(), Stopped> {
        let mut b = self.breaker.lock().unwrap_or_else(|p| p.into_inner());
        b.set_threshold(if read_only {
            self.threshold_read_only
        } else {
            self.threshold
        });
        b.record(name, arguments)
            .map(|_| ())
            .map_err(|error| Stopped {
                name: name.to_string(),
                read_only,
                error,
            })
    }

    /// Takes back the record of a call that did not run (refused for a
    /// login the server needs): called again once logged in, it is not a
    /// loop.
    pub(crate) fn take_back(&self, name: &str, arguments: &Value) {
        self.breaker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take_back(name, arguments);
    }

    /// How many times in a row the last call was made.
    fn repeats(&self) -> u64 {
        self.breaker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .repeats()
    }
}

/// A call the breaker stopped, said to the agent: what it repeated, the
/// limit, and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "toolsift stopped this call before it reached the tool: {name} was called {} times in a row with the same arguments (the limit is {} for {} tools). Do not repeat it: change the arguments, try another tool, or tell the user what is failing. ({error})",
    error.repeats,
    error.threshold,
    if *read_only { "read-only" } else { "these" }
)]
pub(crate) struct Stopped {
    name: String,
    read_only: bool,
    error: crate::breaker::RetryLoopError,
}

/// How a call reached the gateway: through which of its tools, and the
/// host to ask for approval (a call a rule marks `ask`).
#[derive(Clone, Default)]
pub(crate) struct Via<'a> {
    /// Through `call_read_tool`: only read-only tools run.
    pub(crate) read_only: bool,
    /// The digest of the API key that made the call: its followers see it.
    pub(crate) key: Option<String>,
    /// The log level the session asked for: the server's log messages
    /// during the call reach the host at that level and above.
    #[allow(deprecated)]
    pub(crate) log_level: Option<rmcp::model::LoggingLevel>,
    pub(crate) host: Option<&'a rmcp::Peer<rmcp::RoleServer>>,
    /// The host's token for the call's progress reports, when it wants them.
    pub(crate) progress: Option<rmcp::model::ProgressToken>,
    /// How the host can ask the user (a call a rule marks `ask`).
    pub(crate) asking: crate::gateway::policy::approve::Asking<'a>,
}

impl Gateway {
    /// `call_tool(name, arguments)` (or `call_read_tool`, `via.read_only`),
    /// for `session`.
    pub(crate) async fn call_tool_meta(
        &self,
        session: &str,
        breaker: &SessionBreaker,
        arguments: &JsonObject,
        via: Via<'_>,
    ) -> CallToolResponse {
        let meta = if via.read_only {
            CALL_READ_TOOL
        } else {
            CALL_TOOL
        };
        if let Some(extra) = arguments.keys().find(|k| *k != "name" && *k != "arguments") {
            return error_result(format!(
                "{meta} takes `name` and `arguments`, not {}",
                json!(extra)
            ))
            .into();
        }
        let name = match arguments.get("name") {
            Some(Value::String(n)) if !n.trim().is_empty() => n.clone(),
            Some(Value::String(_)) | None => {
                return error_result(format!(
                    "{meta} needs `name`: a tool's exact name, as search_tools gave it"
                ))
                .into();
            }
            Some(other) => {
                return error_result(format!(
                    "{meta}: `name` must be a string, not {}",
                    kind(other)
                ))
                .into();
            }
        };
        let args = match arguments.get("arguments") {
            None | Some(Value::Null) => JsonObject::new(),
            Some(Value::Object(o)) => o.clone(),
            // Some models send the arguments as a JSON string.
            Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Object(o)) => o,
                _ => {
                    return error_result(format!(
                        "{meta}: `arguments` must be an object of the tool's arguments (a string that holds one is read too)"
                    )).into();
                }
            },
            Some(other) => {
                return error_result(format!(
                    "{meta}: `arguments` must be an object, not {}",
                    kind(other)
                ))
                .into();
            }
        };
        self.call(session, breaker, &name, args, via).await
    }

    /// Calls catalog tool `written` (as the host or model wrote its name).
    pub(crate) async fn call(
        &self,
        session: &str,
        breaker: &SessionBreaker,
        written: &str,
        arguments: JsonObject,
        via: Via<'_>,
    ) -> CallToolResponse {
        let mut asked = None;
        let result = self
            .call_once(session, breaker, written, arguments, via, &mut asked)
            .await;
        match asked {
            // The host asks the user and calls again with the answer.
            Some(question) => CallToolResponse::InputRequired(question),
            None => CallToolResponse::Complete(result),
        }
    }

    /// [`Gateway::call`]'s work; the question of an `ask` rule on
    /// 2026-07-28 goes in `asked` (the result is then not sent).
    async fn call_once(
        &self,
        session: &str,
        breaker: &SessionBreaker,
        written: &str,
        arguments: JsonObject,
        via: Via<'_>,
        asked: &mut Option<rmcp::model::InputRequiredResult>,
    ) -> CallToolResult {
        let started = Instant::now();
        let key = via.key.clone();
        // A name not listed while servers start (the gateway's start, a
        // server the servers file added or changed) waits for them, as a
        // search does: it may be theirs.
        if resolve(&self.snapshot().catalog, written).is_none() {
            if !self.host.first_starts().0.is_empty() {
                self.wait_for_first_starts().await;
            }
            // A server that came up since the last re-index (its change
            // not yet followed) may have it: the tools are gathered afresh
            // once before the name is refused.
            if resolve(&self.snapshot().catalog, written).is_none() {
                self.reindex();
            }
        }
        let snapshot = self.snapshot();
        let catalog = &snapshot.catalog;
        let args_value = Value::Object(arguments.clone());
        // The breaker's count, once the call has reached it.
        let in_a_row = std::sync::atomic::AtomicU64::new(0);
        let record_as = |name: &str,
                         server: Option<&str>,
                         ended: Ended,
                         result: Option<&Value>,
                         unknown: bool| {
            self.recorder.call(&CallRecord {
                session,
                key: key.as_deref(),
                name,
                server,
                arguments: &args_value,
                ended,
                elapsed: started.elapsed(),
                result,
                unknown,
                in_a_row: Some(in_a_row.load(std::sync::atomic::Ordering::Relaxed))
                    .filter(|&n| n > 0),
            });
        };
        let record = |name: &str, server: Option<&str>, ended: Ended, result: Option<&Value>| {
            record_as(name, server, ended, result, false)
        };
        let Some(index) = resolve(catalog, written) else {
            if self.denied_name(written) {
                // Never listed, never found: and no neighbour offered in its
                // place (delete_entities is not create_entities).
                record_as(written, None, Ended::Refused, None, true);
                return error_result(format!(
                    "no tool named {} is available on this gateway. Do not try another tool in its place; tell the user it is not available here.",
                    json!(written)
                ));
            }
            let close = close_names(catalog, written, CLOSEST);
            let hint = if close.is_empty() {
                "Find tools with search_tools.".to_string()
            } else {
                format!(
                    "The closest names: {}. Or find tools with search_tools.",
                    close.join(", ")
                )
            };
            record_as(written, None, Ended::Refused, None, true);
            return error_result(format!(
                "no tool is named {} on this gateway. {hint}",
                json!(written)
            ));
        };
        let tool = &catalog.tools()[index];
        let server = tool.mcp.as_ref().map(|m| m.server.to_string());
        if let Some(own) = server.as_deref() {
            let states = self.host.states();
            let servers = states.iter().map(|s| s.name.as_str());
            if let Some(other) =
                crate::gateway::policy::prefix::foreign_server(written, &tool.name, own, servers)
            {
                record_as(written, None, Ended::Refused, None, true);
                return error_result(format!(
                    "{} names server {other}, but {} is a tool of server {own}: nothing ran. Call it by its own name, {}, if it is the tool you mean.",
                    json!(written),
                    tool.name,
                    json!(tool.name)
                ));
            }
        }
        let rule = self.config.rules.rule_for(tool);
        if via.read_only
            && !snapshot.reads[index]
            && let Some(why) = not_a_plain_read(tool, &snapshot.listed[index])
        {
            record(&tool.name, server.as_deref(), Ended::Refused, None);
            return error_result(format!(
                "{} {why}, so {CALL_READ_TOOL} does not run it: call it with {CALL_TOOL}",
                tool.name
            ));
        }
        if rule == ToolRule::Deny {
            // Denied tools are left out of the catalog; a rule is never
            // loosened on the way.
            record(&tool.name, server.as_deref(), Ended::Refused, None);
            return error_result(format!("{} is denied on this gateway", tool.name));
        }
        // A 2026-07-28 retry that carries the user's answer is the call
        // asked about, not another one in a row.
        let retry = via.asking.state.is_some();
        if !retry {
            let checked = breaker.record(&tool.name, &args_value, tool.read_only);
            in_a_row.store(breaker.repeats(), std::sync::atomic::Ordering::Relaxed);
            if let Err(refusal) = checked {
                record(&tool.name, server.as_deref(), Ended::Blocked, None);
                return error_result(refusal.to_string());
            }
        }
        match snapshot
            .validators
            .check(index, &tool.input_schema, &args_value)
        {
            Checked::Valid => {}
            Checked::Unchecked(why) => self.recorder.warn(&format!(
                "{}: its input schema cannot be used to check arguments ({why}); the call goes unchecked",
                tool.name
            )),
            Checked::Invalid(errors) => {
                let list: Vec<String> = errors
                    .iter()
                    .map(|(at, what)| format!("at {at}: {what}"))
                    .collect();
                record(&tool.name, server.as_deref(), Ended::Refused, None);
                return error_result(format!(
                    "the arguments do not follow {}'s input schema, so the call was not sent: {}. The schema: {}",
                    tool.name,
                    list.join("; "),
                    crate::gateway::policy::validate::quoted_schema(&tool.input_schema)
                ));
            }
        }
        // A 2026-07-28 retry that answers a server's request of a call
        // already running (an input_required round): that call goes on,
        // asked and checked already.
        let resuming = via.asking.by_retry
            && via
                .asking
                .state
                .is_some_and(|state| self.rounds.holds(state));
        // Whose question a state is: the key and session that got it.
        let owner = format!("{}|{session}", via.key.as_deref().unwrap_or("-"));
        // A retry whose state is no question of ours never runs afresh.
        if via.asking.by_retry
            && let Some(state) = via.asking.state
            && !resuming
            && rule != ToolRule::Ask
            && !self.pending_asks.holds(state)
        {
            record(&tool.name, server.as_deref(), Ended::Refused, None);
            return error_result(super::rounds::NotResumed::Unknown(tool.name.clone()).to_string());
        }
        if rule == ToolRule::Ask && !resuming {
            use crate::gateway::policy::approve::Approval;
            let pending = &self.pending_asks;
            match crate::gateway::policy::approve::ask(
                &owner,
                via.host,
                &via.asking,
                pending,
                tool,
                &args_value,
            )
            .await
            {
                Approval::Yes => {}
                Approval::No(refusal) => {
                    record(&tool.name, server.as_deref(), Ended::Refused, None);
                    return error_result(refusal);
                }
                Approval::Ask(question) => {
                    self.recorder.info(&format!(
                        "{session}: {} asks the user (input_required)",
                        crate::terminal_text::escape(&tool.name)
                    ));
                    *asked = Some(question);
                    return error_result("asking the user");
                }
            }
        }
        let Some(origin) = &tool.mcp else {
            // A catalog file's tool: its simulated result, if it has one.
            return match &tool.handler_result {
                Some(result) => {
                    record(
                        &tool.name,
                        None,
                        Ended::Answered { is_error: false },
                        Some(result),
                    );
                    let mut answer = super::results::json_result(result.clone());
                    crate::gateway::policy::approve::tell_host(
                        &mut answer,
                        tool,
                        &snapshot.listed[index],
                    );
                    answer
                }
                None => {
                    record(&tool.name, None, Ended::Refused, None);
                    error_result(format!(
                        "{} comes from a catalog file and no MCP server runs it",
                        tool.name
                    ))
                }
            };
        };
        let (progress, relay) = match via.host.zip(via.progress.clone()) {
            Some((host, token)) => {
                let (sink, reports) = crate::sources::mcp::progress_channel();
                let relay = tokio::spawn(reports.relay(host.clone(), token));
                (Some(sink), Some(relay))
            }
            None => (None, None),
        };
        // What the server asks of its host during the call goes to this
        // call's host (2026-07-28 hosts take no request during a call).
        let link = via.host.map(|host| {
            crate::sources::mcp::HostLink::new(
                host.clone(),
                via.asking.can_elicit,
                via.asking.can_sample,
                via.asking
                    .by_retry
                    .then_some("the host speaks MCP 2026-07-28, which takes no request from a server during a call"),
            )
            .with_log_level(via.log_level)
        });
        let answer = if via.asking.by_retry
            && let Some(link) = &link
        {
            // 2026-07-28: the server's requests become input_required
            // rounds; the call runs on between the host's retries.
            let round = match via.asking.state.filter(|_| resuming) {
                Some(state) => {
                    match self
                        .rounds
                        .resume(&owner, state, &tool.name, &args_value, via.asking.responses)
                        .await
                    {
                        Ok(round) => round,
                        Err(why) => {
                            record(&tool.name, server.as_deref(), Ended::Refused, None);
                            return error_result(why.to_string());
                        }
                    }
                }
                None => {
                    let (asks, questions) = tokio::sync::mpsc::unbounded_channel();
                    let link = link.clone().by_rounds(asks);
                    let (host, origin) = (self.host.clone(), origin.clone());
                    let key = via.key.clone();
                    let call = tokio::spawn(async move {
                        host.call_result(
                            &origin.server,
                            &origin.name,
                            key.as_deref(),
                            arguments,
                            progress,
                            Some(link),
                        )
                        .await
                    });
                    self.rounds
                        .start(&owner, &tool.name, &args_value, call, questions)
                        .await
                }
            };
            match round {
                super::rounds::Round::Done(answer) => answer,
                super::rounds::Round::Asks(question) => {
                    self.recorder.info(&format!(
                        "{session}: {}'s server asks the host (input_required)",
                        crate::terminal_text::escape(&tool.name)
                    ));
                    *asked = Some(question);
                    return error_result("asking the host");
                }
            }
        } else {
            self.host
                .call_result(
                    &origin.server,
                    &origin.name,
                    via.key.as_deref(),
                    arguments,
                    progress,
                    link.clone(),
                )
                .await
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
            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), relay).await;
        }
        match answer {
            Ok(mut result) => {
                let ended = Ended::Answered {
                    is_error: result.is_error.unwrap_or(false),
                };
                if ended == (Ended::Answered { is_error: false }) {
                    self.learn_call(session, &tool.name);
                }
                let raw = serde_json::to_value(&result).ok();
                record(&tool.name, server.as_deref(), ended, raw.as_ref());
                if self.config.hidden_text_results
                    && crate::gateway::policy::hidden::clean_result(&mut result)
                {
                    let server = server.as_deref().unwrap_or("-");
                    self.recorder.warn(&format!(
                        "{}: hidden text taken out of its result (--hidden-text-results strip)",
                        crate::terminal_text::escape(&tool.name)
                    ));
                    metrics::counter!(
                        "toolsift_gateway_hidden_text_results_total",
                        "server" => server.to_string()
                    )
                    .increment(1);
                }
                crate::gateway::policy::approve::tell_host(
                    &mut result,
                    tool,
                    &snapshot.listed[index],
                );
                result
            }
            Err(e) => {
                if !retry && matches!(e, crate::sources::mcp::McpCallError::NeedsLogin { .. }) {
                    // Not run: its retry after the login is not a repeat.
                    breaker.take_back(&tool.name, &args_value);
                }
                record(&tool.name, server.as_deref(), Ended::UpstreamError, None);
                error_result(format!("{} failed: {e}", tool.name))
            }
        }
    }
}

impl Gateway {
    /// Whether a rule denies a tool named `written` (of any server), the
    /// way the name resolves: any case.
    fn denied_name(&self, written: &str) -> bool {
        let rules = &self.config.rules;
        if rules.is_empty() {
            return false;
        }
        let spellings = [written.to_string(), written.to_lowercase()];
        spellings.iter().any(|name| {
            let bare = crate::catalog::Tool::new(name.clone(), "");
            rules.rule_for(&bare) == ToolRule::Deny
                || self.host.states().iter().any(|s| {
                    let mut t = crate::catalog::Tool::new(name.clone(), "");
                    t.mcp = Some(crate::catalog::McpOrigin::new(&s.name, name));
                    rules.rule_for(&t) == ToolRule::Deny
                })
        })
    }
}

/// Why `call_read_tool` must not run `tool` (as its server `listed` it),
/// or `None` for a read that stays on this machine: marked read-only and
/// not open-world. A missing `openWorldHint` counts as open, as the MCP
/// specification defines it, so a read-only `fetch` (which reaches any
/// address) cannot carry what another read returned out of the machine.
pub(crate) fn not_a_plain_read(
    tool: &crate::catalog::Tool,
    listed: &rmcp::model::Tool,
) -> Option<&'static str> {
    if !tool.read_only {
        return Some("is not marked read-only by its server");
    }
    // A catalog file's tool answers its simulated result: nothing leaves.
    tool.mcp.as_ref()?;
    match listed.annotations.as_ref().and_then(|a| a.open_world_hint) {
        Some(false) => None,
        Some(true) => Some("reaches outside this machine (its server marks it openWorldHint)"),
        None => Some(
            "may reach outside this machine (its server does not mark it openWorldHint: false)",
        ),
    }
}
