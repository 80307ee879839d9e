//! The explorer held to what its users expect: scrolling stops at the
//! content, focus moves only between panes on screen, the key line keeps
//! every screen's features and help, settings say what is wrong where they
//! are edited, editing boxes give the keyboard back.

use std::sync::Arc;

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::tests::{editor, press, started};
use super::*;
use crate::tui::screen::breaker::BreakerPane;
use crate::tui::screen::help::HelpState;
use crate::tui::ui;

/// The app at `w` x `h`, drawn once (drawing records how far texts scroll).
pub(super) fn sized(w: u16, h: u16) -> App {
    let mut app = started();
    app.update(Msg::Resize(w, h));
    draw(&app);
    app
}

pub(super) fn draw(app: &App) -> Vec<String> {
    let (w, h) = app.size();
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| ui::draw(f, app)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buffer[(x, y)].symbol()).collect::<String>())
        .collect()
}

/// The bottom line's message and keys as one line: a message longer than
/// the line starts on the rows above, under a rule.
pub(super) fn message(rows: &[String]) -> String {
    let from = rows
        .iter()
        .rposition(|r| r.chars().all(|c| c == '─'))
        .map_or(rows.len().saturating_sub(1), |rule| rule + 1);
    rows[from..]
        .iter()
        .flat_map(|r| r.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Presses `code` and draws, as the loop does.
pub(super) fn key(app: &mut App, code: KeyCode) -> Vec<String> {
    press(app, code);
    draw(app)
}

pub(super) fn inside(rows: &[String], r: ratatui::layout::Rect) -> Vec<String> {
    rows[usize::from(r.y) + 1..usize::from(r.bottom()) - 1]
        .iter()
        .map(|row| {
            row.chars()
                .skip(usize::from(r.x) + 1)
                .take(usize::from(r.width) - 2)
                .collect::<String>()
        })
        .collect()
}

fn blank(lines: &[String]) -> bool {
    lines.iter().all(|l| l.trim().is_empty())
}

#[test]
fn the_detail_popup_scrolls_to_its_end_and_no_further() {
    let mut app = sized(80, 24);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.popup(), Some(Popup::Detail));
    let area = app.layout().detail_popup;
    let rows = key(&mut app, KeyCode::End);
    let shown = inside(&rows, area);
    assert!(!blank(&shown), "the end shows the last lines: {shown:#?}");
    // The schema's closing brace is the last line, on the last row.
    assert_eq!(shown.last().unwrap().trim(), "}", "{shown:#?}");
    let at_end = app.detail().scroll.pos();
    for _ in 0..50 {
        key(&mut app, KeyCode::Char('j'));
    }
    for _ in 0..4 {
        key(&mut app, KeyCode::PageDown);
    }
    assert_eq!(
        app.detail().scroll.pos(),
        at_end,
        "j and PgDn stop at the end"
    );
    // One k is one line up, at once.
    key(&mut app, KeyCode::Char('k'));
    assert_eq!(app.detail().scroll.pos(), at_end - 1);
    key(&mut app, KeyCode::Home);
    assert_eq!(app.detail().scroll.pos(), 0);
}

#[test]
fn the_detail_pane_and_help_clamp_too() {
    let mut app = sized(120, 35);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus(), Focus::Detail);
    for _ in 0..200 {
        key(&mut app, KeyCode::Char('j'));
    }
    let rows = draw(&app);
    let shown = inside(&rows, app.layout().detail.unwrap());
    assert_eq!(shown.last().unwrap().trim(), "}", "{shown:#?}");
    let end = app.detail().scroll.pos();
    key(&mut app, KeyCode::Char('k'));
    assert_eq!(app.detail().scroll.pos(), end - 1);
    // Help, at the smallest size: G shows its last line, k comes back at once.
    let mut app = sized(80, 24);
    key(&mut app, KeyCode::Char('?'));
    let rows = key(&mut app, KeyCode::Char('G'));
    let shown = inside(&rows, app.layout().help_popup);
    assert!(!blank(&shown[shown.len() - 3..]), "{shown:#?}");
    let end = app.screen::<HelpState>().unwrap().scroll.pos();
    for _ in 0..30 {
        key(&mut app, KeyCode::Char('j'));
    }
    assert_eq!(app.screen::<HelpState>().unwrap().scroll.pos(), end);
    key(&mut app, KeyCode::Char('k'));
    assert_eq!(app.screen::<HelpState>().unwrap().scroll.pos(), end - 1);
}

