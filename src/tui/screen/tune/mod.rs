//! The Tune screen's state: a measurement of the catalog on requests with
//! known answers ([`crate::tune`]), which requests, whether it is still
//! valid for the catalog and settings in force, the path being typed, and
//! its keys: caps and the initial count changed by a step, the
//! recommendation applied, the settings saved to the config file.
//!
//! The screen never measures on the UI thread: it asks for an
//! [`Measure`] job and takes the answer of the newest one only; saving is
//! an [`Effect::SaveSettings`].

pub mod actions;
pub mod draw;
pub mod layout;
mod measure;
mod screen;
pub use measure::{Measure, MeasureDone};
pub use screen::{open, start};

use crate::tui::action::KeyGroup;

use super::Outcome;

use std::path::PathBuf;
use std::sync::Arc;

use crate::catalog::Catalog;
use crate::engine::Ranker;
use crate::settings::Settings;
use crate::tokens::TokenBasis;
use crate::tools_handle::{InitialToolCount, MaxTools, Strategy, ToolsHandle};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::keymap::Keymap;
use crate::tui::line_input::LineInput;
use crate::tui::screen::Popup;
use crate::tui::screen::job::ScreenJob;
use crate::tune::{TuneError, TuneOptions, TuneReport};

/// What a measurement was made for: a new catalog (always-load toggled),
/// ranker, token basis or request file makes it stale.
/// The key line's own keys (help and quit follow).
pub const KEYS: &[KeyGroup] = &[
    (&[Action::TuneCapDown, Action::TuneCapUp], "cap", "cap", 1),
    (
        &[Action::TuneInitialDown, Action::TuneInitialUp],
        "initial",
        "initial",
        2,
    ),
    (&[Action::TuneApply], "apply recommended", "apply", 3),
    (&[Action::TuneSave], "save", "save", 4),
    (&[Action::TuneOpen], "requests", "requests", 5),
    (&[Action::TuneRerun], "measure", "measure", 6),
    (&[Action::TuneClose], "back", "back", 0),
];

/// The key line's own keys (help and quit follow).
pub const INPUT_KEYS: &[KeyGroup] = &[
    (&[Action::InputSubmit], "measure", "measure", 0),
    (&[Action::InputCancel], "cancel", "cancel", 0),
    (&[Action::InputClear], "clear", "clear", 2),
];

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

/// What a key of the screen means, before the app is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
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

/// What the screen works on: the catalog, the settings in force and their
/// handle, and the keys (messages name them).
pub struct Tuned<'a> {
    pub catalog: &'a Arc<Catalog>,
    pub settings: &'a Settings,
    /// The user named the ranker (a flag, the config file, or the settings
    /// screen): saving writes it; else it is left as the file has it.
    pub ranker_chosen: bool,
    pub handle: &'a ToolsHandle,
    pub keymap: &'a Keymap,
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
    /// Where the settings are saved (the config file).
    config_path: Option<PathBuf>,
}

