//! The start (the ranker and the counts warmed before the first search) and
//! a tool taken out of the explorer (`y`, `e`).

use std::sync::Arc;

use crossterm::event::KeyCode;

use super::tests::{demo_setup, press, started};
use super::*;
use crate::search::Searcher;
use crate::service::Service;
use crate::tui::pane::results::Results;

fn demo_on(service: &Arc<Service>) -> (App, Vec<Effect>) {
    demo_setup(|s| s.searcher = Searcher::Embedded(service.clone()))
}

#[test]
fn the_start_warms_the_index_and_the_first_search_finds_it_built() {
    let service = Arc::new(Service::default());
    let (mut app, effects) = demo_on(&service);
    // The counts and the index, side by side; no search before them.
    assert_eq!(effects.len(), 2);
    assert!(matches!(effects[0], Effect::Costs { .. }));
    assert!(matches!(effects[1], Effect::Warm { .. }));
    let searcher = app.searcher().clone();
    let mut effects = effects.into_iter();
    let (costs, warm) = (effects.next().unwrap(), effects.next().unwrap());
    // The index first: the search waits for the counts too.
    // (and the findability audit, on a service of its own).
    assert!(matches!(
        &app.update(run_effect(&searcher, warm))[..],
        [Effect::Audit { .. }]
    ));
    assert_eq!(service.stats().index_builds, 1);
    assert_eq!(service.stats().searches, 0);
    let next = app.update(run_effect(&searcher, costs));
    assert!(
        matches!(&next[..], [Effect::Search { request, .. }] if request.query.is_empty()),
        "{next:?}"
    );
    app.settle(next);
    let stats = service.stats();
    assert_eq!(
        (stats.searches, stats.index_builds, stats.index_cache_hits),
        (1, 1, 1),
        "the first search found the index built"
    );
    assert_eq!(stats.cost_vectors, 1, "and the counts");
    assert!(matches!(app.search().results, Results::Found(_)));
}

#[test]
fn a_query_typed_before_the_start_is_done_is_the_first_search() {
    let service = Arc::new(Service::default());
    let (mut app, start) = demo_on(&service);
    app.update(Msg::Action(Action::FocusQuery));
    let typed = app.update(Msg::Type("refund".into()));
    app.settle(typed.into_iter().chain(start).collect());
    assert_eq!(service.stats().searches, 1, "no empty search after it");
    assert_eq!(app.search().query, "refund");
}

#[test]
fn y_copies_and_e_opens_the_highlighted_tools_json() {
    let mut app = started();
    let copy = app.update(Msg::Action(Action::CopyTool));
    let [
        Effect::Copy {
            text,
            what,
            instead,
        },
    ] = &copy[..]
    else {
        panic!("{copy:?}");
    };
    let first = &app.catalog().tools()[app.current_tool().unwrap().0];
    let json: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(json["type"], "function");
    assert_eq!(json["name"], first.name.as_str());
    assert_eq!(json["parameters"], first.input_schema);
    assert_eq!(what, &format!("{} (openai-responses JSON)", first.name));
    assert_eq!(instead, "e opens it in a pager instead");
    let open = app.update(Msg::Action(Action::OpenTool));
    assert!(
        matches!(&open[..], [Effect::Page { text: t, what: w }] if t == text && w == what),
        "{open:?}"
    );
    // Without a terminal (tests, benchmarks) the answer says so.
    app.settle(copy.clone());
    assert_eq!(
        app.status(),
        Some(format!("{what} not copied: no terminal").as_str())
    );
}

#[test]
fn the_format_last_exported_is_the_one_copied() {
    let mut app = started();
    press(&mut app, KeyCode::Char('x'));
    app.update(Msg::Action(Action::InputHistoryNext));
    let written = app.update(Msg::Action(Action::InputSubmit));
    assert!(
        matches!(&written[..], [Effect::WriteFile { .. }]),
        "{written:?}"
    );
    // The popup closes once the write is done.
    assert_eq!(app.popup(), Some(Popup::Export));
    app.update(Msg::Written(Ok("wrote".into())));
    assert_eq!(app.popup(), None);
    let copy = app.update(Msg::Action(Action::CopyTool));
    let [Effect::Copy { text, what, .. }] = &copy[..] else {
        panic!("{copy:?}");
    };
    assert!(what.ends_with("(openai-chat JSON)"), "{what}");
    let json: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(json["type"], "function");
    assert!(json["function"]["name"].is_string(), "{json}");
}
