//! The query history's part of the app: opened on the query box's
//! committed queries, a pick searched as Enter in the query box would.

use super::{App, Popup};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::screen::Outcome;
use crate::tui::screen::history::{HistoryList, draw};

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

    pub(super) fn on_history(&mut self, action: Action) -> Vec<Effect> {
        let Some(list) = &mut self.history else {
            return self.close();
        };
        let rows = draw::list_rows(draw::area_for(self.layout.area, list));
        match list.handle(action, rows) {
            Outcome::Search(query) => {
                self.history = None;
                self.popup = None;
                self.query.input.set(&query);
                let outcome = self.query.handle(Action::InputSubmit);
                self.on_query(outcome)
            }
            Outcome::Forget(left) => {
                self.query.history = left;
                if self.query.history.is_empty() {
                    self.history = None;
                    self.popup = None;
                    self.status = Some("the query history is empty now".into());
                }
                Vec::new()
            }
            Outcome::Close => {
                self.history = None;
                self.close()
            }
            Outcome::Stay | Outcome::Effects(_) | Outcome::Apply(_) => Vec::new(),
        }
    }

    /// The query history, while open.
    pub fn history_list(&self) -> Option<&HistoryList> {
        self.history.as_ref()
    }
}
