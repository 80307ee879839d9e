//! The detail's state (a pane on wide terminals, a popup on narrow ones):
//! how far it is scrolled, and its keys.

use crate::tui::action::Action;
use crate::tui::list::movement;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DetailState {
    /// Lines scrolled past.
    pub scroll: u16,
}

impl DetailState {
    /// Shows a detail from its top.
    pub fn open(&mut self) {
        self.scroll = 0;
    }

    /// A movement key scrolls, by pages of `height` lines.
    pub fn scroll(&mut self, action: Action, height: usize) {
        if let Some(d) = movement(action, height) {
            let d = d.clamp(-10_000, 10_000) as i32;
            self.scroll = (i32::from(self.scroll) + d).clamp(0, 10_000) as u16;
        }
    }

    /// The popup's keys: true when it closes.
    pub fn handle_popup(&mut self, action: Action, height: usize) -> bool {
        match action {
            Action::Escape | Action::OpenDetail | Action::Quit => true,
            other => {
                self.scroll(other, height);
                false
            }
        }
    }
}
