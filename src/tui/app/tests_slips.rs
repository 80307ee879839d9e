//! The slips a live demo makes, each held by a test that failed before its
//! fix: keys that act where the user believes they are typing, keys that
//! do nothing without a word.

use crossterm::event::KeyCode;

use super::tests_finish::{draw, key, sized};
use super::tests_trust::query;
use super::{Focus, Popup};
use crate::tui::screen::breaker::BreakerPane;
use crate::tui::screen::export::ExportBox;
use crate::tui::screen::live::LivePane;

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

#[test]
fn keys_that_cannot_act_say_why() {
    let mut app = sized(120, 35);
    // `r` with no failed search.
    key(&mut app, KeyCode::Char('r'));
    assert!(
        app.status()
            .unwrap()
            .starts_with("searched again: the last search had not failed"),
        "{:?}",
        app.status()
    );
    // Ctrl-Z suspends (the loop does it, between frames).
    let effects = app.update(super::tests::key_mod(
        KeyCode::Char('z'),
        crossterm::event::KeyModifiers::CONTROL,
    ));
    assert!(
        matches!(effects[..], [crate::tui::effect::Effect::Suspend]),
        "{effects:?}"
    );
    // `-` at the breaker's least threshold.
    key(&mut app, KeyCode::Char('b'));
    for _ in 0..30 {
        key(&mut app, KeyCode::Char('-'));
    }
    let said = app
        .screen::<BreakerPane>()
        .unwrap()
        .message
        .clone()
        .unwrap_or_default();
    assert!(said.contains("at its least"), "{said}");
}

#[test]
fn a_key_the_config_takes_from_another_action_is_said_at_start() {
    let file = crate::config::parse("[keys]\nquit = [\"x\"]\n", "c.toml").unwrap();
    let keymap = super::Keymap::build(
        &super::Keymap::default_table(),
        &super::Keymap::table_of(&file),
        "c.toml",
    )
    .unwrap();
    let (app, _) = super::tests::demo_with(keymap);
    let said = app.status().unwrap_or_default().to_string();
    assert!(said.contains("quit = \"x\" takes x from export"), "{said}");
}

#[test]
fn sorting_by_tokens_shows_the_largest_tools_from_the_top() {
    let mut app = sized(120, 35);
    // Scrolled down a way, then sorted.
    for _ in 0..40 {
        key(&mut app, KeyCode::Char('j'));
    }
    assert!(app.catalog_view().list.offset > 0);
    key(&mut app, KeyCode::Char('o'));
    key(&mut app, KeyCode::Char('o'));
    let view = app.catalog_view();
    let height = app.layout().list_rows();
    // The highlight stays in view with no room above it left unused.
    assert!(view.list.selected >= view.list.offset);
    assert!(
        view.list.offset == 0 || view.list.selected + 1 == view.list.offset + height,
        "{:?} in {height} rows",
        view.list
    );
}

#[test]
fn with_a_cap_on_loaded_tools_every_figure_says_the_initial_count_sent() {
    let (mut app, effects) = super::tests::demo_setup(|s| {
        s.settings.max_loaded_tools = crate::tools_handle::MaxTools::new(6)
    });
    super::tests::settle(&mut app, effects);
    app.update(super::Msg::Resize(200, 60));
    let screen = draw(&app).join("\n");
    // 6 loaded, 4 always-load: 2 of the 8 asked are sent.
    assert!(screen.contains("init 2 of 8"), "{screen}");
    assert!(screen.contains("2 + 4 always-load"), "{screen}");
    key(&mut app, KeyCode::Char('s'));
    let screen = draw(&app).join("\n");
    assert!(screen.contains("(2 sent"), "{screen}");
    assert!(screen.contains("not set: max_loaded_tools (6)"), "{screen}");
    assert!(!screen.contains("service default (8)"), "{screen}");
}

#[test]
fn a_failed_export_keeps_the_popup_and_the_path_typed() {
    let mut app = sized(80, 24);
    query(&mut app, "refund");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('x'));
    assert_eq!(app.popup(), Some(Popup::Export));
    for c in "x/nowhere/out.json".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let typed = app.screen::<ExportBox>().unwrap().path.text.clone();
    app.update(super::Msg::Written(Err(
        crate::tui::effect::NotWritten::file(
            "x/nowhere/out.json",
            std::io::Error::other("cannot write"),
        ),
    )));
    assert_eq!(app.popup(), Some(Popup::Export));
    assert_eq!(app.screen::<ExportBox>().unwrap().path.text, typed);
    let rows = draw(&app).join("\n");
    assert!(
        rows.contains("not written: x/nowhere/out.json: cannot write"),
        "{rows}"
    );
}

