//! Traffic as requests with known answers, and the tools sessions called
//! most: what `toolsift tune` and `toolsift eval` measure on a trace, and
//! where always-load suggestions come from.
//!
//! A search's answer is the first tool the session called after it that
//! ran (before its next search); a search the session searched again at
//! once takes the tool called after the later search. Searches followed by
//! no call that ran have no known answer and are left out.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::Event;

/// One search with the tool the agent then called.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Request {
    pub session: String,
    pub query: String,
    pub called: String,
    /// Index of the search in the events.
    pub search: usize,
}

/// The searches of `events` with their answers, in order.
pub fn requests(events: &[Event]) -> Vec<Request> {
    // Per session, the searches still waiting for a call.
    let mut waiting: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut out = Vec::new();
    for (i, event) in events.iter().enumerate() {
        match event {
            Event::Search(s) => {
                let w = waiting.entry(&s.session).or_default();
                // Searched again at once: both wait for the next call.
                w.push(i);
            }
            Event::Call(c) if c.outcome.ran() => {
                if let Some(w) = waiting.get_mut(c.session.as_str()) {
                    for at in w.drain(..) {
                        if let Event::Search(s) = &events[at] {
                            out.push(Request {
                                session: s.session.clone(),
                                query: s.query.clone(),
                                called: c.name.clone(),
                                search: at,
                            });
                        }
                    }
                }
            }
            // A call that did not run answers nothing.
            Event::Call(_) | Event::Dropped { .. } => {}
        }
    }
    out.sort_by_key(|r| r.search);
    out
}

/// How a tool was used across the sessions of some traffic.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolUse {
    pub name: String,
    /// Sessions that called it (and it ran).
    pub sessions: usize,
    pub calls: usize,
    /// Searches whose answer it was: the searches an always-loaded tool
    /// would have saved.
    pub searches: usize,
}

/// The sessions in `events`, and each tool called, most sessions first
/// (then most calls, then name).
pub fn tool_use(events: &[Event]) -> (usize, Vec<ToolUse>) {
    let mut all_sessions: HashSet<&str> = HashSet::new();
    let mut by_tool: BTreeMap<&str, (HashSet<&str>, usize, usize)> = BTreeMap::new();
    for event in events {
        if let Some(s) = event.session() {
            all_sessions.insert(s);
        }
        if let Event::Call(c) = event
            && c.outcome.ran()
        {
            let entry = by_tool.entry(&c.name).or_default();
            entry.0.insert(&c.session);
            entry.1 += 1;
        }
    }
    for r in requests(events) {
        if let Some(entry) = by_tool.get_mut(r.called.as_str()) {
            entry.2 += 1;
        }
    }
    let mut out: Vec<ToolUse> = by_tool
        .into_iter()
        .map(|(name, (sessions, calls, searches))| ToolUse {
            name: name.to_string(),
            sessions: sessions.len(),
            calls,
            searches,
        })
        .collect();
    out.sort_by(|a, b| {
        b.sessions
            .cmp(&a.sessions)
            .then(b.calls.cmp(&a.calls))
            .then(a.name.cmp(&b.name))
    });
    (all_sessions.len(), out)
}

/// The tools worth loading always: called in at least half the sessions
/// (and in two at least), searched for at least once.
pub fn always_load_candidates(events: &[Event]) -> Vec<ToolUse> {
    let (sessions, uses) = tool_use(events);
    uses.into_iter()
        .filter(|u| u.sessions >= 2 && u.sessions * 2 >= sessions && u.searches > 0)
        .collect()
}
