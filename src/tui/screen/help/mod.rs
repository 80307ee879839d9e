//! The help popup's state: how far it is scrolled, and its keys. What it
//! shows comes from the live keymap ([`crate::tui::help`]).

pub mod draw;
pub mod rows;

use ratatui::Frame;

use super::{On, Outcome, Popup, Screen, Screens, Unopened};
use crate::tui::action::{Action, Context, KeyGroup};
use crate::tui::effect::Effect;
use crate::tui::find::Find;
use crate::tui::list::Scroll;
use crate::tui::paint::Theme;

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

/// Help opens from its top, over the screen in front.
pub fn open(_on: &On, screens: &mut Screens) -> Result<Vec<Effect>, Unopened> {
    screens.kept_mut(HelpState::default).open();
    screens.show(Popup::Help);
    Ok(Vec::new())
}

impl Screen for HelpState {
    fn id(&self) -> Popup {
        Popup::Help
    }

    fn context(&self) -> Context {
        if self.find.typing() {
            Context::Input
        } else {
            Context::Main
        }
    }

    fn keys(&self) -> &'static [KeyGroup] {
        KEYS
    }

    fn handle(&mut self, action: Action, on: &On) -> Outcome {
        if HelpState::handle(self, action, on.layout.help_rows()) {
            Outcome::Close
        } else {
            Outcome::Stay
        }
    }

    fn area(&self, on: &On) -> ratatui::layout::Rect {
        on.layout.help_popup
    }

    fn draw(&self, f: &mut Frame, on: &On, theme: &Theme) {
        draw::draw(
            f,
            on.layout.help_popup,
            self,
            on.keymap,
            on.ask.servers(),
            on.ask.catalog_servers(),
            theme,
        );
    }

    fn over(&self) -> bool {
        true
    }

    fn find(&self) -> Option<&crate::tui::find::Find> {
        Some(&self.find)
    }

    fn find_mut(&mut self) -> Option<(&mut crate::tui::find::Find, &mut crate::tui::list::Scroll)> {
        Some((&mut self.find, &mut self.scroll))
    }

    fn wheel(&self) -> bool {
        true
    }

    fn kept(&self) -> bool {
        true
    }
}
