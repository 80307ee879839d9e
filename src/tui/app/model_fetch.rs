//! The search model fetched on a first run, off the UI thread (the loop
//! runs the job, `tui/fetch.rs`): its progress, a stall said within
//! seconds, a failure said with what else to do, and `r` fetching it again.
//! Each fetch is a numbered run; the word of one given up is not heard.

use super::App;
use crate::embed::ModelJob;
use crate::tui::effect::Effect;

/// Where the search model's fetch stands, for the header and help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelFetch {
    /// Under way: bytes so far and the file's size (`0, 0` before the
    /// first byte), and the seconds without a byte once it stalls.
    Under {
        done: u64,
        total: u64,
        stalled: Option<u64>,
    },
    /// Given up: why. BM25F ranks; `r` fetches again.
    Failed(String),
}

/// What to do when the model cannot be fetched, said with the failure, a
/// stall and in help.
pub const WHAT_ELSE: &str = "`toolsift model fetch` fetches it outside the explorer, --embeddings-local DIR uses a model folder you have";

/// The job, its run and its state.
pub(super) struct ModelFetcher {
    job: Option<ModelJob>,
    /// The newest run: the only one heard.
    run: u64,
    /// Run `run` is for the loop to start.
    to_start: bool,
    state: Option<ModelFetch>,
}

impl ModelFetcher {
    /// A fetch of `job` (none: nothing to fetch), started once the loop
    /// runs.
    pub(super) fn new(job: Option<ModelJob>) -> ModelFetcher {
        ModelFetcher {
            to_start: job.is_some(),
            state: job.as_ref().map(|_| ModelFetch::Under {
                done: 0,
                total: 0,
                stalled: None,
            }),
            job,
            run: 1,
        }
    }

    /// The state of run `run`, when it is the newest and under way.
    fn under(&mut self, run: u64) -> Option<&mut ModelFetch> {
        let newest = run == self.run;
        self.state
            .as_mut()
            .filter(|s| newest && matches!(s, ModelFetch::Under { .. }))
    }
}

impl App {
    /// The search model to fetch and its run, taken by the loop that runs
    /// it (once at the start, again after `r`).
    pub fn take_model_job(&mut self) -> Option<(u64, ModelJob)> {
        let m = &mut self.model;
        if !std::mem::take(&mut m.to_start) {
            return None;
        }
        m.job.clone().map(|job| (m.run, job))
    }

    /// The search model's fetch under way: bytes so far and the size
    /// (`(0, 0)` before the first byte).
    pub fn fetching(&self) -> Option<(u64, u64)> {
        match self.model.state {
            Some(ModelFetch::Under { done, total, .. }) => Some((done, total)),
            _ => None,
        }
    }

    /// Where the search model's fetch stands (none: no fetch, or done).
    pub fn model_fetch(&self) -> Option<&ModelFetch> {
        self.model.state.as_ref()
    }

    pub(super) fn model_progress(&mut self, run: u64, done: u64, total: u64) {
        if let Some(s) = self.model.under(run) {
            *s = ModelFetch::Under {
                done,
                total,
                stalled: None,
            };
        }
    }

    pub(super) fn model_stalled(&mut self, run: u64, secs: u64) {
        if let Some(ModelFetch::Under { stalled, .. }) = self.model.under(run) {
            *stalled = Some(secs);
        }
    }

    /// `r` with a fetch that failed or stalled: a new run (the stalled one
    /// is no longer heard); false when there is none to retry.
    pub(super) fn retry_model_fetch(&mut self) -> bool {
        let m = &mut self.model;
        let retry = m.job.is_some()
            && matches!(
                m.state,
                Some(
                    ModelFetch::Failed(_)
                        | ModelFetch::Under {
                            stalled: Some(_),
                            ..
                        }
                )
            );
        if retry {
            m.run += 1;
            m.to_start = true;
            m.state = Some(ModelFetch::Under {
                done: 0,
                total: 0,
                stalled: None,
            });
            self.status = Some("fetching the search model again; BM25F ranks meanwhile".into());
        }
        retry
    }

    /// Run `run` is done: the searcher that uses the model takes over and
    /// ranks with hybrid (the user named no ranker, or there would have
    /// been no fetch), the query searched again; or why not, and BM25F
    /// goes on until `r` fetches again.
    pub(super) fn model_ready(
        &mut self,
        run: u64,
        ready: Result<crate::search::Searcher, crate::tui::effect::ModelNotReady>,
    ) -> Vec<Effect> {
        if self.model.under(run).is_none() {
            return Vec::new();
        }
        match ready {
            Ok(searcher) => {
                self.model.state = None;
                self.searcher = searcher;
                let ranker = crate::engine::Ranker::Hybrid;
                self.settings.ranker = ranker;
                self.ranker_at_start.0 = ranker;
                self.screens.settings_replaced(&self.settings);
                self.status =
                    Some("the search model is here: ranking with hybrid from now on".into());
                vec![
                    Effect::Warm {
                        catalog: self.catalog.clone(),
                    },
                    self.search_effect(true),
                ]
            }
            Err(why) => {
                let why = crate::terminal_text::escape(&why.to_string()).into_owned();
                self.status = Some(format!(
                    "the search model could not be fetched ({why}); BM25F ranks alone: {} fetches again, {WHAT_ELSE}",
                    self.keymap
                        .first(crate::tui::action::Action::RetrySearch)
                        .map_or_else(|| "retry_search".to_string(), |k| k.to_string())
                ));
                self.model.state = Some(ModelFetch::Failed(why));
                Vec::new()
            }
        }
    }
}
