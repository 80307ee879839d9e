//! A tool call through the gateway: the name checked against the gathered
//! catalog (an unknown one gets the closest names), the session's
//! retry-loop breaker, the arguments checked against the tool's input
//! schema, then the owning server called and its result passed through as
//! it came. Nothing refused is ever sent.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rmcp::model::{CallToolResponse, CallToolResult, JsonObject};
use serde_json::{Value, json};

use super::find::kind;
use super::meta::{CALL_READ_TOOL, CALL_TOOL};
use super::results::error_result;
use crate::engine::close_names::close_names;
use crate::engine::syntax::Names;
pub(crate) use crate::gateway::policy::breaker::SessionBreaker;
use crate::gateway::policy::rules::ToolRule;
use crate::gateway::policy::validate::Checked;
use crate::gateway::record::{CallRecord, Ended};
use crate::gateway::{Gateway, Snapshot};

/// The catalog's tool `written` names: exactly, or in another spelling.
fn resolve(catalog: &crate::catalog::Catalog, written: &str) -> Option<usize> {
    catalog.index_of(written).or_else(|| {
        let names: Vec<&str> = catalog.tools().iter().map(|t| t.name.as_str()).collect();
        Names::new(&names).resolve(written)
    })
}

/// Closest names offered for an unknown one.
const CLOSEST: usize = 5;

