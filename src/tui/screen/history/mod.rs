//! The query history: the queries committed this run, newest first, to
//! pick one from (`H`). Picking puts it in the query box and searches it
//! (committed, as Enter does); `d` forgets one.

pub mod actions;
pub mod draw;

use ratatui::Frame;

use super::{On, Outcome, Popup, Screen, Screens, Unopened};
use crate::tui::action::{Action, Context, KeyGroup};
use crate::tui::effect::Effect;
use crate::tui::list::ListState;
use crate::tui::paint::Theme;

/// The key line's own keys (help and quit follow).
pub const KEYS: &[KeyGroup] = &[
    (
        &[Action::HistoryDown, Action::HistoryUp],
        "choose",
        "choose",
        1,
    ),
    (&[Action::HistoryPick], "search it", "search", 0),
    (&[Action::HistoryForget], "forget", "forget", 2),
    (&[Action::HistoryClose], "back", "back", 0),
];

#[derive(Debug, Clone)]
pub struct HistoryList {
    /// Newest first.
    entries: Vec<String>,
    list: ListState,
}

impl HistoryList {
    /// The list over `history` (oldest first, as the query box keeps it);
    /// `Err` says why there is nothing to show.
    pub fn open(history: &[String]) -> Result<HistoryList, Unopened> {
        if history.is_empty() {
            return Err(Unopened::NoHistory);
        }
        Ok(HistoryList {
            entries: history.iter().rev().cloned().collect(),
            list: ListState::default(),
        })
    }

    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    pub fn list(&self) -> ListState {
        self.list
    }

    /// The keys; `height` is how many rows the list shows.
    pub fn handle(&mut self, action: Action, height: usize) -> Outcome {
        let len = self.entries.len();
        match action {
            Action::HistoryDown => self.list.handle(Action::Down, len, height),
            Action::HistoryUp => self.list.handle(Action::Up, len, height),
            Action::HistoryPick => {
                return match self.entries.get(self.list.selected) {
                    Some(q) => Outcome::Search(q.clone()),
                    None => Outcome::Close,
                };
            }
            Action::HistoryForget => {
                if self.list.selected < len {
                    self.entries.remove(self.list.selected);
                }
                if self.entries.is_empty() {
                    return Outcome::Forget(Vec::new());
                }
                self.list.keep_visible(self.entries.len(), height);
                // The query box keeps its history oldest first.
                return Outcome::Forget(self.entries.iter().rev().cloned().collect());
            }
            Action::HistoryClose => return Outcome::Close,
            _ => false,
        };
        Outcome::Stay
    }
}

/// The list opens on the query box's committed queries, or says there
/// are none yet.
pub fn open(on: &On, screens: &mut Screens) -> Result<Vec<Effect>, Unopened> {
    screens.hold(Box::new(HistoryList::open(on.ask.history())?));
    screens.show(Popup::History);
    Ok(Vec::new())
}

impl Screen for HistoryList {
    fn id(&self) -> Popup {
        Popup::History
    }

    fn context(&self) -> Context {
        Context::History
    }

    fn keys(&self) -> &'static [KeyGroup] {
        KEYS
    }

    fn handle(&mut self, action: Action, on: &On) -> Outcome {
        let area = draw::area_for(on.layout.area, self);
        HistoryList::handle(self, action, draw::list_rows(area))
    }

    fn area(&self, on: &On) -> ratatui::layout::Rect {
        draw::area_for(on.layout.area, self)
    }

    fn draw(&self, f: &mut Frame, on: &On, theme: &Theme) {
        draw::draw(f, draw::area_for(on.layout.area, self), self, theme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history() -> Vec<String> {
        ["refund", "who is on call", "send an email"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn nothing_committed_says_how_to_commit() {
        let why = HistoryList::open(&[]).unwrap_err().to_string();
        assert!(why.contains("Enter in the query box"), "{why}");
    }

    #[test]
    fn newest_first_and_enter_searches_the_picked_one() {
        let mut h = HistoryList::open(&history()).unwrap();
        assert_eq!(h.entries()[0], "send an email");
        h.handle(Action::HistoryDown, 5);
        h.handle(Action::HistoryDown, 5);
        h.handle(Action::HistoryDown, 5);
        assert_eq!(h.list().selected, 2, "stops at the last");
        match h.handle(Action::HistoryPick, 5) {
            Outcome::Search(q) => assert_eq!(q, "refund"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn forgetting_gives_the_box_its_history_back_oldest_first() {
        let mut h = HistoryList::open(&history()).unwrap();
        h.handle(Action::HistoryDown, 5);
        match h.handle(Action::HistoryForget, 5) {
            Outcome::Forget(left) => assert_eq!(left, ["refund", "send an email"]),
            other => panic!("{other:?}"),
        }
        assert_eq!(h.entries(), ["send an email", "refund"]);
        assert!(matches!(h.handle(Action::HistoryClose, 5), Outcome::Close));
    }
}
