//! Faults that would stop a user trusting the explorer's figures, each
//! held down: the Tokens box follows the strategy, and more below.

use super::tests::tune;
use crossterm::event::KeyCode;

use super::Focus;
use super::tests_finish::{draw, key, sized};
use crate::tui::screen::export::ExportBox;

/// Types `text` in the query box (opened with `/`), drawing as the loop
/// does.
pub(super) fn query(app: &mut super::App, text: &str) {
    key(app, KeyCode::Char('/'));
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

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
        // No request yet: no saving claimed, what a search would send.
        let (search, _) = tokens_box(&draw(&app));
        assert!(search.contains("no request yet"), "{search}");
        assert!(
            search.contains("455 tk") && !search.contains('%'),
            "{search}"
        );
        let mut typed = sized(w, h);
        query(&mut typed, "refund a payment");
        key(&mut typed, KeyCode::Esc);
        let (search, first) = tokens_box(&draw(&typed));
        assert!(
            search.contains("this search sends") && search.contains("of 10,445 tk"),
            "{search}"
        );
        assert!(
            search.contains(" %") && !search.contains("% saved"),
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
        assert_eq!(app.settings().strategy, crate::tools_handle::Strategy::All);
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
    query(&mut app, "open a pull request");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
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
    // Numbered as `toolsift search` numbers it: the first searched tool is 1.
    let row = rows
        .iter()
        .find(|r| r.contains("› 1") && r.contains(&name))
        .unwrap_or_else(|| panic!("row 1 is {name}: {rows:#?}"));
    assert!(!row.contains(&format!(" {} ", always + 1)), "{row}");
    assert!(
        rows.iter().any(|r| r.contains("ranked 1st")),
        "the detail says ranked 1st: {rows:#?}"
    );
}

/// A request of two intents: every row, loaded or below the cap, reads the
/// place its detail gives, and the places run 1, 2, 3... down the pane (they
/// read 5, 7, 6, 13, then 8, 9, 10 below the cap, and the detail of the
/// 13th said "within the cap of 8").
#[test]
fn every_row_of_a_request_of_several_intents_reads_its_detail_s_place() {
    let q = "a customer got charged twice, give them their money back";
    for (w, h) in [(80, 24), (120, 35), (200, 60)] {
        let mut app = sized(w, h);
        query(&mut app, q);
        key(&mut app, KeyCode::Enter);
        key(&mut app, KeyCode::Esc);
        let always = app.always_load_count();
        for _ in 0..always {
            key(&mut app, KeyCode::Char('j'));
        }
        let total = app.search().rows() - always;
        assert!(total >= 5, "{total} rows at {w}x{h}");
        for place in 1..=total {
            let rows = draw(&app);
            let (index, _) = app.current_tool().unwrap();
            let name = app.catalog().tools()[index].name.clone();
            let short: String = name.chars().take(12).collect();
            let row = rows
                .iter()
                .find(|r| r.contains(&format!("›{place:>2} {short}")))
                .unwrap_or_else(|| panic!("row {place} at {w}x{h} is {name}: {rows:#?}"));
            assert!(row.contains(&short), "{row}");
            let why = app.search().standing.as_ref().unwrap().why(index);
            assert_eq!(why.rank, Some(place), "at {w}x{h}: {why:?}");
            let loaded = place <= app.search().len() - always;
            assert_eq!(why.verdict.loaded(), loaded, "at {w}x{h}: {why:?}");
            if w == 200 {
                // The detail, beside the results, says so in words.
                let ranked = format!("ranked {},", crate::search::why::ordinal(place));
                let verdict = if loaded { "within the" } else { "below the" };
                assert!(
                    rows.iter()
                        .any(|r| r.contains(&ranked) && r.contains(verdict)),
                    "row {place}'s detail says {ranked} {verdict} cap: {rows:#?}"
                );
            }
            key(&mut app, KeyCode::Char('j'));
        }
    }
}

#[test]
fn a_select_row_keeps_a_space_between_the_name_and_exact_name() {
    let mut app = sized(80, 24);
    query(&mut app, "select:change_subscription_plan");
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
    let body: String = super::tests_finish::inside(&rows, r)
        .iter()
        .map(|row| row.trim())
        .collect();
    assert!(body.contains(&format!("name: {long}")), "{body}");
}

#[test]
fn the_export_popup_opens_on_the_format_y_copies_in_and_y_copies_from_the_detail_popup() {
    use crate::provider::PayloadFormat;
    use crate::tui::effect::Effect;
    let mut app = sized(80, 24);
    // The export popup: ↓ picks the next format, Esc keeps it for y.
    query(&mut app, "refund");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('x'));
    assert_eq!(app.popup(), Some(super::Popup::Export));
    let rows = key(&mut app, KeyCode::Down);
    assert!(
        rows.iter()
            .any(|r| r.contains("openai-chat") && r.contains("change it")),
        "{rows:#?}"
    );
    // Typing replaces the suggested file name.
    let out = std::env::temp_dir().join(format!("toolsift-export-{}.json", std::process::id()));
    for c in out.to_str().unwrap().chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let written = std::fs::read_to_string(&out).expect("written where typed");
    let _ = std::fs::remove_file(&out);
    assert!(written.contains("\"function\""), "{written}");
    assert_eq!(app.tool_format, PayloadFormat::OpenaiChat);
    // Opened again: on that format.
    key(&mut app, KeyCode::Char('x'));
    assert_eq!(
        app.screen::<ExportBox>().unwrap().format,
        PayloadFormat::OpenaiChat
    );
    key(&mut app, KeyCode::Esc);
    // At 80 columns the detail is a popup: y copies the tool it shows.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.popup(), Some(super::Popup::Detail));
    let effects = app.update(crate::tui::Msg::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('y'),
        crossterm::event::KeyModifiers::NONE,
    )));
    assert!(
        matches!(&effects[..], [Effect::Copy { what, .. }] if what.ends_with("(openai-chat JSON)")),
        "{effects:?}"
    );
}

