//! `toolsift eval --costs`: what sessions cost with the provider's prompt
//! caching, for each way of sending tools ([`crate::caching`]). The
//! sessions are simulated from requests (each request's search on turn
//! `found_on` of `turns`, its loaded tools found there) or recorded (a
//! gateway's trace: each search or call a turn, the tools each search
//! returned found on its turn).

use std::sync::Arc;

use serde::Serialize;

use super::EvalQuery;
use crate::caching::{self, Pricing, Session, Tools, Turn, Way};
use crate::catalog::Catalog;
use crate::search::{SearchRequest, Searcher};
use crate::tokens::TokenBasis;
use crate::tools_handle::ToolsHandle;
use crate::traffic::Event;

/// How sessions are simulated and priced.
#[derive(Debug, Clone)]
pub struct CostOptions {
    pub pricings: Vec<Pricing>,
    /// Turns of a simulated session.
    pub turns: usize,
    /// The turn a simulated session searches on (1-based).
    pub found_on: usize,
    /// Message tokens every turn adds.
    pub turn_tokens: u64,
    /// The system prompt's tokens.
    pub system_tokens: u64,
    pub token_basis: TokenBasis,
}

impl Default for CostOptions {
    fn default() -> Self {
        CostOptions {
            pricings: vec![caching::ANTHROPIC, caching::OPENAI],
            turns: 10,
            found_on: 2,
            turn_tokens: 400,
            system_tokens: 1000,
            token_basis: TokenBasis::default(),
        }
    }
}

