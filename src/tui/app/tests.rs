//! `App::update` without a terminal: keys in, state and effects out, read
//! through the app's methods.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};

use super::*;
use crate::catalog::{CatalogSource, load};
use crate::search::Searcher;
use crate::tokens::TokenBasis;
use crate::tools_handle::Strategy;
use crate::tui::list::ListState;
use crate::tui::pane::catalog::{Filter, Sort};
use crate::tui::pane::results::Results;
use crate::tui::screen::breaker::BreakerPane;
use crate::tui::screen::settings::SettingsEditor;
use crate::tui::screen::tune::TunePane;

/// The explorer on the demo catalog, as `setup` changes it.
pub(super) fn demo_setup(setup: impl FnOnce(&mut Setup)) -> (App, Vec<Effect>) {
    let catalog = Arc::new(load(&CatalogSource::demo()).unwrap());
    let mut s = Setup {
        sources: "demo".into(),
        ..Setup::new(catalog, Searcher::embedded())
    };
    setup(&mut s);
    App::new(s).unwrap()
}

pub(super) fn demo_with(keymap: Keymap) -> (App, Vec<Effect>) {
    demo_setup(|s| s.keymap = keymap)
}

fn demo() -> (App, Vec<Effect>) {
    demo_with(Keymap::defaults())
}

/// The settings popup's state (kept from the start).
pub(super) fn editor(app: &App) -> &SettingsEditor {
    app.screen()
        .expect("the settings editor is kept from the start")
}

/// The Tune screen's state (kept from the start).
pub(super) fn tune(app: &App) -> &TunePane {
    app.screen().expect("Tune is kept from the start")
}

pub(super) fn settle(app: &mut App, effects: Vec<Effect>) {
    app.settle(effects);
}

pub(super) fn started() -> App {
    let (mut app, effects) = demo();
    settle(&mut app, effects);
    app
}

pub(super) fn key_mod(code: KeyCode, modifiers: KeyModifiers) -> Msg {
    Msg::Key(KeyEvent {
        code,
        modifiers,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    })
}

pub(super) fn key(code: KeyCode) -> Msg {
    key_mod(code, KeyModifiers::NONE)
}

pub(super) fn press(app: &mut App, code: KeyCode) {
    let effects = app.update(key(code));
    settle(app, effects);
}

