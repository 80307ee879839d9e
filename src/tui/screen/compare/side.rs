//! A side of the comparison searched off the UI thread, the answer back to
//! the screen (and asked again while a dense ranker's vectors are being
//! computed).

use std::sync::Arc;
use std::time::Duration;

use super::ComparePane;
use crate::catalog::Catalog;
use crate::search::{SearchRequest, Searcher};
use crate::tui::effect::{Effect, SearchRun, run_search};
use crate::tui::screen::Popup;
use crate::tui::screen::job::{Answer, Job};

/// Search one side of the comparison.
#[derive(Debug, Clone)]
pub struct SearchSide {
    pub generation: u64,
    pub right: bool,
    pub catalog: Arc<Catalog>,
    pub request: SearchRequest,
    /// Wait this long first (a dense ranker's vectors being computed).
    pub after: Duration,
}

/// A side searched.
#[derive(Debug, Clone)]
pub struct SideFound {
    pub generation: u64,
    pub right: bool,
    pub catalog: Arc<Catalog>,
    pub run: SearchRun,
}

impl Job for SearchSide {
    fn run(&self, searcher: &Searcher) -> Answer {
        std::thread::sleep(self.after);
        let run = run_search(searcher, &self.catalog, &self.request);
        Answer::new(
            Popup::Compare,
            SideFound {
                generation: self.generation,
                right: self.right,
                catalog: self.catalog.clone(),
                run,
            },
        )
    }
}

impl ComparePane {
    /// Takes a side's answer if it is the one the side waits for: what is
    /// asked again (a side answered by BM25F while vectors are computed).
    pub(super) fn searched(&mut self, answer: &Answer) -> Vec<Effect> {
        let Some(s) = answer.get::<SideFound>() else {
            return Vec::new();
        };
        if !self.receive(s.generation, s.right, &s.catalog, s.run.clone()) {
            return Vec::new();
        }
        self.again(s.right).into_iter().collect()
    }
}
