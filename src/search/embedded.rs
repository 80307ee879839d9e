//! The in-process answer: an embedded search's outcome made the client's
//! result directly, by catalog index, with no wire form between (no tool's
//! schema copied, no name looked up again). It gives what the client rules
//! give the same answer over the wire ([`super::accept`]); a test holds the
//! two equal.

use super::{BASIS_INFERRED, HeldBack, SearchHit, SearchResult};
use crate::engine::Explanation;
use crate::service::{Reason, SearchOutcome};
use crate::tokens::Savings;

/// The result of an embedded search, as [`super::accept`] would make it of
/// the outcome's wire form: the explanation keeps what the wire carries.
pub(super) fn accept_outcome(outcome: SearchOutcome) -> SearchResult {
    let tools = outcome
        .tools
        .into_iter()
        .map(|s| SearchHit {
            index: s.index,
            score: Some(s.score),
            reason: Some(s.reason),
            explanation: Explanation {
                unasked_destructive: false,
                exact_name: s.reason == Reason::ExactName,
                // Not on the wire either: the service judged it already.
                name_covered: false,
                matches: s
                    .explanation
                    .matches
                    .into_iter()
                    .map(|mut m| {
                        // The wire does not carry these; a remote
                        // service judged them already.
                        m.weak = false;
                        m.rare = false;
                        m
                    })
                    .collect(),
                dense: s.explanation.dense,
                usage: s.explanation.usage,
            },
        })
        .collect();
    let (full, sent) = if outcome.sent_schema_tokens > outcome.full_schema_tokens {
        (0, 0)
    } else {
        (outcome.full_schema_tokens, outcome.sent_schema_tokens)
    };
    SearchResult {
        tools,
        session_id: Some(outcome.session_id).filter(|s| !s.is_empty()),
        method: outcome.method.as_str().to_string(),
        deferred_count: outcome.deferred_count,
        savings: Savings::new(full, sent),
        token_basis: outcome.token_basis.label().to_string(),
        basis: BASIS_INFERRED,
        note: outcome.note,
        session_tools: outcome.session_tools,
        session_note: outcome.session_note,
        tool_tokens: None,
        held_back: outcome
            .held_back
            .iter()
            .map(|h| HeldBack {
                index: h.index,
                score: h.score,
                evidence: h.fit.evidence,
                cosine: h.fit.cosine,
                probability: h.fit.probability,
            })
            .collect(),
        embedding: outcome
            .embedding
            .filter(|&(done, total)| total > 0 && done <= total),
        matching: outcome.matching.filter(|m| m.sent <= m.total).map(Box::new),
        ranking: outcome.ranking,
    }
}
