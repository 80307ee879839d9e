//! The query history's part of the app: opened on the query box's
//! committed queries (its keys go through `screens.rs`).

use super::{App, Popup};
use crate::tui::effect::Effect;
use crate::tui::screen::history::HistoryList;

impl App {
    pub(super) fn open_history(&mut self) -> Vec<Effect> {
        match HistoryList::open(&self.query.history) {
            Ok(list) => {
                self.history = Some(list);
                self.popup = Some(Popup::History);
            }
            Err(why) => self.status = Some(why),
        }
        Vec::new()
    }

    /// The query history, while open.
    pub fn history_list(&self) -> Option<&HistoryList> {
        self.history.as_ref()
    }
}
