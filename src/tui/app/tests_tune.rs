//! The Tune screen, the export popup, the full-catalog fallback and the
//! mouse, through `App::update`.

use crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::tests::{demo_setup, press, started, tune};
use super::*;
use crate::engine::Ranker;
use crate::search::SearchRequest;
use crate::tools_handle::{InitialToolCount, MaxTools, Strategy};
use crate::tui::effect::SearchAnswer;
use crate::tui::pane::catalog::Filter;
use crate::tui::pane::results::Results;
use crate::tui::screen::breaker::BreakerPane;

impl App {
    /// The search cap and initial count the Tune screen marks.
    pub(super) fn tune_current(
        &self,
    ) -> Option<(
        crate::tools_handle::MaxTools,
        crate::tools_handle::InitialToolCount,
    )> {
        crate::tui::screen::tune::current(&self.catalog, &self.settings, &self.handle)
    }
}

/// The demo explorer, as `setup` changes it, its first effects run.
fn started_with(setup: impl FnOnce(&mut Setup)) -> App {
    let (mut app, effects) = demo_setup(setup);
    app.settle(effects);
    app
}

/// The Tune screen on the demo requests; `config` is where it saves.
fn tuned_saving_to(config: Option<std::path::PathBuf>) -> App {
    let mut app = started_with(|s| {
        s.queries = Some("@demo".into());
        s.config_path = config;
    });
    press(&mut app, KeyCode::Char('t'));
    assert_eq!(app.popup(), Some(Popup::Tune));
    app
}

pub(super) fn tuned() -> App {
    tuned_saving_to(None)
}

#[test]
fn the_tune_screen_measures_the_demo_requests_and_marks_the_setting() {
    let app = tuned();
    let report = tune(&app).report().expect("measured").clone();
    assert_eq!(report.queries, 42);
    assert_eq!(report.catalog_tools, app.catalog().len());
    // Deferred with no caps: the service's default cap of 8, and the
    // SDK's default initial count.
    assert_eq!(
        app.tune_current(),
        Some((MaxTools::of(8), InitialToolCount::new(8)))
    );
    // The same figures as `toolsift tune` (the library call) gives.
    let again = crate::tune::tune(
        app.searcher(),
        app.catalog(),
        &crate::eval::load_queries_arg("@demo").unwrap(),
        &crate::tune::TuneOptions {
            ranker: Some(app.settings().ranker),
            token_basis: app.settings().basis(),
            target_pct: None,
        },
    )
    .unwrap();
    assert_eq!(*report, again);
}

#[test]
fn cap_keys_move_the_current_mark_and_apply_takes_the_recommendation() {
    let mut app = tuned();
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(
        app.settings().max_loaded_tools,
        crate::tools_handle::MaxTools::new(9)
    );
    assert_eq!(app.tune_current().map(|c| c.0), MaxTools::new(9));
    press(&mut app, KeyCode::Char('-'));
    press(&mut app, KeyCode::Char('-'));
    assert_eq!(app.tune_current().map(|c| c.0), MaxTools::new(7));
    press(&mut app, KeyCode::Char('['));
    assert_eq!(app.settings().initial_tool_count.get(), 7);
    // A cap below the always-load count is refused with the SDK's message;
    // the settings in force stay.
    for _ in 0..10 {
        press(&mut app, KeyCode::Char('-'));
    }
    let floor = app.settings().max_loaded_tools;
    assert!(floor.is_some_and(|m| m.get() >= 1), "{floor:?}");
    let rec = tune(&app).report().unwrap().recommended;
    press(&mut app, KeyCode::Char('a'));
    assert_eq!(app.settings().strategy, Strategy::Deferred);
    assert_eq!(app.settings().max_loaded_tools, Some(rec.max_tools));
    assert_eq!(app.settings().initial_tool_count, rec.initial_tool_count);
    assert_eq!(app.tune_current().map(|c| c.0), Some(rec.max_tools));
    assert!(
        tune(&app)
            .message
            .as_deref()
            .unwrap()
            .starts_with("applied")
    );
    // The measurement is for the same catalog and ranker: not redone.
    assert!(tune(&app).report().is_some());
}

