//! Whole screens of the explorer, drawn into ratatui's TestBackend after
//! scripted keys, compared with insta snapshots: tables of scenarios (a
//! size, the keys pressed and the text typed, what the screen must show),
//! and the sessions a table cannot say.

mod breaker;
mod main_screen;
mod mcp;
mod remote;
mod script;
mod tune;

use crossterm::event::KeyCode;

use toolsift::tui::app::App;

pub(crate) use crate::common::explorer::{keys, settle};
use crate::common::explorer::{screen, type_text};

/// A step of a scenario: keys pressed, or text typed a key per character.
pub(crate) enum Step {
    Keys(&'static [KeyCode]),
    Type(&'static str),
}

/// A scenario of a table: the explorer `start` makes at `size`, `steps`
/// played, then a screen that shows each of `shows` and matches the
/// snapshot called `name`.
pub(crate) struct Scenario {
    pub name: &'static str,
    pub size: (u16, u16),
    pub steps: &'static [Step],
    pub shows: &'static [&'static str],
}

pub(crate) fn play(app: &mut App, steps: &[Step]) {
    for step in steps {
        match step {
            Step::Keys(codes) => keys(app, codes),
            Step::Type(text) => type_text(app, text),
        }
    }
}

/// Every scenario of `table`, each from `start` at its size.
pub(crate) fn check_all(table: &[Scenario], start: impl Fn(u16, u16) -> App) {
    for s in table {
        let mut app = start(s.size.0, s.size.1);
        play(&mut app, s.steps);
        let shown = screen(&app);
        for needle in s.shows {
            assert!(
                shown.contains(needle),
                "{}: no {needle:?} in\n{shown}",
                s.name
            );
        }
        insta::assert_snapshot!(s.name, shown);
    }
}
