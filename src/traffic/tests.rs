use super::misses::{Judge, MissKind, find};
use super::requests::{always_load_candidates, requests, tool_use};
use super::*;

fn search(session: &str, query: &str, tools: &[&str]) -> Event {
    Event::Search(Search {
        session: session.into(),
        at: None,
        query: query.into(),
        ranker: "bm25".into(),
        tools: tools.iter().map(|t| t.to_string()).collect(),
        nothing_fits: false,
        ms: 0.1,
    })
}

fn nothing(session: &str, query: &str) -> Event {
    match search(session, query, &[]) {
        Event::Search(mut s) => {
            s.nothing_fits = true;
            Event::Search(s)
        }
        _ => unreachable!(),
    }
}

fn call(session: &str, name: &str, outcome: Outcome) -> Event {
    Event::Call(Call {
        session: session.into(),
        at: None,
        name: name.into(),
        server: None,
        outcome,
        ms: 1.0,
        in_a_row: Some(1),
        arguments: Value::Null,
    })
}

#[test]
fn lines_round_trip_and_the_older_call_form_reads_as_a_call() {
    let events = vec![
        search("s1", "open a ticket", &["create_ticket"]),
        call("s1", "create_ticket", Outcome::Ok),
        Event::Dropped { count: 3 },
    ];
    let text: Vec<String> = events.iter().map(to_line).collect();
    assert!(text[0].starts_with(r#"{"kind":"search""#), "{}", text[0]);
    assert_eq!(parse(&text.join("\n"), "t").unwrap(), events);
    let old = r#"{"name": "get_ticket", "arguments": {"id": 1}, "session": "a", "outcome": "blocked", "ms": 2.5}"#;
    let Some(Event::Call(c)) = parse_line(old).unwrap() else {
        panic!("not a call")
    };
    assert_eq!(
        (c.name.as_str(), c.outcome),
        ("get_ticket", Outcome::Blocked)
    );
    // A newer writer's outcome is read, not refused.
    let newer = r#"{"kind": "call", "name": "x", "outcome": "sandboxed"}"#;
    let Some(Event::Call(c)) = parse_line(newer).unwrap() else {
        panic!("not a call")
    };
    assert_eq!(c.outcome, Outcome::Other);
}

#[test]
fn bad_lines_name_their_number_and_what_is_wrong() {
    let err = parse("\n{\"kind\": \"search\"}\n", "trace.jsonl").unwrap_err();
    assert_eq!((err.origin.as_str(), err.line), ("trace.jsonl", 2));
    assert!(err.message.contains("missing field"), "{}", err.message);
    let err = parse("[1]", "t").unwrap_err();
    assert!(err.message.contains("object"), "{}", err.message);
    let err = parse(r#"{"kind": "call", "name": " "}"#, "t").unwrap_err();
    assert!(err.message.contains("empty"), "{}", err.message);
    let err = parse(r#"{"query": "x"}"#, "t").unwrap_err();
    assert!(err.message.contains("kind"), "{}", err.message);
}

#[test]
fn a_bad_line_says_which_fault_it_has() {
    assert_eq!(parse_line("   "), Ok(None));
    assert!(matches!(parse_line("{"), Err(LineError::NotJson(_))));
    assert_eq!(parse_line("[1]"), Err(LineError::NotAnObject));
    assert_eq!(parse_line(r#"{"query": "x"}"#), Err(LineError::NoKind));
    assert!(matches!(
        parse_line(r#"{"kind": "search"}"#),
        Err(LineError::Fields(_))
    ));
    assert_eq!(
        parse_line(r#"{"kind": "call", "name": " "}"#),
        Err(LineError::EmptyName)
    );
}

#[test]
fn traffic_is_told_from_a_file_of_requests() {
    assert!(looks_like_traffic(
        "\n{\"kind\":\"search\",\"session\":\"a\",\"query\":\"q\"}"
    ));
    assert!(!looks_like_traffic(r#"{"query": "q", "expected": ["a"]}"#));
    assert!(!looks_like_traffic(""));
}

#[test]
fn each_kind_of_miss_is_found_with_the_tool_wanted() {
    let events = vec![
        // 0-1: found and used: no miss.
        search("a", "open a ticket", &["create_ticket", "get_ticket"]),
        call("a", "create_ticket", Outcome::Ok),
        // 2-4: searched again at once; the tool called after is wanted.
        search("a", "who is on call", &["refund_payment"]),
        search("a", "on-call schedule", &["get_oncall_schedule"]),
        call("a", "get_oncall_schedule", Outcome::Ok),
        // 5-6: nothing fits, then a call anyway.
        nothing("b", "page the payments team"),
        call("b", "send_chat_message", Outcome::Ok),
        // 7-8: a call of a tool no search returned.
        search("b", "email the customer", &["search_inbox"]),
        call("b", "send_email", Outcome::ToolError),
        // 9: found, and the session ends without a call.
        search("c", "list my repositories", &["list_repositories"]),
        // A blocked call shows nothing about search.
        call("c", "merge_pull_request", Outcome::Blocked),
    ];
    let misses = find(&events, &Judge::blind(true));
    let got: Vec<(MissKind, &str, Option<&str>)> = misses
        .iter()
        .map(|m| (m.kind, m.query.as_str(), m.wanted.as_deref()))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                MissKind::SearchedAgain,
                "who is on call",
                Some("get_oncall_schedule")
            ),
            (
                MissKind::NothingFitsThenCall,
                "page the payments team",
                Some("send_chat_message")
            ),
            (
                MissKind::CalledUnreturned,
                "email the customer",
                Some("send_email")
            ),
            (MissKind::FoundNeverCalled, "list my repositories", None),
        ]
    );
    assert_eq!((misses[0].search, misses[0].shown_by), (2, 3));
    assert_eq!((misses[2].search, misses[2].shown_by), (7, 8));
}

#[test]
fn a_tool_an_earlier_search_returned_is_not_a_miss_and_sessions_stay_apart() {
    let events = vec![
        search("a", "tickets", &["get_ticket", "update_ticket"]),
        search("b", "mail", &["send_email"]),
        call("a", "get_ticket", Outcome::Ok),
        search("a", "comment", &["add_ticket_comment"]),
        call("a", "add_ticket_comment", Outcome::Ok),
        // Returned by the session's first search: remembered, not guessed.
        call("a", "update_ticket", Outcome::Ok),
        call("b", "send_email", Outcome::Ok),
    ];
    assert_eq!(find(&events, &Judge::blind(true)), vec![]);
}

#[test]
fn a_search_no_call_followed_is_told_before_the_next_search() {
    let events = vec![
        search("a", "tickets", &["get_ticket"]),
        call("a", "send_email", Outcome::Refused),
        search("a", "mail", &["send_email"]),
        call("a", "send_email", Outcome::Ok),
    ];
    let misses = find(&events, &Judge::blind(true));
    assert_eq!(misses.len(), 1, "{misses:?}");
    // The refused call was not one of the search's tools: a guess.
    assert_eq!(misses[0].kind, MissKind::CalledUnreturned);
}

#[test]
fn requests_pair_each_search_with_the_next_call_that_ran() {
    let events = vec![
        search("a", "who is on call", &["refund_payment"]),
        search("a", "on-call schedule", &["get_oncall_schedule"]),
        call("a", "get_oncall_schedule", Outcome::Refused),
        call("a", "get_oncall_schedule", Outcome::Ok),
        call("a", "send_chat_message", Outcome::Ok),
        search("b", "unanswered", &["x"]),
    ];
    let found = requests(&events);
    let got: Vec<(&str, &str)> = found
        .iter()
        .map(|r| (r.query.as_str(), r.called.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("who is on call", "get_oncall_schedule"),
            ("on-call schedule", "get_oncall_schedule")
        ]
    );
}

#[test]
fn always_load_candidates_are_tools_most_sessions_called_after_a_search() {
    let mut events = Vec::new();
    for s in ["a", "b", "c"] {
        events.push(search(s, "who am I", &["get_current_user"]));
        events.push(call(s, "get_current_user", Outcome::Ok));
    }
    events.push(search("a", "mail", &["send_email"]));
    events.push(call("a", "send_email", Outcome::Ok));
    events.push(call("d", "list_chat_channels", Outcome::Ok));
    let (sessions, uses) = tool_use(&events);
    assert_eq!(sessions, 4);
    assert_eq!(
        (uses[0].name.as_str(), uses[0].sessions, uses[0].searches),
        ("get_current_user", 3, 3)
    );
    let names: Vec<String> = always_load_candidates(&events)
        .into_iter()
        .map(|u| u.name)
        .collect();
    assert_eq!(names, vec!["get_current_user"]);
}

/// A session recorded from a real gateway (on the demo catalog's tools,
/// driven by the MCP Python SDK: tests/fixtures/gateway-session-steps.json),
/// with four faults in it.
const RECORDED: &str = include_str!("../../assets/traces/gateway-session.jsonl");

#[test]
fn the_recorded_session_s_faults_are_found() {
    let events = parse(RECORDED, "gateway-session.jsonl").unwrap();
    let misses = find(&events, &Judge::blind(true));
    let got: Vec<(MissKind, &str, Option<&str>)> = misses
        .iter()
        .map(|m| (m.kind, m.query.as_str(), m.wanted.as_deref()))
        .collect();
    assert_eq!(
        got,
        vec![
            // It had get_oncall_schedule second, and searched again anyway.
            (MissKind::SearchedAgain, "who is on call for payments", None),
            (
                MissKind::NothingFitsThenCall,
                "what is the weather in Lisbon",
                Some("get_current_user")
            ),
            (
                MissKind::CalledUnreturned,
                "find tickets about SSO login failures",
                Some("read_channel_history")
            ),
            (
                MissKind::FoundNeverCalled,
                "list the pull requests waiting for review",
                None
            ),
        ]
    );
    // The breaker's block is in the trace, with its count.
    let blocked: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            Event::Call(c) if c.outcome == Outcome::Blocked => c.in_a_row,
            _ => None,
        })
        .collect();
    assert_eq!(blocked, vec![4]);
}

#[test]
fn judged_by_the_catalog_an_always_load_call_is_no_miss_and_a_guessed_name_is_its_own_kind() {
    let judge = Judge::by(
        [
            ("get_current_user".to_string(), true),
            ("send_email".to_string(), false),
        ],
        true,
    );
    let events = vec![
        nothing("a", "who am I"),
        call("a", "get_current_user", Outcome::Ok),
        search("a", "email the customer", &["search_inbox"]),
        call("a", "no_such_tool", Outcome::ToolError),
        call("a", "send_email", Outcome::Ok),
    ];
    let got: Vec<(MissKind, Option<String>)> = find(&events, &judge)
        .into_iter()
        .map(|m| (m.kind, m.wanted))
        .collect();
    assert_eq!(
        got,
        vec![
            (MissKind::UnknownTool, Some("no_such_tool".into())),
            (MissKind::CalledUnreturned, Some("send_email".into())),
        ]
    );
    // Blind, the always-load call was a miss.
    assert_eq!(find(&events, &Judge::blind(true)).len(), 3);
}

#[test]
fn while_traffic_comes_a_search_awaiting_its_call_is_no_miss_yet_and_misses_come_in_time_order() {
    let events = vec![
        search("a", "tickets", &["get_ticket"]),
        search("b", "mail", &["send_email"]),
        call("b", "send_email", Outcome::Ok),
        search("b", "mail again", &["send_email"]),
    ];
    // The last searches' calls may be on their way.
    assert_eq!(find(&events, &Judge::blind(false)), vec![]);
    let mut more = events.clone();
    more.push(search("a", "tickets again", &["get_ticket"]));
    more.push(call("a", "get_ticket", Outcome::Ok));
    let shown: Vec<usize> = find(&more, &Judge::blind(true))
        .iter()
        .map(|m| m.shown_by)
        .collect();
    let mut sorted = shown.clone();
    sorted.sort_unstable();
    assert_eq!(shown, sorted);
    assert!(!shown.is_empty());
}
