//! Whole screens of the explorer, drawn into ratatui's TestBackend after
//! scripted keys, compared with insta snapshots.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use toolsift::catalog::{CatalogSource, load};
use toolsift::search::Searcher;
use toolsift::tui::app::{App, Msg, Settings};
use toolsift::tui::keymap::Keymap;
use toolsift::tui::ui;

fn app(width: u16, height: u16) -> App {
    let catalog = Arc::new(load(&CatalogSource::demo()).unwrap());
    let (mut app, effects) = App::new(
        catalog,
        "demo".into(),
        Searcher::embedded(),
        Keymap::defaults(),
        Settings::default(),
    )
    .unwrap();
    app.update(Msg::Resize(width, height));
    app.settle(effects);
    app
}

fn keys(app: &mut App, keys: &[KeyCode]) {
    for &code in keys {
        let effects = app.update(Msg::Key(KeyEvent {
            code,
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }));
        app.settle(effects);
    }
}

fn type_text(app: &mut App, text: &str) {
    let codes: Vec<KeyCode> = text.chars().map(KeyCode::Char).collect();
    keys(app, &codes);
}

/// The screen as text. Latency is pinned so the snapshot does not change
/// from run to run.
fn screen(app: &mut App) -> String {
    if app.search.latency.is_some() {
        app.search.latency = Some(Duration::from_micros(210));
    }
    let (w, h) = app.size();
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| ui::draw(f, app)).unwrap();
    format!("{}", terminal.backend())
}

#[test]
fn start() {
    let mut app = app(120, 35);
    insta::assert_snapshot!(screen(&mut app));
}

#[test]
fn query_with_results() {
    let mut app = app(120, 35);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "refund a payment");
    keys(
        &mut app,
        &[
            KeyCode::Esc,
            KeyCode::Tab,
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Down,
        ],
    );
    let s = screen(&mut app);
    assert!(s.contains("refund_payment"));
    insta::assert_snapshot!(s);
}

#[test]
fn query_matching_nothing() {
    let mut app = app(120, 35);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "zebra xylophone");
    let s = screen(&mut app);
    assert!(s.contains("note: no tool matches the query"));
    insta::assert_snapshot!(s);
}

#[test]
fn failed_search() {
    let mut app = app(120, 35);
    let mut settings = app.settings.clone();
    settings.ranker = toolsift::engine::Ranker::Embeddings;
    let effects = app.apply_settings(settings);
    app.settle(effects);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "status");
    let s = screen(&mut app);
    assert!(s.contains("search failed"));
    insta::assert_snapshot!(s);
}

#[test]
fn invalid_setting() {
    let mut app = app(120, 35);
    keys(
        &mut app,
        &[
            KeyCode::Char('s'),
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Right,
        ],
    );
    let s = screen(&mut app);
    assert!(s.contains("max_loaded_tools must be at least the always_load tool count"));
    insta::assert_snapshot!(s);
}

#[test]
fn help() {
    let mut app = app(120, 35);
    keys(&mut app, &[KeyCode::Char('?')]);
    insta::assert_snapshot!(screen(&mut app));
}

#[test]
fn small_terminal_80x24() {
    let mut app = app(80, 24);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "schedule a meeting");
    insta::assert_snapshot!(screen(&mut app));
}

#[test]
fn detail_popup_when_narrow() {
    let mut app = app(90, 30);
    keys(&mut app, &[KeyCode::Enter]);
    insta::assert_snapshot!(screen(&mut app));
}

#[test]
fn too_small() {
    let mut app = app(70, 20);
    insta::assert_snapshot!(screen(&mut app));
}

/// The breaker simulator on `get_payment` after `keys`.
fn breaker_screen(keys_after: &[KeyCode]) -> String {
    let mut app = app(120, 35);
    // Highlight get_payment in the catalog, open the simulator.
    let index = app.catalog.index_of("get_payment").unwrap();
    let row = app
        .catalog_view
        .rows
        .iter()
        .position(|&i| i == index)
        .unwrap();
    keys(&mut app, &vec![KeyCode::Char('j'); row]);
    keys(&mut app, &[KeyCode::Char('b')]);
    keys(&mut app, keys_after);
    screen(&mut app)
}

