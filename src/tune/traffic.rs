//! Tuning from an agent's own traffic: a trace's searches are the requests
//! (each answered by the tool the session then called), and the tools most
//! sessions called are suggested for always-load, with what they cost and
//! the searches they would have saved.

use serde::Serialize;

use super::{TuneError, TuneOptions, TuneReport, tune};
use crate::catalog::Catalog;
use crate::eval::EvalError;
use crate::search::Searcher;
use crate::traffic::{self, Event};

/// A tool worth loading always, from the traffic.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlwaysLoadSuggestion {
    pub name: String,
    /// Sessions that called it, of `of_sessions` in the traffic.
    pub sessions: usize,
    pub of_sessions: usize,
    pub calls: usize,
    /// Searches whose answer it was: saved if it were always loaded.
    pub searches_saved: usize,
    /// Its schema's tokens: what every request would then send.
    pub tokens: u64,
}

/// The tools most sessions of `events` called, that `catalog` has and does
/// not load always yet.
pub fn suggest_always_load(
    catalog: &Catalog,
    costs: &[u64],
    events: &[Event],
) -> Vec<AlwaysLoadSuggestion> {
    let (sessions, _) = traffic::requests::tool_use(events);
    traffic::requests::always_load_candidates(events)
        .into_iter()
        .filter_map(|u| {
            let index = catalog.index_of(&u.name)?;
            if catalog.tools()[index].always_load {
                return None;
            }
            Some(AlwaysLoadSuggestion {
                name: u.name,
                sessions: u.sessions,
                of_sessions: sessions,
                calls: u.calls,
                searches_saved: u.searches,
                tokens: costs.get(index).copied().unwrap_or(0),
            })
        })
        .collect()
}

/// Tunes on `source`: a file of requests with known answers (or `@demo`),
/// or a gateway's trace, whose always-load suggestions come too.
pub fn tune_source(
    searcher: &Searcher,
    catalog: &std::sync::Arc<Catalog>,
    source: &str,
    options: &TuneOptions,
) -> Result<TuneReport, TuneError> {
    let queries = crate::eval::load_queries_arg(source)?;
    let mut report = tune(searcher, catalog, &queries, options)?;
    if source != "@demo" {
        let (text, shown) = crate::eval::read_file(std::path::Path::new(source))?;
        if traffic::looks_like_traffic(&text) {
            let events = traffic::parse(&text, &shown).map_err(|e| {
                TuneError::Input(EvalError::Line {
                    path: e.origin,
                    line: e.line,
                    message: e.message,
                })
            })?;
            let costs = searcher.tool_costs(catalog, options.token_basis);
            report.from_traffic = true;
            report.always_load_suggested = suggest_always_load(catalog, &costs, &events);
        }
    }
    Ok(report)
}