#[test]
fn tab_moves_only_between_panes_on_screen() {
    // Narrow: the detail is a popup, so Tab goes catalog, results, catalog.
    let mut app = sized(80, 24);
    assert_eq!(app.focus(), Focus::Catalog);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus(), Focus::Results);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus(), Focus::Catalog);
    key(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus(), Focus::Results);
    // Keys after Tab Tab move and never type into the query box.
    let mut app = sized(80, 24);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    for c in ['G', 'k', 'k', 'k'] {
        key(&mut app, KeyCode::Char(c));
    }
    assert_eq!(app.query().text(), "", "nothing typed");
    // Wide: the detail pane takes its turn; a resize that hides it gives
    // the keyboard back to the list.
    let mut app = sized(120, 35);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus(), Focus::Detail);
    app.update(Msg::Resize(80, 24));
    assert_eq!(app.focus(), Focus::Results);
    // The query box takes text after `/` and gives the keyboard back.
    key(&mut app, KeyCode::Char('/'));
    assert_eq!(app.focus(), Focus::Query);
    for c in "tick".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.focus(), Focus::Results);
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.query().text(), "tick");
}

#[test]
fn the_key_line_keeps_every_feature_help_and_quit_at_80_columns() {
    let app = sized(80, 24);
    let rows = draw(&app);
    let line = rows.last().unwrap();
    for keys in [
        "/ search",
        "f filter",
        "s settings",
        "b breaker",
        "t tune",
        "x export",
        "? help",
        "q quit",
    ] {
        assert!(line.contains(keys), "{keys:?} missing from {line:?}");
    }
    // Popups show their own keys, not the panes'.
    let mut app = sized(80, 24);
    // The Tune screen opens on its request-file prompt: its keys show.
    let rows = key(&mut app, KeyCode::Char('t'));
    let line = rows.last().unwrap();
    assert!(
        line.contains("measure") && line.contains("Esc cancel"),
        "{line:?}"
    );
    let rows = key(&mut app, KeyCode::Esc);
    let line = rows.last().unwrap();
    assert!(
        line.contains("apply") && line.contains("Esc back"),
        "{line:?}"
    );
    assert!(!line.contains("always"), "{line:?}");
    assert!(line.contains("? help") && line.contains("quit"), "{line:?}");
    // One key line on the Tune screen: no other row lists its keys.
    let lists_keys = rows.iter().filter(|r| r.contains("[ ] initial")).count();
    assert_eq!(lists_keys, 1, "{rows:#?}");
    // Help opens over it and goes back to it.
    key(&mut app, KeyCode::Char('?'));
    assert_eq!(app.popup(), Some(Popup::Help));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.popup(), Some(Popup::Tune));
}

#[test]
fn settings_run_the_searchs_checks_where_they_are_edited() {
    let mut app = started();
    key(&mut app, KeyCode::Char('s'));
    // strategy all, max_loaded_tools 3 (below the 4 always-load tools):
    // every search would send 3 as its cap and fail.
    press(&mut app, KeyCode::Right);
    assert_eq!(app.settings().strategy, crate::tools_handle::Strategy::All);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    for _ in 0..3 {
        press(&mut app, KeyCode::Right);
    }
    assert_eq!(
        editor(&app).edited.max_loaded_tools,
        crate::tools_handle::MaxTools::new(3)
    );
    let error = editor(&app).error.clone().unwrap_or_default();
    assert!(error.starts_with("max_loaded_tools is 3"), "{error}");
    assert!(error.contains("at least 4"), "{error}");
    assert_eq!(app.settings().max_loaded_tools, None, "not in force");
    let rows = draw(&app);
    assert!(
        !rows.iter().any(|r| r.contains("valid, in force")),
        "{rows:#?}"
    );
}