fn chars(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

fn result_names(app: &App) -> Vec<String> {
    match &app.search().results {
        Results::Found(r) => r
            .tools
            .iter()
            .map(|h| app.tool(h.index).name.clone())
            .collect(),
        other => panic!("no results: {other:?}"),
    }
}

#[test]
fn starts_with_always_load_results_and_costs() {
    let app = started();
    assert_eq!(app.focus(), Focus::Catalog);
    assert!(app.costs().is_some());
    let names = result_names(&app);
    assert_eq!(names.len(), 4, "empty query: the always-load tools");
    assert!(
        matches!(&app.search().results, Results::Found(r) if r.note.as_deref().is_some_and(|n| n.starts_with("empty query")))
    );
    assert_eq!(app.handle().initial_indices().len(), 12);
}

#[test]
fn typing_searches_live() {
    let mut app = started();
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(app.focus(), Focus::Query);
    chars(&mut app, "refund a payment");
    assert_eq!(app.query().text(), "refund a payment");
    assert_eq!(app.search().query, "refund a payment");
    let names = result_names(&app);
    assert!(names.contains(&"refund_payment".to_string()), "{names:?}");
    assert!(!app.searching());
    // `q` types in the query box; Ctrl-C always quits.
    press(&mut app, KeyCode::Char('q'));
    assert!(!app.should_quit());
    assert_eq!(app.query().text(), "refund a paymentq");
    app.update(key_mod(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(app.should_quit());
}

#[test]
fn an_older_answer_never_replaces_a_newer_one() {
    let mut app = started();
    press(&mut app, KeyCode::Char('/'));
    let first = app.update(key(KeyCode::Char('r')));
    let second = app.update(key(KeyCode::Char('e')));
    assert!(app.searching());
    let searcher = app.searcher().clone();
    // The newer answer arrives first, then the older one.
    let newer = run_effect(&searcher, second.into_iter().next().unwrap());
    let older = run_effect(&searcher, first.into_iter().next().unwrap());
    app.update(newer);
    assert_eq!(app.search().query, "re");
    app.update(older);
    assert_eq!(app.search().query, "re", "the stale answer was dropped");
    assert!(!app.searching());
}

#[test]
fn history_recall_and_editing() {
    let mut app = started();
    press(&mut app, KeyCode::Char('/'));
    chars(&mut app, "first");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.focus(), Focus::Query);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.focus(), Focus::Results);
    assert!(
        app.search().session.is_some(),
        "a committed query opens a session"
    );
    press(&mut app, KeyCode::Char('/'));
    app.update(key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL));
    chars(&mut app, "second query");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('/'));
    app.update(key_mod(KeyCode::Char('w'), KeyModifiers::CONTROL));
    assert_eq!(app.query().text(), "second ");
    press(&mut app, KeyCode::Up);
    assert_eq!(app.query().text(), "second query");
    press(&mut app, KeyCode::Up);
    assert_eq!(app.query().text(), "first");
    press(&mut app, KeyCode::Up);
    assert_eq!(app.query().text(), "first");
    press(&mut app, KeyCode::Down);
    assert_eq!(app.query().text(), "second query");
    press(&mut app, KeyCode::Down);
    assert_eq!(app.query().text(), "");
    assert_eq!(app.search().query, "");
    // Cursor editing in the middle.
    chars(&mut app, "ac");
    press(&mut app, KeyCode::Left);
    chars(&mut app, "b");
    assert_eq!(app.query().text(), "abc");
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Delete);
    assert_eq!(app.query().text(), "bc");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.focus(), Focus::Results);
}

#[test]
fn panes_popups_and_quit() {
    let mut app = started();
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus(), Focus::Results);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus(), Focus::Detail);
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus(), Focus::Results);
    press(&mut app, KeyCode::Char('?'));
    assert_eq!(app.popup(), Some(Popup::Help));
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(
        app.popup(),
        Some(Popup::Help),
        "other keys do nothing under help"
    );
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.popup(), None);
    press(&mut app, KeyCode::F(1));
    assert_eq!(app.popup(), Some(Popup::Help));
    press(&mut app, KeyCode::Char('q'));
    assert_eq!(app.popup(), None, "q closes a popup first");
    assert!(!app.should_quit());
    press(&mut app, KeyCode::Char('q'));
    assert!(app.should_quit());
}

#[test]
fn detail_is_a_pane_when_wide_and_a_popup_when_narrow() {
    let mut app = started();
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.focus(), Focus::Detail);
    app.update(Msg::Resize(90, 30));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.popup(), Some(Popup::Detail));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.popup(), None);
}

#[test]
fn catalog_navigation_scrolls() {
    let mut app = started();
    app.update(Msg::Resize(120, 35));
    let height = app.list_height();
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(app.catalog_view().list.selected, 1);
    press(&mut app, KeyCode::Char('G'));
    assert_eq!(app.catalog_view().list.selected, 63);
    assert_eq!(app.catalog_view().list.offset, 64 - height);
    press(&mut app, KeyCode::Char('g'));
    assert_eq!(app.catalog_view().list, ListState::default());
    app.update(key_mod(KeyCode::Char('d'), KeyModifiers::CONTROL));
    assert_eq!(app.catalog_view().list.selected, height / 2);
    press(&mut app, KeyCode::Char('k'));
    assert_eq!(app.catalog_view().list.selected, height / 2 - 1);
    press(&mut app, KeyCode::Char('k'));
    press(&mut app, KeyCode::PageUp);
    assert_eq!(app.catalog_view().list.selected, 0);
}

