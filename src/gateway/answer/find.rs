//! `search_tools`: the whole gathered catalog ranked by the configured
//! ranker, the relevance gate on, the always-load tools (already listed)
//! left out; each found tool with its server, schema, annotations and one
//! line of why.

use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{CallToolResult, JsonObject};
use serde_json::{Value, json};

use super::first_view::NotUp;
use super::meta::{CALL_READ_TOOL, CALL_TOOL};
use super::results::{error_result, search_result};
use crate::engine::Explanation;
use crate::gateway::record::SearchRecord;
use crate::gateway::{Gateway, Snapshot};
use crate::service::{GateMode, Reason, SearchOutcome, SearchRequest};
use crate::tools_handle::MaxTools;

/// What one `search_tools` found.
pub(crate) struct Found {
    pub(crate) result: CallToolResult,
    /// The names of the tools found, best first.
    pub(crate) names: Vec<String>,
}

impl Found {
    /// An answer that found no tool (a refusal, or nothing to rank).
    fn nothing(result: CallToolResult) -> Found {
        Found {
            result,
            names: Vec::new(),
        }
    }
}

/// Sessions whose last search `--learn` keeps at once.
const LEARN_SESSIONS: usize = 10_000;

impl Gateway {
    /// Answers `search_tools` with `arguments`, for `session`, made with
    /// the API key named `key`: its followers see it, and it ranks with
    /// that key's learned use (every key's with `learn_shared`), over
    /// what the key reaches (`reach`) alone.
    pub(crate) async fn search_tools(
        &self,
        session: &str,
        key: Option<&str>,
        reach: &crate::gateway::Reach,
        arguments: &JsonObject,
    ) -> Found {
        let usage_key = key.filter(|_| !self.config.learn_shared);
        let started = Instant::now();
        let asked = match self.search_arguments(arguments) {
            Ok(asked) => asked,
            Err(refused) => return Found::nothing(error_result(refused.to_string())),
        };
        // A search made while servers are in their first start waits for
        // them, so the first answer is not made without them.
        self.wait_for_first_starts().await;
        // Only what the key reaches is ranked: the cap fills with its tools.
        let snapshot = self.view(reach);
        let not_up = self.not_up_for_key(reach, key);
        if snapshot.catalog.is_empty() {
            return Found::nothing(search_result(self.nothing_listed(&asked.query, &not_up)));
        }
        let outcome = match self.rank(&snapshot, &asked, usage_key).await {
            Ok(outcome) => outcome,
            Err(e) => return Found::nothing(error_result(format!("search_tools failed: {e}"))),
        };
        let names: Vec<String> = outcome
            .tools
            .iter()
            .map(|t| snapshot.catalog.tools()[t.index].name.clone())
            .collect();
        let answer = found_answer(&snapshot, &asked, &outcome, &not_up);
        self.remember_search(session, &asked.query, usage_key);
        self.recorder.search(&SearchRecord {
            session,
            key,
            query: &asked.query,
            ranker: outcome.method.as_str(),
            tools: &names,
            held_back: outcome.held_back.len(),
            nothing_fits: answer.get("nothing_fits").is_some(),
            elapsed: started.elapsed(),
        });
        Found {
            result: search_result(answer),
            names,
        }
    }

    /// The answer while no server has listed its tools yet: nothing to
    /// rank, and why (the servers starting, down, or waiting for a login).
    fn nothing_listed(&self, query: &str, not_up: &NotUp) -> Value {
        let mut answer =
            json!({ "query": query, "tools": [], "ranker": self.config.ranker.to_string() });
        answer["note"] = if not_up.login.is_empty() {
            json!("no MCP server has listed its tools yet; try again in a few seconds")
        } else {
            json!(sentences(&[
                "No MCP server has listed its tools yet".to_string(),
                waiting_note(&not_up.login_how),
            ]))
        };
        add_servers(&mut answer, not_up);
        answer
    }

