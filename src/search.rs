//! The searcher every front end uses, and the client rules of CONTRACT §3.
//!
//! `Searcher::Embedded` calls [`Service`] in-process: the same code
//! `toolsift serve` exposes, minus the socket and the JSON. Whatever path an
//! answer takes, it goes through [`reattach`] and [`Savings`]: names are
//! checked against the local catalog (unknown or duplicate is an error) and
//! the local descriptors are returned; token counts are validated.

use std::sync::Arc;

use crate::catalog::Catalog;
use crate::engine::Explanation;
use crate::service::{Reason, Service, ServiceError};
use crate::tokens::Savings;

/// `basis` of every result: the counts are the service's estimate.
pub const BASIS_INFERRED: &str = "inferred";

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
}

/// What a search asks for: the service's parameters (a remote searcher
/// will send the same on the wire).
pub use crate::service::SearchParams as SearchRequest;

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
    /// Per-tool schema tokens (catalog order), when the service gave them.
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

/// Where searches go.
#[derive(Debug, Clone)]
pub enum Searcher {
    Embedded(Arc<Service>),
}

impl Searcher {
    /// An embedded searcher over a new service with default limits.
    pub fn embedded() -> Self {
        Searcher::Embedded(Arc::new(Service::default()))
    }

    /// Every tool's schema tokens under `basis`, in catalog order (cached by
    /// catalog fingerprint).
    pub fn tool_costs(&self, catalog: &Catalog, basis: crate::tokens::TokenBasis) -> Arc<Vec<u64>> {
        match self {
            Searcher::Embedded(service) => service.costs_for(catalog, basis),
        }
    }

    /// `embedded bm25`, for headers and reports.
    pub fn describe(&self) -> &'static str {
        match self {
            Searcher::Embedded(_) => "embedded",
        }
    }

    /// Searches the full `catalog`.
    pub fn search(
        &self,
        catalog: &Catalog,
        request: &SearchRequest,
    ) -> Result<SearchResult, SearchError> {
        match self {
            Searcher::Embedded(service) => {
                let outcome = service
                    .tool_search(catalog, request, "")
                    .map_err(SearchError::Service)?;
                let names = outcome
                    .tools
                    .iter()
                    .map(|s| catalog.tools()[s.index].name.as_str());
                let indices = reattach(catalog, names)?;
                let tools = indices
                    .into_iter()
                    .zip(outcome.tools)
                    .map(|(index, s)| SearchHit {
                        index,
                        score: Some(s.score),
                        reason: Some(s.reason),
                        explanation: s.explanation,
                    })
                    .collect();
                Ok(SearchResult {
                    tools,
                    session_id: Some(outcome.session_id).filter(|s| !s.is_empty()),
                    method: outcome.method.to_string(),
                    deferred_count: outcome.deferred_count,
                    savings: Savings::new(outcome.full_schema_tokens, outcome.sent_schema_tokens),
                    token_basis: outcome.token_basis.as_str().to_string(),
                    basis: BASIS_INFERRED,
                    note: outcome.note,
                    session_tools: outcome.session_tools,
                    tool_tokens: Some(outcome.tool_tokens),
                })
            }
        }
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
}
