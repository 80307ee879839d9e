//! The provider's exact counts in the explorer (`--count-with`): which
//! sets the screen wants counted, most wanted first, and the figures read
//! from them (see [`crate::tui::pane::exact`]).

use super::App;
use crate::tui::effect::Effect;
use crate::tui::pane::exact::{ExactCounts, ToolSet, overhead_sets};
use crate::tui::pane::results::Results;

impl App {
    /// The count to ask next, if any: the whole catalog, the initial set,
    /// what the shown search sent, then the tool in the detail pane (and
    /// the request's overhead its share needs).
    pub(super) fn exact_next(&mut self) -> Vec<Effect> {
        if self.exact.is_none() {
            return Vec::new();
        }
        let mut wanted: Vec<ToolSet> = vec![self.all_set(), self.initial_set()];
        if let Some(sent) = self.sent_set() {
            wanted.push(sent);
        }
        if self.catalog.len() >= 2
            && let Some((index, _)) = self.current_tool()
        {
            wanted.extend(overhead_sets());
            wanted.push(vec![index]);
        }
        let catalog = self.catalog.clone();
        let exact = self.exact.as_mut().expect("checked above");
        exact.next(&catalog, wanted).into_iter().collect()
    }

    /// A count came back: a failure is told once on the status line.
    pub(super) fn counted(
        &mut self,
        set: ToolSet,
        result: Result<u64, crate::provider_count::CountError>,
    ) {
        if let Some(exact) = &mut self.exact
            && let Some(e) = exact.receive(set, result.as_ref().copied())
        {
            self.status = Some(format!("{e}; the estimates stand"));
        }
    }

    fn all_set(&self) -> ToolSet {
        (0..self.catalog.len()).collect()
    }

    fn initial_set(&self) -> ToolSet {
        let mut set = self.handle.initial_indices().to_vec();
        set.sort_unstable();
        set
    }

    /// The tools the shown search sent (not a BM25F answer shown while a
    /// dense ranker's is computed).
    fn sent_set(&self) -> Option<ToolSet> {
        match &self.search.results {
            Results::Found(r) if !self.search.interim => {
                let mut set: ToolSet = r.tools.iter().map(|h| h.index).collect();
                set.sort_unstable();
                set.dedup();
                Some(set)
            }
            _ => None,
        }
    }

    /// The exact counts, when `--count-with` asked for them.
    pub fn exact(&self) -> Option<&ExactCounts> {
        self.exact.as_ref()
    }

    /// The provider's count of the whole catalog, once it came.
    pub fn exact_full(&self) -> Option<u64> {
        self.exact.as_ref()?.get(&self.all_set())
    }

    /// The provider's count of the initial set, once it came.
    pub fn exact_initial(&self) -> Option<u64> {
        self.exact.as_ref()?.get(&self.initial_set())
    }

    /// The provider's count of what the shown search sent, once it came.
    pub fn exact_sent(&self) -> Option<u64> {
        self.exact.as_ref()?.get(&self.sent_set()?)
    }

    /// A tool's share of a request by the provider's counts, once they came.
    pub fn exact_tool(&self, index: usize) -> Option<u64> {
        self.exact.as_ref()?.share(index)
    }
}
