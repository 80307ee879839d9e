//! The command line, the panes by number, the zoom, the catalog's sort
//! by column and reversed, and keys that do nothing saying so: through
//! `App::update`, as a person's keys.

use crossterm::event::{KeyCode, KeyModifiers};

use super::tests::{key_mod, press, settle, started};
use super::*;
use crate::engine::Ranker;
use crate::tools_handle::Strategy;
use crate::tui::pane::catalog::Sort;

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// `:` then `line` then Enter.
fn command(app: &mut App, line: &str) {
    press(app, KeyCode::Char(':'));
    assert!(app.cmdline().is_open());
    typed(app, line);
    press(app, KeyCode::Enter);
    assert!(!app.cmdline().is_open());
}

fn status(app: &App) -> String {
    app.status().unwrap_or_default().to_string()
}

#[test]
fn colon_runs_an_action_by_its_name_and_quits() {
    let mut app = started();
    command(&mut app, "tune");
    assert_eq!(app.popup(), Some(Popup::Tune));
    press(&mut app, KeyCode::Esc);
    // Letters typed on the line are words, never keys of the panes.
    press(&mut app, KeyCode::Char(':'));
    typed(&mut app, "bq");
    assert_eq!(app.popup(), None);
    assert!(!app.should_quit());
    press(&mut app, KeyCode::Esc);
    assert!(!app.cmdline().is_open(), "Esc leaves the line");
    assert!(!app.should_quit());
    command(&mut app, "q");
    assert!(app.should_quit());
}

#[test]
fn colon_settings_go_through_the_settings_validation() {
    let mut app = started();
    command(&mut app, "cap 5");
    assert_eq!(
        app.settings().max_loaded_tools,
        crate::tools_handle::MaxTools::new(5),
        "{}",
        status(&app)
    );
    assert!(status(&app).contains("cap 5"), "{}", status(&app));
    // The settings popup opens on what the line put in force.
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(
        super::tests::editor(&app).edited.max_loaded_tools,
        crate::tools_handle::MaxTools::new(5)
    );
    press(&mut app, KeyCode::Esc);
    command(&mut app, "strategy all");
    assert_eq!(app.settings().strategy, Strategy::All);
    command(&mut app, "strategy deferred");
    // A value the SDK refuses leaves the settings as they were, and says
    // why.
    command(&mut app, "cap -3");
    assert_eq!(
        app.settings().max_loaded_tools,
        crate::tools_handle::MaxTools::new(5)
    );
    assert!(status(&app).contains("refused"), "{}", status(&app));
    // A bad word is named.
    command(&mut app, "ranker quick");
    assert_eq!(app.settings().ranker, Ranker::Bm25);
    assert!(status(&app).contains("\"quick\""), "{}", status(&app));
    command(&mut app, "sqrt 2");
    assert!(status(&app).contains("\"sqrt\""), "{}", status(&app));
}

#[test]
fn tab_completes_on_the_line_and_up_recalls() {
    let mut app = started();
    press(&mut app, KeyCode::Char(':'));
    typed(&mut app, "tu");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.cmdline().input.text, "tune");
    let (found, _) = app.cmdline().candidates();
    assert_eq!(found, ["tune"]);
    press(&mut app, KeyCode::Esc);
    command(&mut app, "sort name");
    press(&mut app, KeyCode::Char(':'));
    press(&mut app, KeyCode::Up);
    assert_eq!(app.cmdline().input.text, "sort name");
    // Ctrl-C still quits from the line.
    let effects = app.update(key_mod(KeyCode::Char('c'), KeyModifiers::CONTROL));
    settle(&mut app, effects);
    assert!(app.should_quit());
}

#[test]
fn the_catalog_sorts_by_any_column_and_in_reverse() {
    let mut app = started();
    command(&mut app, "sort name reverse");
    let view = app.catalog_view();
    assert_eq!((view.sort, view.reverse), (Sort::Name, true));
    let names: Vec<String> = view
        .rows
        .iter()
        .map(|&i| app.tool(i).name.to_lowercase())
        .collect();
    assert!(names.windows(2).all(|w| w[0] >= w[1]), "{names:?}");
    assert_eq!(view.sort_label().as_deref(), Some("by name, reversed"));
    // O reverses back; o steps to the next column and starts forward.
    press(&mut app, KeyCode::Char('O'));
    assert!(!app.catalog_view().reverse);
    press(&mut app, KeyCode::Char('O'));
    press(&mut app, KeyCode::Char('o'));
    assert_eq!(app.catalog_view().sort, Sort::Tokens);
    assert!(!app.catalog_view().reverse);
    command(&mut app, "sort flags");
    let always: Vec<bool> = app
        .catalog_view()
        .rows
        .iter()
        .map(|&i| app.tool(i).always_load)
        .collect();
    assert!(always.windows(2).all(|w| w[0] >= w[1]), "always-load first");
    // The demo catalog's tools name no server.
    command(&mut app, "sort server");
    assert_eq!(app.catalog_view().sort, Sort::Flags);
    assert!(status(&app).contains("server"), "{}", status(&app));
    // From the results pane too: the sort is the catalog's.
    press(&mut app, KeyCode::Char('2'));
    press(&mut app, KeyCode::Char('O'));
    assert!(app.catalog_view().reverse);
}

