//! Screens that own everything of theirs in one folder: the state with
//! private fields, the keys (what a key does to the screen and what it
//! asks of the app, one [`Outcome`]), the key line, and the drawing. A
//! new screen goes here as `screen/<name>/` (see `compare/`); the app
//! holds it, hands it the actions of its context, and carries out its
//! outcome.

pub mod breaker;
pub mod compare;
pub mod export;
pub mod help;
pub mod history;
pub mod live;
pub mod settings;
pub mod tune;

use crate::settings::Settings;
use crate::tui::effect::Effect;

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
    Explain(live::Explain),
    /// The query box's history is now this (oldest first).
    Forget(Vec<String>),
    /// Write the tools to export in `format` to `path`.
    Export {
        format: crate::provider::PayloadFormat,
        path: String,
    },
}
