//! The live screen: a followed gateway's traffic, its misses, a miss
//! explained on the main screen, and the Tokens box's caching line; as
//! snapshots at 80x24 and 200x60, and the real binary following a trace
//! file that grows in a pseudo-terminal.

use crossterm::event::KeyCode;

use toolsift::follow::Source;
use toolsift::tui::Follow;
use toolsift::tui::app::{App, Popup};

use crate::common::explorer::{demo, demo_with, keys, type_text};
use crate::tty::Tty;
use crate::widths::feed_recorded;
use toolsift::tui::screen::live::LivePane;

/// The demo explorer following `source`, opened on the live screen.
fn following_from(source: Source, width: u16, height: u16) -> App {
    demo_with(width, height, |s| {
        s.follow = Some(Follow {
            source,
            requests_file: "misses.jsonl".into(),
            open_first: true,
            blind: None,
        })
    })
}

fn following(width: u16, height: u16) -> App {
    following_from(Source::File("gateway-session.jsonl".into()), width, height)
}

/// The demo explorer at `width` x `height` with "who is on call for
/// payments" typed in the query box.
fn on_call_request(width: u16, height: u16) -> App {
    let mut app = demo(width, height);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "who is on call for payments");
    app
}

/// The screen drawn, its random session id pinned.
fn screen(app: &App) -> String {
    let drawn = crate::common::explorer::screen(app);
    match &app.search().session {
        Some(id) => drawn.replace(&toolsift::tui::ui::short_id(id), "SESSION"),
        None => drawn,
    }
}

