//! The breaker simulator: a streak, a block, the threshold changed, a
//! reset, a trace replayed, arguments that are not JSON.

use crossterm::event::KeyCode::{Backspace, Char, Enter, Esc};

use toolsift::tui::app::App;

use super::{Scenario, Step::*, check_all};
use crate::common::explorer::{demo, highlight, keys};

/// The demo explorer at `width` x `height`, `get_payment` highlighted in
/// the catalog and the simulator opened on it.
fn on_get_payment(width: u16, height: u16) -> App {
    let mut app = demo(width, height);
    highlight(&mut app, "get_payment");
    keys(&mut app, &[Char('b')]);
    app
}

const ON_GET_PAYMENT: &[Scenario] = &[
    Scenario {
        name: "breaker_fresh",
        size: (120, 35),
        steps: &[],
        shows: &[],
    },
    Scenario {
        name: "breaker_streak",
        size: (120, 35),
        steps: &[Keys(&[Enter, Enter])],
        shows: &["streak 2 of 3"],
    },
    Scenario {
        name: "breaker_blocked",
        size: (120, 35),
        steps: &[Keys(&[Enter; 4])],
        shows: &["BLOCKED 4/3"],
    },
    Scenario {
        name: "breaker_threshold_changed",
        size: (120, 35),
        steps: &[Keys(&[Enter, Enter, Enter, Char('+'), Char('+'), Enter])],
        shows: &["4/5"],
    },
    Scenario {
        name: "breaker_reset",
        size: (120, 35),
        steps: &[Keys(&[Enter, Enter, Enter, Enter, Char('r'), Enter])],
        shows: &["1/3"],
    },
    Scenario {
        name: "breaker_replay_tripped",
        size: (120, 35),
        steps: &[Keys(&[Char('o'), Enter, Char('R')])],
        shows: &["trips at call 10 (trace line 10)"],
    },
    Scenario {
        name: "breaker_invalid_json",
        size: (120, 35),
        steps: &[Keys(&[Char('e'), Backspace, Char(','), Esc, Enter])],
        // Not sent: no call is logged.
        shows: &["invalid JSON", "no calls yet"],
    },
];

#[test]
fn breaker_scenarios() {
    check_all(ON_GET_PAYMENT, on_get_payment);
}

#[test]
fn breaker_at_80x24() {
    check_all(
        &[Scenario {
            name: "breaker_at_80x24",
            size: (80, 24),
            steps: &[Keys(&[
                Char('b'),
                Char('o'),
                Enter,
                Char('n'),
                Char('n'),
                Enter,
            ])],
            shows: &[],
        }],
        demo,
    );
}
