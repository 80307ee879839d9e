//! The search side, and the results pane: the answer shown and which
//! request it answers, the searches a query asks for (as you type,
//! committed, retried, asked again while a dense ranker's vectors are
//! computed), the session, the full-catalog fallback, the pane's list, and
//! its keys; its drawing is `draw.rs`.

pub(crate) mod draw;
mod rows;

use std::sync::Arc;
use std::time::Duration;

use crate::catalog::Catalog;
use crate::engine::Ranker;
use crate::numbers::thousands;
use crate::search::{SearchError, SearchHit, SearchRequest, SearchResult, Standing};
use crate::settings::Settings;
use crate::tools_handle::ToolsHandle;
use crate::tui::action::Action;
use crate::tui::effect::{Effect, SearchAnswer};
use crate::tui::list::ListState;
use crate::tui::text::search_time;

/// How long a preview answered by BM25F (the catalog's vectors not ready)
/// waits before asking again.
pub const REFRESH_WHILE_EMBEDDING: Duration = Duration::from_millis(400);

/// How many tools below the cap the results pane shows, at most.
pub const RUNNERS_UP: usize = 3;

/// Rows a block of tools below the loaded ones may take for its heading
/// (the gate's: a blank row, "no tool fits", up to three rows of heading).
const NEAR_HEADING: usize = 5;

/// The answer shown in the results pane.
// One value per pane, replaced whole by each search: boxing the answer
// would save nothing worth a pointer's chase on every draw.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Results {
    /// No search has come back yet.
    Waiting,
    Found(SearchResult),
    /// The search failed: the typed error, code and message.
    Failed(SearchError),
}

/// What a search is made of: the catalog, the query, the ranker it asks
/// for (the settings', or regex for a pattern), and the settings in force
/// with their handle.
pub struct Searched<'a> {
    pub catalog: &'a Arc<Catalog>,
    pub query: &'a str,
    pub ranker: Ranker,
    pub settings: &'a Settings,
    pub handle: &'a ToolsHandle,
}

#[derive(Debug, Clone)]
pub struct SearchState {
    pub results: Results,
    /// The query the shown results answer.
    pub query: String,
    /// The shown results are BM25F's, until the dense ranker's come.
    pub interim: bool,
    pub latency: Option<Duration>,
    /// The last search's query vector was in memory (no embedding timed).
    pub query_cached: bool,
    /// The last search of this query that embedded it: its query and how
    /// long it took (a committed search after its preview finds the
    /// vector in memory, and its own time would read 50 times faster).
    ran: Option<(String, Duration)>,
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
    /// Tokens the context can spend on tools: the full catalog is offered
    /// after a failed search only if it fits. None: never offered.
    context_budget: Option<u64>,
    /// Where every tool stood in the shown answer (why a tool was or was
    /// not found).
    pub standing: Option<Standing>,
    /// The newest search's pattern was refused (`invalid_regex`): why, for
    /// the query box. The results shown stay those of the last good one.
    pub pattern_error: Option<String>,
    /// The tool the highlight stays on in the next answer: a change made
    /// to the highlighted tool (always-load) re-sorts the list, and the
    /// highlight follows the tool, not its row.
    pub follow: Option<usize>,
}

/// Why the full catalog is not offered after a failed search.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotOffered {
    #[error("no context budget is set (--context-budget TOKENS)")]
    NoBudget,
    #[error("the catalog's tokens are still being counted")]
    Counting,
    #[error("the full catalog is {} tokens; the budget is {}", thousands(*full), thousands(*budget))]
    OverBudget { full: u64, budget: u64 },
}

impl SearchState {
    pub fn new(context_budget: Option<u64>) -> SearchState {
        SearchState {
            results: Results::Waiting,
            query: String::new(),
            interim: false,
            latency: None,
            query_cached: false,
            ran: None,
            next_generation: 0,
            applied_generation: 0,
            list: ListState::default(),
            session: None,
            session_tools: 0,
            last_request: None,
            full_catalog: false,
            context_budget,
            standing: None,
            pattern_error: None,
            follow: None,
        }
    }

    pub fn context_budget(&self) -> Option<u64> {
        self.context_budget
    }

    /// The generation of a new search (each newer than the last).
    fn next_generation(&mut self) -> u64 {
        self.next_generation += 1;
        self.next_generation
    }

    /// The request of a search: the session is sent along, the cap the
    /// settings' handle gives.
    pub fn request(&self, on: &Searched, preview: bool) -> SearchRequest {
        SearchRequest {
            session_id: self.session.clone(),
            // The query's mode may name its own (a pattern: regex).
            ranker: Some(on.ranker),
            preview,
            // The results pane says where every tool stood: from the
            // ranking the answer was cut from.
            keep_ranking: true,
            ..SearchRequest::in_force(on.settings, on.handle, on.query)
        }
    }