impl TunePane {
    pub fn new(queries: Option<String>, config_path: Option<PathBuf>) -> TunePane {
        TunePane {
            queries,
            state: TuneState::NoQueries,
            measured: None,
            generation: 0,
            path: None,
            message: None,
            config_path,
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
    pub fn receive(&mut self, generation: u64, result: Result<TuneReport, &TuneError>) -> bool {
        if generation != self.generation {
            return false;
        }
        self.state = match result {
            Ok(r) => TuneState::Ready(Arc::new(r)),
            Err(e) => TuneState::Failed(e.to_string()),
        };
        true
    }

    pub fn type_text(&mut self, text: &str) {
        if let Some(p) = &mut self.path {
            p.insert(text);
        }
    }

    /// What a key means (and, while the prompt is open, the text box's
    /// keys).
    fn key(&mut self, action: Action) -> Key {
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
                        return Key::Measure;
                    }
                }
                other => {
                    path.edit(other);
                }
            }
            return Key::Stay;
        }
        self.message = None;
        match action {
            Action::TuneClose => Key::Close,
            Action::TuneOpen => {
                self.path = Some(LineInput::offered(self.queries.as_deref().unwrap_or("")));
                Key::Stay
            }
            Action::TuneRerun => {
                self.measured = None;
                Key::Measure
            }
            Action::TuneCapUp => Key::Cap(1),
            Action::TuneCapDown => Key::Cap(-1),
            Action::TuneInitialUp => Key::Initial(1),
            Action::TuneInitialDown => Key::Initial(-1),
            Action::TuneApply => Key::Apply,
            Action::TuneSave => Key::Save,
            _ => Key::Stay,
        }
    }
    /// Opens the screen: the prompt for a file if there is none yet, else a
    /// measurement if the one shown is not for the settings in force.
    pub fn open(&mut self, on: &Tuned) -> Vec<Effect> {
        if self.queries.is_none() {
            self.key(Action::TuneOpen);
        }
        self.effects(on.catalog, on.settings)
    }

    /// What a measurement is for now.
    fn wanted(&self, catalog: &Arc<Catalog>, settings: &Settings) -> Option<Measured> {
        Some(Measured {
            catalog: catalog.clone(),
            ranker: settings.ranker,
            basis: settings.basis(),
            queries: self.queries.clone()?,
        })
    }

    /// A measurement if the one shown is not for `catalog` and the
    /// `settings` in force.
    pub fn effects(&mut self, catalog: &Arc<Catalog>, settings: &Settings) -> Vec<Effect> {
        let Some(wanted) = self.wanted(catalog, settings) else {
            return Vec::new();
        };
        if !self.needs(&wanted) {
            return Vec::new();
        }
        let generation = self.start(wanted.clone());
        vec![Effect::Screen(ScreenJob::new(
            Popup::Tune,
            Measure {
                generation,
                catalog: wanted.catalog,
                queries: wanted.queries,
                options: TuneOptions {
                    ranker: Some(wanted.ranker),
                    token_basis: wanted.basis,
                    target_pct: None,
                },
            },
        ))]
    }

    /// The screen's keys.
    pub fn handle(&mut self, action: Action, on: &Tuned) -> Outcome {
        let mut edited = on.settings.clone();
        match self.key(action) {
            Key::Stay => return Outcome::Stay,
            Key::Close => return Outcome::Close,
            Key::Measure => return Outcome::Effects(self.effects(on.catalog, on.settings)),
            Key::Save => return Outcome::Effects(self.save(on.settings, on.ranker_chosen)),
            Key::Cap(d) => {
                let Some((cap, _)) = current(on.catalog, on.settings, on.handle) else {
                    self.message = Some("strategy all loads every tool: no cap to change".into());
                    return Outcome::Stay;
                };
                let next = cap.stepped(d);
                if next == cap {
                    self.message = Some(format!("cap {cap}: the cap goes no lower"));
                    return Outcome::Stay;
                }
                // Said at once, from the measurement when it has the cap.
                self.message = Some(
                    match self
                        .report()
                        .and_then(|r| r.points.iter().find(|p| p.max_tools == next))
                    {
                        Some(p) => format!(
                            "cap {cap} → {next}: {:.1}% of requests fully served, {} tokens sent on average",
                            p.all_loaded_pct,
                            crate::numbers::thousands(p.mean_sent_tokens.round() as u64)
                        ),
                        None => format!("cap {cap} → {next}: not measured"),
                    },
                );
                // The explicit search cap if there is one, else the handle's.
                if edited.max_tools.is_some() {
                    edited.max_tools = Some(next);
                } else {
                    edited.max_loaded_tools = Some(next);
                }
            }
            Key::Initial(d) => {
                let next = edited.initial_tool_count.stepped(d);
                if next == edited.initial_tool_count {
                    // At 0 already: nothing changes, and the line says so.
                    self.message = Some("initial_tool_count is 0: it goes no lower".into());
                    return Outcome::Stay;
                }
                self.message = Some(format!(
                    "initial_tool_count {} → {next}",
                    edited.initial_tool_count
                ));
                edited.initial_tool_count = next;
            }
            Key::Apply => {
                let Some(report) = self.report() else {
                    self.message = Some("nothing measured yet: no recommendation".into());
                    return Outcome::Stay;
                };
                let r = report.recommended;
                edited.strategy = Strategy::Deferred;
                edited.max_loaded_tools = Some(r.max_tools);
                edited.max_tools = None;
                edited.initial_tool_count = r.initial_tool_count;
                self.message = Some(format!(
                    "applied: max_loaded_tools {} · initial_tool_count {} ({} saves them)",
                    r.max_tools,
                    r.initial_tool_count,
                    on.keymap.label(Action::TuneSave)
                ));
            }
        }
        Outcome::Apply(edited)
    }

    /// Settings asked for were refused, with the SDK's message.
    pub fn refused(&mut self, error: String) {
        self.message = Some(format!("refused: {error}"));
    }

    /// Writes `settings` to the config file, if there is one.
    fn save(&mut self, settings: &Settings, ranker_chosen: bool) -> Vec<Effect> {
        let Some(path) = self.config_path.clone() else {
            self.message =
                Some("no config file to save to (set --config, TOOLSIFT_CONFIG or HOME)".into());
            return Vec::new();
        };
        // The request file measured, as a path that reads the same from
        // anywhere.
        let queries = self.queries.clone().map(|q| {
            if q.starts_with('@') {
                q
            } else {
                std::path::absolute(&q).map_or(q, |p| p.display().to_string())
            }
        });
        vec![Effect::SaveSettings {
            path,
            settings: settings.clone(),
            also: crate::config::Also {
                keep_ranker: !ranker_chosen,
                queries,
            },
        }]
    }
}

