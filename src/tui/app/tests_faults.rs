//! The faults a demo trips on, each held by a test that failed before its
//! fix: the key acts on the tool the screen shows, and a second press of a
//! toggle undoes the first.

use super::tests::tune;
use crossterm::event::KeyCode;

use super::Focus;
use super::tests_finish::{key, sized};
use super::tests_trust::query;

/// The name of the tool the detail shows.
fn shown(app: &super::App) -> String {
    let (index, _) = app.current_tool().expect("a tool shown");
    app.tool(index).name.clone()
}

fn always(app: &super::App) -> Vec<String> {
    (0..app.catalog().len())
        .filter(|&i| app.tool(i).always_load)
        .map(|i| app.tool(i).name.clone())
        .collect()
}

/// The explorer at 120x35 with `q` searched and the results pane in front,
/// and the always-load tools before.
fn searched(q: &str) -> (super::App, Vec<String>) {
    let mut app = sized(120, 35);
    let before = always(&app);
    query(&mut app, q);
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.focus(), Focus::Results);
    (app, before)
}

#[test]
fn a_in_the_detail_toggles_the_tool_the_detail_shows() {
    let (mut app, before) = searched("refund a payment");
    // The first tool the search found beyond the always-load ones.
    key(&mut app, KeyCode::Char('G'));
    while app.tool(app.current_tool().unwrap().0).always_load {
        key(&mut app, KeyCode::Char('k'));
    }
    let tool = shown(&app);
    // Into the detail pane: it still shows the results' tool.
    while app.focus() != Focus::Detail {
        key(&mut app, KeyCode::Tab);
    }
    assert_eq!(shown(&app), tool);
    key(&mut app, KeyCode::Char('a'));
    let mut want = before.clone();
    want.push(tool.clone());
    want.sort();
    let mut now = always(&app);
    now.sort();
    assert_eq!(now, want, "a turned on {tool}, and nothing else");
    assert_eq!(shown(&app), tool, "the detail still shows it");
    key(&mut app, KeyCode::Char('a'));
    assert_eq!(always(&app), before, "a second a undoes the first");
}

#[test]
fn a_twice_in_the_results_undoes_and_the_highlight_follows_the_tool() {
    let (mut app, before) = searched("refund a payment");
    // A tool below the always-load ones: turning it on moves it up.
    key(&mut app, KeyCode::Char('G'));
    let tool = shown(&app);
    let row = app.search().list.selected;
    key(&mut app, KeyCode::Char('a'));
    assert!(always(&app).contains(&tool), "{tool} turned on");
    assert_eq!(shown(&app), tool, "the highlight follows {tool}");
    assert_ne!(app.search().list.selected, row, "it moved up the list");
    key(&mut app, KeyCode::Char('a'));
    assert_eq!(always(&app), before, "the second a undoes the first");
    assert_eq!(shown(&app), tool);
}

#[test]
fn under_strategy_all_the_results_and_the_detail_say_every_tool_is_sent() {
    let (mut app, effects) =
        super::tests::demo_setup(|s| s.settings.strategy = crate::tools_handle::Strategy::All);
    super::tests::settle(&mut app, effects);
    app.update(super::Msg::Resize(120, 35));
    query(&mut app, "refund a payment");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    // A tool the cap of deferred would leave out.
    let rows = key(&mut app, KeyCode::Char('G'));
    let screen = rows.join("\n");
    assert!(screen.contains("all sent"), "{screen}");
    assert!(
        screen.contains("strategy all sends every tool;"),
        "{screen}"
    );
    assert!(screen.contains("deferred's cap of"), "{screen}");
    assert!(!screen.contains("below the cap of"), "{screen}");
    assert!(screen.contains("standing: sent: strategy all"), "{screen}");
    assert!(!screen.contains("standing: not loaded"), "{screen}");
    // The highlighted row below the cap carries the highlight's mark.
    let cap = rows
        .iter()
        .position(|r| r.contains("deferred's cap of"))
        .unwrap();
    assert!(rows[cap + 1..].iter().any(|r| r.contains('›')), "{screen}");
}

/// The Tune screen on `queries`, saving to `path`.
fn tuned(queries: &str, path: &std::path::Path, chosen: bool) -> super::App {
    let (mut app, effects) = super::tests::demo_setup(|s| {
        s.queries = Some(queries.into());
        s.config_path = Some(path.to_path_buf());
        s.ranker_chosen = chosen;
    });
    super::tests::settle(&mut app, effects);
    super::tests::press(&mut app, KeyCode::Char('t'));
    app
}