#[test]
fn breaker_fresh() {
    insta::assert_snapshot!(breaker_screen(&[]));
}

#[test]
fn breaker_streak() {
    let s = breaker_screen(&[KeyCode::Enter, KeyCode::Enter]);
    assert!(s.contains("streak 2 of 3"));
    insta::assert_snapshot!(s);
}

#[test]
fn breaker_blocked() {
    let s = breaker_screen(&[KeyCode::Enter; 4]);
    assert!(s.contains("BLOCKED 4/3"));
    insta::assert_snapshot!(s);
}

#[test]
fn breaker_threshold_changed() {
    let s = breaker_screen(&[
        KeyCode::Enter,
        KeyCode::Enter,
        KeyCode::Enter,
        KeyCode::Char('+'),
        KeyCode::Char('+'),
        KeyCode::Enter,
    ]);
    assert!(s.contains("4/5"));
    insta::assert_snapshot!(s);
}

#[test]
fn breaker_reset() {
    let s = breaker_screen(&[
        KeyCode::Enter,
        KeyCode::Enter,
        KeyCode::Enter,
        KeyCode::Enter,
        KeyCode::Char('r'),
        KeyCode::Enter,
    ]);
    assert!(s.contains("breaker reset") || s.contains("1/3"));
    insta::assert_snapshot!(s);
}

#[test]
fn breaker_replay_tripped() {
    let s = breaker_screen(&[KeyCode::Char('o'), KeyCode::Enter, KeyCode::Char('R')]);
    assert!(s.contains("trips at call 9"));
    insta::assert_snapshot!(s);
}

#[test]
fn breaker_invalid_json() {
    let s = breaker_screen(&[
        KeyCode::Char('e'),
        KeyCode::Backspace,
        KeyCode::Char(','),
        KeyCode::Esc,
        KeyCode::Enter,
    ]);
    assert!(s.contains("invalid JSON"));
    assert!(s.contains("no calls yet"), "invalid JSON was not sent");
    insta::assert_snapshot!(s);
}

#[test]
fn no_color_reads_the_same() {
    let mut colored = app(120, 35);
    keys(&mut colored, &[KeyCode::Char('/')]);
    type_text(&mut colored, "refund a payment");
    let mut plain = app(120, 35);
    plain.no_color = true;
    keys(&mut plain, &[KeyCode::Char('/')]);
    type_text(&mut plain, "refund a payment");
    // The text is the same; only styles differ, and without colour.
    assert_eq!(screen(&mut colored), screen(&mut plain));
    let (w, h) = plain.size();
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| ui::draw(f, &plain)).unwrap();
    let buffer = terminal.backend().buffer();
    assert!(
        buffer
            .content()
            .iter()
            .all(|c| c.fg == ratatui::style::Color::Reset && c.bg == ratatui::style::Color::Reset),
        "NO_COLOR draws no colour"
    );
}

#[test]
fn breaker_at_80x24() {
    let mut app = app(80, 24);
    keys(
        &mut app,
        &[
            KeyCode::Char('b'),
            KeyCode::Char('o'),
            KeyCode::Enter,
            KeyCode::Char('n'),
            KeyCode::Char('n'),
            KeyCode::Enter,
        ],
    );
    insta::assert_snapshot!(screen(&mut app));
}

#[test]
fn help_at_80x24_shows_how_to_scroll_and_close() {
    let mut app = app(80, 24);
    keys(
        &mut app,
        &[KeyCode::Char('?'), KeyCode::Char('j'), KeyCode::Char('j')],
    );
    let s = screen(&mut app);
    assert!(s.contains("j k scroll · Esc close"), "{s}");
    insta::assert_snapshot!(s);
}