#[test]
fn sort_and_filter() {
    let mut app = started();
    press(&mut app, KeyCode::Char('o'));
    assert_eq!(app.catalog_view().sort, Sort::Name);
    let names: Vec<&str> = app
        .catalog_view()
        .rows
        .iter()
        .map(|&i| app.tool(i).name.as_str())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    press(&mut app, KeyCode::Char('o'));
    assert_eq!(app.catalog_view().sort, Sort::Tokens);
    let costs = app.costs().unwrap().clone();
    assert!(
        app.catalog_view()
            .rows
            .windows(2)
            .all(|w| costs[w[0]] >= costs[w[1]])
    );
    press(&mut app, KeyCode::Char('o'));
    assert_eq!(app.catalog_view().sort, Sort::Flags);
    press(&mut app, KeyCode::Char('o'));
    assert_eq!(app.catalog_view().rows, (0..64).collect::<Vec<_>>());
    press(&mut app, KeyCode::Char('f'));
    assert_eq!(app.catalog_view().filter, Filter::AlwaysLoad);
    assert_eq!(app.catalog_view().rows.len(), 4);
    press(&mut app, KeyCode::Char('f'));
    assert_eq!(app.catalog_view().rows.len(), 12);
    press(&mut app, KeyCode::Char('f'));
    assert_eq!(app.catalog_view().filter, Filter::Selected);
    assert_eq!(
        app.catalog_view().rows.len(),
        4,
        "the always-load results of the empty query"
    );
    press(&mut app, KeyCode::Char('f'));
    assert_eq!(app.catalog_view().rows.len(), 64);
}

#[test]
fn toggling_always_load_updates_the_initial_set() {
    let mut app = started();
    // create_ticket is the first tool, not always-load.
    assert!(!app.tool(0).always_load);
    let before = app.handle().initial_indices().to_vec();
    press(&mut app, KeyCode::Char('a'));
    assert!(app.tool(0).always_load);
    assert_eq!(
        app.handle().initial_indices()[0],
        0,
        "always-load tools lead"
    );
    assert_ne!(app.handle().initial_indices(), &before[..]);
    assert_eq!(result_names(&app)[0], "create_ticket");
    press(&mut app, KeyCode::Char('a'));
    assert!(!app.tool(0).always_load);
    assert_eq!(app.handle().initial_indices(), &before[..]);
    // With a cap of exactly the always-load count, another one is refused.
    press(&mut app, KeyCode::Char('s'));
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    for _ in 0..4 {
        press(&mut app, KeyCode::Right);
    }
    assert_eq!(
        app.settings().max_loaded_tools,
        crate::tools_handle::MaxTools::new(4)
    );
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('a'));
    assert!(!app.tool(0).always_load, "refused");
    assert!(
        app.status()
            .unwrap()
            .contains("max_loaded_tools must be at least the always_load tool count")
    );
}

