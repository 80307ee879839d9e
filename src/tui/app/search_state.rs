//! The search side: the answer shown, which request it answers, the
//! session, and the results pane's list.

use std::sync::Arc;
use std::time::Duration;

use super::catalog_view::ListState;
use crate::catalog::Catalog;
use crate::search::{SearchError, SearchHit, SearchRequest, SearchResult};
use crate::tui::action::Action;

/// The answer shown in the results pane.
#[derive(Debug, Clone, PartialEq)]
pub enum Results {
    /// No search has come back yet.
    Waiting,
    Found(SearchResult),
    /// The search failed: the typed error, code and message.
    Failed(SearchError),
}

/// A search's answer as the loop brings it back.
#[derive(Debug, Clone)]
pub struct SearchAnswer {
    pub generation: u64,
    /// BM25F's answer shown until the dense ranker's comes.
    pub interim: bool,
    /// The catalog the search ran on: its hits index into this one.
    pub catalog: Arc<Catalog>,
    pub query: String,
    /// A search as you type (no session recorded).
    pub preview: bool,
    pub result: Box<Result<SearchResult, SearchError>>,
    pub elapsed: Duration,
}

#[derive(Debug, Clone)]
pub struct SearchState {
    pub results: Results,
    /// The query the shown results answer.
    pub query: String,
    /// The shown results are BM25F's, until the dense ranker's come.
    pub interim: bool,
    pub latency: Option<Duration>,
    next_generation: u64,
    applied_generation: u64,
    pub list: ListState,
    pub session: Option<String>,
    /// Tools the session has loaded so far.
    pub session_tools: usize,
    /// The last search sent (what a retry re-sends).
    pub last_request: Option<SearchRequest>,
    /// After a failed search, the user chose to send the full catalog
    /// instead (until the next answer).
    pub full_catalog: bool,
}

impl Default for SearchState {
    fn default() -> Self {
        SearchState {
            results: Results::Waiting,
            query: String::new(),
            interim: false,
            latency: None,
            next_generation: 0,
            applied_generation: 0,
            list: ListState::default(),
            session: None,
            session_tools: 0,
            last_request: None,
            full_catalog: false,
        }
    }
}

impl SearchState {
    /// The generation of a new search (each newer than the last).
    pub fn next_generation(&mut self) -> u64 {
        self.next_generation += 1;
        self.next_generation
    }

    /// The request of a search: the session is sent along.
    pub fn request(
        &self,
        query: &str,
        max_tools: Option<u64>,
        settings: &crate::settings::Settings,
        preview: bool,
    ) -> SearchRequest {
        SearchRequest {
            query: query.to_string(),
            context: None,
            max_tools,
            session_id: self.session.clone(),
            ranker: Some(settings.ranker),
            // Named only when the user chose one, as the SDKs send none.
            token_basis: settings.token_basis,
            preview,
        }
    }

    /// The generation of the answer shown.
    pub fn applied(&self) -> u64 {
        self.applied_generation
    }

    /// A search is under way whose answer has not come back.
    pub fn searching(&self) -> bool {
        self.applied_generation < self.next_generation
    }

    /// Takes an answer if it is the newest so far and was made for
    /// `catalog` (an answer for an older catalog indexes into that one and is
    /// dropped: a newer search on this catalog is under way). True when taken.
    pub fn receive(&mut self, answer: SearchAnswer, catalog: &Arc<Catalog>, height: usize) -> bool {
        // An older query's answer never replaces a newer one's.
        if answer.generation <= self.applied_generation || !Arc::ptr_eq(&answer.catalog, catalog) {
            return false;
        }
        self.applied_generation = answer.generation;
        self.full_catalog = false;
        self.latency = Some(answer.elapsed);
        self.query = answer.query;
        self.interim = answer.interim;
        self.results = match *answer.result {
            Ok(mut r) => {
                if answer.interim {
                    let interim =
                        "BM25F's results while the query is embedded; the dense ranker's follow";
                    r.note = Some(match r.note.take() {
                        Some(note) => format!("{interim}. {note}"),
                        None => interim.into(),
                    });
                }
                if !answer.preview
                    && let Some(id) = &r.session_id
                {
                    self.session = Some(id.clone());
                    self.session_tools = r.session_tools.len();
                }
                Results::Found(r)
            }
            Err(e) => Results::Failed(e),
        };
        let len = self.len();
        self.list.keep_visible(len, height);
        true
    }

    pub fn len(&self) -> usize {
        match &self.results {
            Results::Found(r) => r.tools.len(),
            _ => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The highlighted hit of the results pane.
    pub fn current(&self) -> Option<&SearchHit> {
        match &self.results {
            Results::Found(r) => r.tools.get(self.list.selected),
            _ => None,
        }
    }

    /// The hit of the catalog tool `index`, if the search selected it.
    pub fn hit(&self, index: usize) -> Option<&SearchHit> {
        match &self.results {
            Results::Found(r) => r.tools.iter().find(|h| h.index == index),
            _ => None,
        }
    }

    /// The results pane's keys: movement.
    pub fn handle(&mut self, action: Action, height: usize) -> bool {
        let len = self.len();
        self.list.handle(action, len, height)
    }
}
