//! The Tune screen's state: a measurement of the catalog on requests with
//! known answers ([`crate::tune`]), which requests, whether it is still
//! valid for the catalog and settings in force, and the path being typed.
//!
//! The screen never measures on the UI thread: it asks for an
//! [`Effect::Tune`](super::app::Effect::Tune) and takes the answer of the
//! newest one only.

use std::sync::Arc;

use super::action::Action;
use super::line_input::LineInput;
use crate::catalog::Catalog;
use crate::engine::Ranker;
use crate::tokens::TokenBasis;
use crate::tune::TuneReport;

/// What a measurement was made for: a new catalog (always-load toggled),
/// ranker, token basis or request file makes it stale.
#[derive(Debug, Clone)]
pub struct Measured {
    pub catalog: Arc<Catalog>,
    pub ranker: Ranker,
    pub basis: TokenBasis,
    pub queries: String,
}

impl PartialEq for Measured {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.catalog, &other.catalog)
            && self.ranker == other.ranker
            && self.basis == other.basis
            && self.queries == other.queries
    }
}

/// Where the measurement stands.
#[derive(Debug, Clone)]
pub enum TuneState {
    /// No request file yet.
    NoQueries,
    /// Measuring (answer `generation` is awaited).
    Measuring,
    Ready(Arc<TuneReport>),
    /// The request file or a search failed: what, where.
    Failed(String),
}

/// What the screen asks of the app.
#[derive(Debug, Clone, PartialEq)]
pub enum TuneOutcome {
    Stay,
    Close,
    /// Measure (again) with the current request file.
    Measure,
    /// Change the search cap by this much.
    Cap(i64),
    /// Change `initial_tool_count` by this much.
    Initial(i64),
    /// Put the recommendation in force.
    Apply,
    /// Write the settings in force to the config file.
    Save,
}

#[derive(Debug, Clone)]
pub struct TunePane {
    /// The request file (JSONL, eval format, or `@demo`).
    pub queries: Option<String>,
    pub state: TuneState,
    /// What the shown (or awaited) measurement is for.
    pub measured: Option<Measured>,
    /// The generation of the newest measurement asked for.
    pub generation: u64,
    /// The request file being typed, while the prompt is open.
    pub path: Option<LineInput>,
    /// The last message (applied, saved, refused), until the next key.
    pub message: Option<String>,
}

impl TunePane {
    pub fn new(queries: Option<String>) -> TunePane {
        TunePane {
            queries,
            state: TuneState::NoQueries,
            measured: None,
            generation: 0,
            path: None,
            message: None,
        }
    }

    pub fn is_typing(&self) -> bool {
        self.path.is_some()
    }

    pub fn report(&self) -> Option<&Arc<TuneReport>> {
        match &self.state {
            TuneState::Ready(r) => Some(r),
            _ => None,
        }
    }

    /// Whether a measurement for `wanted` must be asked for: none shown or
    /// awaited for it (a failed one is retried only on request).
    pub fn needs(&self, wanted: &Measured) -> bool {
        self.measured.as_ref() != Some(wanted)
    }

    /// Starts a measurement for `wanted`: its generation.
    pub fn start(&mut self, wanted: Measured) -> u64 {
        self.generation += 1;
        self.measured = Some(wanted);
        self.state = TuneState::Measuring;
        self.generation
    }

    /// Takes the answer of measurement `generation` if it is the newest.
    pub fn receive(&mut self, generation: u64, result: Result<TuneReport, String>) -> bool {
        if generation != self.generation {
            return false;
        }
        self.state = match result {
            Ok(r) => TuneState::Ready(Arc::new(r)),
            Err(e) => TuneState::Failed(e),
        };
        true
    }

    pub fn type_text(&mut self, text: &str) {
        if let Some(p) = &mut self.path {
            p.insert(text);
        }
    }

    /// The screen's keys (and, while the prompt is open, the text box's).
    pub fn handle(&mut self, action: Action) -> TuneOutcome {
        if let Some(path) = &mut self.path {
            match action {
                Action::InputCancel => self.path = None,
                Action::InputSubmit => {
                    let p = path.text.trim().to_string();
                    self.path = None;
                    if !p.is_empty() {
                        self.queries = Some(p);
                        // A new file: measure even if the name is the same
                        // (the file may have changed).
                        self.measured = None;
                        return TuneOutcome::Measure;
                    }
                }
                other => {
                    path.edit(other);
                }
            }
            return TuneOutcome::Stay;
        }
        self.message = None;
        match action {
            Action::TuneClose => TuneOutcome::Close,
            Action::TuneOpen => {
                self.path = Some(LineInput::new(self.queries.as_deref().unwrap_or("")));
                TuneOutcome::Stay
            }
            Action::TuneRerun => {
                self.measured = None;
                TuneOutcome::Measure
            }
            Action::TuneCapUp => TuneOutcome::Cap(1),
            Action::TuneCapDown => TuneOutcome::Cap(-1),
            Action::TuneInitialUp => TuneOutcome::Initial(1),
            Action::TuneInitialDown => TuneOutcome::Initial(-1),
            Action::TuneApply => TuneOutcome::Apply,
            Action::TuneSave => TuneOutcome::Save,
            _ => TuneOutcome::Stay,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> TuneReport {
        crate::tune::tests_support::small_report()
    }

    #[test]
    fn an_older_measurement_never_replaces_a_newer_one() {
        let catalog =
            Arc::new(crate::catalog::load(&crate::catalog::CatalogSource::demo()).unwrap());
        let wanted = Measured {
            catalog,
            ranker: Ranker::Bm25,
            basis: TokenBasis::O200kBase,
            queries: "@demo".into(),
        };
        let mut p = TunePane::new(Some("@demo".into()));
        assert!(p.needs(&wanted));
        let first = p.start(wanted.clone());
        let second = p.start(wanted.clone());
        assert!(!p.needs(&wanted));
        assert!(!p.receive(first, Ok(report())));
        assert!(matches!(p.state, TuneState::Measuring));
        assert!(p.receive(second, Err("boom".into())));
        assert!(matches!(p.state, TuneState::Failed(_)));
    }

    #[test]
    fn the_prompt_picks_a_file_and_asks_for_a_measurement() {
        let mut p = TunePane::new(None);
        assert_eq!(p.handle(Action::TuneOpen), TuneOutcome::Stay);
        assert!(p.is_typing());
        p.type_text("q.jsonl");
        // Keys of the screen edit the text box while it is open.
        assert_eq!(p.handle(Action::TuneCapUp), TuneOutcome::Stay);
        assert_eq!(p.handle(Action::InputSubmit), TuneOutcome::Measure);
        assert_eq!(p.queries.as_deref(), Some("q.jsonl"));
        assert!(!p.is_typing());
        assert_eq!(p.handle(Action::TuneCapUp), TuneOutcome::Cap(1));
        assert_eq!(p.handle(Action::TuneInitialDown), TuneOutcome::Initial(-1));
        assert_eq!(p.handle(Action::TuneClose), TuneOutcome::Close);
    }
}
