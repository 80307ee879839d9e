//! `/` in the detail and in help: words found in the text as drawn, the
//! view moved to them, `n` and `N` to the next and previous ones.

use super::{App, Focus, Popup};
use crate::tui::action::{Action, Context};
use crate::tui::find::{Find, Found};
use crate::tui::list::Scroll;

/// Which text is being searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Text {
    /// The text of the screen in front (help's).
    Screen,
    Detail,
}

impl App {
    /// The text `/`, `n` and `N` work in now: help, the detail popup, the
    /// detail pane while it has the keys.
    fn found_text(&self) -> Option<Text> {
        match self.screens.front() {
            Some(Popup::Detail) => Some(Text::Detail),
            Some(_) if self.screens.front_screen()?.find().is_some() => Some(Text::Screen),
            None if self.focus == Focus::Detail => Some(Text::Detail),
            _ => None,
        }
    }

    /// The words looked for in `text` and the scroll they move.
    fn text_parts(&mut self, text: Text) -> Option<(&mut Find, &mut Scroll)> {
        match text {
            Text::Screen => self.screens.front_screen_mut()?.find_mut(),
            Text::Detail => Some((&mut self.detail.find, &mut self.detail.scroll)),
        }
    }

    /// The find box has the keyboard.
    pub fn finding(&self) -> bool {
        match self.found_text() {
            Some(Text::Screen) => self
                .screens
                .front_screen()
                .and_then(|s| s.find())
                .is_some_and(Find::typing),
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
        let Some((find, scroll)) = self.text_parts(text) else {
            return false;
        };
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
        let Some((find, scroll)) = self.text_parts(text) else {
            return false;
        };
        let found = find.type_text(typed, scroll.pos());
        self.went(text, found);
        true
    }

    /// The view moved to a match (the box says when there is none).
    fn went(&mut self, text: Text, found: Found) {
        if let Found::Line(line) = found
            && let Some((_, scroll)) = self.text_parts(text)
        {
            scroll.to(line);
        }
    }
}