/// How a call reached the gateway: through which of its tools, and the
/// host to ask for approval (a call a rule marks `ask`).
#[derive(Clone, Default)]
pub(crate) struct Via<'a> {
    /// Through `call_read_tool`: only read-only tools run.
    pub(crate) read_only: bool,
    /// What the API key of the call may reach: a tool outside it is a
    /// name no tool has.
    pub(crate) reach: Arc<crate::gateway::Reach>,
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

    /// Calls catalog tool `written` (as the host or model wrote its name):
    /// admitted (the name, the rules, the breaker, the schema, the user's
    /// yes), sent to its server (or answered by its catalog file), and its
    /// answer passed on. A question for the host (an `ask` rule's, or its
    /// server's on 2026-07-28) ends the call as `input_required`.
    pub(crate) async fn call(
        &self,
        session: &str,
        breaker: &SessionBreaker,
        written: &str,
        arguments: JsonObject,
        via: Via<'_>,
    ) -> CallToolResponse {
        let ledger = Ledger::new(self, session, &via, &arguments);
        let admitted = match self.admit(&ledger, breaker, written, &via).await {
            Ok(admitted) => admitted,
            Err(halt) => return halt,
        };
        let Some(origin) = &admitted.tool().mcp else {
            return self.answer_from_file(&ledger, &admitted).into();
        };
        match self.send(&ledger, &admitted, origin, arguments, &via).await {
            Ok(answer) => self.pass_on(&ledger, breaker, &admitted, answer).into(),
            Err(halt) => halt,
        }
    }

    /// Whether the call may go: the tool its name resolves to (or the
    /// refusal of an unknown name), then the rules, the breaker, the
    /// schema and the approval, in that order. `Err` is what the host is
    /// answered instead: a refusal, or a question.
    async fn admit(
        &self,
        ledger: &Ledger<'_>,
        breaker: &SessionBreaker,
        written: &str,
        via: &Via<'_>,
    ) -> Result<Admitted, CallToolResponse> {
        let snapshot = self.snapshot_naming(written, &via.reach).await;
        let Some(index) = resolve(&snapshot.catalog, written) else {
            let unknown = self.unknown_name(ledger, &snapshot.catalog, written, &via.reach);
            return Err(unknown.into());
        };
        let tool = &snapshot.catalog.tools()[index];
        let admitted = Admitted {
            server: tool.mcp.as_ref().map(|m| m.server.to_string()),
            retry: via.asking.state.is_some(),
            resuming: via.asking.by_retry
                && via
                    .asking
                    .state
                    .is_some_and(|state| self.rounds.holds(state)),
            owner: format!("{}|{}", via.key.as_deref().unwrap_or("-"), ledger.session),
            rule: via.reach.rule(tool, &self.config.rules),
            snapshot: snapshot.clone(),
            index,
        };
        self.check_rules(ledger, &admitted, written, via)
            .map_err(CallToolResponse::from)?;
        self.check_repeats_and_schema(ledger, breaker, &admitted)
            .map_err(CallToolResponse::from)?;
        self.check_approval(ledger, &admitted, via).await?;
        Ok(admitted)
    }

    /// The snapshot to resolve `written` in, as `reach` sees it (a name
    /// outside it goes the way of a name no tool has). A name not listed while
    /// servers start (the gateway's start, a server the servers file added
    /// or changed) waits for them, as a search does: it may be theirs. A
    /// server that came up since the last re-index (its change not yet
    /// followed) may have it: the tools are gathered afresh once before
    /// the name is refused.
    async fn snapshot_naming(&self, written: &str, reach: &crate::gateway::Reach) -> Arc<Snapshot> {
        if resolve(&self.view(reach).catalog, written).is_none() {
            if !self.host.first_starts().0.is_empty() {
                self.wait_for_first_starts().await;
            }
            if resolve(&self.view(reach).catalog, written).is_none() {
                self.reindex();
            }
        }
        self.view(reach)
    }

    /// The answer to a name no tool has: a denied tool's says only that it
    /// is not available (no neighbour offered in its place:
    /// delete_entities is not create_entities), another's offers the
    /// closest names.
    fn unknown_name(
        &self,
        ledger: &Ledger<'_>,
        catalog: &crate::catalog::Catalog,
        written: &str,
        reach: &crate::gateway::Reach,
    ) -> CallToolResult {
        ledger.write(written, None, Ended::Refused, None, true);
        if self.denied_name(written, reach) {
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
        error_result(format!(
            "no tool is named {} on this gateway. {hint}",
            json!(written)
        ))
    }

    /// The refusals of the name and the rules: a name that claims another
    /// server, a tool `call_read_tool` must not run, a denied tool.
    fn check_rules(
        &self,
        ledger: &Ledger<'_>,
        admitted: &Admitted,
        written: &str,
        via: &Via<'_>,
    ) -> Result<(), CallToolResult> {
        let tool = admitted.tool();
        if let Some(own) = admitted.server.as_deref() {
            // Only the servers the key reaches: no other is named to it.
            let states = self.host.states();
            let servers = states
                .iter()
                .map(|s| s.name.as_str())
                .filter(|s| via.reach.names_server(s));
            if let Some(other) =
                crate::gateway::policy::prefix::foreign_server(written, &tool.name, own, servers)
            {
                ledger.write(written, None, Ended::Refused, None, true);
                return Err(error_result(format!(
                    "{} names server {other}, but {} is a tool of server {own}: nothing ran. Call it by its own name, {}, if it is the tool you mean.",
                    json!(written),
                    tool.name,
                    json!(tool.name)
                )));
            }
        }
        if via.read_only
            && !admitted.snapshot.reads[admitted.index]
            && let Some(why) = not_a_plain_read(tool, admitted.listed())
        {
            return Err(admitted.refused(
                ledger,
                format!(
                    "{} {why}, so {CALL_READ_TOOL} does not run it: call it with {CALL_TOOL}",
                    tool.name
                ),
            ));
        }
        if admitted.rule == ToolRule::Deny {
            // Denied tools are left out of the catalog; a rule is never
            // loosened on the way.
            return Err(
                admitted.refused(ledger, format!("{} is denied on this gateway", tool.name))
            );
        }
        Ok(())
    }

    /// The session's breaker (not for a 2026-07-28 retry that carries the
    /// user's answer: that is the call asked about, not another one in a
    /// row), then the arguments against the tool's input schema.
    fn check_repeats_and_schema(
        &self,
        ledger: &Ledger<'_>,
        breaker: &SessionBreaker,
        admitted: &Admitted,
    ) -> Result<(), CallToolResult> {
        let tool = admitted.tool();
        if !admitted.retry {
            let checked = breaker.record(&tool.name, &ledger.arguments, tool.read_only);
            ledger.in_a_row.store(breaker.repeats(), Ordering::Relaxed);
            if let Err(refusal) = checked {
                ledger.write(
                    &tool.name,
                    admitted.server.as_deref(),
                    Ended::Blocked,
                    None,
                    false,
                );
                return Err(error_result(refusal.to_string()));
            }
        }
        match admitted.snapshot.validators.check(
            admitted.index,
            &tool.input_schema,
            &ledger.arguments,
        ) {
            Checked::Valid => Ok(()),
            Checked::Unchecked(why) => {
                self.recorder.warn(&format!(
                    "{}: its input schema cannot be used to check arguments ({why}); the call goes unchecked",
                    tool.name
                ));
                Ok(())
            }
            Checked::Invalid(errors) => {
                let list: Vec<String> = errors
                    .iter()
                    .map(|(at, what)| format!("at {at}: {what}"))
                    .collect();
                Err(admitted.refused(ledger, format!(
                    "the arguments do not follow {}'s input schema, so the call was not sent: {}. The schema: {}",
                    tool.name,
                    list.join("; "),
                    crate::gateway::policy::validate::quoted_schema(&tool.input_schema)
                )))
            }
        }
    }

    /// The user's yes to a call an `ask` rule holds (unless it resumes a
    /// call already running, asked and checked already); a 2026-07-28
    /// retry whose state is no question of ours never runs afresh.
    async fn check_approval(
        &self,
        ledger: &Ledger<'_>,
        admitted: &Admitted,
        via: &Via<'_>,
    ) -> Result<(), CallToolResponse> {
        use crate::gateway::policy::approve::{Approval, ask};
        let tool = admitted.tool();
        if via.asking.by_retry
            && let Some(state) = via.asking.state
            && !admitted.resuming
            && admitted.rule != ToolRule::Ask
            && !self.pending_asks.holds(state)
        {
            let why = super::rounds::NotResumed::Unknown(tool.name.clone());
            return Err(admitted.refused(ledger, why.to_string()).into());
        }
        if admitted.rule != ToolRule::Ask || admitted.resuming {
            return Ok(());
        }
        let (owner, pending) = (&admitted.owner, &self.pending_asks);
        match ask(
            owner,
            via.host,
            &via.asking,
            pending,
            tool,
            &ledger.arguments,
        )
        .await
        {
            Approval::Yes => Ok(()),
            Approval::No(refusal) => Err(admitted.refused(ledger, refusal).into()),
            Approval::Ask(question) => {
                self.recorder.info(&format!(
                    "{}: {} asks the user (input_required)",
                    ledger.session,
                    crate::terminal_text::escape(&tool.name)
                ));
                Err(CallToolResponse::InputRequired(question))
            }
        }
    }

    /// A catalog file's tool: its simulated result, if it has one.
    fn answer_from_file(&self, ledger: &Ledger<'_>, admitted: &Admitted) -> CallToolResult {
        let tool = admitted.tool();
        match &tool.handler_result {
            Some(result) => {
                let answered = Ended::Answered { is_error: false };
                ledger.write(&tool.name, None, answered, Some(result), false);
                let mut answer = super::results::json_result(result.clone());
                crate::gateway::policy::approve::tell_host(&mut answer, tool, admitted.listed());
                answer
            }
            None => {
                ledger.write(&tool.name, None, Ended::Refused, None, false);
                error_result(format!(
                    "{} comes from a catalog file and no MCP server runs it",
                    tool.name
                ))
            }
        }
    }
}