#[test]
fn the_argument_editor_gives_the_keyboard_back_after_sending() {
    let mut app = started();
    key(&mut app, KeyCode::Char('b'));
    key(&mut app, KeyCode::Char('e'));
    assert!(app.screen::<BreakerPane>().unwrap().is_typing());
    key(&mut app, KeyCode::Enter);
    let pane = app.screen::<BreakerPane>().unwrap();
    assert!(!pane.is_typing(), "sent: the editor closes");
    assert_eq!(pane.log.len(), 1);
    let args = pane.args.text.clone();
    // L now loops; nothing is typed into the JSON.
    key(&mut app, KeyCode::Char('L'));
    let pane = app.screen::<BreakerPane>().unwrap();
    assert_eq!(pane.args.text, args);
    assert!(pane.log.len() > 1);
}

#[test]
fn a_call_opens_whole_and_the_trace_prompt_shows_its_errors() {
    let mut app = sized(80, 24);
    key(&mut app, KeyCode::Char('b'));
    key(&mut app, KeyCode::Char('L'));
    key(&mut app, KeyCode::Char('k'));
    key(&mut app, KeyCode::Char('v'));
    let pane = app.screen::<BreakerPane>().unwrap();
    let row = pane.viewing().expect("a call is open");
    assert_eq!(
        row,
        pane.log.len() - 2,
        "k picked the call before the newest"
    );
    let rows = draw(&app);
    let text = rows.join("\n");
    assert!(
        text.contains(&format!("Call {} of {}", row + 1, pane.log.len())),
        "{text}"
    );
    assert!(
        text.contains("BLOCKED") && text.contains("repeated 4 times"),
        "{text}"
    );
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.screen::<BreakerPane>().unwrap().viewing(), None);
    assert_eq!(
        app.popup(),
        Some(Popup::Breaker),
        "Esc closes the call first"
    );
    // A trace that does not load: the prompt stays open on the path, the
    // error inside the visible box.
    key(&mut app, KeyCode::Char('o'));
    press(&mut app, KeyCode::Char('u'));
    app.update(Msg::Type("/nonexistent/trace.jsonl".into()));
    let effects = app.update(super::tests::key_mod(
        KeyCode::Enter,
        crossterm::event::KeyModifiers::NONE,
    ));
    app.settle(effects);
    let pane = app.screen::<BreakerPane>().unwrap();
    assert!(pane.path.is_some(), "the prompt opens again");
    let rows = draw(&app);
    let text = rows.join("\n");
    assert!(text.contains("not loaded:"), "{text}");
    let confirm = pane.layout(app.layout().body).confirm;
    assert!(confirm.bottom() <= 23, "the box is on screen");
}

#[test]
fn the_name_filter_narrows_and_n_steps() {
    let mut app = sized(120, 35);
    key(&mut app, KeyCode::Char('&'));
    for c in "ticket".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let rows = app.catalog_view().rows.clone();
    assert!(!rows.is_empty() && rows.len() < app.catalog().len());
    assert!(rows.iter().all(|&i| app.tool(i).name.contains("ticket")));
    assert_eq!(app.query().text(), "", "the query box got nothing");
    key(&mut app, KeyCode::Enter);
    assert!(!app.catalog_view().typing);
    let first = app.catalog_view().current();
    key(&mut app, KeyCode::Char('n'));
    assert_ne!(app.catalog_view().current(), first);
    key(&mut app, KeyCode::Char('N'));
    assert_eq!(app.catalog_view().current(), first);
    let screen = draw(&app).join("\n");
    assert!(
        screen.contains(&format!("Catalog 1/{}", rows.len())),
        "{screen}"
    );
    assert!(screen.contains("name: ticket"), "{screen}");
    // Esc in the filter clears it.
    key(&mut app, KeyCode::Char('&'));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.catalog_view().rows.len(), app.catalog().len());
}