/// One way's figures, averaged over the sessions.
#[derive(Debug, Clone, Serialize)]
pub struct WaySummary {
    pub way: Way,
    /// Prompt tokens sent per session.
    pub sent: f64,
    /// Cost per session, in input-token units.
    pub cost: f64,
    /// Cost against all tools up front (1.0: the same).
    pub vs_all: f64,
    /// Turns per session that read nothing from the cache.
    pub cold_turns: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProviderCosts {
    pub provider: &'static str,
    pub rules: &'static str,
    pub ways: Vec<WaySummary>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CostReport {
    /// `simulated` (from requests) or `recorded` (from a trace).
    pub sessions_from: &'static str,
    pub sessions: usize,
    /// Turns per session, on average.
    pub turns: f64,
    pub tools: usize,
    pub all_tokens: u64,
    pub initial_tokens: u64,
    pub turn_tokens: u64,
    pub system_tokens: u64,
    pub token_basis: String,
    pub providers: Vec<ProviderCosts>,
}

/// A request of the set whose search failed (a failed search is never an
/// empty session).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("query {id:?}: {source}")]
pub struct QueryFailed {
    pub id: String,
    pub source: crate::search::SearchError,
}

/// Sessions simulated from `queries`: each request searched (as deferred
/// loading would, the handle's cap), its loaded tools found on
/// `found_on`.
pub fn simulated_sessions(
    searcher: &Searcher,
    catalog: &Arc<Catalog>,
    handle: &ToolsHandle,
    queries: &[EvalQuery],
    options: &CostOptions,
) -> Result<Vec<Session>, QueryFailed> {
    let mut sessions = Vec::with_capacity(queries.len());
    for q in queries {
        let request = SearchRequest {
            query: q.query.clone(),
            max_tools: handle.max_loaded_tools(),
            token_basis: None,
            preview: true,
            ..SearchRequest::default()
        };
        let result = searcher
            .search(catalog, &request)
            .map_err(|source| QueryFailed {
                id: q.id.clone(),
                source,
            })?;
        let found: Vec<usize> = result.tools.iter().map(|h| h.index).collect();
        sessions.push(caching::simulated(
            options.system_tokens,
            options.turns,
            options.turn_tokens,
            options.found_on,
            &found,
        ));
    }
    Ok(sessions)
}

/// Sessions as a trace recorded them: every search or call a turn, each
/// search's tools found on its turn (a tool the catalog lacks is left out
/// and counted).
pub fn recorded_sessions(
    catalog: &Catalog,
    events: &[Event],
    options: &CostOptions,
) -> (Vec<Session>, usize) {
    let mut order: Vec<&str> = Vec::new();
    let mut by_session: std::collections::HashMap<&str, Vec<Turn>> = Default::default();
    let mut unknown = 0;
    for event in events {
        let Some(session) = event.session() else {
            continue;
        };
        let found = match event {
            Event::Search(s) => s
                .tools
                .iter()
                .filter_map(|t| {
                    let at = catalog.index_of(t);
                    if at.is_none() {
                        unknown += 1;
                    }
                    at
                })
                .collect(),
            _ => Vec::new(),
        };
        if !by_session.contains_key(session) {
            order.push(session);
        }
        by_session.entry(session).or_default().push(Turn {
            messages: options.turn_tokens,
            found,
        });
    }
    let sessions = order
        .into_iter()
        .map(|s| Session {
            system: options.system_tokens,
            turns: by_session.remove(s).unwrap_or_default(),
        })
        .collect();
    (sessions, unknown)
}

/// The sessions priced by every provider's rules.
pub fn report(
    costs: &[u64],
    handle: &ToolsHandle,
    sessions: &[Session],
    sessions_from: &'static str,
    options: &CostOptions,
) -> CostReport {
    let tools = Tools {
        costs,
        initial: handle.initial_indices(),
    };
    let n = sessions.len().max(1) as f64;
    let providers = options
        .pricings
        .iter()
        .map(|pricing| {
            let mut sums = [(0.0f64, 0.0f64, 0.0f64); 3];
            for s in sessions {
                for (i, c) in caching::costs(pricing, tools, s).iter().enumerate() {
                    sums[i].0 += c.sent as f64;
                    sums[i].1 += c.cost;
                    sums[i].2 += c.cold_turns.len() as f64;
                }
            }
            let all_cost = sums[0].1.max(f64::MIN_POSITIVE);
            ProviderCosts {
                provider: pricing.name,
                rules: pricing.label,
                ways: Way::ALL
                    .iter()
                    .zip(sums)
                    .map(|(&way, (sent, cost, cold))| WaySummary {
                        way,
                        sent: sent / n,
                        cost: cost / n,
                        vs_all: cost / all_cost,
                        cold_turns: cold / n,
                    })
                    .collect(),
            }
        })
        .collect();
    CostReport {
        sessions_from,
        sessions: sessions.len(),
        turns: sessions.iter().map(|s| s.turns.len()).sum::<usize>() as f64 / n,
        tools: costs.len(),
        all_tokens: costs.iter().sum(),
        initial_tokens: handle.initial_indices().iter().map(|&i| costs[i]).sum(),
        turn_tokens: options.turn_tokens,
        system_tokens: options.system_tokens,
        token_basis: options.token_basis.as_str().to_string(),
        providers,
    }
}

impl CostReport {
    pub fn render_text(&self) -> String {
        use crate::numbers::thousands;
        let mut out = format!(
            "sessions  {} {} ({:.1} turns each: {} message tokens a turn, a system prompt of {})\n",
            self.sessions,
            self.sessions_from,
            self.turns,
            thousands(self.turn_tokens),
            thousands(self.system_tokens)
        );
        out.push_str(&format!(
            "tools     {} tools, {} tokens; initial set {} tokens ({})\n",
            self.tools,
            thousands(self.all_tokens),
            thousands(self.initial_tokens),
            self.token_basis
        ));
        out.push_str("costs     per session, in input-token units (a token at the uncached input price is 1)\n");
        for p in &self.providers {
            out.push_str(&format!("\n{}\n", p.rules));
            for w in &p.ways {
                out.push_str(&format!(
                    "  {:<46} sends {:>9}  costs {:>9}  {:>5.1} % of all up front  cold turns {:.1}\n",
                    w.way.label(),
                    thousands(w.sent.round() as u64),
                    thousands(w.cost.round() as u64),
                    w.vs_all * 100.0,
                    w.cold_turns
                ));
            }
        }
        out
    }
}
