//! `/` in the detail and in help: words found in the text as drawn, the
//! view moved to them, `n` and `N` to the next and previous ones.

use super::{App, Focus, Popup};
use crate::tui::action::{Action, Context};
use crate::tui::find::{Find, Found};
use crate::tui::list::Scroll;
use crate::tui::screen::help::HelpState;

/// Which text is being searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Text {
    Help,
    Detail,
}

impl App {
    /// The text `/`, `n` and `N` work in now: help, the detail popup, the
    /// detail pane while it has the keys.
    fn found_text(&self) -> Option<Text> {
        match self.screens.front() {
            Some(Popup::Help) => Some(Text::Help),
            Some(Popup::Detail) => Some(Text::Detail),
            None if self.focus == Focus::Detail => Some(Text::Detail),
            _ => None,
        }
    }

    fn text_parts(&mut self, text: Text) -> (&mut Find, &mut Scroll) {
        match text {
            Text::Help => {
                let help = self.help_mut();
                (&mut help.find, &mut help.scroll)
            }
            Text::Detail => (&mut self.detail.find, &mut self.detail.scroll),
        }
    }

    /// The find box has the keyboard.
    pub fn finding(&self) -> bool {
        match self.found_text() {
            Some(Text::Help) => self
                .screens
                .get::<HelpState>()
                .is_some_and(|h| h.find.typing()),
            Some(Text::Detail) => self.detail.find.typing(),
            None => false,
        }
    }

    /// `/`, `n`, `N` and the find box's keys, where a text is searched:
    /// true when taken.
    pub(super) fn find_key(&mut self, action: Action) -> bool {
        let Some(text) = self.found_text() else {
            return false;
        };
        let typing = self.finding();
        let (find, scroll) = self.text_parts(text);
        let top = scroll.pos();
        let found = match action {
            Action::FocusQuery if !typing => {
                find.start();
                Found::Stay
            }
            a if typing && a.context() == Context::Input => find.handle(a, top),
            Action::NextMatch | Action::PrevMatch if !typing && !find.words().is_empty() => {
                find.step(action == Action::NextMatch, top)
            }
            _ => return false,
        };
        self.went(text, found);
        true
    }

    /// Text typed into the find box: true when taken.
    pub(super) fn find_type(&mut self, typed: &str) -> bool {
        let Some(text) = self.found_text().filter(|_| self.finding()) else {
            return false;
        };
        let (find, scroll) = self.text_parts(text);
        let found = find.type_text(typed, scroll.pos());
        self.went(text, found);
        true
    }

    /// The view moved to a match (the box says when there is none).
    fn went(&mut self, text: Text, found: Found) {
        if let Found::Line(line) = found {
            self.text_parts(text).1.to(line);
        }
    }
}