    /// The service's ranking of the snapshot's catalog for the request,
    /// off the async threads (ranking is CPU work, and a remote embedding
    /// call is blocking I/O). The gateway's policy, in the service's
    /// parameters: the always-load tools are listed already and the
    /// session is the gateway's. The gate is every front end's: when the
    /// best tool fits, the answer stands whole (`search`, the explorer and
    /// `serve` give the same tools for the same request).
    async fn rank(
        &self,
        snapshot: &Arc<Snapshot>,
        asked: &SearchArgs,
        usage_key: Option<&str>,
    ) -> Result<SearchOutcome, RankFailed> {
        let params = SearchRequest {
            query: asked.query.clone(),
            queries: asked.queries.clone(),
            max_tools: Some(asked.limit),
            ranker: Some(self.config.ranker),
            gate: Some(self.config.service.gate),
            gate_mode: GateMode::Any,
            omit_always_load: true,
            unrecorded: true,
            usage_key: usage_key.map(str::to_string),
            ..SearchRequest::default()
        };
        let snapshot = snapshot.clone();
        let service = self.service.clone();
        tokio::task::spawn_blocking(move || {
            service.tool_search_unrecorded(&snapshot.catalog, &params)
        })
        .await?
        .map_err(RankFailed::Service)
    }

    /// With `--learn`: `query` is the session's last search, which the
    /// next call that answers pairs with its tool.
    fn remember_search(&self, session: &str, query: &str, usage_key: Option<&str>) {
        if self.config.service.usage.is_none() {
            return;
        }
        let mut last = self.last_search.lock().unwrap_or_else(|p| p.into_inner());
        // Bounded: a gateway of many sessions forgets the oldest at once.
        if last.len() >= LEARN_SESSIONS && !last.contains_key(session) {
            last.clear();
        }
        last.insert(
            session.to_string(),
            (query.to_string(), usage_key.map(str::to_string)),
        );
    }

    /// With `--learn`: `tool` answered a call in `session`; paired with the
    /// session's last search, once (the next call of the session pairs
    /// with the next search).
    pub(crate) fn learn_call(&self, session: &str, tool: &str) {
        let Some(usage) = &self.config.service.usage else {
            return;
        };
        let query = self
            .last_search
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(session);
        if let Some((query, key)) = query {
            usage.record(&query, tool, key.as_deref());
        }
    }

    /// The query, its steps (`queries`), the limit, and a note when the
    /// limit was above the cap.
    fn search_arguments(&self, a: &JsonObject) -> Result<SearchArgs, SearchArgsError> {
        if let Some(extra) = a
            .keys()
            .find(|k| !matches!(k.as_str(), "query" | "queries" | "limit"))
        {
            return Err(SearchArgsError::Unknown(json!(extra)));
        }
        let queries = crate::service::queries_of(a.get("queries"))?;
        let query = match a.get("query") {
            Some(Value::String(q)) if !q.trim().is_empty() => q.clone(),
            // The steps alone: the whole request is all of them.
            Some(Value::String(_)) | None if !queries.is_empty() => String::new(),
            Some(Value::String(_)) | None => return Err(SearchArgsError::NoQuery),
            Some(other) => return Err(SearchArgsError::QueryNotString(kind(other))),
        };
        let cap = self.config.max_tools;
        let (limit, note) = match a.get("limit") {
            None | Some(Value::Null) => (cap, None),
            Some(Value::Number(n)) => match n.as_u64().and_then(MaxTools::new) {
                None => {
                    return Err(SearchArgsError::Limit {
                        cap,
                        given: n.to_string(),
                    });
                }
                Some(l) if l > cap => (
                    cap,
                    Some(format!(
                        "limit {l} is above this gateway's cap of {cap}; at most {cap} tools."
                    )),
                ),
                Some(l) => (l, None),
            },
            Some(other) => {
                return Err(SearchArgsError::Limit {
                    cap,
                    given: kind(other).to_string(),
                });
            }
        };
        Ok(SearchArgs {
            query,
            queries,
            limit,
            note,
        })
    }
}

/// `search_tools`' arguments, read.
pub(crate) struct SearchArgs {
    pub(crate) query: String,
    /// Its steps (`queries`).
    pub(crate) queries: Vec<String>,
    pub(crate) limit: MaxTools,
    /// Said when the limit asked was above the cap.
    pub(crate) note: Option<String>,
}

