//! The habits of the TUIs our users live in: rows below the cap picked,
//! `/` in the detail and help, the query history, the call log following
//! its pick, picking by hand, the schema folded and scrolled sideways.

use crossterm::event::KeyCode;

use super::Focus;
use super::tests_finish::{draw, key, sized};
use super::tests_trust::query;
use crate::tui::screen::breaker::BreakerPane;
use crate::tui::screen::help::HelpState;

/// The text of the side detail pane (with its borders).
fn detail_text(app: &super::App, rows: &[String]) -> String {
    let d = app.layout().detail.expect("a detail pane");
    rows[usize::from(d.y)..usize::from(d.bottom())]
        .iter()
        .map(|r| {
            r.chars()
                .skip(usize::from(d.x))
                .take(usize::from(d.width))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_rows_below_the_cap_can_be_picked_and_their_detail_says_why() {
    let mut app = sized(200, 60);
    query(&mut app, "send an email to the team");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.focus(), Focus::Results);
    let loaded = app.search().len();
    let near = app.search().near();
    assert_eq!(near.len(), 3, "three tools below the cap");
    assert_eq!(app.search().rows(), loaded + 3);
    // Down past the loaded tools: the first tool below the cap.
    for _ in 0..loaded {
        key(&mut app, KeyCode::Char('j'));
    }
    let (index, hit) = app.current_tool().unwrap();
    assert_eq!((index, hit.is_none()), (near[0], true));
    let rows = draw(&app);
    let name = app.catalog().tools()[near[0]].name.clone();
    let detail = detail_text(&app, &rows);
    assert!(detail.contains(&name), "{detail}");
    assert!(detail.contains("below the cap of 8"), "{detail}");
    // The pane says where the highlight is, of every row.
    let at = format!("{}/{}", loaded + 1, loaded + 3);
    assert!(rows.iter().any(|r| r.contains(&at)), "{at}");
    // The bottom stops at the last one; `c` finds it in the catalog.
    key(&mut app, KeyCode::Char('G'));
    assert_eq!(app.current_tool().unwrap().0, near[2]);
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.focus(), Focus::Catalog);
    assert_eq!(app.catalog_view().current(), Some(near[2]));
}

#[test]
fn a_tool_the_gate_held_back_can_be_picked_at_80x24() {
    let mut app = sized(80, 24);
    query(&mut app, "show the weather in Paris");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    let held = app.search().near();
    assert!(!held.is_empty());
    key(&mut app, KeyCode::Char('G'));
    assert_eq!(app.current_tool().unwrap().0, *held.last().unwrap());
    // The highlighted held-back row is on screen.
    let rows = draw(&app);
    let name = &app.catalog().tools()[*held.last().unwrap()].name;
    assert!(rows.iter().any(|r| r.contains(name.as_str())), "{rows:#?}");
    // Its detail (a popup at 80 columns) says why it was not loaded.
    let rows = key(&mut app, KeyCode::Enter);
    assert!(rows.iter().any(|r| r.contains("not loaded")), "{rows:#?}");
}

#[test]
fn slash_finds_words_in_the_detail_and_n_goes_to_the_next() {
    let mut app = sized(120, 35);
    // The detail pane of the first tool, with the keys.
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus(), Focus::Detail);
    key(&mut app, KeyCode::Char('/'));
    assert!(app.finding(), "/ opens the find box, not the query box");
    assert_eq!(app.focus(), Focus::Detail);
    let rows = draw(&app);
    assert!(
        super::tests_finish::message(&rows).contains("keep"),
        "{:?}",
        rows.last()
    );
    for c in "description".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let first = app.detail().scroll.pos();
    assert!(first > 0, "moved to the first line holding the words");
    let rows = key(&mut app, KeyCode::Enter);
    assert!(!app.finding());
    let detail = detail_text(&app, &rows);
    assert!(detail.contains("/description  1 of "), "{detail}");
    key(&mut app, KeyCode::Char('n'));
    let second = app.detail().scroll.pos();
    assert!(second > first, "{first} {second}");
    key(&mut app, KeyCode::Char('N'));
    assert_eq!(app.detail().scroll.pos(), first);
    // Words that are nowhere say so; Esc in the box forgets them.
    key(&mut app, KeyCode::Char('/'));
    for c in "zqzq".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let detail = detail_text(&app, &draw(&app));
    assert!(detail.contains("/zqzq  not found"), "{detail}");
    key(&mut app, KeyCode::Esc);
    assert!(!app.finding());
    assert!(!detail_text(&app, &draw(&app)).contains("/zqzq"));
    assert_eq!(app.focus(), Focus::Detail);
}

