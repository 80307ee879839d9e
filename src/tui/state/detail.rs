//! The detail's state (a pane on wide terminals, a popup on narrow ones):
//! how far it is scrolled, and its keys.

use crate::tui::action::Action;
use crate::tui::find::Find;
use crate::tui::list::Scroll;

#[derive(Debug, Clone, Default)]
pub struct DetailState {
    /// Lines scrolled past, clamped to the text as drawn.
    pub scroll: Scroll,
    /// The tool shown, to start another one's detail at its top.
    shown: Option<usize>,
    /// Words looked for (`/`), kept from tool to tool.
    pub find: Find,
}

impl DetailState {
    /// The detail now shows tool `tool`: another one than before opens at
    /// its top.
    pub fn follow(&mut self, tool: Option<usize>) {
        if tool != self.shown {
            self.shown = tool;
            self.scroll.reset();
        }
    }

    /// Shows a detail from its top.
    pub fn open(&mut self) {
        self.scroll.reset();
    }

    /// A movement key scrolls, by pages of `height` lines.
    pub fn scroll(&mut self, action: Action, height: usize) {
        self.scroll.handle(action, height);
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