#[test]
fn a_new_catalog_or_ranker_makes_the_measurement_stale() {
    let mut app = tuned();
    let first = tune(&app).generation;
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('a')); // always-load toggled: a new catalog
    press(&mut app, KeyCode::Char('t'));
    assert_eq!(tune(&app).generation, first + 1);
    assert!(tune(&app).report().is_some());
}

#[test]
fn saving_writes_the_settings_to_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let mut app = tuned_saving_to(Some(path.clone()));
    press(&mut app, KeyCode::Char('a'));
    press(&mut app, KeyCode::Char('s'));
    let message = tune(&app).message.clone().unwrap();
    assert!(message.starts_with("saved the settings to"), "{message}");
    let c = crate::config::Config::load_with(Some(&path), &|_| None).unwrap();
    assert_eq!(
        c.explorer.settings.handle.max_loaded_tools,
        app.settings().max_loaded_tools
    );
    assert_eq!(
        c.explorer.settings.handle.initial_tool_count,
        Some(app.settings().initial_tool_count)
    );
}

#[test]
fn a_bad_request_file_is_an_error_on_the_screen() {
    let mut app = started();
    press(&mut app, KeyCode::Char('t'));
    // No file yet: the prompt opens at once.
    assert!(tune(&app).is_typing());
    let effects = app.update(Msg::Type("/no/such/requests.jsonl".into()));
    app.settle(effects);
    press(&mut app, KeyCode::Enter);
    match &tune(&app).state {
        crate::tui::screen::tune::TuneState::Failed(e) => {
            assert!(e.contains("/no/such/requests.jsonl"), "{e}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn export_writes_the_loaded_tools_in_the_chosen_shape() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.json");
    let mut app = started();
    let effects = app.update(Msg::Action(Action::FocusQuery));
    app.settle(effects);
    let effects = app.update(Msg::Type("refund a payment".into()));
    app.settle(effects);
    press(&mut app, KeyCode::Esc);
    let loaded = app.loaded_tools().unwrap();
    press(&mut app, KeyCode::Char('x'));
    assert_eq!(app.popup(), Some(Popup::Export));
    press(&mut app, KeyCode::Down); // openai-chat
    let effects = app.update(Msg::Action(Action::InputClear));
    app.settle(effects);
    let effects = app.update(Msg::Type(path.display().to_string()));
    app.settle(effects);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.popup(), None);
    let status = app.status().unwrap().to_string();
    assert!(
        status.starts_with(&format!("wrote {} tools (openai-chat)", loaded.len())),
        "{status}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            assert_eq!(t["type"], "function");
            t["function"]["name"].as_str().unwrap()
        })
        .collect();
    let expected: Vec<&str> = loaded.iter().map(|&i| app.tool(i).name.as_str()).collect();
    assert_eq!(names, expected);
}

/// The search again, and its answer: the service is unreachable.
fn failed(app: &mut App) {
    let effects = app.update(Msg::Action(Action::RetrySearch));
    let [
        Effect::Search {
            generation,
            catalog,
            request,
            ..
        },
    ] = effects.as_slice()
    else {
        panic!("{effects:?}");
    };
    app.update(Msg::SearchDone(SearchAnswer {
        generation: *generation,
        interim: false,
        catalog: catalog.clone(),
        query: request.query.clone(),
        preview: true,
        result: Box::new(Err(crate::search::SearchError::Remote(
            crate::client::RemoteError {
                service: "http://127.0.0.1:9".into(),
                failure: crate::client::RemoteFailure::Unreachable("refused".into()),
            },
        ))),
        elapsed: std::time::Duration::from_millis(1),
        query_cached: false,
        standing: None,
    }));
}