/// The search cap and initial count the screen marks for `settings` in
/// force over `catalog` (none for strategy all).
pub fn current(
    catalog: &Catalog,
    settings: &Settings,
    handle: &ToolsHandle,
) -> Option<(MaxTools, InitialToolCount)> {
    let always = catalog.tools().iter().filter(|t| t.always_load).count();
    crate::tune::current_setting(handle, handle.sent_cap(settings.max_tools), always)
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
        let mut p = TunePane::new(Some("@demo".into()), None);
        assert!(p.needs(&wanted));
        let first = p.start(wanted.clone());
        let second = p.start(wanted.clone());
        assert!(!p.needs(&wanted));
        assert!(!p.receive(first, Ok(report())));
        assert!(matches!(p.state, TuneState::Measuring));
        let failed = crate::tune::TuneError::Input(crate::eval::EvalError::Empty {
            path: "q.jsonl".into(),
        });
        assert!(p.receive(second, Err(&failed)));
        assert!(matches!(p.state, TuneState::Failed(_)));
    }

    #[test]
    fn the_prompt_picks_a_file_and_asks_for_a_measurement() {
        let mut p = TunePane::new(None, None);
        assert_eq!(p.key(Action::TuneOpen), Key::Stay);
        assert!(p.is_typing());
        p.type_text("q.jsonl");
        // Keys of the screen edit the text box while it is open.
        assert_eq!(p.key(Action::TuneCapUp), Key::Stay);
        assert_eq!(p.key(Action::InputSubmit), Key::Measure);
        assert_eq!(p.queries.as_deref(), Some("q.jsonl"));
        assert!(!p.is_typing());
        assert_eq!(p.key(Action::TuneCapUp), Key::Cap(1));
        assert_eq!(p.key(Action::TuneInitialDown), Key::Initial(-1));
        assert_eq!(p.key(Action::TuneClose), Key::Close);
    }
}