/// What every log line of one call shares: its session and key, its
/// arguments, when it started, and the breaker's count once the call has
/// reached it.
pub(super) struct Ledger<'a> {
    gateway: &'a Gateway,
    pub(super) session: &'a str,
    pub(super) key: Option<String>,
    pub(super) arguments: Value,
    started: Instant,
    in_a_row: AtomicU64,
}

impl<'a> Ledger<'a> {
    fn new(gateway: &'a Gateway, session: &'a str, via: &Via<'_>, arguments: &JsonObject) -> Self {
        Ledger {
            gateway,
            session,
            key: via.key.clone(),
            arguments: Value::Object(arguments.clone()),
            started: Instant::now(),
            in_a_row: AtomicU64::new(0),
        }
    }

    /// Records how the call of `name` (of `server`) ended; `unknown` when
    /// the name is none of the catalog's.
    pub(super) fn write(
        &self,
        name: &str,
        server: Option<&str>,
        ended: Ended,
        result: Option<&Value>,
        unknown: bool,
    ) {
        self.gateway.recorder.call(&CallRecord {
            session: self.session,
            key: self.key.as_deref(),
            name,
            server,
            arguments: &self.arguments,
            ended,
            elapsed: self.started.elapsed(),
            result,
            unknown,
            in_a_row: Some(self.in_a_row.load(Ordering::Relaxed)).filter(|&n| n > 0),
        });
    }
}

/// A call let through so far: the tool in its snapshot and what the rest
/// of the call asks of it.
pub(super) struct Admitted {
    pub(super) snapshot: Arc<Snapshot>,
    pub(super) index: usize,
    /// The server that owns the tool (none for a catalog file's).
    pub(super) server: Option<String>,
    rule: ToolRule,
    /// A 2026-07-28 retry that carries the user's answer.
    pub(super) retry: bool,
    /// A 2026-07-28 retry that answers a server's request of a call
    /// already running (an `input_required` round): that call goes on.
    pub(super) resuming: bool,
    /// Whose question a state is: the key and session that got it.
    pub(super) owner: String,
}

impl Admitted {
    pub(super) fn tool(&self) -> &crate::catalog::Tool {
        &self.snapshot.catalog.tools()[self.index]
    }

    /// The tool as its server listed it.
    pub(super) fn listed(&self) -> &rmcp::model::Tool {
        &self.snapshot.listed[self.index]
    }

    /// Records the call refused and answers `why`.
    pub(super) fn refused(&self, ledger: &Ledger<'_>, why: impl Into<String>) -> CallToolResult {
        let name = &self.tool().name;
        ledger.write(name, self.server.as_deref(), Ended::Refused, None, false);
        error_result(why)
    }
}

impl Gateway {
    /// Whether a rule denies a tool named `written` (of any server `reach`
    /// reaches), the way the name resolves: any case.
    fn denied_name(&self, written: &str, reach: &crate::gateway::Reach) -> bool {
        let rules = &self.config.rules;
        if rules.is_empty() {
            return false;
        }
        let spellings = [written.to_string(), written.to_lowercase()];
        spellings.iter().any(|name| {
            let bare = crate::catalog::Tool::new(name.clone(), "");
            rules.rule_for(&bare) == ToolRule::Deny
                || self
                    .host
                    .states()
                    .iter()
                    .filter(|s| reach.names_server(&s.name))
                    .any(|s| {
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