#[test]
fn slash_finds_words_in_help() {
    let mut app = sized(80, 24);
    key(&mut app, KeyCode::Char('?'));
    key(&mut app, KeyCode::Char('/'));
    for c in "breaker".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    assert!(app.screen::<HelpState>().unwrap().scroll.pos() > 0);
    let rows = key(&mut app, KeyCode::Enter);
    assert_eq!(app.popup(), Some(super::Popup::Help));
    assert!(
        rows.iter().any(|r| r.contains("/breaker  1 of")),
        "{rows:#?}"
    );
    // q typed in the box is text, not quit.
    key(&mut app, KeyCode::Char('/'));
    key(&mut app, KeyCode::Char('q'));
    assert!(!app.should_quit());
    assert_eq!(app.screen::<HelpState>().unwrap().find.words(), "q");
}

#[test]
fn the_query_history_lists_committed_queries_and_searches_a_pick() {
    let mut app = sized(80, 24);
    // Nothing committed yet: H says how to get a history.
    let rows = key(&mut app, KeyCode::Char('H'));
    assert!(
        super::tests_finish::message(&rows).contains("no queries yet"),
        "{:?}",
        super::tests_finish::message(&rows)
    );
    for q in ["refund the duplicate charge", "who is on call"] {
        key(&mut app, KeyCode::Char('/'));
        app.update(crate::tui::effect::Msg::Action(
            crate::tui::action::Action::InputClear,
        ));
        for c in q.chars() {
            key(&mut app, KeyCode::Char(c));
        }
        key(&mut app, KeyCode::Enter);
        key(&mut app, KeyCode::Esc);
    }
    let rows = key(&mut app, KeyCode::Char('H'));
    assert_eq!(app.popup(), Some(super::Popup::History));
    let text = rows.join("\n");
    let newest = text.find("2  who is on call").expect(&text);
    let older = text.find("1  refund the duplicate charge").unwrap();
    assert!(newest < older, "newest first:\n{text}");
    assert!(text.contains(" 1/2 "), "{text}");
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.popup(), None);
    assert_eq!(app.query().text(), "refund the duplicate charge");
    assert_eq!(app.search().query, "refund the duplicate charge");
    // Picked again, it is the newest.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('H'));
    key(&mut app, KeyCode::Char('d'));
    key(&mut app, KeyCode::Char('d'));
    assert_eq!(app.popup(), None, "the last one forgotten closes it");
    assert!(app.query().history.is_empty());
}

#[test]
fn the_call_log_follows_the_picked_call_and_says_which_it_is() {
    let mut app = sized(80, 24);
    key(&mut app, KeyCode::Char('b'));
    // Two loops: more calls than the log has rows for.
    key(&mut app, KeyCode::Char('L'));
    let rows = key(&mut app, KeyCode::Char('L'));
    let calls = app.screen::<BreakerPane>().unwrap().log.len();
    assert!(calls >= 8, "{calls}");
    let text = rows.join("\n");
    assert!(text.contains(&format!(" {calls}/{calls} ")), "{text}");
    // Picked up to the first call: the log shows it, and says so.
    for _ in 0..calls {
        key(&mut app, KeyCode::Char('k'));
    }
    let text = draw(&app).join("\n");
    assert!(text.contains("›  1 "), "{text}");
    assert!(text.contains(&format!(" 1/{calls} ")), "{text}");
}

