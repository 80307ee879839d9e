//! The searcher every front end uses, and the client rules of CONTRACT §3.
//!
//! [`Searcher`] is the only door to search. Whatever the transport, an
//! answer is a wire response ([`ToolSearchResponse`]) that goes through
//! [`accept`], the client rules written once: names are checked against the
//! local catalog (unknown or duplicate is an error) and the local descriptors
//! are returned; token counts are validated; `saved_tokens`,
//! `reduction_pct` and `basis` are computed here. The embedded searcher
//! calls [`Service`] in-process and hands its answer over as a value (no
//! JSON); a remote one parses the body with [`parse_response`] first.

use std::sync::Arc;

use serde_json::Value;

use crate::catalog::Catalog;
use crate::client::Client;
use crate::engine::{CatalogRanker, Explanation, Hit, RankError};
pub use crate::service::Reason;
use crate::service::{Service, ServiceError, to_wire};
use crate::tokens::{Savings, TokenBasis};
use crate::wire::{ToolSearchBody, ToolSearchResponse, WireMatch, WireSelectedTool, WireTool};

/// `basis` of every result: the counts are the service's estimate.
pub const BASIS_INFERRED: &str = "inferred";

/// `token_basis` of a response that named none.
pub const TOKEN_BASIS_UNAVAILABLE: &str = "unavailable";

/// `method` of a response that named none.
pub const METHOD_UNKNOWN: &str = "unknown";

/// Largest integer a JSON number carries exactly (2^53 - 1).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Why a search failed. A failed search is never an empty result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SearchError {
    /// The service refused the request (HTTP status, code, message).
    #[error("{} ({})", .0.message, .0.code)]
    Service(ServiceError),
    #[error("tool search response tools must be an array")]
    NotAnArray,
    #[error("tool search response contained an unknown or duplicate tool")]
    UnknownOrDuplicate,
    /// The response body is not a JSON object.
    #[error("tool search response is not a JSON object: {0}")]
    InvalidBody(String),
    /// A remote service could not be used (unreachable, time-out, redirect,
    /// an HTTP error with its message, a body that is not JSON).
    #[error("{0}")]
    Remote(crate::client::RemoteError),
}

impl SearchError {
    /// A stable code: the service's, or the client rule's.
    pub fn code(&self) -> &str {
        match self {
            SearchError::Service(e) => e.code,
            SearchError::NotAnArray => "response_tools_not_array",
            SearchError::UnknownOrDuplicate => "response_unknown_or_duplicate_tool",
            SearchError::InvalidBody(_) => "response_not_json",
            SearchError::Remote(e) => e.code(),
        }
    }
}

/// What a search asks for: the service's parameters (a remote searcher
/// sends the same on the wire, see [`SearchRequest::body`]).
pub use crate::service::SearchParams as SearchRequest;

impl SearchRequest {
    /// The wire body of this request over `catalog` (the full catalog).
    pub fn body<'a>(&'a self, catalog: &Catalog) -> ToolSearchBody<'a> {
        ToolSearchBody {
            tools: catalog.tools().iter().map(WireTool::from).collect(),
            query: &self.query,
            context: self.context.as_deref(),
            max_tools: self.max_tools,
            session_id: self.session_id.as_deref(),
            ranker: self.ranker,
            token_basis: ToolSearchBody::basis(self.token_basis),
            preview: self.preview,
        }
    }
}

/// One returned tool, reattached to the local catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// Index of the tool in the local catalog.
    pub index: usize,
    /// Ranking score, when the service reported one.
    pub score: Option<f32>,
    pub reason: Option<Reason>,
    pub explanation: Explanation,
}

/// A search's answer as a client sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    pub tools: Vec<SearchHit>,
    pub session_id: Option<String>,
    pub method: String,
    pub deferred_count: u64,
    pub savings: Savings,
    pub token_basis: String,
    pub basis: &'static str,
    pub note: Option<String>,
    pub session_tools: Vec<String>,
    /// Per-tool schema tokens (catalog order), counted by the searcher
    /// ([`Searcher::tool_costs`]) with the request's token basis.
    pub tool_tokens: Option<Arc<Vec<u64>>>,
}

