//! The slips a live demo makes, each held by a test that failed before its
//! fix: keys that act where the user believes they are typing, keys that
//! do nothing without a word.

use crossterm::event::KeyCode;

use super::tests_finish::{draw, key, sized};
use super::tests_trust::query;
use super::{Focus, Popup};

fn always(app: &super::App) -> usize {
    (0..app.catalog().len())
        .filter(|&i| app.tool(i).always_load)
        .count()
}

#[test]
fn after_enter_the_letters_typed_next_are_words_not_commands() {
    let mut app = sized(80, 24);
    let before = always(&app);
    query(&mut app, "refund a payment");
    let rows = key(&mut app, KeyCode::Enter);
    // Still typing, and the screen says so.
    assert_eq!(app.focus(), Focus::Query);
    assert!(
        rows.iter().any(|r| r.contains("Query · typing")),
        "{rows:#?}"
    );
    assert!(
        rows.last().unwrap().contains("still typing"),
        "{}",
        rows.join("\n")
    );
    for c in " page the on-call".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    assert_eq!(app.query().text(), "refund a payment page the on-call");
    assert_eq!(always(&app), before, "`a` toggled always-load");
    assert_eq!(app.popup(), None, "`t` opened a screen");
    // Esc takes the keys to the results the search gave.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.focus(), Focus::Results);
    let rows = draw(&app);
    assert!(!rows.iter().any(|r| r.contains("· typing")), "{rows:#?}");
    key(&mut app, KeyCode::Char('t'));
    assert_eq!(app.popup(), Some(Popup::Tune));
}