#[test]
fn the_first_run_ranks_with_bm25_while_the_model_comes_and_with_hybrid_once_it_is_here() {
    let (mut app, effects) = super::tests::demo_setup(|s| {
        s.model_later = Some(std::sync::Arc::new(|_| {
            Err(crate::embed::NoDefaultModel::NothingToLoad)
        }));
    });
    super::tests::settle(&mut app, effects);
    app.update(super::Msg::Resize(120, 35));
    // The loop takes the job and runs it off the UI thread.
    assert!(app.take_model_job().is_some());
    let header = draw(&app)[0].clone();
    assert!(
        header.contains("bm25 (fetching search model 0%)"),
        "{header}"
    );
    app.update(super::Msg::ModelFetching {
        run: 1,
        done: 45_000_000,
        total: 90_000_000,
    });
    let header = draw(&app)[0].clone();
    assert!(header.contains("fetching search model 50%"), "{header}");
    // Typing is never blocked meanwhile.
    query(&mut app, "refund");
    assert_eq!(app.query().text(), "refund");
    // The model is here: hybrid from now on, the query searched again.
    let embeddings = crate::embed::EmbeddingSettings {
        url: Some("http://127.0.0.1:9/v1".into()),
        model: Some("m".into()),
        ..Default::default()
    }
    .build(&|_| None)
    .unwrap()
    .unwrap();
    let searcher = app.searcher().with_embeddings(embeddings).unwrap();
    let effects = app.update(super::Msg::ModelReady {
        run: 1,
        ready: Ok(searcher),
    });
    assert_eq!(app.settings().ranker, crate::engine::Ranker::Hybrid);
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, crate::tui::effect::Effect::Search { .. })),
        "{effects:?}"
    );
    assert!(app.fetching().is_none());
    assert!(app.status().unwrap().contains("ranking with hybrid"));
}

#[test]
fn a_model_that_cannot_be_fetched_leaves_bm25_and_says_why() {
    let (mut app, effects) = super::tests::demo_setup(|s| {
        s.model_later = Some(std::sync::Arc::new(|_| {
            Err(crate::embed::NoDefaultModel::NothingToLoad)
        }));
    });
    super::tests::settle(&mut app, effects);
    app.update(super::Msg::ModelReady {
        run: 1,
        ready: Err(crate::tui::effect::ModelNotReady::Fetch(
            "cannot reach the hub".into(),
        )),
    });
    assert_eq!(app.settings().ranker, crate::engine::Ranker::Bm25);
    assert!(
        app.status().unwrap().contains("cannot reach the hub"),
        "{:?}",
        app.status()
    );
}

#[test]
fn a_gateway_reached_after_the_start_gives_its_catalog_then() {
    let (mut app, effects) = super::tests::demo_setup(|s| {
        s.follow = Some(crate::tui::Follow {
            source: crate::follow::Source::Url {
                url: "http://127.0.0.1:9/events".into(),
                key: Some("k".into()),
            },
            requests_file: "misses.jsonl".into(),
            open_first: true,
            blind: Some("the followed gateway's could not be read".into()),
        });
    });
    super::tests::settle(&mut app, effects);
    assert!(!app.screen::<LivePane>().unwrap().judged());
    let effects = app.update(super::Msg::Followed(crate::follow::Note::Connected));
    assert!(
        matches!(&effects[..], [crate::tui::effect::Effect::FetchFollowedCatalog { events_url, key }]
            if events_url == "http://127.0.0.1:9/events" && key.as_deref() == Some("k")),
        "{effects:?}"
    );
    let mut t = crate::catalog::Tool::new("git_log", "Show the commit log");
    t.mcp = Some(crate::catalog::McpOrigin::new("git", "git_log"));
    let theirs = crate::catalog::Catalog::new("mcp: git", vec![t]).unwrap();
    let effects = app.update(super::Msg::FollowedCatalog(Ok(std::sync::Arc::new(theirs))));
    super::tests::settle(&mut app, effects);
    assert_eq!(app.catalog().len(), 1);
    assert!(app.screen::<LivePane>().unwrap().judged());
    assert!(
        app.screen::<LivePane>()
            .unwrap()
            .judged_by()
            .starts_with("mcp: git")
    );
    assert!(app.sources().contains("(from http://127.0.0.1:9/events)"));
    // Connected again: nothing more to take.
    let effects = app.update(super::Msg::Followed(crate::follow::Note::Connected));
    assert!(effects.is_empty(), "{effects:?}");
}
