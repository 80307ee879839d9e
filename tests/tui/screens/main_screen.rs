//! The main screen: a search, a setting refused, help, the detail as a
//! popup, a terminal too small; colour off; a large terminal.

use super::{Scenario, Step::*, check_all};
use crate::common::explorer::{demo as app, demo_with as app_with, drawn, keys, screen, type_text};
use crossterm::event::KeyCode::{self, Char, Down, Enter, Esc, Tab};

const MAIN: &[Scenario] = &[
    Scenario {
        name: "start",
        size: (120, 35),
        steps: &[],
        shows: &[],
    },
    Scenario {
        name: "query_with_results",
        size: (120, 35),
        steps: &[
            Keys(&[Char('/')]),
            Type("refund a payment"),
            Keys(&[Esc, Tab, Down, Down, Down, Down]),
        ],
        shows: &["refund_payment"],
    },
    Scenario {
        name: "query_matching_nothing",
        size: (120, 35),
        steps: &[Keys(&[Char('/')]), Type("zebra xylophone")],
        shows: &["note: no tool matches the query"],
    },
    Scenario {
        name: "invalid_setting",
        size: (120, 35),
        steps: &[Keys(&[Char('s'), Down, Down, KeyCode::Right])],
        shows: &["max_loaded_tools must be at least the always_load tool count"],
    },
    Scenario {
        name: "help",
        size: (120, 35),
        steps: &[Keys(&[Char('?')])],
        shows: &[],
    },
    Scenario {
        name: "help_at_80x24_shows_how_to_scroll_and_close",
        size: (80, 24),
        steps: &[Keys(&[Char('?'), Char('j'), Char('j')])],
        shows: &["j k scroll · Esc close"],
    },
    Scenario {
        name: "small_terminal_80x24",
        size: (80, 24),
        steps: &[Keys(&[Char('/')]), Type("schedule a meeting")],
        shows: &[],
    },
    Scenario {
        name: "detail_popup_when_narrow",
        size: (90, 30),
        steps: &[Keys(&[Enter])],
        shows: &[],
    },
    Scenario {
        name: "too_small",
        size: (70, 20),
        steps: &[],
        shows: &[],
    },
];

#[test]
fn main_screen_scenarios() {
    check_all(MAIN, app);
}

#[test]
fn no_color_reads_the_same() {
    let mut colored = app(120, 35);
    keys(&mut colored, &[KeyCode::Char('/')]);
    type_text(&mut colored, "refund a payment");
    let mut plain = app_with(120, 35, |s| s.no_color = true);
    keys(&mut plain, &[KeyCode::Char('/')]);
    type_text(&mut plain, "refund a payment");
    // The text is the same; only styles differ, and without colour.
    assert_eq!(screen(&colored), screen(&plain));
    assert!(
        drawn(&plain)
            .content()
            .iter()
            .all(|c| c.fg == ratatui::style::Color::Reset && c.bg == ratatui::style::Color::Reset),
        "NO_COLOR draws no colour"
    );
}

#[test]
fn large_terminal_200x60() {
    let mut app = app(200, 60);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "refund a payment");
    keys(&mut app, &[KeyCode::Enter, KeyCode::Esc]);
    let s = screen(&app);
    assert!(s.contains("? F1 help") && s.contains("q quit"), "{s}");
    // The session id is random: check its shape, then pin it.
    let id = app.search().session.clone().unwrap();
    let short = toolsift::tui::ui::short_id(&id);
    assert!(s.contains(&format!("session {short}")), "{s}");
    insta::assert_snapshot!(s.replace(&short, "SESSION"));
}