/// Why a search the arguments allowed found nothing to answer: the
/// service's error, or its task's end.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RankFailed {
    #[error(transparent)]
    Service(#[from] crate::service::ServiceError),
    #[error(transparent)]
    Task(#[from] tokio::task::JoinError),
}

/// Why `search_tools`' arguments were refused, as the model reads it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SearchArgsError {
    #[error("search_tools takes `query`, `queries` and `limit`, not {0}")]
    Unknown(Value),
    #[error("search_tools needs `query`: what you want to do, in plain words")]
    NoQuery,
    #[error("search_tools: `query` must be a string, not {0}")]
    QueryNotString(&'static str),
    /// `given` is the number written, or the kind of value.
    #[error("search_tools: `limit` must be a whole number from 1 to {cap}, not {given}")]
    Limit { cap: MaxTools, given: String },
    /// `queries`: the service's rules, named as `search_tools` arguments.
    #[error("search_tools: {0}")]
    Queries(#[from] crate::service::BadQueries),
}

/// The answer to a search the service ranked: each tool found, which
/// ranker answered (BM25F while a dense ranker's vectors are still being
/// computed, or when no model is at hand), what the gate held back, and
/// the notes.
fn found_answer(
    snapshot: &Snapshot,
    asked: &SearchArgs,
    outcome: &SearchOutcome,
    not_up: &NotUp,
) -> Value {
    let tools: Vec<Value> = outcome
        .tools
        .iter()
        .map(|t| found_tool(snapshot, t.index, t.reason, &t.explanation))
        .collect();
    let mut answer =
        json!({ "query": asked.query, "tools": tools, "ranker": outcome.method.as_str() });
    if let Some(m) = &outcome.matching {
        answer["matching"] = json!(m.total);
    }
    if !outcome.held_back.is_empty() {
        answer["nothing_fits"] = json!(true);
        answer["held_back"] = held_back(snapshot, outcome);
    }
    if tools.is_empty() && outcome.held_back.is_empty() {
        answer["nothing_fits"] = json!(true);
    }
    let notes = found_notes(asked, outcome, tools.is_empty(), not_up);
    if !notes.is_empty() {
        answer["note"] = json!(sentences(&notes));
    }
    add_servers(&mut answer, not_up);
    answer
}

/// The tools the gate held back, each with its server and evidence.
fn held_back(snapshot: &Snapshot, outcome: &SearchOutcome) -> Value {
    outcome
        .held_back
        .iter()
        .map(|h| {
            let t = &snapshot.catalog.tools()[h.index];
            json!({
                "name": t.name,
                "server": t.mcp.as_ref().map(|m| m.server.to_string()),
                "evidence": (h.fit.evidence * 10.0).round() / 10.0,
            })
        })
        .collect()
}

/// The notes of a ranked answer, in order: the limit's, the service's,
/// what the cap left out and where (a second search with more words, or
/// select:name, reaches them), no tool matching at all (no word of the
/// query in any tool, said as plainly as the gate's "nothing fits"), the
/// servers still starting, and those waiting for a login.
fn found_notes(
    asked: &SearchArgs,
    outcome: &SearchOutcome,
    none_found: bool,
    not_up: &NotUp,
) -> Vec<String> {
    let mut notes: Vec<String> = asked.note.iter().cloned().collect();
    notes.extend(outcome.note.clone());
    if let Some(more) = outcome
        .matching
        .as_ref()
        .and_then(crate::service::matching::note)
    {
        notes.push(format!("{more}."));
    }
    if none_found && outcome.held_back.is_empty() {
        notes.push(
            "No tool of this gateway matches these words: try other words, or select:name for a tool you know."
                .into(),
        );
    }
    if !not_up.starting.is_empty() {
        notes.push(format!(
            "Still starting (their tools are not searched yet): {}.",
            not_up.starting.join(", ")
        ));
    }
    if !not_up.login.is_empty() {
        notes.push(waiting_note(&not_up.login_how));
    }
    notes
}

/// The note of the servers waiting for a login: each with how the user
/// logs in (the command that makes it, with its servers file).
fn waiting_note(login_how: &[String]) -> String {
    format!(
        "Waiting for the user to log in (a server's tools not yet listed join then, and a call refused for the login goes once it is made): {}",
        login_how.join("; ")
    )
}

/// Notes as one text, each a sentence of its own: ended with a full stop
/// when it has none, begun with a capital, one space between.
fn sentences(notes: &[String]) -> String {
    notes
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .map(|n| {
            let mut chars = n.chars();
            let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
            let mut s = first.unwrap_or_default() + chars.as_str();
            if !s.ends_with(['.', '!', '?']) {
                s.push('.');
            }
            s
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Names the servers still starting, those down and those waiting for a
/// login in an answer.
fn add_servers(answer: &mut Value, not_up: &NotUp) {
    if !not_up.starting.is_empty() {
        answer["servers_starting"] = json!(not_up.starting);
    }
    if !not_up.down.is_empty() {
        answer["servers_down"] = json!(not_up.down);
    }
    if !not_up.login.is_empty() {
        answer["servers_waiting_for_login"] = json!(not_up.login);
    }
}

pub(crate) use crate::service::json_kind as kind;

/// One found tool as the host gets it.
pub(crate) fn found_tool(
    snapshot: &Snapshot,
    index: usize,
    reason: Reason,
    e: &Explanation,
) -> Value {
    let tool = &snapshot.catalog.tools()[index];
    let listed = &snapshot.listed[index];
    let mut out = json!({
        "name": tool.name,
        "server": tool.mcp.as_ref().map(|m| m.server.to_string()),
        "description": tool.description,
        "inputSchema": listed.input_schema.as_ref(),
    });
    if let Some(a) = &listed.annotations
        && let Ok(v) = serde_json::to_value(a)
    {
        out["annotations"] = v;
    }
    // The dispatcher that runs it, so a model picks the right one.
    out["call_with"] = json!(if snapshot.reads[index] {
        CALL_READ_TOOL
    } else {
        CALL_TOOL
    });
    // Said before the call, so a host that cannot ask its user (no
    // elicitation) knows now, not when the call is refused.
    if snapshot.asks.get(index).copied().unwrap_or(false) {
        out["needs_approval"] = json!(true);
        out["approval"] = json!(
            "an `ask` rule holds this tool: each call waits for the user's approval (the host asks them; a host that cannot ask gets the call refused, saying how to allow it)"
        );
    }
    out["why"] = json!(why_line(reason, e));
    out
}

/// `exact name`, or `cosine 0.62; matched time (name), tokyo (parameter
/// description)`.
pub(crate) fn why_line(reason: Reason, e: &Explanation) -> String {
    if reason == Reason::ExactName || e.exact_name {
        return "exact name".into();
    }
    let mut parts = Vec::new();
    if let Some(u) = &e.usage {
        parts.push(crate::service::usage::words(u));
    }
    if let Some(d) = &e.dense {
        parts.push(format!("cosine {:.2}", d.cosine));
    }
    if !e.matches.is_empty() {
        let words: Vec<String> = e
            .matches
            .iter()
            .map(|m| {
                let fields: Vec<&str> = m.fields.iter().map(|f| f.label()).collect();
                format!("{} ({})", m.term, fields.join(", "))
            })
            .collect();
        parts.push(format!("matched {}", words.join(", ")));
    }
    if parts.is_empty() {
        "ranked".into()
    } else {
        parts.join("; ")
    }
}

#[cfg(test)]
mod note_tests {
    #[test]
    fn a_gate_s_note_and_the_login_note_are_two_sentences() {
        let gate = "no tool fits this request; the nearest, whoami, fits with probability 0.42 of the 0.56 asked";
        let waiting = super::waiting_note(&[
            "hosted: log in with `toolsift login hosted --mcp /x/servers.json`".into(),
        ]);
        let note = super::sentences(&[gate.to_string(), waiting]);
        assert!(note.starts_with("No tool fits"), "{note}");
        assert!(
            note.contains("of the 0.56 asked. Waiting for the user to log in"),
            "{note}"
        );
        assert!(!note.contains('\n'), "{note}");
        assert!(
            note.contains("`toolsift login hosted --mcp /x/servers.json`."),
            "{note}"
        );
    }
}
