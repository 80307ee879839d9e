//! What a key can ask for. The keymap names these in snake_case.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    FocusQuery,
    Escape,
    NextPane,
    PrevPane,
    Down,
    Up,
    Top,
    Bottom,
    HalfPageDown,
    HalfPageUp,
    OpenDetail,
    ToggleAlwaysLoad,
    CycleSort,
    CycleFilter,
    Settings,
    Breaker,
    Help,
}

impl Action {
    /// Every action, in the order help lists them.
    pub const ALL: [Action; 18] = [
        Action::FocusQuery,
        Action::Escape,
        Action::NextPane,
        Action::PrevPane,
        Action::Down,
        Action::Up,
        Action::Top,
        Action::Bottom,
        Action::HalfPageDown,
        Action::HalfPageUp,
        Action::OpenDetail,
        Action::ToggleAlwaysLoad,
        Action::CycleSort,
        Action::CycleFilter,
        Action::Settings,
        Action::Breaker,
        Action::Help,
        Action::Quit,
    ];

    /// The name in the keymap (`focus_query`).
    pub fn name(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::FocusQuery => "focus_query",
            Action::Escape => "escape",
            Action::NextPane => "next_pane",
            Action::PrevPane => "prev_pane",
            Action::Down => "down",
            Action::Up => "up",
            Action::Top => "top",
            Action::Bottom => "bottom",
            Action::HalfPageDown => "half_page_down",
            Action::HalfPageUp => "half_page_up",
            Action::OpenDetail => "open_detail",
            Action::ToggleAlwaysLoad => "toggle_always_load",
            Action::CycleSort => "cycle_sort",
            Action::CycleFilter => "cycle_filter",
            Action::Settings => "settings",
            Action::Breaker => "breaker",
            Action::Help => "help",
        }
    }

    pub fn from_name(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.name() == name)
    }

    /// What it does, for the help screen.
    pub fn describe(self) -> &'static str {
        match self {
            Action::Quit => "quit (Ctrl-C always quits)",
            Action::FocusQuery => "type a query: search runs on every keystroke",
            Action::Escape => "close a popup / leave the query box",
            Action::NextPane => "next pane",
            Action::PrevPane => "previous pane",
            Action::Down => "move down",
            Action::Up => "move up",
            Action::Top => "go to the top",
            Action::Bottom => "go to the bottom",
            Action::HalfPageDown => "half a page down",
            Action::HalfPageUp => "half a page up",
            Action::OpenDetail => "detail of the highlighted tool",
            Action::ToggleAlwaysLoad => "toggle always-load on the highlighted tool",
            Action::CycleSort => "sort the catalog: catalog order, name, tokens",
            Action::CycleFilter => "filter the catalog: all, always-load, initial, selected",
            Action::Settings => "settings: strategy, initial count, caps, ranker, token basis",
            Action::Breaker => "breaker simulator: call the highlighted tool, replay a trace",
            Action::Help => "this help",
        }
    }
}