#[test]
fn space_picks_tools_that_a_toggles_and_x_exports() {
    let mut app = sized(120, 35);
    // The first two catalog rows picked; the cursor moves on each time.
    key(&mut app, KeyCode::Char(' '));
    let rows = key(&mut app, KeyCode::Char(' '));
    let picked: Vec<usize> = app.picked().iter().copied().collect();
    assert_eq!(picked.len(), 2);
    assert_eq!(app.catalog_view().list.selected, 2);
    let text = rows.join("\n");
    assert!(text.contains("· 2 picked"), "{text}");
    assert_eq!(text.matches('✓').count(), 2, "{text}");
    // a: always-load on both, as one change.
    key(&mut app, KeyCode::Char('a'));
    assert!(picked.iter().all(|&i| app.catalog().tools()[i].always_load));
    key(&mut app, KeyCode::Char('a'));
    assert!(
        picked
            .iter()
            .all(|&i| !app.catalog().tools()[i].always_load)
    );
    // x: the export writes the picked tools, and says so.
    let rows = key(&mut app, KeyCode::Char('x'));
    assert!(
        rows.iter().any(|r| r.contains("2 (the tools you picked)")),
        "{rows:#?}"
    );
    assert_eq!(app.export_set().unwrap(), picked);
    key(&mut app, KeyCode::Esc);
    // Esc unpicks them all; again, it says there is nothing to leave.
    key(&mut app, KeyCode::Esc);
    assert!(app.picked().is_empty());
    let rows = key(&mut app, KeyCode::Esc);
    assert!(
        super::tests_finish::message(&rows).contains("nothing to leave"),
        "{:?}",
        super::tests_finish::message(&rows)
    );
}

#[test]
fn z_folds_the_schema_to_its_property_names_and_back() {
    let mut app = sized(120, 35);
    let full = detail_text(&app, &draw(&app));
    assert!(full.contains("\"description\": \"Agent user"), "{full}");
    let rows = key(&mut app, KeyCode::Char('z'));
    let names = detail_text(&app, &rows);
    assert!(names.contains("\"assignee_id\": {…2 keys},"), "{names}");
    assert!(!names.contains("Agent user"), "{names}");
    assert!(
        super::tests_finish::message(&rows).contains("names only"),
        "{:?}",
        super::tests_finish::message(&rows)
    );
    key(&mut app, KeyCode::Char('z'));
    let rows = key(&mut app, KeyCode::Char('z'));
    assert!(detail_text(&app, &rows).contains("\"description\": \"Agent user"));
    // Below 100 columns the detail is a popup: z folds there too.
    let mut app = sized(80, 24);
    key(&mut app, KeyCode::Enter);
    let rows = key(&mut app, KeyCode::Char('z'));
    assert!(rows.join("\n").contains("{…2 keys}"), "{rows:#?}");
}

#[test]
fn w_lets_long_lines_run_past_the_edge_and_arrows_scroll_them() {
    let mut app = sized(120, 35);
    // From the catalog, the arrows say how to reach the detail.
    let rows = key(&mut app, KeyCode::Right);
    assert!(
        super::tests_finish::message(&rows).contains("Tab to it"),
        "{:?}",
        super::tests_finish::message(&rows)
    );
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus(), Focus::Detail);
    let rows = key(&mut app, KeyCode::Right);
    assert!(
        super::tests_finish::message(&rows).contains("w lets them run"),
        "{:?}",
        super::tests_finish::message(&rows)
    );
    let wrapped = detail_text(&app, &draw(&app));
    assert!(!wrapped.contains(" cols "), "{wrapped}");
    let rows = key(&mut app, KeyCode::Char('w'));
    let unwrapped = detail_text(&app, &rows);
    assert!(unwrapped.contains(" cols 1-"), "{unwrapped}");
    key(&mut app, KeyCode::Right);
    let rows = key(&mut app, KeyCode::Right);
    let moved = detail_text(&app, &rows);
    assert!(moved.contains(" cols 17-"), "{moved}");
    assert_eq!(app.detail().side.pos(), 16);
    // Far right stops at the longest line's end.
    for _ in 0..200 {
        key(&mut app, KeyCode::Char('l'));
    }
    let rows = draw(&app);
    let text = detail_text(&app, &rows);
    let (_, of) = text.split_once(" of ").unwrap();
    let longest: usize = of.split_whitespace().next().unwrap().parse().unwrap();
    assert!(text.contains(&format!("-{longest} of {longest}")), "{text}");
    // w again wraps, from the left edge.
    key(&mut app, KeyCode::Char('w'));
    assert_eq!(app.detail().side.pos(), 0);
    assert!(!detail_text(&app, &draw(&app)).contains(" cols "));
}
