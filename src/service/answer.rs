//! A search's answer: the outcome over its catalog, and its wire form,
//! owned ([`to_wire`]) or borrowing the catalog's tools ([`Answer::wire`],
//! what the server writes: no tool's schema is copied to answer).

use std::sync::Arc;

use super::SearchOutcome;
use crate::catalog::Catalog;
use crate::wire::{
    EmbeddingProgress, ToolSearchResponse, WireHeldBack, WireMatch, WireSelectedTool, WireTool,
    WireToolRef,
};

/// A search's outcome and the catalog it was made over.
#[derive(Debug)]
pub struct Answer {
    catalog: Arc<Catalog>,
    outcome: SearchOutcome,
}

impl Answer {
    pub(super) fn new(catalog: Arc<Catalog>, outcome: SearchOutcome) -> Answer {
        Answer { catalog, outcome }
    }

    pub fn outcome(&self) -> &SearchOutcome {
        &self.outcome
    }

    /// Every tool loaded in the session, as a session store recorded it.
    pub fn set_session_tools(&mut self, loaded: Vec<String>) {
        self.outcome.session_tools = loaded;
    }

    /// What became of the session, when not what the request asked.
    pub fn set_session_note(&mut self, note: &str) {
        self.outcome.session_note = Some(note.to_string());
    }

    /// The tools in the catalog searched.
    pub fn catalog_len(&self) -> usize {
        self.catalog.len()
    }

    /// The wire response, borrowing the catalog's tools.
    pub fn wire(&self) -> ToolSearchResponse<WireToolRef<'_>> {
        to_wire_with(&self.catalog, &self.outcome, WireToolRef::of)
    }

    /// The wire response, owned.
    pub fn into_wire(self) -> ToolSearchResponse {
        to_wire(&self.catalog, &self.outcome)
    }
}

/// The wire response for an outcome over `catalog`.
pub fn to_wire(catalog: &Catalog, outcome: &SearchOutcome) -> ToolSearchResponse {
    to_wire_with(catalog, outcome, |c: &Catalog, i| {
        WireTool::from(&c.tools()[i])
    })
}

/// The wire response for an outcome over `catalog`, each tool's
/// descriptor made by `tool`.
fn to_wire_with<'a, T>(
    catalog: &'a Catalog,
    outcome: &SearchOutcome,
    tool: impl Fn(&'a Catalog, usize) -> T,
) -> ToolSearchResponse<T> {
    ToolSearchResponse {
        tools: outcome
            .tools
            .iter()
            .map(|s| WireSelectedTool {
                tool: tool(catalog, s.index),
                score: Some(f64::from(s.score)),
                reason: Some(s.reason.as_str().to_string()),
                matched: s.explanation.matches.iter().map(WireMatch::from).collect(),
                dense: s.explanation.dense,
                usage: s.explanation.usage,
            })
            .collect(),
        sent_schema_tokens: outcome.sent_schema_tokens,
        full_schema_tokens: outcome.full_schema_tokens,
        deferred_count: outcome.deferred_count,
        method: outcome.method.as_str().to_string(),
        token_basis: outcome.token_basis.label().to_string(),
        session_id: outcome.session_id.clone(),
        note: outcome.note.clone(),
        session_tools: outcome.session_tools.clone(),
        session_note: outcome.session_note.clone(),
        embedding: outcome
            .embedding
            .map(|(done, total)| EmbeddingProgress { done, total }),
        held_back: outcome
            .held_back
            .iter()
            .map(|h| WireHeldBack {
                name: catalog.tools()[h.index].name.clone(),
                score: f64::from(h.score),
                evidence: f64::from(h.fit.evidence),
                cosine: h.fit.cosine.map(f64::from),
                probability: h.fit.probability.map(f64::from),
            })
            .collect(),
        matching: outcome.matching.clone(),
    }
}
