//! Exact counts from a provider (`explore --count-with`): the sets the
//! screen shows (the whole catalog, the initial set, what the search sent,
//! the tool in the detail pane) are asked one at a time, in that order,
//! off the UI thread; the figures shown are the estimates until each count
//! comes. What is no longer wanted (an older search's set) is not asked.
//! The first failure stops the asking: the estimates stand, and the
//! failure is told once.
//!
//! No one pane owns them: the app keeps them and says which sets it wants
//! (`app/exact.rs`), the detail and the Tokens box show them.

use std::collections::HashMap;
use std::sync::Arc;

use crate::catalog::Catalog;
use crate::provider_count::{CountError, SharedCounter};
use crate::tui::effect::Effect;

/// A set of tools: catalog indices, ascending (the order the provider is
/// sent them in, so the same set is the same request).
pub type ToolSet = Vec<usize>;

pub struct ExactCounts {
    counter: Arc<SharedCounter>,
    known: HashMap<ToolSet, u64>,
    in_flight: Option<ToolSet>,
    failed: Option<String>,
}

impl ExactCounts {
    pub fn new(counter: Arc<SharedCounter>) -> ExactCounts {
        ExactCounts {
            counter,
            known: HashMap::new(),
            in_flight: None,
            failed: None,
        }
    }

    /// The same provider, nothing counted yet (another catalog).
    pub fn afresh(&self) -> ExactCounts {
        ExactCounts::new(self.counter.clone())
    }

    /// The provider's name and model: `openai:gpt-4o`.
    pub fn model(&self) -> String {
        let c = self.counter.config();
        format!("{}:{}", c.provider.name(), c.model)
    }

    /// What `set` costs, once counted (nothing costs nothing).
    pub fn get(&self, set: &[usize]) -> Option<u64> {
        if set.is_empty() {
            return Some(0);
        }
        self.known.get(set).copied()
    }

    /// A tool's own share of a request: its count alone, less what any
    /// request with tools costs. That overhead is measured on the
    /// catalog's first two tools: alone each, and together (so it is
    /// counted twice in the first two and once in the third).
    pub fn share(&self, index: usize) -> Option<u64> {
        let [a, b, ab] = overhead_sets();
        let overhead = (self.get(&a)? + self.get(&b)?).checked_sub(self.get(&ab)?)?;
        Some(self.get(&[index])?.saturating_sub(overhead))
    }

    /// Why counting stopped, if it did.
    pub fn failed(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    /// The count to ask next, of the sets `wanted` (most wanted first):
    /// none while one is asked, after a failure, or when all are known.
    pub fn next(&mut self, catalog: &Arc<Catalog>, wanted: Vec<ToolSet>) -> Option<Effect> {
        if self.in_flight.is_some() || self.failed.is_some() {
            return None;
        }
        let set = wanted
            .into_iter()
            .find(|s| !s.is_empty() && !self.known.contains_key(s))?;
        self.in_flight = Some(set.clone());
        Some(Effect::Count {
            counter: self.counter.clone(),
            catalog: catalog.clone(),
            set,
        })
    }

    /// A count came back; a failure is returned once, to be told.
    pub fn receive(&mut self, set: ToolSet, result: Result<u64, &CountError>) -> Option<String> {
        if self.in_flight.as_ref() == Some(&set) {
            self.in_flight = None;
        }
        match result {
            Ok(n) => {
                self.known.insert(set, n);
                None
            }
            Err(e) if self.failed.is_none() => {
                let said = crate::terminal_text::escape(&e.to_string()).into_owned();
                self.failed = Some(said.clone());
                Some(said)
            }
            Err(_) => None,
        }
    }
}

/// The sets a request's overhead is measured on: the first tool, the
/// second, both.
pub fn overhead_sets() -> [ToolSet; 3] {
    [vec![0], vec![1], vec![0, 1]]
}