    /// A search of the query; `preview` while typing (a committed query is
    /// recorded in the session).
    pub fn search(&mut self, on: &Searched, preview: bool) -> Effect {
        let request = self.request(on, preview);
        self.last_request = Some(request.clone());
        Effect::Search {
            generation: self.next_generation(),
            catalog: on.catalog.clone(),
            request,
            interim: false,
        }
    }

    /// The searches of a query being typed. With a dense ranker, BM25F's
    /// answer (no model call) is asked for first and shown at once; the
    /// dense search, one generation newer, replaces it when the query is
    /// embedded, and an older keystroke's answers never replace a newer's.
    pub fn typing(&mut self, on: &Searched) -> Vec<Effect> {
        self.list = ListState::default();
        if !on.ranker.needs_embeddings() {
            return vec![self.search(on, true)];
        }
        let mut request = self.request(on, true);
        request.ranker = Some(Ranker::Bm25);
        let lexical = Effect::Search {
            generation: self.next_generation(),
            catalog: on.catalog.clone(),
            request,
            interim: true,
        };
        vec![lexical, self.search(on, true)]
    }

    /// The last search again (a new generation, the session as it is now):
    /// after a failure, the service may be back.
    pub fn retry(&mut self, on: &Searched) -> Effect {
        self.full_catalog = false;
        let Some(mut request) = self.last_request.clone() else {
            return self.search(on, true);
        };
        request.session_id = self.session.clone();
        Effect::Search {
            generation: self.next_generation(),
            catalog: on.catalog.clone(),
            request,
            interim: false,
        }
    }

    /// How long the shown search took, as the explorer says it: the time
    /// it took when it ran for real; when its query's vector was in memory,
    /// that first time and this one's (`12.00 ms (cached: 0.20 ms now)`),
    /// or, with no first time known, `0.20 ms (query cached)`. `whole`
    /// false: the time alone, for a narrow border.
    pub fn time_text(&self, whole: bool) -> Option<String> {
        let now = self.latency?;
        let first = self
            .ran
            .as_ref()
            .filter(|(query, _)| self.query_cached && *query == self.query)
            .map(|(_, first)| *first);
        Some(match (first, whole) {
            (Some(first), true) => search_time_then(first, now),
            (Some(first), false) => search_time(first, false),
            (None, whole) => search_time(now, whole && self.query_cached),
        })
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
        if let Err(e) = answer.result.as_ref()
            && e.code() == "invalid_regex"
        {
            // A pattern being typed is often unfinished: say why in the
            // query box, and keep the last good answer.
            self.pattern_error = Some(match e {
                SearchError::Service(e) => e.message.clone(),
                other => other.to_string(),
            });
            return true;
        }
        self.pattern_error = None;
        self.full_catalog = false;
        self.latency = Some(answer.elapsed);
        self.query_cached = answer.query_cached;
        if !answer.query_cached
            && !answer.interim
            && answer.result.is_ok()
            && !answer.query.trim().is_empty()
        {
            self.ran = Some((answer.query.clone(), answer.elapsed));
        }
        self.query = answer.query;
        self.interim = answer.interim;
        self.standing = answer.standing;
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
        if let Some(tool) = self.follow.take()
            && let Some(row) = self.row_of(tool)
        {
            self.list.selected = row;
        }
        self.keep_visible(height);
        true
    }

    /// The row of catalog tool `tool` in the pane (loaded, then near).
    pub fn row_of(&self, tool: usize) -> Option<usize> {
        if let Results::Found(r) = &self.results
            && let Some(at) = r.tools.iter().position(|h| h.index == tool)
        {
            return Some(at);
        }
        self.near()
            .iter()
            .position(|&i| i == tool)
            .map(|at| self.len() + at)
    }

    /// After an answer was taken: a dense ranker's preview answered by
    /// BM25F while the catalog's vectors are computed (its note says how
    /// far) is asked again shortly, so the fused results and the progress
    /// show without a keystroke.
    pub fn refresh_after(&self, ranker: Ranker) -> Vec<Effect> {
        if self.vectors_pending(ranker) {
            vec![Effect::Refresh {
                after: REFRESH_WHILE_EMBEDDING,
                generation: self.applied(),
            }]
        } else {
            Vec::new()
        }
    }

    /// Whether the refresh of answer `generation` is still wanted: nothing
    /// newer was asked for meanwhile.
    pub fn refresh_wanted(&self, generation: u64) -> bool {
        generation == self.applied() && !self.searching()
    }

