//! The query box's regex mode: a key switches the query between words and a
//! regular expression (the regex ranker), the box says which, and a pattern
//! the service refuses says why in the box, the last good results kept.

use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::tests::{editor, key_mod, press, settle, started};
use super::*;
use crate::engine::Ranker;
use crate::tui::help::{KeyLine, key_line};
use crate::tui::pane::results::Results;
use crate::tui::ui;

fn toggle(app: &mut App) -> Vec<Effect> {
    app.update(key_mod(KeyCode::Char('r'), KeyModifiers::ALT))
}

/// The rankers the effects' searches ask for.
fn rankers(effects: &[Effect]) -> Vec<Option<Ranker>> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Search { request, .. } => Some(request.ranker),
            _ => None,
        })
        .collect()
}

fn names(app: &App) -> Vec<String> {
    match &app.search().results {
        Results::Found(r) => r
            .tools
            .iter()
            .filter(|h| !app.tool(h.index).always_load)
            .map(|h| app.tool(h.index).name.clone())
            .collect(),
        other => panic!("no results: {other:?}"),
    }
}

/// The query box's rows as drawn (its border and title included).
fn query_box(app: &App) -> Vec<String> {
    let (w, h) = app.size();
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| ui::draw(f, app)).unwrap();
    let buffer = terminal.backend().buffer();
    let r = app.layout().query;
    (r.y..r.bottom())
        .map(|y| {
            (r.x..r.right())
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect()
}

#[test]
fn a_key_switches_the_query_between_words_and_a_regex() {
    let mut app = started();
    press(&mut app, KeyCode::Char('/'));
    let effects = app.update(Msg::Type("^refund_".into()));
    assert_eq!(rankers(&effects), [Some(Ranker::Bm25)]);
    settle(&mut app, effects);
    assert!(!app.query().is_regex());
    assert!(!query_box(&app)[0].contains("regex"));

    // The same text, read as a pattern: searched again at once.
    let effects = toggle(&mut app);
    assert_eq!(rankers(&effects), [Some(Ranker::Regex)]);
    settle(&mut app, effects);
    assert!(app.query().is_regex());
    assert_eq!(app.query_ranker(), Ranker::Regex);
    assert_eq!(names(&app), ["refund_payment"]);
    let drawn = query_box(&app);
    assert!(drawn[0].contains("Query · regex"), "{drawn:?}");
    assert!(drawn[1].contains("re> ^refund_"), "{drawn:?}");
    // The settings' ranker is untouched: regex is the query's mode.
    assert_eq!(app.settings().ranker, Ranker::Bm25);

    // Typing goes on as a pattern; back to words with the same key.
    let effects = app.update(Msg::Type("|^send_email$".into()));
    assert_eq!(rankers(&effects), [Some(Ranker::Regex)]);
    settle(&mut app, effects);
    assert_eq!(names(&app), ["send_email", "refund_payment"]);
    let effects = toggle(&mut app);
    assert_eq!(rankers(&effects), [Some(Ranker::Bm25)]);
    settle(&mut app, effects);
    assert!(!app.query().is_regex());
    assert!(query_box(&app)[1].contains("> ^refund_|^send_email$"));
}

#[test]
fn a_bad_pattern_says_why_in_the_query_box_and_keeps_the_results() {
    let mut app = started();
    press(&mut app, KeyCode::Char('/'));
    let effects = toggle(&mut app);
    settle(&mut app, effects);
    let effects = app.update(Msg::Type("^send_email$".into()));
    settle(&mut app, effects);
    assert_eq!(names(&app), ["send_email"]);
    // An unfinished group: refused, said in the box, the results kept.
    let effects = app.update(Msg::Type("|(get".into()));
    settle(&mut app, effects);
    let why = app.search().pattern_error.clone().expect("refused");
    assert_eq!(
        why,
        "regex: unclosed group at column 14 of \"^send_email$|(get\""
    );
    assert_eq!(names(&app), ["send_email"]);
    assert!(!matches!(app.search().results, Results::Failed(_)));
    let drawn = query_box(&app);
    assert!(
        drawn[1].contains("regex: unclosed group at column 14"),
        "{drawn:?}"
    );
    // Finishing the group clears it, and the results follow.
    let effects = app.update(Msg::Type("_)".into()));
    settle(&mut app, effects);
    assert!(app.search().pattern_error.is_none());
    let found = names(&app);
    assert!(
        found.contains(&"send_email".to_string()) && found.contains(&"get_ticket".to_string()),
        "{found:?}"
    );
    assert!(!query_box(&app)[1].contains("unclosed"));
    // Refused again, then back to words: the words search clears it.
    let effects = app.update(Msg::Type("(".into()));
    settle(&mut app, effects);
    assert!(app.search().pattern_error.is_some());
    let effects = toggle(&mut app);
    assert!(app.search().pattern_error.is_none());
    settle(&mut app, effects);
    assert!(app.search().pattern_error.is_none());
}

#[test]
fn the_key_is_in_the_key_line_and_help_and_the_settings_never_cycle_to_regex() {
    let app = started();
    let line = key_line(app.keymap(), KeyLine::Query);
    assert!(
        line.iter()
            .any(|h| h.keys == "Alt-R" && h.what == "words/regex"),
        "{line:?}"
    );
    let help = crate::tui::screen::help::rows::help_rows(
        app.keymap(),
        app.mcp_servers(),
        !app.catalog_view().servers.is_empty(),
    );
    assert!(
        help.iter().any(|r| matches!(r,
            crate::tui::screen::help::rows::HelpRow::Binding { keys, what }
                if keys == "Alt-R Ctrl-T" && what.starts_with("query box: read the query as words or as a regular expression"))),
        "{help:?}"
    );
    // The settings popup's ranker goes round the rankers of words.
    let mut app = app;
    press(&mut app, KeyCode::Char('s'));
    let mut seen = Vec::new();
    for _ in 0..4 {
        press(&mut app, KeyCode::Down);
    }
    for _ in 0..6 {
        press(&mut app, KeyCode::Right);
        seen.push(editor(&app).edited.ranker);
    }
    assert!(!seen.contains(&Ranker::Regex), "{seen:?}");
}