#[test]
fn every_key_line_offers_help_and_f1_opens_it_from_every_text_box() {
    use crate::tui::help::{KeyLine, key_line};
    let keymap = crate::tui::keymap::Keymap::defaults();
    for line in KeyLine::ALL {
        let hints = key_line(&keymap, line);
        assert!(
            hints.iter().any(|h| h.what == "help"),
            "{line:?}: {hints:?}"
        );
    }
    // Every screen's line but help's own.
    use crate::tui::screen::{breaker, compare, export, history, live, settings, tune};
    for own in [
        settings::KEYS,
        breaker::KEYS,
        breaker::INPUT_KEYS,
        breaker::CONFIRM_KEYS,
        breaker::CALL_KEYS,
        tune::KEYS,
        tune::INPUT_KEYS,
        export::KEYS,
        compare::KEYS,
        history::KEYS,
        live::KEYS,
    ] {
        let hints = crate::tui::help::screen_line(&keymap, own, false, true);
        assert!(hints.iter().any(|h| h.what == "help"), "{hints:?}");
    }
    // The text boxes: the name filter, the export popup, the breaker's
    // arguments, the tune requests' path. F1 opens help over each, and
    // Esc goes back to it.
    let boxes: [&[KeyCode]; 4] = [
        &[KeyCode::Char('&')],
        &[KeyCode::Char('x')],
        &[KeyCode::Char('b'), KeyCode::Char('e')],
        &[KeyCode::Char('t'), KeyCode::Char('o')],
    ];
    for keys in boxes {
        let mut app = sized(120, 35);
        for &k in keys {
            key(&mut app, k);
        }
        let before = app.popup();
        key(&mut app, KeyCode::F(1));
        assert_eq!(app.popup(), Some(super::Popup::Help), "{keys:?}");
        key(&mut app, KeyCode::Esc);
        assert_eq!(app.popup(), before, "{keys:?}: back where it was");
    }
}

