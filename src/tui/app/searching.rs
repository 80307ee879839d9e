//! The query's searches and their answers: a search of the query box's
//! text, a key of the query box carried out, an answer taken, the token
//! counts taken.

use std::sync::Arc;

use super::{App, Focus};
use crate::tokens::TokenBasis;
use crate::tui::effect::{Effect, SearchAnswer};
use crate::tui::pane::catalog::{Filter, Sort};
use crate::tui::pane::query::QueryOutcome;
use crate::tui::pane::results::{SearchState, Searched};

impl App {
    /// A search of the current query; `preview` while typing.
    pub(super) fn search_effect(&mut self, preview: bool) -> Effect {
        self.searched(|search, on| search.search(on, preview))
    }

    /// `f` on the search state with what a search of the query box is
    /// made of, as things stand.
    fn searched<T>(&mut self, f: impl FnOnce(&mut SearchState, &Searched) -> T) -> T {
        let on = Searched {
            catalog: &self.catalog,
            query: self.query.text(),
            ranker: self.query_ranker(),
            settings: &self.settings,
            handle: &self.handle,
        };
        f(&mut self.search, &on)
    }

    pub(super) fn costs_ready(&mut self, basis: TokenBasis, costs: Arc<Vec<u64>>) {
        if basis == self.settings.basis() && costs.len() == self.catalog.len() {
            self.costs = Some(costs);
            if self.catalog_view.sort == Sort::Tokens {
                self.rebuild_view();
            }
        }
    }

    pub(super) fn search_done(&mut self, answer: SearchAnswer) -> Vec<Effect> {
        let height = self.list_height();
        if !self.search.receive(answer, &self.catalog, height) {
            return Vec::new();
        }
        if self.catalog_view.filter == Filter::Selected {
            self.rebuild_view();
        }
        // Searched over what is there: said while servers still start.
        if let (None, Some(note)) = (&self.status, self.starting_note()) {
            self.status = Some(match self.catalog.len() {
                0 => format!("no tools to search yet; {note}"),
                n => format!(
                    "searched the {} so far; {note}",
                    crate::numbers::counted(n, "tool")
                ),
            });
        }
        self.search.refresh_after(self.query_ranker())
    }

    pub(super) fn on_query(&mut self, outcome: QueryOutcome) -> Vec<Effect> {
        match outcome {
            QueryOutcome::Nothing => Vec::new(),
            QueryOutcome::Changed => {
                if !self.query.is_regex() {
                    // Words are never a bad pattern.
                    self.search.pattern_error = None;
                }
                self.searched(|search, on| search.typing(on))
            }
            QueryOutcome::Commit => {
                self.focus = Focus::Results;
                self.last_list = Focus::Results;
                // A committed query is recorded in the session.
                vec![self.search_effect(false)]
            }
            QueryOutcome::Leave => {
                self.focus = self.last_list;
                Vec::new()
            }
        }
    }

    /// `r`: a search model's fetch that failed or stalled started again,
    /// and the last search again when it failed; the last search again,
    /// said, when nothing had failed (the answer will likely be the same,
    /// so the key never looks dead).
    pub(super) fn retry_search(&mut self) -> Vec<Effect> {
        let failed = matches!(
            self.search.results,
            crate::tui::pane::results::Results::Failed(_)
        );
        if self.retry_model_fetch() && !failed {
            return Vec::new();
        }
        if !failed {
            self.status = Some(format!(
                "searched again: the last search had not failed ({} is for a search that did)",
                self.keymap.label(crate::tui::action::Action::RetrySearch)
            ));
        }
        vec![self.searched(|search, on| search.retry(on))]
    }
}
