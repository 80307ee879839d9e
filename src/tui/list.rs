//! A scrolling list (the catalog and results panes) and how far a movement
//! key moves in a window (the lists, help and the detail).

use super::action::Action;

/// A scrolling list: the highlighted row and the first row shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ListState {
    pub selected: usize,
    pub offset: usize,
}

/// How far a movement action moves in a window of `height` rows.
pub fn movement(action: Action, height: usize) -> Option<isize> {
    let half = (height / 2).max(1) as isize;
    match action {
        Action::Down => Some(1),
        Action::Up => Some(-1),
        Action::HalfPageDown => Some(half),
        Action::HalfPageUp => Some(-half),
        Action::Top => Some(isize::MIN / 2),
        Action::Bottom => Some(isize::MAX / 2),
        _ => None,
    }
}

impl ListState {
    /// Moves by `delta` rows within `len`, keeping the selection visible in a
    /// window of `height` rows.
    pub fn shift(&mut self, delta: isize, len: usize, height: usize) {
        if len == 0 {
            *self = ListState::default();
            return;
        }
        let target = (self.selected as isize)
            .saturating_add(delta)
            .clamp(0, len as isize - 1);
        self.selected = target as usize;
        self.keep_visible(len, height);
    }

    /// A movement action (`down`, `half_page_up`, `top`, ...); true when it
    /// was one.
    pub fn handle(&mut self, action: Action, len: usize, height: usize) -> bool {
        match movement(action, height) {
            Some(delta) => {
                self.shift(delta, len, height);
                true
            }
            None => false,
        }
    }

    /// A click on row `row` of the window (0: its first row shown); true
    /// when a row was there.
    pub fn click(&mut self, row: usize, len: usize, height: usize) -> bool {
        let index = self.offset + row;
        if index >= len {
            return false;
        }
        self.selected = index;
        self.keep_visible(len, height);
        true
    }

    pub fn keep_visible(&mut self, len: usize, height: usize) {
        let height = height.max(1);
        self.selected = self.selected.min(len.saturating_sub(1));
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        self.offset = self.offset.min(len.saturating_sub(height));
    }
}

/// A scrolled text (the detail, help, a call's result): how far it is
/// scrolled, clamped to its content. Drawing knows how many lines the text
/// wraps to at the current width and records the furthest scroll
/// ([`Scroll::set_limit`]); every movement clamps to it, so the view never
/// scrolls past the end and never needs presses to come back.
#[derive(Debug, Clone, Default)]
pub struct Scroll {
    pos: usize,
    /// The furthest scroll at the last drawn size (`None` before a draw).
    limit: std::cell::Cell<Option<usize>>,
}

/// Two scrolls are equal at the same place (the limit is drawing's note).
impl PartialEq for Scroll {
    fn eq(&self, other: &Scroll) -> bool {
        self.pos() == other.pos()
    }
}

impl Scroll {
    /// Lines scrolled past, within the content as last drawn.
    pub fn pos(&self) -> usize {
        self.limit.get().map_or(self.pos, |l| self.pos.min(l))
    }

    /// Back to the top.
    pub fn reset(&mut self) {
        self.pos = 0;
    }

    /// To line `line` (clamped to the text as last drawn).
    pub fn to(&mut self, line: usize) {
        self.pos = self.limit.get().map_or(line, |l| line.min(l));
    }

    /// Drawing says the text has `lines` lines in a window of `height`;
    /// returns the scroll to draw at.
    pub fn set_limit(&self, lines: usize, height: usize) -> usize {
        self.limit.set(Some(lines.saturating_sub(height)));
        self.pos()
    }

    /// A movement key, by pages of `height` lines: true when it was one.
    pub fn handle(&mut self, action: Action, height: usize) -> bool {
        let Some(d) = movement(action, height) else {
            return false;
        };
        let limit = self.limit.get().unwrap_or(usize::MAX / 4);
        let from = self.pos().min(limit) as isize;
        self.pos = from.saturating_add(d).clamp(0, limit as isize) as usize;
        true
    }
}