#[test]
fn tunes_save_keeps_a_ranker_the_explorer_picked_and_names_the_request_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let requests = dir.path().join("requests.jsonl");
    std::fs::write(
        &requests,
        "{\"query\": \"refund a payment\", \"expected\": [\"refund_payment\"]}\n",
    )
    .unwrap();
    let mut app = tuned(requests.to_str().unwrap(), &path, false);
    super::tests::press(&mut app, KeyCode::Char('a'));
    super::tests::press(&mut app, KeyCode::Char('s'));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        !text.contains("ranker"),
        "the ranker is not pinned:\n{text}"
    );
    assert!(
        text.contains(&format!("queries = \"{}\"", requests.display())),
        "{text}"
    );
    // Reopened on the saved file: the same requests, without a flag.
    let c = crate::config::Config::load_with(Some(&path), &|_| None).unwrap();
    assert_eq!(c.explorer.queries.as_deref(), requests.to_str());

    // A ranker the user named is written; @demo is not a file to name.
    let path = dir.path().join("chosen.toml");
    let mut app = tuned("@demo", &path, true);
    super::tests::press(&mut app, KeyCode::Char('s'));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("ranker = \"bm25\""), "{text}");
    assert!(!text.contains("queries"), "{text}");
}

#[test]
fn lowering_the_initial_count_at_0_says_it_goes_no_lower() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = tuned("@demo", &dir.path().join("c.toml"), false);
    for _ in 0..9 {
        super::tests::press(&mut app, KeyCode::Char('['));
    }
    assert_eq!(app.settings().initial_tool_count.get(), 0);
    let message = tune(&app).message.clone().unwrap();
    assert!(!message.contains("0 → 0"), "{message}");
    assert_eq!(message, "initial_tool_count is 0: it goes no lower");
}

#[test]
fn a_name_the_filter_hides_says_so_and_esc_clears_a_kept_name_filter() {
    let mut app = sized(120, 35);
    // The always-load filter, then a name only other tools have.
    key(&mut app, KeyCode::Char('f'));
    key(&mut app, KeyCode::Char('&'));
    for c in "ticket".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let rows = key(&mut app, KeyCode::Enter);
    let screen = rows.join("\n");
    assert!(screen.contains("no always-load tool's name"), "{screen}");
    assert!(screen.contains("6 tools of the catalog do"), "{screen}");
    // & again offers the kept text: typing replaces it.
    key(&mut app, KeyCode::Char('&'));
    key(&mut app, KeyCode::Char('u'));
    assert_eq!(app.catalog_view().name_filter(), "u");
    key(&mut app, KeyCode::Enter);
    // Esc in the pane clears the kept filter.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.catalog_view().name_filter(), "");
    assert_eq!(app.status(), Some("name filter cleared"));
}

#[test]
fn help_offers_server_keys_only_on_a_catalog_with_servers() {
    use crate::tui::screen::help::rows::{HelpRow, help_rows};
    let app = sized(120, 35);
    let text = |rows: Vec<HelpRow>| format!("{rows:?}");
    // The demo catalog names no server, and no MCP server is live.
    let rows = text(help_rows(app.keymap(), app.mcp_servers(), false));
    assert!(!rows.contains("flags, server"), "{rows}");
    assert!(!rows.contains("selected, server"), "{rows}");
    assert!(!rows.contains("Before a real call"), "{rows}");
    let rows = text(help_rows(app.keymap(), app.mcp_servers(), true));
    assert!(rows.contains("flags, server"), "{rows}");
}

#[test]
fn two_tools_never_read_the_same_in_a_narrow_catalog_pane() {
    let catalog = std::sync::Arc::new(
        crate::catalog::load(&crate::catalog::CatalogSource::parse("@github-mcp")).unwrap(),
    );
    let setup = crate::tui::Setup::new(catalog, crate::search::Searcher::embedded());
    let (mut app, effects) = super::App::new(setup).unwrap();
    super::tests::settle(&mut app, effects);
    app.update(super::Msg::Resize(80, 24));
    let rows = super::tests_finish::draw(&app);
    let pane = app.layout().catalog;
    let names: Vec<String> = super::tests_finish::inside(&rows, pane)
        .iter()
        .filter_map(|r| {
            r.split_whitespace()
                .find(|w| w.contains('_'))
                .map(str::to_string)
        })
        .collect();
    assert!(names.len() > 10, "{names:?}");
    let mut seen = std::collections::HashSet::new();
    for n in &names {
        assert!(seen.insert(n), "{n} twice in {names:?}");
    }
}

#[test]
fn another_tool_opens_without_the_last_ones_find_and_unwrapped_mode() {
    let mut app = sized(120, 35);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus(), Focus::Detail);
    key(&mut app, KeyCode::Char('/'));
    for c in "description".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('w'));
    assert_eq!(app.detail().find.words(), "description");
    assert!(app.detail().unwrapped);
    // Back to the catalog, the next tool.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(
        app.detail().find.words(),
        "",
        "the find was the last tool's"
    );
    assert!(!app.detail().unwrapped, "w was the last tool's");
}

