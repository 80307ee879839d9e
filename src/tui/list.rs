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
