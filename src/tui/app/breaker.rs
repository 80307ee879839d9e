//! The breaker simulator's part of the app: opened on the highlighted tool
//! (its keys go through `screens.rs`).

use super::{App, Popup};
use crate::tui::screen::breaker::BreakerPane;

impl App {
    /// The highlighted tool (results or catalog) is the one to call.
    pub(super) fn open_breaker(&mut self) {
        let Some((index, _)) = self.current_tool() else {
            self.status = Some(
                "no tool to call: the list under the cursor is empty (pick a tool in the catalog or results)"
                    .into(),
            );
            return;
        };
        match &mut self.breaker {
            Some(pane) if pane.tool != index => pane.pick(&self.catalog, index),
            Some(_) => {}
            None => self.breaker = Some(BreakerPane::new(&self.catalog, index)),
        }
        self.popup = Some(Popup::Breaker);
    }
}
