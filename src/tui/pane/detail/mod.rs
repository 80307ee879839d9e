//! The detail (a pane on wide terminals, a popup on narrow ones): its
//! state (how far it is scrolled, find, folds) and its keys; its drawing
//! is `draw.rs`.

pub(crate) mod draw;

use crate::tui::action::Action;
use crate::tui::find::Find;
use crate::tui::list::Scroll;

#[derive(Debug, Clone, Default)]
pub struct DetailState {
    /// Lines scrolled past, clamped to the text as drawn.
    pub scroll: Scroll,
    /// The tool shown, to start another one's detail at its top.
    shown: Option<usize>,
    /// Words looked for (`/`) in this tool's detail.
    pub find: Find,
    /// The schema's objects and arrays nested this deep are shown closed
    /// (none: all open), kept from tool to tool.
    pub fold: Option<usize>,
    /// Long lines run past the pane's edge instead of wrapping (`w`), and
    /// scroll sideways.
    pub unwrapped: bool,
    /// Columns scrolled sideways, clamped to the longest line as drawn.
    pub side: Scroll,
}

/// Columns a sideways step moves.
pub const SIDE_STEP: usize = 8;

impl DetailState {
    /// The detail now shows tool `tool`: another one than before opens at
    /// its top, wrapped, with no words looked for (they were the last
    /// tool's); the fold holds.
    pub fn follow(&mut self, tool: Option<usize>) {
        if tool != self.shown {
            self.shown = tool;
            self.scroll.reset();
            self.find.clear();
            self.unwrapped = false;
            self.side.reset();
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

    /// The schema folded one step further: property names only, then one
    /// level more, then all open. What it shows now, for the status line.
    pub fn cycle_fold(&mut self) -> &'static str {
        self.fold = match self.fold {
            None => Some(2),
            Some(2) => Some(3),
            _ => None,
        };
        self.scroll.reset();
        match self.fold {
            Some(2) => "schema folded: its properties' names only",
            Some(_) => "schema folded: the properties and what they hold, one level",
            None => "schema unfolded: all of it",
        }
    }

    /// Wrapping long lines, or letting them run past the edge to scroll
    /// sideways: what it does now, for the status line.
    pub fn toggle_wrap(&mut self) -> &'static str {
        self.unwrapped = !self.unwrapped;
        self.side.reset();
        if self.unwrapped {
            "long lines run past the edge: ← → scroll sideways (w wraps them again)"
        } else {
            "long lines wrap again"
        }
    }

    /// A sideways step (right or left); `Err` says why nothing moves.
    pub fn sideways(&mut self, right: bool) -> Result<(), &'static str> {
        if !self.unwrapped {
            return Err(
                "the detail wraps its lines: w lets them run past the edge, then ← → scroll sideways",
            );
        }
        let at = self.side.pos();
        let to = if right {
            at + SIDE_STEP
        } else {
            at.saturating_sub(SIDE_STEP)
        };
        self.side.to(to);
        Ok(())
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