#[test]
fn the_breakers_values_wrap_under_themselves_at_80x24() {
    let mut app = sized(80, 24);
    // create_ticket: arguments too long for the pane.
    let rows = key(&mut app, KeyCode::Char('b'));
    let screen = rows.join("\n");
    let args = rows
        .iter()
        .position(|r| r.contains("┃args   {"))
        .expect(&screen);
    assert!(rows[args + 1].starts_with("┃       "), "{screen}");
    let call = rows
        .iter()
        .position(|r| r.contains("┃call   create_ticket("))
        .expect(&screen);
    assert!(rows[call + 1].starts_with("┃       "), "{screen}");
    // The empty call log's hint is whole, wrapped in its pane.
    assert!(screen.contains("calls it in a loop"), "{screen}");
}

#[test]
fn a_long_query_at_80x24_keeps_the_first_caps() {
    let mut app = sized(80, 24);
    query(&mut app, "list the open tickets of the billing team");
    key(&mut app, KeyCode::Enter);
    let rows = key(&mut app, KeyCode::Esc);
    assert!(rows[2].contains("init 8 · max_loaded - "), "{}", rows[2]);
    // Longer still: the initial count alone, then the query alone.
    query(&mut app, " and who reported them");
    let rows = super::tests_finish::draw(&app);
    assert!(
        rows[2]
            .trim_end_matches(['│', '┃', ' '])
            .ends_with("init 8"),
        "{}",
        rows[2]
    );
}

#[test]
fn a_cached_query_time_is_said_only_where_the_results_title_has_room() {
    for (w, whole) in [(80u16, false), (120, false), (160, true), (200, true)] {
        let mut app = super::tests_finish::sized(w, 35);
        app.search.latency = Some(std::time::Duration::from_micros(2_290));
        app.search.query_cached = true;
        let rows = super::tests_finish::draw(&app);
        let title = rows
            .iter()
            .find(|r| r.contains("Results "))
            .expect("the results pane");
        assert!(title.contains("2.29 ms"), "{w}: {title}");
        assert_eq!(
            title.contains("2.29 ms (query cached)"),
            whole,
            "{w}: {title}"
        );
        let cut = title.contains("(query") && !title.contains("(query cached)");
        assert!(!cut, "{w}: never a cut word: {title}");
    }
}

/// Runs `effects` as the loop would, each search's answer timed as
/// `elapsed` with its query's vector in memory or not.
fn answered(
    app: &mut super::App,
    effects: Vec<super::Effect>,
    elapsed: std::time::Duration,
    query_cached: bool,
) {
    let searcher = app.searcher().clone();
    for effect in effects {
        let msg = match crate::tui::effect::run_effect(&searcher, effect) {
            super::Msg::SearchDone(mut answer) => {
                answer.elapsed = elapsed;
                answer.query_cached = query_cached;
                super::Msg::SearchDone(answer)
            }
            other => other,
        };
        let more = app.update(msg);
        super::tests::settle(app, more);
    }
}

#[test]
fn a_search_after_its_preview_says_the_time_it_took_when_it_ran() {
    use std::time::Duration;
    for (w, whole) in [(80u16, false), (200, true)] {
        let mut app = sized(w, 35);
        query(&mut app, "refund a paymen");
        // The last key's preview embeds the query: 12 ms.
        let effects = app.update(super::tests::key(KeyCode::Char('t')));
        answered(&mut app, effects, Duration::from_millis(12), false);
        // Enter searches again; the vector is in memory: 0.2 ms.
        let effects = app.update(super::tests::key(KeyCode::Enter));
        answered(&mut app, effects, Duration::from_micros(200), true);
        assert_eq!(app.search().query, "refund a payment");
        let rows = super::tests_finish::draw(&app);
        let title = rows
            .iter()
            .find(|r| r.contains("Results "))
            .expect("the results pane");
        // The time the search took when it ran, never the cache's alone.
        assert!(title.contains("· 12.00 ms"), "{w}: {title}");
        assert_eq!(
            title.contains("12.00 ms (cached: 0.20 ms now)"),
            whole,
            "{w}: {title}"
        );
        assert!(!title.contains("(query cached)"), "{w}: {title}");
        if whole {
            let tokens = rows
                .iter()
                .find(|r| r.contains("this search sends"))
                .expect("the Tokens box");
            assert!(
                tokens.contains("12.00 ms (cached: 0.20 ms now)"),
                "{tokens}"
            );
        }
        // Another query's cached vector has no first time here: said as
        // cached.
        let effects = app.update(super::tests::key(KeyCode::Char('s')));
        answered(&mut app, effects, Duration::from_micros(300), true);
        let rows = super::tests_finish::draw(&app);
        let title = rows.iter().find(|r| r.contains("Results ")).unwrap();
        assert!(title.contains("0.30 ms"), "{w}: {title}");
        assert!(!title.contains("12.00"), "{w}: {title}");
    }
}
