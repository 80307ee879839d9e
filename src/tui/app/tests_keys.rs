//! The keymap through the app: keys a config file remaps, and every key as
//! an action a script can send.

use crossterm::event::KeyCode;

use super::tests::{demo_with, editor, press, settle, started};
use super::*;
use crate::tools_handle::Strategy;
use crate::tui::screen::breaker::BreakerPane;

/// The built-in keymap with a user config file's `[keys]` over it.
fn keymap_from_toml(text: &str) -> Keymap {
    let file = crate::config::parse(text, "/home/u/.config/toolsift/config.toml").unwrap();
    Keymap::build(
        &Keymap::default_table(),
        &Keymap::table_of(&file),
        "/home/u/.config/toolsift/config.toml",
    )
    .unwrap()
}

/// Everything help shows, as text.
fn help_text(app: &App) -> String {
    crate::tui::screen::help::rows::help_rows(
        app.keymap(),
        app.mcp_servers(),
        !app.catalog_view().servers.is_empty(),
    )
    .iter()
    .map(|r| format!("{r:?}"))
    .collect::<Vec<_>>()
    .join("\n")
}

fn key_line_text(app: &App, own: &[crate::tui::action::KeyGroup]) -> String {
    crate::tui::help::screen_line(app.keymap(), own, false, true)
        .iter()
        .map(|h| format!("{} {}", h.keys, h.what))
        .collect::<Vec<_>>()
        .join("  ")
}

#[test]
fn remapped_breaker_and_settings_keys_from_a_config_file() {
    let keymap = keymap_from_toml(
        r#"
[keys]
breaker_call = ["x"]
breaker_threshold_up = ["u"]
settings_down = ["n"]
settings_increase = ["p"]
"#,
    );
    let (mut app, effects) = demo_with(keymap);
    settle(&mut app, effects);
    // Settings: n moves down, p raises; the old keys do nothing.
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.popup(), Some(Popup::Settings));
    press(&mut app, KeyCode::Down);
    assert_eq!(editor(&app).row, 0, "↓ is no longer settings_down");
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(editor(&app).row, 1);
    press(&mut app, KeyCode::Right);
    assert_eq!(
        app.settings().initial_tool_count.get(),
        8,
        "→ no longer raises"
    );
    press(&mut app, KeyCode::Char('p'));
    assert_eq!(app.settings().initial_tool_count.get(), 9);
    let line = key_line_text(&app, crate::tui::screen::settings::KEYS);
    assert!(line.contains("↑ n choose"), "{line}");
    assert!(line.contains("← p change"), "{line}");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.popup(), None);
    // Breaker: x calls, u raises the threshold; Enter and + do nothing.
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.popup(), Some(Popup::Breaker));
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('+'));
    let pane = app.screen::<BreakerPane>().unwrap();
    assert!(pane.log.is_empty());
    assert_eq!(pane.breaker.threshold(), 3);
    press(&mut app, KeyCode::Char('x'));
    press(&mut app, KeyCode::Char('u'));
    let pane = app.screen::<BreakerPane>().unwrap();
    assert_eq!(pane.log.len(), 1);
    assert_eq!(pane.breaker.threshold(), 4);
    // Help and the key lines show the new keys, not the old ones.
    let help = help_text(&app);
    assert!(
        help.contains(r#"keys: "x", what: "call the tool once"#),
        "{help}"
    );
    assert!(help.contains(r#"keys: "u", what: "raise the threshold""#));
    assert!(help.contains(r#"keys: "j ↓", what: "move down"#));
    let line = key_line_text(&app, crate::tui::screen::breaker::KEYS);
    assert!(line.starts_with("x call"), "{line}");
    assert!(line.contains("u - threshold"), "{line}");
    // The breaker's q still closes it; the main screen's keys are untouched.
    press(&mut app, KeyCode::Char('q'));
    assert_eq!(app.popup(), None);
    press(&mut app, KeyCode::Char('x'));
    assert_eq!(
        app.popup(),
        Some(Popup::Export),
        "x on the main screen is its own export key, not the breaker's call"
    );
}

#[test]
fn every_key_is_an_action_that_scripts_can_send() {
    let mut app = started();
    let act = |app: &mut App, a: Action| {
        let effects = app.update(Msg::Action(a));
        settle(app, effects);
    };
    // An action of another screen does nothing.
    act(&mut app, Action::BreakerCall);
    assert!(app.screen::<BreakerPane>().is_none());
    act(&mut app, Action::FocusQuery);
    app.update(Msg::Type("refund".into()));
    let effects = app.update(Msg::Type(" payment".into()));
    settle(&mut app, effects);
    assert_eq!(app.search().query, "refund payment");
    act(&mut app, Action::InputDeleteWord);
    assert_eq!(app.query().text(), "refund ");
    act(&mut app, Action::InputSubmit);
    assert_eq!(app.focus(), Focus::Query);
    act(&mut app, Action::InputCancel);
    assert_eq!(app.focus(), Focus::Results);
    // Typing with no text box does nothing (not even through the keymap).
    app.update(Msg::Type("q".into()));
    assert!(!app.should_quit());
    act(&mut app, Action::Settings);
    act(&mut app, Action::SettingsIncrease);
    assert_eq!(app.settings().strategy, Strategy::All);
    act(&mut app, Action::SettingsClose);
    act(&mut app, Action::QuitNow);
    assert!(app.should_quit());
}