/// Maps returned names to local catalog indices: every name must be in the
/// catalog and appear once.
pub fn reattach<'a>(
    catalog: &Catalog,
    names: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<usize>, SearchError> {
    let mut out: Vec<usize> = Vec::new();
    for name in names {
        let index = catalog
            .index_of(name)
            .ok_or(SearchError::UnknownOrDuplicate)?;
        if out.contains(&index) {
            return Err(SearchError::UnknownOrDuplicate);
        }
        out.push(index);
    }
    Ok(out)
}

/// The client rules of CONTRACT §3 over a wire response: the local
/// descriptors for the returned names, validated counts, savings.
pub fn accept(
    catalog: &Catalog,
    response: ToolSearchResponse,
) -> Result<SearchResult, SearchError> {
    let indices = reattach(catalog, response.tools.iter().map(|t| t.tool.name.as_str()))?;
    let tools = indices
        .into_iter()
        .zip(response.tools)
        .map(|(index, t)| {
            let reason = t.reason.as_deref().and_then(Reason::from_wire);
            SearchHit {
                index,
                score: t.score.map(|s| s as f32),
                reason,
                explanation: Explanation {
                    exact_name: reason == Some(Reason::ExactName),
                    matches: t.matched.iter().map(WireMatch::to_match).collect(),
                },
            }
        })
        .collect();
    let (full, sent) = if response.sent_schema_tokens > response.full_schema_tokens
        || response.full_schema_tokens > MAX_SAFE_INTEGER
    {
        (0, 0)
    } else {
        (response.full_schema_tokens, response.sent_schema_tokens)
    };
    let blank = |s: String, fallback: &str| {
        if s.trim().is_empty() {
            fallback.to_string()
        } else {
            s
        }
    };
    Ok(SearchResult {
        tools,
        session_id: Some(response.session_id).filter(|s| !s.is_empty()),
        method: blank(response.method, METHOD_UNKNOWN),
        deferred_count: if response.deferred_count > MAX_SAFE_INTEGER {
            0
        } else {
            response.deferred_count
        },
        savings: Savings::new(full, sent),
        token_basis: blank(response.token_basis, TOKEN_BASIS_UNAVAILABLE),
        basis: BASIS_INFERRED,
        note: response.note,
        session_tools: response.session_tools,
        tool_tokens: None,
    })
}

/// A count as the SDK accepts it: a non-negative integer up to 2^53 - 1.
fn wire_count(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    let n = match v.as_u64() {
        Some(n) => n,
        None => {
            let f = v.as_f64()?;
            if f < 0.0 || f.fract() != 0.0 || f > MAX_SAFE_INTEGER as f64 {
                return None;
            }
            f as u64
        }
    };
    (n <= MAX_SAFE_INTEGER).then_some(n)
}

fn wire_string(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_string)
}

