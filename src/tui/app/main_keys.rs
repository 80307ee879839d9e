//! The panes' actions: the main screen's keys once no popup and no text
//! box has taken them (a key that opens a screen opens it through the
//! registry).

use super::{App, Focus, Popup};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::screen;

impl App {
    /// The panes' actions.
    pub(super) fn on_main(&mut self, action: Action) -> Vec<Effect> {
        if let Some(open) = screen::opener(action) {
            return self.open_screen(open);
        }
        match action {
            Action::Quit => self.should_quit = true,
            Action::FocusQuery => self.focus_query(),
            Action::Escape => self.leave(),
            Action::CommandLine => self.cmdline.open(),
            Action::FocusCatalog => self.focus_pane(Focus::Catalog),
            Action::FocusResults => self.focus_pane(Focus::Results),
            Action::FocusDetail => self.focus_pane(Focus::Detail),
            Action::Zoom => self.toggle_zoom(),
            // The catalog's order and filter, whichever pane has the keys.
            Action::CycleSort | Action::ReverseSort | Action::CycleFilter => {
                self.move_in(Focus::Catalog, action)
            }
            Action::TogglePick => self.toggle_pick(),
            Action::FoldSchema | Action::ToggleWrap | Action::ScrollLeft | Action::ScrollRight => {
                self.detail_view_key(action)
            }
            Action::NextPane => self.cycle_pane(true),
            Action::PrevPane => self.cycle_pane(false),
            Action::OpenDetail => self.open_detail(),
            Action::ToggleAlwaysLoad => return self.toggle_always_load(),
            Action::ShowInCatalog => self.show_in_catalog(),
            Action::NameFilter => {
                self.focus = Focus::Catalog;
                self.last_list = Focus::Catalog;
                self.catalog_view.start_typing();
            }
            Action::NextMatch | Action::PrevMatch => self.step_match(action == Action::NextMatch),
            Action::RetrySearch => return self.retry_search(),
            Action::SendFullCatalog => {
                let full = self.full_tokens();
                let message = self.search.send_full_catalog(self.catalog.len(), full);
                self.status = Some(message);
            }
            Action::CopyTool => return self.copy_tool(),
            Action::OpenTool => return self.open_tool(),
            Action::LogIn => return self.log_in(),
            Action::CachingCosts => self.cycle_caching(),
            other => self.move_in(self.focus, other),
        }
        Vec::new()
    }

    /// The query box takes the keyboard; the list pane that had it is the
    /// one to come back to.
    fn focus_query(&mut self) {
        self.catalog_view.typing = false;
        if matches!(self.focus, Focus::Catalog | Focus::Results) {
            self.last_list = self.focus;
        }
        self.focus = Focus::Query;
    }

    /// Esc on the main screen: leaves the detail pane, else clears the
    /// catalog's kept name filter, else unpicks the picked tools, else
    /// says what it would have done.
    fn leave(&mut self) {
        if self.focus == Focus::Detail {
            self.focus = self.last_list;
        } else if self.focus == Focus::Catalog && self.catalog_view.clear_name() {
            // A kept name filter goes first.
            self.status = Some("name filter cleared".into());
            self.rebuild_view();
        } else if !self.unpick_all() {
            self.status = Some("nothing to leave: Esc closes a popup, leaves the detail pane, clears the name filter or unpicks the picked tools".into());
        }
    }

    /// The next (or previous) pane on screen takes the keyboard. Only the
    /// panes on screen take turns; the query box takes the keyboard
    /// through its own key (or a click).
    fn cycle_pane(&mut self, forward: bool) {
        self.catalog_view.typing = false;
        let order: &[Focus] = if self.layout.detail_is_popup() {
            &[Focus::Catalog, Focus::Results]
        } else {
            &[Focus::Catalog, Focus::Results, Focus::Detail]
        };
        let from = if self.focus == Focus::Query {
            self.last_list
        } else {
            self.focus
        };
        let n = order.len();
        let i = order.iter().position(|f| *f == from).unwrap_or(0);
        let step = if forward { 1 } else { n - 1 };
        self.focus = order[(i + step) % n];
        if matches!(self.focus, Focus::Catalog | Focus::Results) {
            self.last_list = self.focus;
        }
    }

    /// The current tool in the detail: a popup over a narrow screen, else
    /// the detail pane, which takes the keyboard.
    fn open_detail(&mut self) {
        self.detail.open();
        if self.layout.detail_is_popup() {
            self.screens.show(Popup::Detail);
        } else {
            self.focus = Focus::Detail;
        }
    }
}
