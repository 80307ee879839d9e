//! The Tune screen's part of the app: opened on the settings in force (its
//! keys go through `screens.rs`).

use super::{App, Popup};
use crate::tui::effect::Effect;
use crate::tui::screen::tune::Tuned;

impl App {
    pub(super) fn open_tune(&mut self) -> Vec<Effect> {
        self.popup = Some(Popup::Tune);
        let on = Tuned {
            catalog: &self.catalog,
            settings: &self.settings,
            ranker_chosen: self.ranker_chosen(),
            handle: &self.handle,
            keymap: &self.keymap,
        };
        self.tune.open(&on)
    }
}