#[test]
fn scrolled_texts_say_where_they_are() {
    let mut app = sized(120, 35);
    let r = app.layout().detail.expect("a detail pane");
    let bottom = |rows: &[String]| rows[usize::from(r.bottom()) - 1].clone();
    let rows = draw(&app);
    let at = bottom(&rows);
    assert!(at.contains(" 1-") && at.contains(" of "), "{at}");
    // Scrolled: the window moves, the total stays.
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    let rows = key(&mut app, KeyCode::Char('j'));
    assert!(bottom(&rows).contains(" 2-"), "{}", bottom(&rows));
    // The results, while they have the keys: the highlighted row of all
    // (the 8 loaded and the 1 below the cap). Esc leaves the detail (where
    // `/` finds words).
    key(&mut app, KeyCode::Esc);
    query(&mut app, "refund a payment");
    key(&mut app, KeyCode::Enter);
    let rows = key(&mut app, KeyCode::Esc);
    let res = app.layout().results;
    let border = &rows[usize::from(res.bottom()) - 1];
    assert!(border.contains(" 1/9 "), "{border}");
    let rows = key(&mut app, KeyCode::Char('j'));
    assert!(rows[usize::from(res.bottom()) - 1].contains(" 2/9 "));
    // Help too.
    let rows = key(&mut app, KeyCode::Char('?'));
    let h = app.layout().help_popup;
    let border = &rows[usize::from(h.bottom()) - 1];
    assert!(
        border.contains(" 1-") && border.contains(" of "),
        "{border}"
    );
}

#[test]
fn c_goes_from_a_result_to_its_catalog_row_lifting_a_filter_that_hides_it() {
    let mut app = sized(120, 35);
    // The catalog shows the always-load tools only.
    key(&mut app, KeyCode::Char('f'));
    query(&mut app, "refund a payment");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    for _ in 0..app.always_load_count() {
        key(&mut app, KeyCode::Char('j'));
    }
    let (index, _) = app.current_tool().unwrap();
    assert!(!app.catalog().tools()[index].always_load);
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.focus(), Focus::Catalog);
    assert_eq!(app.catalog_view().current(), Some(index));
    let status = app.status().unwrap_or_default().to_string();
    assert!(status.contains("lifted"), "{status}");
}

#[test]
fn a_settings_message_wraps_under_its_text() {
    let mut app = sized(80, 24);
    key(&mut app, KeyCode::Char('s'));
    for _ in 0..4 {
        key(&mut app, KeyCode::Down);
    }
    let rows = key(&mut app, KeyCode::Right);
    let at = rows
        .iter()
        .position(|r| r.contains("✗ ranker"))
        .unwrap_or_else(|| panic!("{rows:#?}"));
    let mark = rows[at].chars().position(|c| c == '✗').unwrap();
    // The next line starts under the message's first word, past the mark.
    let next: Vec<char> = rows[at + 1].chars().collect();
    assert!(
        next[mark] == ' ' && next[mark + 1] == ' ',
        "{}\n{}",
        rows[at],
        rows[at + 1]
    );
    assert!(
        next[mark + 2].is_alphanumeric(),
        "{}\n{}",
        rows[at],
        rows[at + 1]
    );
}

#[test]
fn moving_the_cap_or_the_initial_count_says_what_it_measures() {
    let mut app = super::tests_tune::tuned();
    let (cap, _) = app.tune_current().unwrap();
    key(&mut app, KeyCode::Char('+'));
    let said = tune(&app).message.clone().unwrap_or_default();
    assert!(
        said.starts_with(&format!("cap {cap} → {}: ", cap.stepped(1)))
            && said.contains("fully served"),
        "{said}"
    );
    key(&mut app, KeyCode::Char(']'));
    let said = tune(&app).message.clone().unwrap_or_default();
    assert!(said.starts_with("initial_tool_count "), "{said}");
}
