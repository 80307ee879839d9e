use std::sync::Arc;

use super::*;
use crate::catalog::{CatalogSource, load};
use crate::tui::effect::{Msg, run_effect};

fn demo() -> (Arc<Catalog>, Searcher, Settings) {
    let catalog = Arc::new(load(&CatalogSource::demo()).unwrap());
    let settings = Settings {
        strategy: Strategy::Deferred,
        ..Settings::default()
    };
    (catalog, Searcher::embedded(), settings)
}

fn open(query: &str, settings: &Settings) -> Result<ComparePane, crate::tui::screen::Unopened> {
    let (catalog, searcher, _) = demo();
    let handle = settings.validate(&catalog).unwrap();
    let on = Compared {
        catalog: &catalog,
        searcher: &searcher,
        settings,
        handle: &handle,
        query,
        regex: false,
    };
    let (mut pane, effects) = ComparePane::open(&on)?;
    run(&mut pane, &searcher, effects);
    Ok(pane)
}

fn run(pane: &mut ComparePane, searcher: &Searcher, effects: Vec<Effect>) {
    for effect in effects {
        match run_effect(searcher, effect) {
            Msg::Screen(answer) if answer.get::<SideFound>().is_some() => {
                let s = answer.get::<SideFound>().unwrap().clone();
                assert!(pane.receive(s.generation, s.right, &s.catalog, s.run));
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn an_empty_query_has_nothing_to_compare() {
    let (_, _, settings) = demo();
    let why = open("  ", &settings).unwrap_err();
    assert_eq!(why, crate::tui::screen::Unopened::NoQuery);
    assert!(why.to_string().contains("type a request"), "{why}");
}

#[test]
fn without_an_embedding_model_the_other_ways_are_strategy_and_gate() {
    let (_, _, settings) = demo();
    let pane = open("send an email", &settings).unwrap();
    let labels: Vec<&str> = pane.ways.iter().map(|w| w.label.as_str()).collect();
    assert_eq!(labels, ["strategy all", "gate off"]);
    assert_eq!(pane.right().way.label, "strategy all");
}

#[test]
fn strategy_all_sends_every_tool_and_the_overlap_says_so() {
    let (catalog, _, settings) = demo();
    let pane = open("send an email to the team", &settings).unwrap();
    let left = pane.left().sent(catalog.len()).unwrap();
    let right = pane.right().sent(catalog.len()).unwrap();
    assert!(left.tools > 0 && left.tools < catalog.len(), "{left:?}");
    assert_eq!(right.tools, catalog.len());
    assert_eq!(right.tokens, right.full);
    assert!(left.tokens < right.tokens);
    let o = pane.overlap().unwrap();
    assert_eq!(o.both, left.tools);
    assert_eq!(o.only_left, 0);
    assert_eq!(o.only_right, catalog.len() - left.tools);
}

#[test]
fn stepping_the_right_side_searches_it_again_and_drops_the_older_answer() {
    let (catalog, searcher, settings) = demo();
    let mut pane = open("send an email to the team", &settings).unwrap();
    let Outcome::Effects(first) = pane.handle(Action::CompareNext, 10) else {
        panic!("a search")
    };
    assert_eq!(pane.right().way.label, "gate off");
    assert!(matches!(pane.right().answer, Answer::Waiting));
    // Stepped again before the answer came: the first answer is dropped.
    let Outcome::Effects(second) = pane.handle(Action::ComparePrev, 10) else {
        panic!("a search")
    };
    assert_eq!(pane.right().way.label, "strategy all");
    let Msg::Screen(answer) = run_effect(&searcher, first.into_iter().next().unwrap()) else {
        panic!()
    };
    let SideFound {
        generation,
        right,
        run,
        ..
    } = answer.get::<SideFound>().unwrap().clone();
    assert!(!pane.receive(generation, right, &catalog, run));
    run_all(&mut pane, &searcher, second);
    assert!(pane.right().sends_all());
}

fn run_all(pane: &mut ComparePane, searcher: &Searcher, effects: Vec<Effect>) {
    run(pane, searcher, effects)
}

#[test]
fn the_gate_off_side_loads_what_the_gate_held_back() {
    let (catalog, searcher, settings) = demo();
    // No demo tool fits: the gate holds back the nearest, which match a word.
    let mut pane = open("show the weather in Paris", &settings).unwrap();
    let Outcome::Effects(effects) = pane.handle(Action::CompareNext, 10) else {
        panic!()
    };
    run(&mut pane, &searcher, effects);
    let left = pane.left().sent(catalog.len()).unwrap();
    let right = pane.right().sent(catalog.len()).unwrap();
    assert!(right.tools > left.tools, "{left:?} {right:?}");
    let o = pane.overlap().unwrap();
    assert_eq!(o.only_left, 0);
    assert_eq!(o.only_right, right.tools - left.tools);
}

#[test]
fn scrolling_stops_at_the_last_page_and_apply_hands_over_the_right_settings() {
    let (catalog, _, settings) = demo();
    let mut pane = open("send an email to the team", &settings).unwrap();
    let rows = pane.rows();
    assert_eq!(
        rows,
        pane.left().found().len() + 1,
        "the all side's extra row"
    );
    for _ in 0..rows + 5 {
        pane.handle(Action::CompareDown, 3);
    }
    assert_eq!(pane.scroll(), rows - 3);
    pane.handle(Action::ComparePageUp, 3);
    assert_eq!(pane.scroll(), rows - 4);
    let Outcome::Apply(applied) = pane.handle(Action::CompareApply, 3) else {
        panic!()
    };
    assert_eq!(applied.strategy, Strategy::All);
    assert!(applied.validate(&catalog).is_ok());
    assert!(matches!(
        pane.handle(Action::CompareClose, 3),
        Outcome::Close
    ));
}

#[test]
fn places_number_as_the_results_pane_does() {
    let (_, _, settings) = demo();
    let pane = open("send an email to the team", &settings).unwrap();
    let places = pane.left().places();
    let found = pane.left().found();
    for (hit, place) in found.iter().zip(&places) {
        assert_eq!(place.is_none(), hit.reason == Some(Reason::AlwaysLoad));
    }
    let numbered: Vec<usize> = places.iter().flatten().copied().collect();
    assert!(numbered.windows(2).all(|w| w[0] < w[1]), "{numbered:?}");
}