/// A response body as a compatible client reads it: leniently where the SDKs
/// are lenient (bad counts become 0, a missing `method` or `token_basis`
/// becomes blank for [`accept`] to name), strictly where they are strict
/// (`tools` must be an array of objects with string names).
pub fn parse_response(body: &[u8]) -> Result<ToolSearchResponse, SearchError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| SearchError::InvalidBody(e.to_string()))?;
    let Value::Object(object) = value else {
        return Err(SearchError::InvalidBody("not an object".into()));
    };
    let Some(Value::Array(items)) = object.get("tools") else {
        return Err(SearchError::NotAnArray);
    };
    let mut tools = Vec::with_capacity(items.len());
    for item in items {
        let Some(name) = item.get("name").and_then(Value::as_str) else {
            return Err(SearchError::UnknownOrDuplicate);
        };
        let matched = item
            .get("matched")
            .and_then(|m| serde_json::from_value::<Vec<WireMatch>>(m.clone()).ok())
            .unwrap_or_default();
        tools.push(WireSelectedTool {
            tool: WireTool {
                name: name.to_string(),
                description: wire_string(item.get("description")).unwrap_or_default(),
                input_schema: item.get("input_schema").cloned().unwrap_or(Value::Null),
                read_only: item
                    .get("read_only")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                idempotent: item
                    .get("idempotent")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                always_load: item
                    .get("always_load")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            },
            score: item.get("score").and_then(Value::as_f64),
            reason: wire_string(item.get("reason")),
            matched,
        });
    }
    let (sent, full) = match (
        wire_count(object.get("sent_schema_tokens")),
        wire_count(object.get("full_schema_tokens")),
    ) {
        (Some(s), Some(f)) => (s, f),
        _ => (0, 0),
    };
    Ok(ToolSearchResponse {
        tools,
        sent_schema_tokens: sent,
        full_schema_tokens: full,
        deferred_count: wire_count(object.get("deferred_count")).unwrap_or(0),
        method: wire_string(object.get("method")).unwrap_or_default(),
        token_basis: wire_string(object.get("token_basis")).unwrap_or_default(),
        session_id: wire_string(object.get("session_id")).unwrap_or_default(),
        note: wire_string(object.get("note")),
        session_tools: object
            .get("session_tools")
            .and_then(|v| serde_json::from_value::<Vec<String>>(v.clone()).ok())
            .unwrap_or_default(),
    })
}

/// Where searches go. Nothing outside this module matches on its variants.
#[derive(Debug, Clone)]
pub enum Searcher {
    /// The service in-process.
    Embedded(Arc<Service>),
    /// A compatible service over HTTP; `local` counts token costs here.
    Remote {
        client: Arc<Client>,
        local: Arc<Service>,
    },
}

impl Searcher {
    /// An embedded searcher over a new service with default limits.
    pub fn embedded() -> Self {
        Searcher::Embedded(Arc::new(Service::default()))
    }

    /// A searcher over a remote service.
    pub fn remote(client: Client) -> Self {
        Searcher::Remote {
            client: Arc::new(client),
            local: Arc::new(Service::default()),
        }
    }

    /// The remote service's host, if this searcher is remote.
    pub fn remote_host(&self) -> Option<String> {
        match self {
            Searcher::Embedded(_) => None,
            Searcher::Remote { client, .. } => Some(client.host()),
        }
    }

    fn local(&self) -> &Service {
        match self {
            Searcher::Embedded(service) => service,
            Searcher::Remote { local, .. } => local,
        }
    }

    /// Every tool's schema tokens under `basis`, in catalog order (cached by
    /// catalog fingerprint; counted here, whatever the transport).
    pub fn tool_costs(&self, catalog: &Catalog, basis: TokenBasis) -> Arc<Vec<u64>> {
        self.local().costs_for(catalog, basis)
    }

    /// The token basis used when a request names none.
    pub fn default_token_basis(&self) -> TokenBasis {
        self.local().config().token_basis
    }

    /// `embedded`, or `remote HOST`, for headers and reports.
    pub fn describe(&self) -> String {
        match self {
            Searcher::Embedded(_) => "embedded".to_string(),
            Searcher::Remote { client, .. } => format!("remote {}", client.host()),
        }
    }

    /// `ranker` over `catalog`, to rank whole lists (eval): the service's own
    /// ranker in-process, or the remote service asked for `k` tools at a
    /// time.
    pub fn ranker_for(
        &self,
        catalog: &Arc<Catalog>,
        ranker: crate::engine::Ranker,
    ) -> Result<Arc<dyn CatalogRanker>, SearchError> {
        match self {
            Searcher::Embedded(service) => service
                .ranker_for(catalog, ranker)
                .map_err(SearchError::Service),
            Searcher::Remote { client, .. } => Ok(Arc::new(RemoteRanker {
                client: client.clone(),
                catalog: catalog.clone(),
                ranker,
                latencies: std::sync::Mutex::new(Vec::new()),
            })),
        }
    }

