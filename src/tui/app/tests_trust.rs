//! Faults that would stop a user trusting the explorer's figures, each
//! held down: the Tokens box follows the strategy, and more below.

use crossterm::event::KeyCode;

use super::Focus;
use super::tests_finish::{draw, key, sized};

/// The Tokens box's two lines.
fn tokens_box(rows: &[String]) -> (String, String) {
    let at = rows
        .iter()
        .position(|r| r.contains("Tokens"))
        .expect("a Tokens box");
    (rows[at + 1].clone(), rows[at + 2].clone())
}

#[test]
fn the_tokens_box_follows_the_strategy_and_says_what_each_line_measures() {
    for (w, h) in [(80, 24), (120, 35), (200, 60)] {
        let mut app = sized(w, h);
        let (search, first) = tokens_box(&draw(&app));
        assert!(
            search.contains("this search sends 455 of 10,445 tk"),
            "{search}"
        );
        assert!(
            search.contains("95.6 %") && !search.contains("% saved"),
            "{search}"
        );
        assert!(
            first.contains("first turn sends 1,742 of 10,445 tk"),
            "{first}"
        );
        assert!(first.contains("saves 83.3 %"), "{first}");
        // Strategy all: every turn sends the whole catalog; neither line
        // claims a saving.
        key(&mut app, KeyCode::Char('s'));
        key(&mut app, KeyCode::Right);
        assert_eq!(app.settings().strategy, crate::select::Strategy::All);
        let rows = key(&mut app, KeyCode::Esc);
        let (search, first) = tokens_box(&rows);
        assert!(
            search.contains("this turn sends all 10,445 tk"),
            "{w}: {search}"
        );
        assert!(
            search.contains("0.0 %") && !search.contains("95.6"),
            "{search}"
        );
        assert!(search.contains("455"), "what deferred would send: {search}");
        assert!(
            first.contains("10,445 of 10,445 tk") && first.contains("saves 0.0 %"),
            "{first}"
        );
    }
}

#[test]
fn the_side_detail_opens_the_next_tool_at_its_top() {
    let mut app = sized(120, 35);
    // The detail pane scrolled down through the first tool's schema...
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus(), Focus::Detail, "Tab reaches the detail pane");
    for _ in 0..6 {
        key(&mut app, KeyCode::Char('j'));
    }
    assert!(app.detail.scroll.pos() > 0, "scrolled");
    // ... then another tool chosen in the catalog: its detail from the top.
    key(&mut app, KeyCode::BackTab);
    key(&mut app, KeyCode::BackTab);
    let rows = key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.detail.scroll.pos(), 0);
    let name = &app.catalog().tools()[app.current_tool().unwrap().0].name;
    let description = &app.catalog().tools()[app.current_tool().unwrap().0].description;
    let first_words: String = description
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(rows.iter().any(|r| r.contains(name.as_str())), "{rows:#?}");
    assert!(
        rows.iter().any(|r| r.contains(&first_words)),
        "the description's start: {rows:#?}"
    );
}

#[test]
fn a_result_row_and_its_detail_give_the_same_place() {
    let mut app = sized(120, 35);
    key(&mut app, KeyCode::Char('/'));
    for c in "open a pull request".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    // The first row after the always-load tools, highlighted.
    let always = app.always_load_count();
    assert_eq!(
        app.focus(),
        Focus::Results,
        "Enter gives the results the keys"
    );
    for _ in 0..always {
        key(&mut app, KeyCode::Char('j'));
    }
    let rows = draw(&app);
    let (index, _) = app.current_tool().unwrap();
    let name = app.catalog().tools()[index].name.clone();
    let row = rows
        .iter()
        .find(|r| r.contains(&format!("› {}", always + 1)) && r.contains(&name))
        .unwrap_or_else(|| panic!("row {} is {name}: {rows:#?}", always + 1));
    assert!(!row.contains(" 1 "), "{row}");
    let place = crate::search::why::ordinal(always + 1);
    assert!(
        rows.iter().any(|r| r.contains(&format!("ranked {place}"))),
        "the detail says ranked {place}: {rows:#?}"
    );
}

#[test]
fn a_select_row_keeps_a_space_between_the_name_and_exact_name() {
    let mut app = sized(80, 24);
    key(&mut app, KeyCode::Char('/'));
    for c in "select:change_subscription_plan".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let rows = draw(&app);
    let row = rows
        .iter()
        .find(|r| r.contains("change_subscription_plan") && r.contains("exact"))
        .unwrap_or_else(|| panic!("{rows:#?}"));
    assert!(!row.contains("planexact"), "{row}");
    assert!(row.contains("change_subscription_plan exact"), "{row}");
}

#[test]
fn a_name_too_long_for_the_detail_title_ends_in_an_ellipsis_and_shows_whole_below() {
    use crate::catalog::{Catalog, Tool};
    let long = format!("fetch_{}", "very_long_segment_".repeat(11));
    assert!(long.len() > 200);
    let (mut app, effects) = super::tests::demo_setup(|s| {
        let tools = vec![
            Tool::new(long.clone(), "Fetches a thing."),
            Tool::new("other", "Another tool."),
        ];
        s.catalog = std::sync::Arc::new(Catalog::new("long", tools).unwrap());
    });
    super::tests::settle(&mut app, effects);
    app.update(crate::tui::Msg::Resize(120, 35));
    let rows = draw(&app);
    let r = app.layout().detail.expect("a detail pane at 120x35");
    let title = &rows[usize::from(r.y)];
    assert!(title.contains("fetch_very_long_segment_"), "{title}");
    assert!(title.contains('…'), "{title}");
    // The whole name, wrapped in the detail (its words joined up).
    let body: String = rows[usize::from(r.y) + 1..usize::from(r.bottom()) - 1]
        .iter()
        .map(|row| {
            row.chars()
                .skip(usize::from(r.x) + 1)
                .take(usize::from(r.width) - 2)
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect();
    assert!(body.contains(&format!("name: {long}")), "{body}");
}
