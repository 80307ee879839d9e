//! The Tune screen's part of the app: opened on the settings in force (its
//! keys go through `screens.rs`).

use super::{App, Popup};
use crate::tui::effect::Effect;
use crate::tui::screen::tune::{TunePane, Tuned};

impl App {
    pub(super) fn open_tune(&mut self) -> Vec<Effect> {
        self.popup = Some(Popup::Tune);
        self.with_tune(|tune, on| tune.open(on))
    }

    /// `f` on the Tune screen, with what it measures and applies against.
    pub(super) fn with_tune<R>(&mut self, f: impl FnOnce(&mut TunePane, &Tuned<'_>) -> R) -> R {
        let on = Tuned {
            catalog: &self.catalog,
            settings: &self.settings,
            ranker_chosen: self.ranker_chosen(),
            handle: &self.handle,
            keymap: &self.keymap,
        };
        f(&mut self.tune, &on)
    }
}