    /// Searches the full `catalog`.
    pub fn search(
        &self,
        catalog: &Catalog,
        request: &SearchRequest,
    ) -> Result<SearchResult, SearchError> {
        let response = match self {
            Searcher::Embedded(service) => {
                let outcome = service
                    .tool_search(catalog, request, "")
                    .map_err(SearchError::Service)?;
                to_wire(catalog, &outcome)
            }
            Searcher::Remote { client, .. } => client.tool_search(catalog, request)?,
        };
        let mut result = accept(catalog, response)?;
        let basis = request
            .token_basis
            .or_else(|| result.token_basis.parse().ok())
            .unwrap_or_else(|| self.default_token_basis());
        result.tool_tokens = Some(self.tool_costs(catalog, basis));
        Ok(result)
    }
}

/// A remote service as a ranker: each `rank` is one search for `k` tools
/// (always-load tools, which a service puts first, count among them). Each
/// call's latency is kept for the eval report.
#[derive(Debug)]
struct RemoteRanker {
    client: Arc<Client>,
    catalog: Arc<Catalog>,
    ranker: crate::engine::Ranker,
    latencies: std::sync::Mutex<Vec<std::time::Duration>>,
}

impl CatalogRanker for RemoteRanker {
    fn ranker(&self) -> crate::engine::Ranker {
        self.ranker
    }

    fn len(&self) -> usize {
        self.catalog.len()
    }

    fn rank(&self, query: &str, context: Option<&str>, k: usize) -> Result<Vec<Hit>, RankError> {
        if k == 0 {
            return Ok(Vec::new());
        }
        let request = SearchRequest {
            query: query.to_string(),
            context: context.map(str::to_string),
            max_tools: Some(k as u64),
            ranker: Some(self.ranker),
            preview: true,
            ..SearchRequest::default()
        };
        let (response, elapsed) = self.client.timed_search(&self.catalog, &request);
        if let Ok(mut l) = self.latencies.lock() {
            l.push(elapsed);
        }
        let result = response
            .and_then(|r| accept(&self.catalog, r))
            .map_err(|e| RankError(e.to_string()))?;
        Ok(result
            .tools
            .iter()
            .map(|h| Hit {
                doc: h.index,
                score: h.score.unwrap_or(0.0),
                exact: h.reason == Some(Reason::ExactName),
            })
            .collect())
    }

    fn explain(&self, _query: &str, _context: Option<&str>, docs: &[usize]) -> Vec<Explanation> {
        vec![Explanation::default(); docs.len()]
    }