#[test]
fn invalid_settings_show_the_sdk_message_and_keep_the_last_valid() {
    let mut app = started();
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.popup(), Some(Popup::Settings));
    // initial_tool_count: 8 -> 7 ... -> 0, and no further (it says so).
    press(&mut app, KeyCode::Down);
    for _ in 0..9 {
        press(&mut app, KeyCode::Left);
    }
    assert_eq!(editor(&app).edited.initial_tool_count.get(), 0);
    assert_eq!(
        editor(&app).note.as_deref(),
        Some("initial_tool_count is at its least (0); the other arrow raises it")
    );
    assert_eq!(editor(&app).error, None);
    assert_eq!(app.settings().initial_tool_count.get(), 0);
    assert_eq!(app.handle().initial_indices().len(), 4);
    press(&mut app, KeyCode::Left);
    press(&mut app, KeyCode::Right);
    assert_eq!(app.settings().initial_tool_count.get(), 1);
    assert_eq!(editor(&app).note, None);
    // max_loaded_tools: none is the least; none -> 1 (below the 4
    // always-load tools) and back down to none, never to 0.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Left);
    assert_eq!(editor(&app).edited.max_loaded_tools, None);
    assert!(editor(&app).note.is_some());
    press(&mut app, KeyCode::Right);
    assert_eq!(
        editor(&app).edited.max_loaded_tools,
        crate::tools_handle::MaxTools::new(1)
    );
    press(&mut app, KeyCode::Left);
    assert_eq!(editor(&app).edited.max_loaded_tools, None);
    press(&mut app, KeyCode::Right);
    assert_eq!(
        editor(&app).edited.max_loaded_tools,
        crate::tools_handle::MaxTools::new(1)
    );
    assert_eq!(
        editor(&app).error.as_deref(),
        Some("max_loaded_tools must be at least the always_load tool count")
    );
    assert_eq!(app.settings().max_loaded_tools, None);
    for _ in 0..3 {
        press(&mut app, KeyCode::Right);
    }
    assert_eq!(
        app.settings().max_loaded_tools,
        crate::tools_handle::MaxTools::new(4)
    );
    assert_eq!(editor(&app).error, None);
    // max_tools steps from the service's default (8): up is 9.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Right);
    assert_eq!(
        app.settings().max_tools,
        crate::tools_handle::MaxTools::new(9)
    );
    // Down through the default (not set) to 4, the always-load count.
    press(&mut app, KeyCode::Left);
    assert_eq!(app.settings().max_tools, None);
    for _ in 0..4 {
        press(&mut app, KeyCode::Left);
    }
    assert_eq!(
        app.settings().max_tools,
        crate::tools_handle::MaxTools::new(4)
    );
    assert_eq!(editor(&app).error, None);
    // Below it every search would fail: the editor says so, there, and the
    // last valid value stays in force.
    press(&mut app, KeyCode::Left);
    assert_eq!(
        editor(&app).edited.max_tools,
        crate::tools_handle::MaxTools::new(3)
    );
    assert_eq!(
        editor(&app).error.as_deref(),
        Some(
            "max_tools is 3 but the catalog has 4 always-load tools, which are always loaded; max_tools must be at least 4"
        )
    );
    assert_eq!(
        app.settings().max_tools,
        crate::tools_handle::MaxTools::new(4)
    );
    assert!(!matches!(&app.search().results, Results::Failed(_)));
    // Down to 1, and no further: stepping never makes a value the SDK
    // refuses by its type (0), and says so.
    for _ in 0..3 {
        press(&mut app, KeyCode::Left);
    }
    assert_eq!(
        editor(&app).edited.max_tools,
        crate::tools_handle::MaxTools::new(1)
    );
    assert_eq!(
        editor(&app).note.as_deref(),
        Some("max_tools is at its least (1); the other arrow raises it")
    );
    // Up again to the default.
    for _ in 0..7 {
        press(&mut app, KeyCode::Right);
    }
    assert_eq!(app.settings().max_tools, None);
    // Ranker embeddings, then hybrid, without an embedding model: refused
    // where they are edited, saying how to get one; bm25 stays in force
    // and the searches go on.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Right);
    assert_eq!(
        editor(&app).edited.ranker,
        crate::engine::Ranker::Embeddings
    );
    assert_eq!(app.settings().ranker, crate::engine::Ranker::Bm25);
    let why = editor(&app).error.clone().expect("refused");
    assert!(
        why.contains("needs an embedding model") && why.contains("--embeddings-local"),
        "{why}"
    );
    assert!(matches!(app.search().results, Results::Found(_)));
    press(&mut app, KeyCode::Right);
    assert_eq!(editor(&app).edited.ranker, crate::engine::Ranker::Hybrid);
    assert_eq!(app.settings().ranker, crate::engine::Ranker::Bm25);
    assert!(editor(&app).error.is_some());
    press(&mut app, KeyCode::Right);
    assert_eq!(editor(&app).edited.ranker, app.settings().ranker);
    assert!(editor(&app).error.is_none());
    assert!(matches!(app.search().results, Results::Found(_)));
    // Token basis: new costs are counted.
    press(&mut app, KeyCode::Down);
    let before = app.costs().unwrap().clone();
    let effects = app.update(key(KeyCode::Right));
    assert_eq!(app.settings().token_basis, Some(TokenBasis::Cl100kBase));
    assert!(
        app.costs().is_none(),
        "old-basis costs are not shown as new"
    );
    assert!(effects.iter().any(|e| matches!(
        e,
        Effect::Costs {
            basis: TokenBasis::Cl100kBase,
            ..
        }
    )));
    settle(&mut app, effects);
    assert_ne!(app.costs().unwrap().clone(), before);
    // Left goes back one basis, and from the first to the last.
    press(&mut app, KeyCode::Left);
    assert_eq!(app.settings().token_basis, Some(TokenBasis::O200kBase));
    press(&mut app, KeyCode::Left);
    assert_eq!(app.settings().token_basis, Some(TokenBasis::ANTHROPIC));
    for _ in 0..2 {
        press(&mut app, KeyCode::Right);
    }
    assert_eq!(app.settings().token_basis, Some(TokenBasis::Cl100kBase));
    // Strategy all: the initial set is everything.
    for _ in 0..5 {
        press(&mut app, KeyCode::Up);
    }
    press(&mut app, KeyCode::Right);
    assert_eq!(app.settings().strategy, Strategy::All);
    assert_eq!(app.handle().initial_indices().len(), 64);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.popup(), None);
}

