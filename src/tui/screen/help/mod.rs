//! The help popup's state: how far it is scrolled, and its keys. What it
//! shows comes from the live keymap ([`crate::tui::help`]).

pub mod draw;
pub mod rows;

use crate::tui::action::KeyGroup;

use crate::tui::action::Action;
use crate::tui::find::Find;
use crate::tui::list::Scroll;

/// The key line's own keys (quit follows).
pub const KEYS: &[KeyGroup] = &[
    (&[Action::Down, Action::Up], "scroll", "scroll", 1),
    (&[Action::FocusQuery], "find", "find", 2),
    (
        &[Action::NextMatch, Action::PrevMatch],
        "next/prev found",
        "next",
        4,
    ),
    (
        &[Action::HalfPageDown, Action::HalfPageUp],
        "page",
        "page",
        2,
    ),
    (&[Action::Top, Action::Bottom], "top/end", "top/end", 3),
    (&[Action::Escape], "close", "close", 0),
];

#[derive(Debug, Clone, Default)]
pub struct HelpState {
    /// Lines scrolled past, clamped to the help as drawn (wrapped to its box).
    pub scroll: Scroll,
    /// Words looked for (`/`).
    pub find: Find,
}

impl HelpState {
    /// Shows help from its top.
    pub fn open(&mut self) {
        self.scroll.reset();
    }

    /// The popup's keys, shown `height` lines at a time: true when it
    /// closes.
    pub fn handle(&mut self, action: Action, height: usize) -> bool {
        match action {
            Action::Escape | Action::Help | Action::Quit => true,
            other => {
                self.scroll.handle(other, height);
                false
            }
        }
    }
}