#[test]
fn the_full_catalog_is_offered_only_within_the_budget() {
    let full: u64 = started().costs().unwrap().iter().sum();
    let failed_with = |budget: Option<u64>| {
        let mut app = started_with(|s| s.context_budget = budget);
        failed(&mut app);
        app
    };
    // No budget: never offered.
    let mut app = failed_with(None);
    press(&mut app, KeyCode::Char('F'));
    assert!(!app.search().full_catalog);
    assert!(app.status().unwrap().contains("no context budget"));
    // Too small a budget: refused, saying why with both figures.
    let mut app = failed_with(Some(full - 1));
    press(&mut app, KeyCode::Char('F'));
    assert!(!app.search().full_catalog);
    let why = app.status().unwrap().to_string();
    assert!(
        why.contains("the full catalog is") && why.contains("the budget is"),
        "{why}"
    );
    // Within the budget: sent, and the export takes every tool.
    let mut app = failed_with(Some(full));
    press(&mut app, KeyCode::Char('F'));
    assert!(app.search().full_catalog);
    assert_eq!(app.loaded_tools().unwrap().len(), app.catalog().len());
    // The next answer ends the fallback.
    press(&mut app, KeyCode::Char('r'));
    assert!(!app.search().full_catalog);
    assert!(matches!(app.search().results, Results::Found(_)));
}

fn click(app: &mut App, kind: MouseEventKind, column: u16, row: u16) {
    app.update(Msg::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }));
}

#[test]
fn a_click_focuses_a_pane_and_selects_a_row_and_the_wheel_scrolls() {
    let mut app = started();
    let r = app.layout().results;
    click(
        &mut app,
        MouseEventKind::Down(MouseButton::Left),
        r.x + 3,
        r.y + 3,
    );
    assert_eq!(app.focus(), Focus::Results);
    assert_eq!(app.search().list.selected, 2);
    let c = app.layout().catalog;
    click(
        &mut app,
        MouseEventKind::Down(MouseButton::Left),
        c.x + 3,
        c.y + 5,
    );
    assert_eq!(app.focus(), Focus::Catalog);
    assert_eq!(app.catalog_view().list.selected, 4);
    click(&mut app, MouseEventKind::ScrollDown, c.x + 3, c.y + 5);
    assert_eq!(app.catalog_view().list.selected, 7);
    // A click on a border selects nothing; on the query box, focuses it.
    click(
        &mut app,
        MouseEventKind::Down(MouseButton::Left),
        c.x + 3,
        c.y,
    );
    assert_eq!(app.catalog_view().list.selected, 7);
    let q = app.layout().query;
    click(
        &mut app,
        MouseEventKind::Down(MouseButton::Left),
        q.x + 2,
        q.y + 1,
    );
    assert_eq!(app.focus(), Focus::Query);
}

#[test]
fn the_default_tour_plays_through_the_app() {
    use crate::tui::event::ScriptStep;
    let steps = crate::tui::demo::parse_script(crate::tui::demo::DEFAULT_SCRIPT, "demo").unwrap();
    let mut app = started_with(|s| {
        s.queries = Some("@demo".into());
        s.demo = true;
    });
    let mut strategies = Vec::new();
    let mut captions = 0;
    for step in crate::tui::event::expand(steps, std::time::Duration::ZERO) {
        if let ScriptStep::Caption(_) = step {
            captions += 1;
        }
        if let Some(msg) = step.into_msg() {
            let effects = app.update(msg);
            app.settle(effects);
            strategies.push(app.settings().strategy);
        }
        assert!(!app.should_quit(), "the tour quit early");
    }
    assert!(captions >= 8);
    // Strategy all was shown, then deferred again.
    assert!(strategies.contains(&Strategy::All));
    assert_eq!(app.settings().strategy, Strategy::Deferred);
    // The searches were typed, the last one before the comparison; the
    // recommendation was applied; the breaker stopped the loop; every
    // screen was closed again.
    assert_eq!(app.query().text(), "what time is it in Tokyo");
    let rec = tune(&app).report().expect("measured").recommended;
    assert_eq!(app.settings().max_loaded_tools, Some(rec.max_tools));
    let breaker = app.screen::<BreakerPane>().expect("the breaker ran");
    assert!(
        breaker.log.iter().any(|c| !c.ran),
        "the breaker never tripped"
    );
    assert_eq!(app.popup(), None);
    assert_eq!(app.catalog_view().filter, Filter::All);
}