#[test]
fn live_before_anything_is_heard() {
    let app = following(80, 24);
    assert_eq!(app.popup(), Some(Popup::Live));
    let s = screen(&app);
    assert!(s.contains("nothing heard yet"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn live_at_80x24_and_200x60() {
    for (w, h) in [(80, 24), (200, 60)] {
        let mut app = following(w, h);
        feed_recorded(&mut app);
        let s = screen(&app);
        // The newest event is in view and whole at the bottom; help and
        // quit show.
        assert!(
            s.contains("list the pull requests waiting for review"),
            "{s}"
        );
        assert!(s.contains("? help"), "{s}");
        insta::assert_snapshot!(format!("live_{w}x{h}"), s);
        // The misses alone.
        keys(&mut app, &[KeyCode::Char('m'), KeyCode::Char('g')]);
        let s = screen(&app);
        // As traffic comes, judged by the demo catalog: the always-load
        // call is no miss, and the last search may still get its call.
        assert!(s.contains("2 misses"), "{s}");
        insta::assert_snapshot!(format!("live_misses_{w}x{h}"), s);
    }
}

#[test]
fn a_miss_opens_on_why_the_tool_wanted_was_not_found() {
    let mut app = following(120, 35);
    feed_recorded(&mut app);
    // The third miss: read_channel_history, called though no search
    // returned it.
    keys(
        &mut app,
        &[
            KeyCode::Char('m'),
            KeyCode::Char('g'),
            KeyCode::Char('j'),
            KeyCode::Char('j'),
            KeyCode::Enter,
        ],
    );
    assert_eq!(app.popup(), None);
    assert_eq!(app.search().query, "find tickets about SSO login failures");
    let (index, _) = app.current_tool().unwrap();
    assert_eq!(app.catalog().tools()[index].name, "read_channel_history");
    let s = screen(&app);
    assert!(s.contains("not loaded"), "{s}");
    insta::assert_snapshot!(s);
    // L goes back to the live screen where it was.
    keys(&mut app, &[KeyCode::Char('L')]);
    assert_eq!(app.popup(), Some(Popup::Live));
    assert!(app.screen::<LivePane>().unwrap().misses_only());
}

#[test]
fn the_tokens_box_prices_a_session_with_caching() {
    for (w, h) in [(80, 24), (200, 60)] {
        let mut app = on_call_request(w, h);
        keys(
            &mut app,
            &[KeyCode::Enter, KeyCode::Esc, KeyCode::Char('$')],
        );
        let s = screen(&app);
        assert!(s.contains("Anthropic"), "{s}");
        insta::assert_snapshot!(format!("caching_anthropic_{w}x{h}"), s);
        keys(&mut app, &[KeyCode::Char('$')]);
        assert!(screen(&app).contains("OpenAI"));
        keys(&mut app, &[KeyCode::Char('$')]);
        assert!(screen(&app).contains("first turn sends"));
    }
}

#[test]
fn the_real_binary_follows_a_trace_as_it_grows() {
    let dir = std::env::temp_dir().join(format!("toolsift-follow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("trace.jsonl");
    let misses = dir.join("misses.jsonl");
    let recorded = include_str!("../../assets/traces/gateway-session.jsonl");
    let lines: Vec<&str> = recorded.lines().collect();
    std::fs::write(&trace, format!("{}\n", lines[..3].join("\n"))).unwrap();
    let mut tty = Tty::spawn_with(
        &[
            "explore",
            "--follow",
            trace.to_str().unwrap(),
            "--misses-file",
            misses.to_str().unwrap(),
        ],
        &[],
    );
    tty.wait_for("Live");
    tty.wait_for("who is on call for payments");
    // More of the session arrives.
    std::fs::write(&trace, format!("{}\n", lines.join("\n"))).unwrap();
    tty.wait_for("2 misses");
    // The misses; the second one added to the eval set.
    tty.send(b"m");
    tty.send(b"g");
    tty.send(b"j");
    tty.send(b"j");
    tty.send(b"e");
    tty.wait_for("added to");
    let written = std::fs::read_to_string(&misses).unwrap();
    let parsed = toolsift::eval::parse_queries(&written, "misses").unwrap();
    assert_eq!(parsed[0].query, "find tickets about SSO login failures");
    assert_eq!(parsed[0].expected, ["read_channel_history"]);
    // Enter: the request searched, the tool wanted shown.
    tty.send(b"\r");
    tty.wait_for("read_channel_history: the detail says the gateway's answer");
    tty.send(b"q");
    tty.wait_exit();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_comparison_prices_both_sides_with_caching() {
    let mut app = on_call_request(120, 35);
    keys(
        &mut app,
        &[KeyCode::Esc, KeyCode::Char('$'), KeyCode::Char('v')],
    );
    let s = screen(&app);
    // The right side is strategy all: every tool up front costs more than
    // the tools found, in the conversation.
    let line = s
        .lines()
        .find(|l| l.contains("Anthropic caching over 10 turns"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        figure(line, "in force costs ") < figure(line, "strategy all "),
        "{line}"
    );
    // Off again: the line goes.
    keys(
        &mut app,
        &[
            KeyCode::Esc,
            KeyCode::Char('$'),
            KeyCode::Char('$'),
            KeyCode::Char('v'),
        ],
    );
    assert!(!screen(&app).contains("caching over"));
}

#[test]
fn a_key_the_live_screen_does_not_have_says_so() {
    let mut app = following(80, 24);
    feed_recorded(&mut app);
    keys(&mut app, &[KeyCode::Char('x')]);
    let s = screen(&app);
    assert!(
        s.contains("x: not a key of the live screen (? lists them)"),
        "{s}"
    );
    // Enter on the call that showed a miss explains the miss.
    keys(&mut app, &[KeyCode::Char('k'), KeyCode::Enter]);
    assert_eq!(app.search().query, "find tickets about SSO login failures");
}

/// The number after `after` in `text`, read as the screen shortens it
/// (`13.8k`).
pub(crate) fn figure(text: &str, after: &str) -> f64 {
    let at = text
        .find(after)
        .unwrap_or_else(|| panic!("{after:?} in {text}"))
        + after.len();
    let t: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == 'k')
        .collect();
    t.strip_suffix('k').map_or_else(
        || t.parse().unwrap(),
        |n| n.parse::<f64>().unwrap() * 1000.0,
    )
}

#[test]
fn the_recorded_session_fills_the_screen_from_the_start() {
    let app = following_from(Source::Recorded, 80, 24);
    let s = screen(&app);
    // Every row that fits shows (none blank above the rule), the newest
    // highlighted at the bottom.
    let rows: Vec<&str> = s.lines().collect();
    let first = rows.iter().position(|r| r.contains("time (UTC)")).unwrap() + 1;
    let rule = rows.iter().position(|r| r.contains("┃────")).unwrap();
    for r in &rows[first..rule] {
        assert!(r.contains("00:46:40"), "a blank row:\n{s}");
    }
    assert!(
        rows[rule - 1].contains("list the pull requests waiting for review"),
        "{s}"
    );
    assert!(s.contains("16/16"), "{s}");
}

/// A gateway answered "what time is it in Tokyo" with two tools of
/// server-everything; the agent then called `get_current_time`. Enter on
/// the miss: the standing is the gateway's (not returned, and what it
/// returned instead), and the explorer's own search, which ranks the tool
/// first, is shown beside it as a comparison, labelled. (The detail said
/// "standing: loaded: ranked 1st, within the cap of 8".)
#[test]
fn a_miss_s_standing_is_what_the_gateway_answered() {
    use toolsift::catalog::{Catalog, Tool};
    let tools = vec![
        Tool::new(
            "get_current_time",
            "Get the current time in a specific timezone",
        ),
        Tool::new("convert_time", "Convert time between timezones"),
        Tool::new(
            "simulate-research-query",
            "Simulates a research query that takes several steps",
        ),
        Tool::new(
            "trigger-sampling-request",
            "Trigger a sampling request to the client's model",
        ),
    ];
    let catalog = std::sync::Arc::new(Catalog::new("followed", tools).unwrap());
    let trace = concat!(
        r#"{"kind":"search","session":"s","query":"what time is it in Tokyo","ranker":"hybrid","tools":["simulate-research-query","trigger-sampling-request"],"ms":3.1}"#,
        "\n",
        r#"{"kind":"call","session":"s","name":"get_current_time","outcome":"ok","ms":2.0}"#,
        "\n"
    );
    for (w, h) in [(80, 24), (200, 60)] {
        let mut app = demo_with(w, h, |s| {
            s.catalog = catalog.clone();
            s.follow = Some(Follow {
                source: Source::File("gateway-session.jsonl".into()),
                requests_file: "misses.jsonl".into(),
                open_first: true,
                blind: None,
            })
        });
        let events = toolsift::traffic::parse(trace, "trace").unwrap();
        app.update(toolsift::tui::effect::Msg::Followed(
            toolsift::follow::Note::Connected,
        ));
        app.update(toolsift::tui::effect::Msg::Followed(
            toolsift::follow::Note::Events { events, dropped: 0 },
        ));
        keys(
            &mut app,
            &[KeyCode::Char('m'), KeyCode::Char('g'), KeyCode::Enter],
        );
        assert_eq!(app.search().query, "what time is it in Tokyo");
        let (index, _) = app.current_tool().unwrap();
        assert_eq!(app.catalog().tools()[index].name, "get_current_time");
        let gateway = app.gateway_standing(index).expect("the gateway's answer");
        assert_eq!(
            gateway,
            "not returned: the gateway answered simulate-research-query, trigger-sampling-request"
        );
        let s = screen(&app);
        assert!(s.contains("standing at the gateway"), "{s}");
        assert!(s.contains("toolsift here"), "{s}");
        assert!(!s.contains("standing: loaded"), "{s}");
        if w == 200 {
            assert!(
                s.contains("standing at the gateway: not returned: the gateway"),
                "{s}"
            );
            assert!(
                s.contains("toolsift here, for comparison: loaded: ranked"),
                "{s}"
            );
            assert!(s.contains("· toolsift here"), "the results say whose: {s}");
        }
        // Another request typed: the gateway's answer no longer applies.
        keys(&mut app, &[KeyCode::Esc, KeyCode::Char('/')]);
        type_text(&mut app, " now");
        keys(&mut app, &[KeyCode::Enter]);
        assert!(app.gateway_standing(index).is_none());
    }
}

#[test]
fn colon_follow_starts_following_a_trace_in_a_running_explorer() {
    let dir = std::env::temp_dir().join(format!("toolsift-colon-follow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("trace.jsonl");
    let recorded = include_str!("../../assets/traces/gateway-session.jsonl");
    let lines: Vec<&str> = recorded.lines().collect();
    std::fs::write(&trace, format!("{}\n", lines[..3].join("\n"))).unwrap();
    let mut tty = Tty::spawn_with(&[], &[]);
    tty.wait_for("Catalog");
    tty.send(b":");
    for b in format!("follow {}", trace.display()).bytes() {
        tty.send(&[b]);
    }
    tty.send(b"\r");
    tty.wait_for("who is on call for payments");
    // The loop follows it: what is added later arrives.
    std::fs::write(&trace, format!("{}\n", lines.join("\n"))).unwrap();
    tty.wait_for("2 misses");
    // q leaves the live screen, then the explorer.
    tty.send(b"q");
    tty.wait_for("Catalog");
    tty.send(b"q");
    tty.wait_exit();
    let _ = std::fs::remove_dir_all(&dir);
}