    /// The answer shown is BM25F's standing in for `ranker` (a dense one)
    /// whose catalog vectors are still being computed.
    pub fn vectors_pending(&self, ranker: Ranker) -> bool {
        !self.interim && matches!(&self.results, Results::Found(r) if r.stands_in_for(ranker))
    }

    /// The tools the app would send now: the current search's loaded set,
    /// or the full catalog (of `catalog_len` tools) when it was sent instead
    /// after a failure.
    pub fn loaded_tools(&self, catalog_len: usize) -> Option<Vec<usize>> {
        if self.full_catalog {
            return Some((0..catalog_len).collect());
        }
        match &self.results {
            Results::Found(r) => Some(r.tools.iter().map(|h| h.index).collect()),
            _ => None,
        }
    }

    /// The full catalog's tokens (`full`: its total under the basis in
    /// force, once counted, a provider's request overhead included) and
    /// whether they fit the context budget: `Err` says why the full catalog
    /// is not offered.
    pub fn full_catalog_offer(&self, full: Option<u64>) -> Result<u64, NotOffered> {
        let Some(budget) = self.context_budget else {
            return Err(NotOffered::NoBudget);
        };
        let Some(full) = full else {
            return Err(NotOffered::Counting);
        };
        if full <= budget {
            Ok(full)
        } else {
            Err(NotOffered::OverBudget { full, budget })
        }
    }

    /// Sends the full catalog (of `catalog_len` tools, `full` tokens)
    /// instead of a failed search's, if it fits: the message to show either
    /// way.
    pub fn send_full_catalog(&mut self, catalog_len: usize, full: Option<u64>) -> String {
        if !matches!(self.results, Results::Failed(_)) {
            return "the full catalog is offered only when a search fails".into();
        }
        match self.full_catalog_offer(full) {
            Ok(tokens) => {
                self.full_catalog = true;
                format!(
                    "sending the full catalog instead: {catalog_len} tools, {} tokens",
                    thousands(tokens)
                )
            }
            Err(why) => format!("not sent: {why}"),
        }
    }

    pub fn len(&self) -> usize {
        match &self.results {
            Results::Found(r) => r.tools.len(),
            _ => 0,
        }
    }

    /// The tools under the loaded ones that can be picked too (their
    /// detail says why they were not loaded): those the relevance gate held
    /// back when no tool fits, else the next few below the cap.
    pub fn near(&self) -> Vec<usize> {
        let Results::Found(r) = &self.results else {
            return Vec::new();
        };
        if !r.held_back.is_empty() {
            return r.held_back.iter().map(|h| h.index).collect();
        }
        let selection = matches!(
            crate::engine::syntax::parse(&self.query),
            crate::engine::syntax::Request::Select(_)
        );
        match &self.standing {
            Some(s) if !selection && !self.query.trim().is_empty() => s
                .runners_up(RUNNERS_UP)
                .into_iter()
                .map(|(index, _)| index)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Rows the pane's highlight moves over: the loaded tools, then
    /// [`Self::near`]'s.
    pub fn rows(&self) -> usize {
        self.len() + self.near().len()
    }

    /// The highlighted row's catalog tool, loaded or near.
    pub fn current_index(&self) -> Option<usize> {
        if let Some(hit) = self.current() {
            return Some(hit.index);
        }
        self.near()
            .get(self.list.selected.checked_sub(self.len())?)
            .copied()
    }

    /// A window of `height` rows, less what a heading over the near rows
    /// takes when there are any (so the highlighted one stays on screen).
    fn window(&self, height: usize) -> usize {
        if self.near().is_empty() {
            height
        } else {
            height.saturating_sub(NEAR_HEADING).max(1)
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

    /// Keeps the highlighted row in a window of `height` rows.
    pub fn keep_visible(&mut self, height: usize) {
        let (rows, window) = (self.rows(), self.window(height));
        self.list.keep_visible(rows, window);
    }

    /// A click on row `row` of the pane's window selects that row (a
    /// loaded tool's; the rows below have headings between).
    pub fn click(&mut self, row: usize, height: usize) {
        let len = self.len();
        if self.list.offset + row < len {
            let window = self.window(height);
            self.list.click(row, self.rows(), window);
        }
    }

    /// The results pane's keys: movement, over the loaded tools and the
    /// near ones below them.
    pub fn handle(&mut self, action: Action, height: usize) -> bool {
        let (rows, window) = (self.rows(), self.window(height));
        self.list.handle(action, rows, window)
    }
}

/// A search whose query's vector was in memory, with the time the same
/// query took when it was embedded: `12.00 ms (cached: 0.20 ms now)`.
fn search_time_then(first: Duration, now: Duration) -> String {
    format!(
        "{:.2} ms (cached: {:.2} ms now)",
        first.as_secs_f64() * 1000.0,
        now.as_secs_f64() * 1000.0
    )
}
