//! Keys, typed text and the mouse, resolved for the screen that has them.

use crossterm::event::{KeyEvent, MouseEvent};

use super::{App, Command, Focus, Popup};
use crate::tui::action::{Action, Context};
use crate::tui::effect::Effect;
use crate::tui::keymap::Key;
use crate::tui::pane::catalog::NameOutcome;

impl App {
    /// Main-screen actions that keys typing no text reach from the query box.
    pub(super) fn reaches_from_query(action: Action) -> bool {
        matches!(
            action,
            Action::Quit
                | Action::Help
                | Action::Settings
                | Action::NextPane
                | Action::PrevPane
                | Action::RetrySearch
        )
    }

    /// A key in the screen's context, else text typed in a text box, else a
    /// global action.
    pub(super) fn resolve(&self, ev: &KeyEvent) -> Option<Command> {
        let context = self.context();
        if let Some(a) = self.keymap.action_in(context, ev) {
            return Some(Command::Act(a));
        }
        if context == Context::Input {
            if let Some(c) = Key::from_event(ev).and_then(|k| k.text()) {
                return Some(Command::Type(c));
            }
            // Help's key that types nothing (F1) opens help over any text
            // box.
            if self.keymap.action_in(Context::Main, ev) == Some(Action::Help) {
                return Some(Command::Act(Action::Help));
            }
            if self.screens.front().is_none()
                && let Some(a) = self.keymap.action_in(Context::Main, ev)
                && App::reaches_from_query(a)
            {
                return Some(Command::Act(a));
            }
        }
        // Help, from a screen whose own keys leave its key free (every
        // screen's own context: neither the panes' nor a text box's).
        if !matches!(context, Context::Main | Context::Input | Context::Global)
            && self.keymap.action_in(Context::Main, ev) == Some(Action::Help)
        {
            return Some(Command::Act(Action::Help));
        }
        self.keymap.action_in(Context::Global, ev).map(Command::Act)
    }

    /// A click focuses the pane under it and selects the row clicked; the
    /// wheel scrolls the pane under it (help and detail popups too).
    /// Other screens take keys only.
    pub(super) fn mouse(&mut self, m: MouseEvent) {
        use crossterm::event::{MouseButton, MouseEventKind};
        let at = ratatui::layout::Position::new(m.column, m.row);
        let wheel = match m.kind {
            MouseEventKind::ScrollDown => Some(Action::Down),
            MouseEventKind::ScrollUp => Some(Action::Up),
            _ => None,
        };
        let wheels = match self.screens.front() {
            Some(Popup::Detail) => true,
            Some(_) => self.screens.front_screen().is_some_and(|s| s.wheel()),
            None => false,
        };
        if self.screens.front().is_some() {
            if wheels && let Some(a) = wheel {
                for _ in 0..3 {
                    self.act(a);
                }
            }
            return;
        }
        let l = self.layout;
        let pane = if l.catalog.contains(at) {
            Focus::Catalog
        } else if l.results.contains(at) {
            Focus::Results
        } else if l.detail.is_some_and(|d| d.contains(at)) {
            Focus::Detail
        } else if l.query.contains(at) {
            Focus::Query
        } else {
            return;
        };
        if let Some(a) = wheel {
            if pane != Focus::Query {
                for _ in 0..3 {
                    self.move_in(pane, a);
                }
            }
            return;
        }
        if m.kind != MouseEventKind::Down(MouseButton::Left) {
            return;
        }
        if matches!(pane, Focus::Catalog | Focus::Results) {
            self.last_list = pane;
        }
        self.focus = pane;
        // The row clicked (the pane's first row is under its top border).
        if m.row > l.catalog.y && m.row + 1 < l.catalog.bottom() {
            let row = usize::from(m.row - l.catalog.y - 1);
            let height = self.list_height();
            match pane {
                Focus::Catalog => self.catalog_view.click(row, height),
                Focus::Results => self.search.click(row, height),
                _ => {}
            }
        }
    }

    /// What a key of the catalog's name filter asks for.
    pub(super) fn on_name(&mut self, outcome: NameOutcome) {
        match outcome {
            NameOutcome::Nothing | NameOutcome::Leave => {}
            NameOutcome::Changed | NameOutcome::Cleared => self.rebuild_view(),
        }
    }

    /// `n` / `N`: the next or previous tool matching the name filter.
    pub(super) fn step_match(&mut self, forward: bool) {
        let height = self.list_height();
        self.focus = Focus::Catalog;
        self.last_list = Focus::Catalog;
        if !self.catalog_view.step_match(forward, height) {
            let filter = self.catalog_view.name_filter();
            self.status = Some(if filter.is_empty() {
                format!(
                    "no name filter: {} types one",
                    self.keymap.label(Action::NameFilter)
                )
            } else {
                self.catalog_view.empty_reason(&self.catalog)
            });
        }
    }

    /// A movement (or a catalog pane's sort and filter) in `pane`.
    pub(super) fn move_in(&mut self, pane: Focus, action: Action) {
        let height = self.list_height();
        match pane {
            Focus::Results => {
                self.search.handle(action, height);
            }
            Focus::Detail => self.detail.scroll(action, self.layout.detail_rows()),
            _ => {
                if self.catalog_view.handle(action, height) {
                    self.rebuild_view();
                }
            }
        }
    }

    /// Text into the text box that has the keyboard.
    pub(super) fn type_text(&mut self, text: &str) -> Vec<Effect> {
        if self.context() != Context::Input || self.find_type(text) {
            return Vec::new();
        }
        if let Some(screen) = self.screens.front_screen_mut() {
            screen.type_text(text);
            return Vec::new();
        }
        match () {
            _ if self.catalog_view.typing => {
                let outcome = self.catalog_view.type_name(text);
                self.on_name(outcome);
            }
            _ => {
                let outcome = self.query.type_text(text);
                return self.on_query(outcome);
            }
        }
        Vec::new()
    }
}