/// The explorer driven through its swappable message source: a script of
/// actions, typed text and pauses, on a TestBackend, without knowing the
/// keymap (here a remapped one, where the default keys would do nothing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_drives_the_explorer_to_a_clean_exit() {
    use toolsift::tui::action::Action;
    use toolsift::tui::event::{Script, ScriptStep};

    let catalog = Arc::new(load(&CatalogSource::demo()).unwrap());
    let user = toolsift::config::parse(
        "[keys]\nfocus_query = \"ctrl-f\"\nsettings = \"S\"\nquit = \"Q\"\n",
        "script.toml",
    )
    .unwrap();
    let keymap = Keymap::build(
        &Keymap::default_table(),
        &Keymap::table_of(&user),
        "script.toml",
    )
    .unwrap();
    let (mut app, initial) = App::new(
        catalog,
        "demo".into(),
        Searcher::embedded(),
        keymap,
        Settings::default(),
    )
    .unwrap();
    let pause = ScriptStep::Pause(Duration::from_millis(300));
    let script = Script::new([
        ScriptStep::Action(Action::FocusQuery),
        ScriptStep::Type("refund a payment".into()),
        pause.clone(),
        ScriptStep::Action(Action::InputSubmit),
        pause.clone(),
        ScriptStep::Action(Action::Settings),
        ScriptStep::Action(Action::SettingsDown),
        ScriptStep::Action(Action::SettingsIncrease),
        pause.clone(),
        ScriptStep::Action(Action::SettingsClose),
        pause,
        ScriptStep::Action(Action::Quit),
        // Never reached: the explorer has quit.
        ScriptStep::Type("ignored".into()),
    ])
    .with_key_delay(Duration::from_millis(1));
    let mut terminal = Terminal::new(TestBackend::new(120, 35)).unwrap();
    toolsift::tui::run_with(&mut terminal, &mut app, initial, script.into_stream())
        .await
        .expect("the loop ends cleanly");
    assert!(app.should_quit);
    assert_eq!(app.query.text(), "refund a payment");
    assert_eq!(app.query.history, ["refund a payment"]);
    assert_eq!(app.settings.initial_tool_count, 9);
    assert_eq!(app.popup, None);
    assert!(
        app.search.session.is_some(),
        "the committed query opened a session"
    );
    assert_eq!(app.search.query, "refund a payment");
    let screen = format!("{}", terminal.backend());
    assert!(screen.contains("> refund a payment"), "{screen}");
    assert!(screen.contains("init 9"), "{screen}");
    assert!(screen.contains("refund_payment"), "{screen}");
    assert!(
        screen.contains("S settings"),
        "the key line follows the keymap"
    );
}

#[tokio::test]
async fn a_script_that_ends_without_quitting_closes_the_explorer() {
    use toolsift::tui::event::{Script, ScriptStep};
    let catalog = Arc::new(load(&CatalogSource::demo()).unwrap());
    let (mut app, initial) = App::new(
        catalog,
        "demo".into(),
        Searcher::embedded(),
        Keymap::defaults(),
        Settings::default(),
    )
    .unwrap();
    let script = Script::new([ScriptStep::Resize(90, 30)]);
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    toolsift::tui::run_with(&mut terminal, &mut app, initial, script.into_stream())
        .await
        .unwrap();
    assert!(app.should_quit);
    assert_eq!(app.size(), (90, 30));
}

#[test]
fn large_terminal_200x60() {
    let mut app = app(200, 60);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "refund a payment");
    keys(&mut app, &[KeyCode::Enter]);
    let s = screen(&mut app);
    assert!(s.contains("? F1 help") && s.contains("q quit"), "{s}");
    // The session id is random: check its shape, then pin it.
    let id = app.search.session.clone().unwrap();
    let short = toolsift::tui::ui::short_id(&id);
    assert!(s.contains(&format!("session {short}")), "{s}");
    insta::assert_snapshot!(s.replace(&short, "SESSION"));
}
