//! How the detail shows its text: the schema folded (`z`), long lines
//! wrapped or run past the edge (`w`), scrolled sideways (← →).

use super::{App, Focus, Popup};
use crate::tui::action::Action;

impl App {
    /// How the detail shows its text: the schema folded (`z`), long lines
    /// wrapped or not (`w`), scrolled sideways (← →). Where no detail
    /// shows, or it shows beside a pane that has the keys, the status line
    /// says how to reach it.
    pub(super) fn detail_view_key(&mut self, action: Action) {
        let detail_has_keys = self.screens.front() == Some(Popup::Detail)
            || (self.screens.front().is_none() && self.focus == Focus::Detail);
        let message = match action {
            Action::FoldSchema if detail_has_keys || !self.layout.detail_is_popup() => {
                Some(self.detail.cycle_fold())
            }
            Action::ToggleWrap if detail_has_keys || !self.layout.detail_is_popup() => {
                Some(self.detail.toggle_wrap())
            }
            Action::ScrollLeft | Action::ScrollRight if detail_has_keys => {
                self.detail.sideways(action == Action::ScrollRight).err()
            }
            Action::ScrollLeft | Action::ScrollRight => Some(
                "← → scroll the detail sideways: Tab to it first (w lets its lines run past the edge)",
            ),
            _ => Some("the detail folds and unwraps when it shows: Enter opens it"),
        };
        if let Some(m) = message {
            self.status = Some(m.to_string());
        }
    }
}
