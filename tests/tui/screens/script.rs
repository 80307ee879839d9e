//! The explorer driven through its swappable message source, a script
//! of actions, typed text, pauses and resizes, in its real loop.

use std::sync::Arc;
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use toolsift::catalog::{CatalogSource, load};
use toolsift::search::Searcher;
use toolsift::tui::Setup;
use toolsift::tui::app::App;
use toolsift::tui::keymap::Keymap;

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
    let (mut app, initial) = App::new(Setup {
        keymap,
        ..Setup::new(catalog, Searcher::embedded())
    })
    .unwrap();
    let pause = ScriptStep::Pause(Duration::from_millis(300));
    let script = Script::new([
        ScriptStep::Action(Action::FocusQuery),
        ScriptStep::Type("refund a payment".into()),
        pause.clone(),
        ScriptStep::Action(Action::InputSubmit),
        // The committed search's answer (off the UI thread) must be back
        // before the quit below; generous, for a loaded CI machine.
        ScriptStep::Pause(Duration::from_secs(3)),
        // Enter kept the keys in the query box: Esc takes them to the
        // results.
        ScriptStep::Action(Action::InputCancel),
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
    assert!(app.should_quit());
    assert_eq!(app.query().text(), "refund a payment");
    assert_eq!(app.query().history, ["refund a payment"]);
    assert_eq!(app.settings().initial_tool_count.get(), 9);
    assert_eq!(app.popup(), None);
    assert!(
        app.search().session.is_some(),
        "the committed query opened a session"
    );
    assert_eq!(app.search().query, "refund a payment");
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
    let (mut app, initial) = App::new(Setup::new(catalog, Searcher::embedded())).unwrap();
    let script = Script::new([ScriptStep::Resize(90, 30)]);
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    toolsift::tui::run_with(&mut terminal, &mut app, initial, script.into_stream())
        .await
        .unwrap();
    assert!(app.should_quit());
    assert_eq!(app.size(), (90, 30));
}