#[test]
fn results_navigation_and_detail_follow_the_focus() {
    let mut app = started();
    press(&mut app, KeyCode::Char('/'));
    chars(&mut app, "send");
    press(&mut app, KeyCode::Esc);
    assert_eq!(
        app.focus(),
        Focus::Catalog,
        "back to the pane the query was opened from"
    );
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus(), Focus::Results);
    // The last loaded tool, then (at the bottom) the last below the cap.
    let last = result_names(&app).len() - 1;
    for _ in 0..last {
        press(&mut app, KeyCode::Char('j'));
    }
    assert_eq!(app.search().list.selected, last);
    let (index, hit) = app.current_tool().unwrap();
    assert!(hit.is_some());
    assert_eq!(app.tool(index).name, result_names(&app)[last]);
    press(&mut app, KeyCode::Char('G'));
    let (index, hit) = app.current_tool().unwrap();
    assert!(hit.is_none(), "below the cap: not loaded");
    assert_eq!(Some(&index), app.search().near().last());
}

#[test]
fn b_opens_the_breaker_on_the_highlighted_tool() {
    let mut app = started();
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.popup(), Some(Popup::Breaker));
    let pane = app.screen::<BreakerPane>().unwrap();
    assert_eq!(app.tool(pane.tool).name, "get_ticket");
    for _ in 0..4 {
        press(&mut app, KeyCode::Enter);
    }
    let pane = app.screen::<BreakerPane>().unwrap();
    assert_eq!(pane.log.len(), 4);
    assert!(!pane.log[3].ran);
    // q and Esc close the simulator, not the explorer; the log survives.
    press(&mut app, KeyCode::Char('q'));
    assert_eq!(app.popup(), None);
    assert!(!app.should_quit());
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.screen::<BreakerPane>().unwrap().log.len(), 4);
    // Ctrl-C still quits from inside.
    app.update(key_mod(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(app.should_quit());
}

#[test]
fn closed_input_quits() {
    let mut app = started();
    app.update(Msg::InputClosed);
    assert!(app.should_quit());
}

#[test]
fn an_answer_for_an_older_catalog_is_dropped() {
    let mut app = started();
    press(&mut app, KeyCode::Char('/'));
    let before = app.update(key(KeyCode::Char('x')));
    press(&mut app, KeyCode::Esc);
    // Always-load toggles: a new catalog, and a new search on it.
    let old_catalog = app.catalog().clone();
    let toggled = app.update(key(KeyCode::Char('a')));
    assert!(!Arc::ptr_eq(&old_catalog, app.catalog()));
    let searcher = app.searcher().clone();
    let stale = run_effect(&searcher, before.into_iter().next().unwrap());
    let Msg::SearchDone(answer) = &stale else {
        panic!("not a search answer")
    };
    assert!(Arc::ptr_eq(&answer.catalog, &old_catalog));
    let shown = app.search().results.clone();
    app.update(stale);
    assert_eq!(
        app.search().results,
        shown,
        "the old catalog's answer is dropped"
    );
    assert!(app.searching(), "the new catalog's search is still awaited");
    // Even an answer newer than anything shown, if made for another catalog.
    let effect = toggled.into_iter().next().unwrap();
    let mut elsewhere = effect.clone();
    if let Effect::Search { catalog, .. } = &mut elsewhere {
        *catalog = old_catalog.clone();
    }
    app.update(run_effect(&searcher, elsewhere));
    assert!(app.searching());
    // The answer for the current catalog is taken.
    settle(&mut app, vec![effect]);
    assert!(!app.searching());
    assert!(result_names(&app).contains(&"create_ticket".to_string()));
}

#[test]
fn opening_a_trace_is_an_effect_whose_answer_comes_back() {
    let mut app = started();
    press(&mut app, KeyCode::Char('b'));
    press(&mut app, KeyCode::Char('o'));
    assert_eq!(app.context(), Context::Input);
    app.update(Msg::Action(Action::InputClear));
    app.update(Msg::Type("@example".into()));
    let effects = app.update(key(KeyCode::Enter));
    // Nothing was read inside update: the read is asked for.
    assert!(app.screen::<BreakerPane>().unwrap().trace.is_none());
    assert!(
        matches!(effects.as_slice(), [Effect::Screen(job)]
            if job.get::<crate::tui::screen::breaker::jobs::ReadTrace>().is_some_and(|r| r.path == "@example")),
        "{effects:?}"
    );
    let searcher = app.searcher().clone();
    let answer = run_effect(&searcher, effects.into_iter().next().unwrap());
    assert!(matches!(&answer, Msg::Screen(a)
            if a.get::<crate::tui::screen::breaker::jobs::TraceRead>()
                .is_some_and(|r| r.path == "@example" && r.result.as_ref().is_ok_and(|c| !c.is_empty()))));
    app.update(answer);
    let trace = app.screen::<BreakerPane>().unwrap().trace.as_ref().unwrap();
    assert_eq!(trace.origin, "@example");
    assert!(
        app.screen::<BreakerPane>()
            .unwrap()
            .layout(app.layout().body)
            .trace
            .is_some(),
        "the layout makes room"
    );
    // A missing file: the error comes back the same way, as a message.
    press(&mut app, KeyCode::Char('o'));
    app.update(Msg::Action(Action::InputClear));
    app.update(Msg::Type("/no/such/trace.jsonl".into()));
    let effects = app.update(key(KeyCode::Enter));
    settle(&mut app, effects);
    let pane = app.screen::<BreakerPane>().unwrap();
    assert!(pane.message.as_deref().unwrap().contains("cannot read"));
    assert_eq!(pane.trace.as_ref().unwrap().origin, "@example", "kept");
}

#[test]
fn page_sizes_come_from_the_layout() {
    let mut app = started();
    app.update(Msg::Resize(120, 35));
    assert_eq!(app.list_height(), app.layout().list_rows());
    app.update(key_mod(KeyCode::Char('d'), KeyModifiers::CONTROL));
    assert_eq!(
        app.catalog_view().list.selected,
        app.layout().list_rows() / 2
    );
    app.update(Msg::Resize(80, 24));
    assert_eq!(app.list_height(), 24 - 1 - 3 - 4 - 1 - 2 - 1);
}
