//! The comparison screen: one request searched two ways side by side, as
//! snapshots at 80x24 and 200x60, and its keys in the real binary.

use crossterm::event::KeyCode;

use toolsift::tui::app::App;

use crate::common::explorer::{demo, press, screen, type_text};
use crate::tty::Tty;

/// The demo explorer at `w` x `h` with `query` typed and the comparison
/// opened, then `keys` pressed.
fn compare(w: u16, h: u16, query: &str, keys: &[KeyCode]) -> App {
    let mut app = demo(w, h);
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, query);
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('v'));
    for &k in keys {
        press(&mut app, k);
    }
    app
}

#[test]
fn compare_strategy_all_80x24() {
    let app = compare(80, 24, "send an email to the team", &[]);
    let s = screen(&app);
    assert!(s.contains("only strategy all 56"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn compare_strategy_all_200x60() {
    let app = compare(200, 60, "send an email to the team", &[]);
    let s = screen(&app);
    assert!(
        s.contains("… and 56 other tools: strategy all sends every one"),
        "{s}"
    );
    insta::assert_snapshot!(s);
}

#[test]
fn compare_gate_off_80x24() {
    let app = compare(80, 24, "show the weather in Paris", &[KeyCode::Char('l')]);
    let s = screen(&app);
    assert!(s.contains("gate off (2/2)"), "{s}");
    assert!(s.contains("no tool fits"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn compare_gate_off_200x60() {
    let app = compare(200, 60, "show the weather in Paris", &[KeyCode::Char('l')]);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn scrolling_a_long_comparison_says_where_it_is() {
    // At 80x24 a side shows fewer rows than strategy all's list has.
    let mut app = compare(80, 24, "send an email to the team", &[]);
    let before = screen(&app);
    assert!(!before.contains(" of 9 "), "{before}");
    let mut app2 = compare(80, 24, "find a free slot for a meeting", &[]);
    for _ in 0..20 {
        press(&mut app2, KeyCode::Char('j'));
    }
    let s = screen(&app2);
    // The last row is the all side's "and N other tools".
    assert!(s.contains("more tools, all sent"), "{s}");
    press(&mut app, KeyCode::Char('a'));
    let applied = screen(&app);
    assert!(applied.contains("strategy all is in force"), "{applied}");
    assert!(!applied.contains("Compare ·"), "{applied}");
}

#[test]
fn an_empty_query_says_what_to_do() {
    let mut app = demo(120, 35);
    press(&mut app, KeyCode::Char('v'));
    let s = screen(&app);
    assert!(s.contains("nothing to compare: type a request"), "{s}");
}

#[test]
fn compare_in_a_real_terminal() {
    let mut tty = Tty::spawn_with(&[], &[]);
    tty.wait_for("Catalog");
    tty.send(b"/");
    tty.send(b"send an email to the team");
    tty.send(b"\x1b");
    // Esc read alone (an Esc and a key close together read as Alt-key).
    tty.wait_for("Tab pane");
    tty.send(b"v");
    tty.wait_for("only strategy all");
    tty.send(b"l");
    tty.wait_for("gate off (2/2)");
    tty.send(b"\x1b");
    tty.wait_gone("Compare ·");
    tty.send(b"q");
    assert!(tty.wait_exit().success());
}

#[test]
fn a_side_that_sends_more_of_the_same_tools_says_how_many() {
    // No tool fits: deferred and strategy all find the same tools (the
    // always-load ones), and strategy all sends the other 60 with them.
    for (w, h) in [(80, 24), (200, 60)] {
        let app = compare(w, h, "show the weather in Paris", &[]);
        let s = screen(&app);
        assert!(s.contains("strategy all (1/2) · sends 60 more"), "{s}");
        assert!(!s.contains("same tools"), "{s}");
    }
    // Gate off: the same tools, sent as they are.
    let app = compare(200, 60, "refund a payment", &[KeyCode::Char('l')]);
    let s = screen(&app);
    assert!(s.contains("gate off (2/2) · same tools"), "{s}");
}