#[test]
fn a_dense_preview_answered_by_bm25_is_asked_again_until_the_vectors_are_ready() {
    let (mut app, effects) = demo_setup(|s| s.settings.ranker = Ranker::Hybrid);
    // The start (the counts, the index) runs; the first (hybrid) search it
    // sends is answered below.
    let mut first = None;
    let mut queue = std::collections::VecDeque::from(effects);
    while let Some(effect) = queue.pop_front() {
        match effect {
            Effect::Search { generation, .. } => first = Some(generation),
            other => {
                let msg = run_effect(&app.searcher().clone(), other);
                queue.extend(app.update(msg));
            }
        }
    }
    let generation = first.expect("a search");
    // The service's answer while the catalog's vectors are computed: BM25F
    // (its method says so).
    let bm25 = SearchRequest {
        query: "refund".into(),
        ranker: Some(Ranker::Bm25),
        preview: true,
        ..SearchRequest::default()
    };
    let found = app.searcher().search(app.catalog(), &bm25).unwrap();
    assert_eq!(found.method, "bm25");
    let catalog = app.catalog().clone();
    let answer = |generation, result| {
        Msg::SearchDone(SearchAnswer {
            generation,
            interim: false,
            catalog: catalog.clone(),
            query: "refund".into(),
            preview: true,
            result: Box::new(Ok(result)),
            elapsed: std::time::Duration::from_millis(1),
            query_cached: false,
            standing: None,
        })
    };
    let effects = app.update(answer(generation, found.clone()));
    let [Effect::Refresh { generation: g, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(*g, generation);
    assert!(app.vectors_pending());
    let header = {
        let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 35)).unwrap();
        t.draw(|f| crate::tui::ui::draw(f, &app)).unwrap();
        format!("{}", t.backend())
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    assert!(
        header.contains("hybrid (embedding; bm25 until ready)"),
        "{header}"
    );
    // Time's up and nothing newer was asked for: the search again.
    let effects = app.update(Msg::Refresh { generation });
    let [
        Effect::Search {
            generation: again,
            request,
            ..
        },
    ] = effects.as_slice()
    else {
        panic!("{effects:?}");
    };
    assert!(request.preview);
    let again = *again;
    // With the service's progress, a gauge in the results pane, at 80x24
    // and at 200x60.
    let mut with_progress = found.clone();
    with_progress.embedding = Some((64, 117));
    app.update(answer(again, with_progress));
    for (w, h) in [(80, 24), (200, 60)] {
        app.update(Msg::Resize(w, h));
        let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
        t.draw(|f| crate::tui::ui::draw(f, &app)).unwrap();
        let screen = format!("{}", t.backend());
        assert!(
            screen.contains("embedding the catalog: 64 of 117 tools"),
            "{w}x{h}:\n{screen}"
        );
    }
    // A refresh for an answer that a newer one has replaced does nothing.
    let effects = app.update(Msg::Refresh { generation: again });
    let [
        Effect::Search {
            generation: newer, ..
        },
    ] = effects.as_slice()
    else {
        panic!("{effects:?}");
    };
    let mut fused = found;
    fused.method = "hybrid".into();
    assert!(
        app.update(answer(*newer, fused)).is_empty(),
        "the fused answer needs no refresh"
    );
    assert!(app.update(Msg::Refresh { generation: again }).is_empty());
}

#[test]
fn typing_with_a_dense_ranker_shows_bm25_at_once_then_the_dense_answer() {
    let mut app = started_with(|s| s.settings.ranker = Ranker::Hybrid);
    press(&mut app, KeyCode::Char('/'));
    let effects = app.update(Msg::Key(crossterm::event::KeyEvent::from(KeyCode::Char(
        'r',
    ))));
    let [
        Effect::Search {
            generation: g1,
            request: lexical,
            interim: true,
            ..
        },
        Effect::Search {
            generation: g2,
            request: dense,
            interim: false,
            ..
        },
    ] = effects.as_slice()
    else {
        panic!("{effects:?}");
    };
    let (g1, g2) = (*g1, *g2);
    assert_eq!(g2, g1 + 1, "the dense search is the newer");
    assert_eq!(lexical.ranker, Some(Ranker::Bm25));
    assert_eq!(dense.ranker, Some(Ranker::Hybrid));
    assert!(lexical.preview && dense.preview);
    assert_eq!(
        app.search().last_request.as_ref(),
        Some(dense),
        "a retry re-sends the dense one"
    );
    let effects = effects.clone();
    // BM25F's answer (the embedded service has no provider, so the dense
    // search would fail; its answer is built here).
    let searcher = app.searcher().clone();
    let mut effects = effects.into_iter();
    let first = run_effect(&searcher, effects.next().unwrap());
    let Msg::SearchDone(answer) = &first else {
        panic!("{first:?}");
    };
    let mut fused = answer.result.as_ref().clone().unwrap();
    assert_eq!(fused.method, "bm25");
    assert!(
        app.update(first).is_empty(),
        "no refresh: the dense answer is coming"
    );
    assert!(app.search().interim && app.searching() && !app.vectors_pending());
    let Results::Found(shown) = &app.search().results else {
        panic!("{:?}", app.search().results);
    };
    let note = shown.note.as_deref().unwrap_or_default();
    assert!(
        note.starts_with("BM25F's results while the query is embedded; the dense ranker's follow. no tool matches"),
        "{note}"
    );
    fused.method = "hybrid".into();
    fused.note = None;
    let catalog = app.catalog().clone();
    let dense_answer = |generation| {
        Msg::SearchDone(SearchAnswer {
            generation,
            interim: false,
            catalog: catalog.clone(),
            query: "r".into(),
            preview: true,
            result: Box::new(Ok(fused.clone())),
            elapsed: std::time::Duration::from_millis(1),
            query_cached: false,
            standing: None,
        })
    };
    let msg = dense_answer(g2);
    app.update(msg);
    assert!(!app.search().interim && !app.searching());
    let Results::Found(shown) = &app.search().results else {
        panic!();
    };
    assert_eq!(shown.method, "hybrid");
    assert_eq!(shown.note, None);
    // Had the dense answer come first, BM25F's would have been dropped.
    let effects = app.update(Msg::Key(crossterm::event::KeyEvent::from(KeyCode::Char(
        'e',
    ))));
    let [
        lexical @ Effect::Search { .. },
        Effect::Search { generation, .. },
    ] = effects.as_slice()
    else {
        panic!("{effects:?}");
    };
    let late_lexical = run_effect(&searcher, lexical.clone());
    app.update(dense_answer(*generation));
    app.update(late_lexical);
    assert!(!app.search().interim, "the older BM25F answer was dropped");
    // With BM25F, one search as before.
    for a in [
        Action::Settings,
        Action::SettingsDown,
        Action::SettingsDown,
        Action::SettingsDown,
        Action::SettingsDown,
        Action::SettingsIncrease,
        Action::SettingsClose,
    ] {
        let effects = app.update(Msg::Action(a));
        app.settle(effects);
    }
    assert_eq!(app.settings().ranker, Ranker::Bm25);
    let effects = app.update(Msg::Key(crossterm::event::KeyEvent::from(KeyCode::Char(
        'x',
    ))));
    assert!(matches!(
        effects.as_slice(),
        [Effect::Search { interim: false, .. }]
    ));
}

#[test]
fn the_budget_compares_the_request_as_the_provider_bills_it() {
    // Under the Claude estimate a request with tools costs the tool-use
    // prompt too: a budget that holds the tools' shares alone is too small.
    let setup = |s: &mut Setup, budget| {
        s.settings.token_basis = Some(crate::tokens::TokenBasis::ANTHROPIC);
        s.context_budget = Some(budget);
    };
    let shares: u64 = started_with(|s| setup(s, 0)).costs().unwrap().iter().sum();
    let mut app = started_with(|s| setup(s, shares));
    failed(&mut app);
    press(&mut app, KeyCode::Char('F'));
    assert!(!app.search().full_catalog, "{:?}", app.status());
    let mut app = started_with(|s| setup(s, shares + 346));
    failed(&mut app);
    press(&mut app, KeyCode::Char('F'));
    assert!(app.search().full_catalog, "{:?}", app.status());
    assert!(
        app.status()
            .unwrap()
            .contains(&crate::numbers::thousands(shares + 346))
    );
}
