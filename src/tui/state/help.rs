//! The help popup's state: how far it is scrolled, and its keys. What it
//! shows comes from the live keymap ([`crate::tui::help`]).

use crate::tui::action::Action;
use crate::tui::list::movement;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HelpState {
    /// Rows scrolled past.
    pub scroll: usize,
}

impl HelpState {
    /// Shows help from its top.
    pub fn open(&mut self) {
        self.scroll = 0;
    }

    /// The popup's keys, over `rows` rows shown `height` at a time: true
    /// when it closes.
    pub fn handle(&mut self, action: Action, rows: usize, height: usize) -> bool {
        match action {
            Action::Escape | Action::Help | Action::Quit => true,
            other => {
                if let Some(d) = movement(other, height) {
                    let max = rows.saturating_sub(height) as isize;
                    self.scroll = (self.scroll as isize).saturating_add(d).clamp(0, max) as usize;
                }
                false
            }
        }
    }
}