#[test]
fn digits_focus_panes_and_the_zoom_follows_the_focus() {
    let mut app = started();
    let effects = app.update(Msg::Resize(120, 35));
    settle(&mut app, effects);
    press(&mut app, KeyCode::Char('2'));
    assert_eq!(app.focus(), Focus::Results);
    press(&mut app, KeyCode::Char('3'));
    assert_eq!(app.focus(), Focus::Detail);
    press(&mut app, KeyCode::Char('1'));
    assert_eq!(app.focus(), Focus::Catalog);
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(app.zoomed_pane(), Some(Focus::Catalog));
    assert_eq!(app.layout().catalog.width, 120);
    assert_eq!(app.layout().results.width, 0);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.layout().results.width, 120);
    assert_eq!(app.layout().catalog.width, 0);
    // A resize keeps the zoom.
    let effects = app.update(Msg::Resize(200, 60));
    settle(&mut app, effects);
    assert_eq!(app.layout().results.width, 200);
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(app.zoomed_pane(), None);
    assert!(app.layout().catalog.width > 0 && app.layout().results.width > 0);
    // At 80 columns the detail is a popup: 3 opens it.
    let effects = app.update(Msg::Resize(80, 24));
    settle(&mut app, effects);
    press(&mut app, KeyCode::Char('3'));
    assert_eq!(app.popup(), Some(Popup::Detail));
}

#[test]
fn a_key_that_does_nothing_says_so() {
    let mut app = started();
    for c in ['Z', '7', '!'] {
        press(&mut app, KeyCode::Char(c));
        let said = status(&app);
        assert!(
            said.starts_with(&format!("{c} does nothing here")) && said.contains('?'),
            "{c}: {said}"
        );
    }
    press(&mut app, KeyCode::F(9));
    assert!(status(&app).starts_with("F9 does nothing here"));
}

#[test]
fn open_reads_another_catalog_and_a_bad_file_leaves_the_one_in_view() {
    let mut app = started();
    let before = app.catalog().len();
    command(&mut app, "open /no/such/catalog.json");
    assert_eq!(app.catalog().len(), before);
    assert!(status(&app).contains(":open"), "{}", status(&app));
    command(&mut app, "open @synthetic-100");
    assert_eq!(app.catalog().len(), 100, "{}", status(&app));
    assert!(
        status(&app).starts_with("opened @synthetic-100"),
        "{}",
        status(&app)
    );
    assert_eq!(app.sources(), "@synthetic-100");
}

#[test]
fn colon_follow_opens_the_live_screen_and_asks_the_loop_to_follow() {
    let mut app = started();
    press(&mut app, KeyCode::Char(':'));
    typed(&mut app, "follow http://127.0.0.1:9/mcp");
    let effects = app.update(super::tests::key(KeyCode::Enter));
    assert_eq!(app.popup(), Some(Popup::Live));
    let Some(crate::tui::effect::Effect::Follow(source)) = effects.first() else {
        panic!("no follow asked: {effects:?}");
    };
    assert_eq!(
        source,
        &crate::follow::Source::Url {
            url: "http://127.0.0.1:9/events".into(),
            key: None
        }
    );
    assert_eq!(
        app.followed_source().as_ref(),
        Some(source),
        "the live screen follows what the loop is asked to"
    );
    press(&mut app, KeyCode::Esc);
    // A key's variable that is not set is named, and nothing changes.
    command(
        &mut app,
        "follow http://127.0.0.1:9 TOOLSIFT_NO_SUCH_VARIABLE",
    );
    assert!(
        status(&app).contains("TOOLSIFT_NO_SUCH_VARIABLE is not set"),
        "{}",
        status(&app)
    );
    assert_eq!(app.popup(), None);
    command(&mut app, "follow a b c");
    assert!(
        status(&app).contains(":follow URL [KEY_ENV]"),
        "{}",
        status(&app)
    );
}
