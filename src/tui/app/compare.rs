//! The comparison's answers: each side's search handed to the screen if it
//! is still open.

use std::sync::Arc;

use super::App;
use crate::catalog::Catalog;
use crate::tui::effect::{Effect, SearchRun};
use crate::tui::screen::compare::ComparePane;

impl App {
    /// A side's answer, for the comparison if it is still open.
    pub(super) fn compared(
        &mut self,
        generation: u64,
        right: bool,
        catalog: &Arc<Catalog>,
        run: SearchRun,
    ) -> Vec<Effect> {
        let Some(pane) = self.screens.get_mut::<ComparePane>() else {
            return Vec::new();
        };
        if !pane.receive(generation, right, catalog, run) {
            return Vec::new();
        }
        pane.again(right).into_iter().collect()
    }
}
