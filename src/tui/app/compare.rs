//! The comparison screen's part of the app: opened on the query box's
//! request, its answers handed to it (its keys go through
//! `screens.rs`).

use std::sync::Arc;

use super::{App, Popup};
use crate::catalog::Catalog;
use crate::tui::effect::{Effect, SearchRun};
use crate::tui::screen::compare::{ComparePane, Compared};

impl App {
    /// Opens the comparison on the query box's request, or says why not.
    pub(super) fn open_compare(&mut self) -> Vec<Effect> {
        let on = Compared {
            catalog: &self.catalog,
            searcher: &self.searcher,
            settings: &self.settings,
            handle: &self.handle,
            query: self.query.text(),
            regex: self.query.is_regex(),
        };
        match ComparePane::open(&on) {
            Ok((pane, effects)) => {
                self.compare = Some(pane);
                self.popup = Some(Popup::Compare);
                effects
            }
            Err(why) => {
                self.status = Some(why);
                Vec::new()
            }
        }
    }

    /// A side's answer, for the comparison if it is still open.
    pub(super) fn compared(
        &mut self,
        generation: u64,
        right: bool,
        catalog: &Arc<Catalog>,
        run: SearchRun,
    ) -> Vec<Effect> {
        let Some(pane) = &mut self.compare else {
            return Vec::new();
        };
        if !pane.receive(generation, right, catalog, run) {
            return Vec::new();
        }
        pane.again(right).into_iter().collect()
    }

    /// The comparison screen, while open.
    pub fn compare(&self) -> Option<&ComparePane> {
        self.compare.as_ref()
    }
}