#[test]
fn keys_with_nothing_to_act_on_say_so() {
    let mut app = started();
    // n without a name filter.
    key(&mut app, KeyCode::Char('n'));
    assert!(
        app.status().unwrap_or("").contains("no name filter"),
        "{:?}",
        app.status()
    );
    // b with an empty list under the cursor.
    key(&mut app, KeyCode::Char('&'));
    app.update(Msg::Type("no-such-tool-name".into()));
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('b'));
    assert_eq!(app.popup(), None);
    assert!(
        app.status().unwrap_or("").contains("no tool to call"),
        "{:?}",
        app.status()
    );
}

#[test]
fn tools_check_warns_about_are_marked_once_counted_off_the_ui_thread() {
    use crate::catalog::{Catalog, Tool};
    let tools = vec![
        Tool::new("fine_tool", "Does a fine thing."),
        Tool::new("bad name with spaces", "Breaks OpenAI's name rule."),
        Tool::new("no_description", ""),
    ];
    let catalog = Arc::new(Catalog::new("lints", tools).unwrap());
    let (mut app, effects) = super::tests::demo_setup(|s| s.catalog = catalog);
    // Not counted at start (App::new does no linting)...
    assert_eq!(app.tools_with_lints(), 0);
    app.settle(effects);
    // ...but once the start's warm-up is in.
    assert_eq!(app.tools_with_lints(), 2);
    assert_eq!(app.lints_of(0), 0);
    assert!(app.lints_of(1) > 0 && app.lints_of(2) > 0);
    app.update(Msg::Resize(120, 35));
    let rows = draw(&app);
    assert!(rows[0].contains("2 tools warned"), "{:?}", rows[0]);
    let marked = rows
        .iter()
        .filter(|r| r.contains("bad name with spaces") && r.contains('!'));
    assert_eq!(marked.count(), 1, "{rows:#?}");
}

#[test]
fn tools_hard_to_find_from_their_own_words_are_marked_and_the_detail_says_why() {
    use crate::catalog::{Catalog, Tool};
    let tools = vec![
        Tool::new("send_email", "Send an email to a recipient."),
        Tool::new("post_letter", "Send an email to a recipient."),
        Tool::new("read_file", "Read a file from the disk."),
        Tool::new("get_weather", "Current weather for a city."),
    ];
    let catalog = Arc::new(Catalog::new("findability", tools).unwrap());
    let (mut app, effects) = super::tests::demo_setup(|s| s.catalog = catalog);
    assert_eq!(app.tools_hard_to_find(), 0);
    // The warm-up asks for the audit, which runs off the UI thread.
    app.settle(effects);
    assert!(!app.hard_to_find(0) && app.hard_to_find(1));
    assert_eq!(app.tools_hard_to_find(), 1);
    let audit = app.findability_of(1).expect("audited");
    assert_eq!(audit.shadowed_by.as_deref(), Some("send_email"));
    app.update(Msg::Resize(120, 35));
    let rows = draw(&app);
    assert!(rows[0].contains("· 1 hard to find ·"), "{:?}", rows[0]);
    let marked: Vec<&String> = rows.iter().filter(|r| r.contains("post_letter")).collect();
    // The mark is the row's last column, inside the pane's border.
    assert!(marked.iter().any(|r| r.contains("● ◌┃")), "{rows:#?}");
    assert!(
        !rows
            .iter()
            .any(|r| r.contains("send_email") && r.contains("◌┃"))
    );
    // The detail of the shadowed tool says by which, and where each
    // request put it.
    app.update(Msg::Resize(200, 60));
    let rows = key(&mut app, KeyCode::Down).join("\n");
    assert!(rows.contains("findability: shadowed: send_email"), "{rows}");
    assert!(rows.contains("name: 1st \"post letter\""), "{rows}");
    assert!(rows.contains("(first: send_email)"), "{rows}");
}
