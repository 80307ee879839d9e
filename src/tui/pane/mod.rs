//! The main screen's panes, each a folder with everything of its own: the
//! state and its keys (`mod.rs`) and its drawing (`draw.rs`, from the
//! read-only [`view::PaneView`] the app builds):
//! the catalog, the query box, the results, the detail. [`exact`] is the
//! provider's counts, which no one pane owns: the app keeps them and asks
//! for them, the detail and the Tokens box show them. The frame around the
//! panes (header, gauges, status line, and where each pane goes) is
//! [`super::ui`]; the screens over them are in [`super::screen`].

pub mod catalog;
pub mod detail;
pub mod exact;
pub mod query;
pub mod results;
pub mod view;

/// `[1] `: the key that focuses a pane, as its title shows it (lazygit's
/// way), or nothing when the action has no key.
pub fn number(keymap: &crate::tui::keymap::Keymap, action: crate::tui::action::Action) -> String {
    keymap
        .first(action)
        .map_or_else(String::new, |k| format!("[{k}] "))
}
