//! Screens that own everything of theirs in one folder: the state with
//! private fields, the keys (what a key does to the screen and what it
//! asks of the app, one [`Outcome`]), the key line, and the drawing, all
//! through one trait, [`Screen`]. A new screen goes here as
//! `screen/<name>/` (see `history/`), with its line in [`OPENED_BY`] (and
//! in [`STARTED`] when it is held from the start) and its [`Popup`]; the
//! app holds it in the registry ([`Screens`]), hands it the actions of its
//! context, and carries out its outcome, naming no screen.

mod ask;
pub mod breaker;
pub mod compare;
mod explain;
pub mod export;
pub mod help;
pub mod history;
pub mod job;
pub mod live;
pub mod settings;
pub mod tune;

mod front;
#[cfg(test)]
mod reach_tests;
mod registry;
pub use ask::{Ask, NothingToExport, ToolsFrom, ToolsOut};
pub use explain::{Answered, Explain};
pub use front::{On, Open, Screen, Told, Unopened};
pub use registry::Screens;

use crate::tui::action::Action;

use crate::settings::Settings;
use crate::tui::effect::Effect;
use crate::tui::setup::Setup;

/// What a screen's key asks of the app.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Nothing beyond the screen itself.
    Stay,
    /// Close the screen.
    Close,
    /// Run these (searches, measurements, files); each answer comes back
    /// as a message.
    Effects(Vec<Effect>),
    /// Put these settings in force (refused with a message if invalid).
    Apply(Settings),
    /// Put this query in the query box and search it (committed).
    Search(String),
    /// Search this request (when some) and show this tool in the catalog
    /// (when some): why it was or was not found (the live screen's miss).
    Explain(Explain),
    /// The query box's history is now this (oldest first).
    Forget(Vec<String>),
    /// `format` is the provider format last exported (a copied tool's
    /// too); then the export's write, or where to say why there is none.
    Export {
        format: crate::provider::PayloadFormat,
        write: Result<Effect, Told>,
    },
}

/// Which screen (or popup) is in front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Popup {
    Help,
    Settings,
    /// The detail pane as a popup (narrow terminals): the app's own.
    Detail,
    /// The breaker simulator (a full screen).
    Breaker,
    /// The Tune screen (a full screen).
    Tune,
    /// The export of the loaded tools to a file.
    Export,
    /// The comparison of two ways of searching (a full screen).
    Compare,
    /// The queries committed this run.
    History,
    /// The followed traffic (a full screen).
    Live,
}

crate::tui::action::screen_contexts! {
    Settings: settings::actions;
    Breaker: breaker::actions;
    Confirm: breaker::actions::confirm;
    Tune: tune::actions;
    Compare: compare::actions;
    History: history::actions;
    Live: live::actions;
}

/// The main screen's keys that open a screen, and how each opens.
pub const OPENED_BY: &[(Action, Open)] = &[
    (Action::Help, help::open),
    (Action::Settings, settings::open),
    (Action::Breaker, breaker::open),
    (Action::Tune, tune::open),
    (Action::Export, export::open),
    (Action::Compare, compare::open),
    (Action::QueryHistory, history::open),
    (Action::Live, live::open),
];

/// How a screen held from the start is made and held (and, if it says
/// so, shown first), on what the explorer was started with.
pub type Start = fn(&Setup, &mut Screens);

/// The screens held from the start, in the order they are made.
pub const STARTED: &[Start] = &[settings::start, tune::start, live::start];

/// The registry as the explorer starts: every screen of [`STARTED`] made.
pub fn started(setup: &Setup) -> Screens {
    let mut screens = Screens::default();
    for start in STARTED {
        start(setup, &mut screens);
    }
    screens
}

/// Follows a source from now on (`:follow`), in place of what was
/// followed: its screen held and in front, its misses judged by the
/// catalog given (the one in view).
pub fn follow(
    source: crate::follow::Source,
    catalog: &crate::catalog::Catalog,
    screens: &mut Screens,
) {
    live::follow(source, catalog, screens);
}

/// How the screen `action` opens, if it opens one.
pub fn opener(action: Action) -> Option<Open> {
    OPENED_BY
        .iter()
        .find(|(a, _)| *a == action)
        .map(|(_, open)| *open)
}