    fn latencies(&self) -> Vec<std::time::Duration> {
        self.latencies.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

/// Display helpers shared by the CLI (the TUI draws its own).
impl SearchResult {
    /// The `--json` object of `toolsift search`.
    pub fn to_json(&self, catalog: &Catalog) -> serde_json::Value {
        use serde_json::json;
        let tools: Vec<serde_json::Value> = self
            .tools
            .iter()
            .map(|h| {
                let t = &catalog.tools()[h.index];
                let mut v = json!({
                    "name": t.name,
                    "score": h.score.map(|s| (f64::from(s) * 10_000.0).round() / 10_000.0),
                    "reason": h.reason.map(|r| r.as_str()),
                    "read_only": t.read_only,
                    "idempotent": t.idempotent,
                    "always_load": t.always_load,
                    "matched": h.explanation.matches.iter().map(|m| json!({
                        "term": m.term,
                        "fields": m.fields.iter().map(|f| f.label()).collect::<Vec<_>>(),
                        "score": (f64::from(m.score) * 10_000.0).round() / 10_000.0,
                    })).collect::<Vec<_>>(),
                });
                if let Some(costs) = &self.tool_tokens {
                    v["tokens"] = json!(costs.get(h.index));
                }
                v
            })
            .collect();
        let mut out = json!({
            "tools": tools,
            "session_id": self.session_id,
            "method": self.method,
            "deferred_count": self.deferred_count,
            "full_schema_tokens": self.savings.full_schema_tokens,
            "sent_schema_tokens": self.savings.sent_schema_tokens,
            "saved_tokens": self.savings.saved_tokens,
            "reduction_pct": self.savings.reduction_pct,
            "token_basis": self.token_basis,
            "basis": self.basis,
            "session_tools": self.session_tools,
        });
        if let Some(note) = &self.note {
            out["note"] = json!(note);
        }
        out
    }

    /// The human-readable table of `toolsift search`.
    pub fn render_text(&self, catalog: &Catalog) -> String {
        // Names, matched words, the note and the service's strings are
        // escaped for the terminal: a catalog and a service are untrusted.
        use crate::check::thousands;
        use crate::terminal_text::escape;
        use std::fmt::Write as _;
        let mut out = String::new();
        let names: Vec<_> = self
            .tools
            .iter()
            .map(|h| escape(&catalog.tools()[h.index].name))
            .collect();
        let width = names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(4)
            .max(4);
        if !self.tools.is_empty() {
            let _ = writeln!(
                out,
                "{:>4}  {:<width$}  {:<8}  {:>6}  {:>7}  matched",
                "rank", "name", "flags", "tokens", "score"
            );
        }
        let mut rank = 0;
        for (h, name) in self.tools.iter().zip(&names) {
            let t = &catalog.tools()[h.index];
            let rank_cell = if h.reason == Some(Reason::AlwaysLoad) {
                "AL".to_string()
            } else {
                rank += 1;
                rank.to_string()
            };
            let flags = format!(
                "{} {} {}",
                if t.always_load { "AL" } else { "--" },
                if t.read_only { "RO" } else { "--" },
                if t.idempotent { "ID" } else { "--" },
            );
            let tokens = self
                .tool_tokens
                .as_ref()
                .and_then(|c| c.get(h.index))
                .map_or_else(|| "-".to_string(), |n| thousands(*n));
            let score = h
                .score
                .map_or_else(|| "-".to_string(), |s| format!("{s:.3}"));
            let mut matched: Vec<String> = h
                .explanation
                .matches
                .iter()
                .map(|m| {
                    let fields: Vec<&str> = m.fields.iter().map(|f| f.label()).collect();
                    format!("{} ({})", escape(&m.term), fields.join(", "))
                })
                .collect();
            if h.reason == Some(Reason::ExactName) {
                matched.insert(0, "exact name".into());
            }
            if matched.is_empty() && h.reason == Some(Reason::AlwaysLoad) {
                matched.push("always-load".into());
            }
            let row = format!(
                "{rank_cell:>4}  {name:<width$}  {flags:<8}  {tokens:>6}  {score:>7}  {}",
                matched.join("; ")
            );
            let _ = writeln!(out, "{}", row.trim_end());
        }
        if let Some(note) = &self.note {
            let _ = writeln!(out, "note: {}", escape(note));
        }
        let s = &self.savings;
        let _ = writeln!(
            out,
            "\nfull {} tokens, sent {}, saved {} ({:.1} %), deferred {} tools; method {}, token basis {} ({}); session {}",
            thousands(s.full_schema_tokens),
            thousands(s.sent_schema_tokens),
            thousands(s.saved_tokens),
            s.reduction_pct,
            self.deferred_count,
            escape(&self.method),
            escape(&self.token_basis),
            escape(self.basis),
            escape(self.session_id.as_deref().unwrap_or("-"))
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Tool;

    fn catalog() -> Catalog {
        let mut tools = vec![
            Tool::new("lookup_status", "Look up the current service status"),
            Tool::new("send_invoice", "Send an invoice to a customer"),
            Tool::new("page_oncall", "Page the on-call engineer"),
        ];
        tools[2].always_load = true;
        Catalog::new("t", tools).unwrap()
    }

    #[test]
    fn reattach_rejects_unknown_and_duplicates() {
        let c = catalog();
        assert_eq!(
            reattach(&c, ["send_invoice", "lookup_status"]),
            Ok(vec![1, 0])
        );
        assert_eq!(reattach(&c, ["nope"]), Err(SearchError::UnknownOrDuplicate));
        assert_eq!(
            reattach(&c, ["send_invoice", "send_invoice"]),
            Err(SearchError::UnknownOrDuplicate)
        );
        assert_eq!(
            SearchError::UnknownOrDuplicate.to_string(),
            "tool search response contained an unknown or duplicate tool"
        );
    }

    #[test]
    fn embedded_search_applies_client_rules() {
        let c = catalog();
        let searcher = Searcher::embedded();
        let r = searcher
            .search(
                &c,
                &SearchRequest {
                    query: "check service status".into(),
                    ..Default::default()
                },
            )
            .unwrap();
        let names: Vec<&str> = r
            .tools
            .iter()
            .map(|h| c.tools()[h.index].name.as_str())
            .collect();
        assert_eq!(names, ["page_oncall", "lookup_status"]);
        assert_eq!(r.method, "bm25");
        assert_eq!(r.basis, "inferred");
        assert_eq!(r.token_basis, "o200k_base");
        assert_eq!(r.deferred_count, 1);
        let costs = r.tool_tokens.clone().unwrap();
        assert_eq!(r.savings.full_schema_tokens, costs.iter().sum::<u64>());
        assert_eq!(r.savings.sent_schema_tokens, costs[2] + costs[0]);
        assert_eq!(
            r.savings.saved_tokens,
            r.savings.full_schema_tokens - r.savings.sent_schema_tokens
        );
        assert!(r.session_id.as_deref().is_some_and(|s| s.len() == 32));
        let err = searcher
            .search(
                &c,
                &SearchRequest {
                    query: "x".into(),
                    ranker: Some(crate::engine::Ranker::Embeddings),
                    ..Default::default()
                },
            )
            .unwrap_err();
        assert!(matches!(&err, SearchError::Service(e) if e.code == "ranker_unavailable"));
    }

    fn response(names: &[&str], sent: u64, full: u64) -> ToolSearchResponse {
        let c = catalog();
        ToolSearchResponse {
            tools: names
                .iter()
                .map(|n| WireSelectedTool {
                    tool: WireTool::from(c.get(n).unwrap()),
                    score: None,
                    reason: None,
                    matched: Vec::new(),
                })
                .collect(),
            sent_schema_tokens: sent,
            full_schema_tokens: full,
            deferred_count: 1,
            method: String::new(),
            token_basis: " ".into(),
            session_id: String::new(),
            note: None,
            session_tools: Vec::new(),
        }
    }

    #[test]
    fn accept_applies_the_count_and_name_rules() {
        let c = catalog();
        let r = accept(&c, response(&["send_invoice"], 120, 840)).unwrap();
        assert_eq!(r.tools[0].index, 1);
        assert_eq!(
            (r.savings.saved_tokens, r.savings.reduction_pct),
            (720, 85.7)
        );
        assert_eq!(r.method, "unknown");
        assert_eq!(r.token_basis, "unavailable");
        assert_eq!(r.basis, "inferred");
        assert_eq!(r.session_id, None);
        // sent > full: both become 0.
        let r = accept(&c, response(&[], 200, 100)).unwrap();
        assert_eq!(
            (
                r.savings.full_schema_tokens,
                r.savings.sent_schema_tokens,
                r.savings.saved_tokens,
                r.savings.reduction_pct
            ),
            (0, 0, 0, 0.0)
        );
        assert_eq!(
            accept(&c, response(&["send_invoice", "send_invoice"], 0, 0)).unwrap_err(),
            SearchError::UnknownOrDuplicate
        );
    }

    #[test]
    fn parse_response_is_lenient_where_the_sdk_is() {
        let c = catalog();
        let body = br#"{"tools":[{"name":"lookup_status","score":2.5,"reason":"ranked",
            "matched":[{"term":"status","fields":["name","param_description","future_field"],"score":1.25}]}],
            "sent_schema_tokens":"12","full_schema_tokens":100,"deferred_count":-1,
            "session_id":"abc"}"#;
        let r = accept(&c, parse_response(body).unwrap()).unwrap();
        assert_eq!(r.savings.full_schema_tokens, 0, "a bad count zeroes both");
        assert_eq!(r.deferred_count, 0);
        assert_eq!(r.method, "unknown");
        assert_eq!(r.session_id.as_deref(), Some("abc"));
        let hit = &r.tools[0];
        assert_eq!(
            (hit.index, hit.score, hit.reason),
            (0, Some(2.5), Some(Reason::Ranked))
        );
        assert_eq!(
            hit.explanation.matches[0].fields,
            [
                crate::engine::Field::Name,
                crate::engine::Field::ParamDescription
            ]
        );
        let r = accept(
            &c,
            parse_response(br#"{"tools":[],"sent_schema_tokens":3.0,"full_schema_tokens":9,"method":"bm25","token_basis":"o200k_base"}"#).unwrap(),
        )
        .unwrap();
        assert_eq!(
            (r.savings.sent_schema_tokens, r.savings.full_schema_tokens),
            (3, 9)
        );
        assert_eq!(
            parse_response(br#"{"tools":{}}"#).unwrap_err(),
            SearchError::NotAnArray
        );
        assert_eq!(
            parse_response(br#"{"tools":[{"title":"x"}]}"#).unwrap_err(),
            SearchError::UnknownOrDuplicate
        );
        assert!(matches!(
            parse_response(b"<html>"),
            Err(SearchError::InvalidBody(_))
        ));
        assert!(matches!(
            parse_response(b"[]"),
            Err(SearchError::InvalidBody(_))
        ));
    }

    #[test]
    fn request_body_keys_in_sdk_order_and_omitted_when_absent() {
        let c = catalog();
        let mut request = SearchRequest {
            query: "q".into(),
            ..Default::default()
        };
        let body = serde_json::to_string(&request.body(&c)).unwrap();
        assert!(
            body.starts_with(r#"{"tools":[{"name":"lookup_status","description":"#),
            "{body}"
        );
        assert!(body.ends_with(r#""query":"q"}"#), "{body}");
        request.max_tools = Some(3);
        request.session_id = Some("s1".into());
        request.ranker = Some(crate::engine::Ranker::Bm25);
        request.context = Some("ctx".into());
        request.preview = true;
        let text = serde_json::to_string(&request.body(&c)).unwrap();
        // Top-level keys in order of appearance (the catalog's own keys are
        // inside `tools`, which comes first and is skipped).
        let after_tools = &text[text.find(r#"],"query""#).unwrap()..];
        let positions: Vec<usize> = [
            "query",
            "context",
            "max_tools",
            "session_id",
            "ranker",
            "preview",
        ]
        .iter()
        .map(|k| after_tools.find(&format!("\"{k}\":")).unwrap())
        .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{after_tools}");
        let body: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(body.as_object().unwrap().len(), 7);
        assert_eq!(body["ranker"], "bm25");
        assert_eq!(body["tools"][2]["always_load"], true);
    }

    #[test]
    fn explanations_survive_the_wire_form() {
        let c = catalog();
        let service = Arc::new(Service::default());
        let request = SearchRequest {
            query: "look up the service status".into(),
            preview: true,
            ..Default::default()
        };
        let outcome = service.tool_search(&c, &request, "").unwrap();
        let r = Searcher::Embedded(service).search(&c, &request).unwrap();
        assert_eq!(r.tools.len(), outcome.tools.len());
        for (hit, selected) in r.tools.iter().zip(&outcome.tools) {
            assert_eq!(hit.index, selected.index);
            assert_eq!(hit.reason, Some(selected.reason));
            assert_eq!(hit.score, Some(selected.score));
            assert_eq!(hit.explanation, selected.explanation);
        }
        assert!(!r.tools[1].explanation.matches.is_empty());
        // A preview recorded no session.
        assert_eq!(r.session_id, None);
    }
}
