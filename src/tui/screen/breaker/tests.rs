//! The simulator without the app: calls, streaks, thresholds, a replay.

use super::*;
use crate::catalog::{CatalogSource, load};
use crate::replay::load_trace;

fn demo() -> Catalog {
    load(&CatalogSource::demo()).unwrap()
}

fn open(p: &mut BreakerPane, path: &str) {
    p.loaded(path, load_trace(path));
}

/// What the pane acts on: `catalog`'s `tools`, no MCP server.
fn offline<'a>(catalog: &'a Catalog, tools: &'a [usize]) -> Breaking<'a> {
    Breaking {
        catalog,
        tools,
        host: None,
    }
}

fn pane_for(catalog: &Catalog, name: &str) -> BreakerPane {
    BreakerPane::new(catalog, catalog.index_of(name).unwrap())
}

#[test]
fn starts_from_the_schemas_required_arguments() {
    let c = demo();
    let p = pane_for(&c, "get_payment");
    assert_eq!(p.args.text, r#"{"payment_id":""}"#);
    assert_eq!(p.breaker.threshold(), 3);
    assert_eq!(
        p.current_signature(&c).as_deref(),
        Some(r#"get_payment({"payment_id":""})"#)
    );
}

#[test]
fn fourth_identical_call_is_blocked_and_its_handler_not_run() {
    let c = demo();
    let mut p = pane_for(&c, "get_payment");
    for i in 1..=3 {
        assert!(p.call(&c));
        assert_eq!(p.log.last().unwrap().repeats, i);
    }
    assert!(!p.call(&c));
    let last = p.log.last().unwrap();
    assert!(!last.ran);
    assert_eq!(last.repeats, 4);
    assert!(
        last.outcome
            .starts_with("retry loop interrupted: tool call")
    );
    // Ran calls carry the catalog's simulated result.
    let expected = c
        .get("get_payment")
        .unwrap()
        .handler_result
        .clone()
        .unwrap();
    assert_eq!(p.log[0].outcome, expected.to_string());
}

#[test]
fn key_order_does_not_matter_and_other_args_start_a_new_streak() {
    let c = demo();
    let mut p = pane_for(&c, "get_ticket");
    p.args.set(r#"{"ticket_id":"T-1","include_comments":true}"#);
    p.call(&c);
    p.args.set(r#"{"include_comments":true,"ticket_id":"T-1"}"#);
    p.call(&c);
    assert_eq!(p.log[1].repeats, 2);
    assert_eq!(p.log[0].signature, p.log[1].signature);
    p.args.set(r#"{"ticket_id":"T-2"}"#);
    p.call(&c);
    assert_eq!(p.log[2].repeats, 1);
}

#[test]
fn a_call_the_tools_schema_refuses_is_not_sent_and_says_why() {
    let c = demo();
    let mut p = pane_for(&c, "get_ticket");
    // The ticket's id is required.
    p.args.set("{}");
    let why = p.parsed_args(&c).unwrap_err().to_string();
    assert!(
        why.starts_with("not what the tool's schema takes") && why.contains("ticket_id"),
        "{why}"
    );
    assert!(!p.call(&c));
    assert!(p.log.is_empty(), "a refused call was logged as run");
    assert!(p.message.as_deref().unwrap().starts_with("not sent:"));
    assert!(p.current_signature(&c).is_none());
}

#[test]
fn invalid_json_cannot_be_sent() {
    let c = demo();
    let mut p = pane_for(&c, "get_ticket");
    p.args.set(r#"{"ticket_id": "#);
    assert!(matches!(p.parsed_args(&c), Err(BadArgs::Json(_))));
    assert!(!p.call(&c));
    assert!(p.log.is_empty());
    assert!(
        p.message
            .as_deref()
            .unwrap()
            .starts_with("not sent: invalid JSON")
    );
    p.args.set("[1]");
    assert_eq!(p.parsed_args(&c).unwrap_err(), BadArgs::NotAnObject);
    assert_eq!(
        BadArgs::NotAnObject.to_string(),
        "arguments must be a JSON object"
    );
    assert!(p.current_signature(&c).is_none());
}

#[test]
fn threshold_changes_keep_the_streak_reset_clears_it() {
    let c = demo();
    let mut p = pane_for(&c, "get_payment");
    p.breaker.set_threshold(5);
    for _ in 0..3 {
        p.call(&c);
    }
    p.change_threshold(-2);
    assert_eq!(p.breaker.threshold(), 3);
    assert_eq!(p.breaker.repeats(), 3);
    assert!(!p.call(&c), "the kept streak trips at once");
    // Down to 0, the SDK's smallest: every call blocked.
    p.change_threshold(-10);
    assert_eq!(p.breaker.threshold(), 0);
    p.change_threshold(100);
    assert_eq!(p.breaker.threshold(), 20);
    p.reset();
    assert_eq!(p.breaker.repeats(), 0);
    assert!(p.call(&c));
}

#[test]
fn loop_calls_n_times() {
    let c = demo();
    let mut p = pane_for(&c, "get_payment");
    p.loop_count = 6;
    p.call_loop(&c);
    assert_eq!(p.log.len(), 6);
    assert_eq!(p.log.iter().filter(|e| e.ran).count(), 3);
}

#[test]
fn replay_steps_and_trips() {
    let c = demo();
    let mut p = pane_for(&c, "get_payment");
    p.call(&c);
    open(&mut p, "@example");
    assert_eq!(p.breaker.repeats(), 0, "a replay starts fresh");
    assert!(
        p.log.is_empty(),
        "and so does the log: its rows are the trace's calls"
    );
    for _ in 0..9 {
        assert!(p.step(&c));
    }
    assert_eq!(p.trace.as_ref().unwrap().replay.tripped_at(), None);
    assert!(p.step(&c));
    assert_eq!(p.trace.as_ref().unwrap().replay.tripped_at(), Some(9));
    assert_eq!(p.log.len(), 10, "the tenth row is the tenth call");
    // Counted from 1, as the trace pane and the call log count.
    assert!(
        p.message
            .as_deref()
            .unwrap()
            .contains("trips at call 10 (trace line 10)"),
        "{:?}",
        p.message
    );
    p.run_trace(&c);
    let t = &p.trace.as_ref().unwrap().replay;
    assert_eq!(t.next(), t.calls.len());
    assert!(!p.step(&c));
    open(&mut p, "/no/such/trace.jsonl");
    assert!(p.message.as_deref().unwrap().contains("cannot read"));
}

#[test]
fn actions_drive_the_simulator() {
    use super::actions::each::*;
    use Action::*;
    let c = demo();
    let tools: Vec<usize> = (0..c.len()).collect();
    let mut p = pane_for(&c, "get_payment");
    let on = offline(&c, &tools);
    let act = |p: &mut BreakerPane, a: Action| p.handle(a, &on);
    assert!(matches!(act(&mut p, BreakerCall), Outcome::Stay));
    assert_eq!(p.log.len(), 1);
    act(&mut p, BreakerEdit);
    assert!(p.editing && p.is_typing());
    p.type_text("x");
    assert!(p.args.text.ends_with('x'));
    act(&mut p, InputCancel);
    assert!(!p.editing);
    act(&mut p, BreakerThresholdUp);
    assert_eq!(p.breaker.threshold(), 4);
    act(&mut p, BreakerLoopMore);
    assert_eq!(p.loop_count, 6);
    act(&mut p, BreakerNextTool);
    assert_ne!(c.tools()[p.tool].name, "get_payment");
    act(&mut p, BreakerPrevTool);
    assert_eq!(c.tools()[p.tool].name, "get_payment");
    act(&mut p, BreakerOpenTrace);
    assert_eq!(p.path.as_ref().unwrap().text, "@example");
    // Opening is asked of the app (file I/O is an effect), not done here.
    assert!(matches!(
        act(&mut p, InputSubmit),
        Outcome::Effects(e) if matches!(e.as_slice(), [crate::tui::effect::Effect::Screen(job)]
            if job.get::<super::jobs::ReadTrace>().is_some_and(|r| r.path == "@example"))
    ));
    assert!(p.trace.is_none());
    open(&mut p, "@example");
    act(&mut p, BreakerRunTrace);
    assert!(p.trace.as_ref().unwrap().replay.tripped_at().is_some());
    assert!(matches!(act(&mut p, BreakerClose), Outcome::Close));
}

#[test]
fn the_trace_prompt_says_not_loaded_only_of_a_trace_that_was_not() {
    use super::actions::each::*;
    use Action::*;
    let c = demo();
    let tools: Vec<usize> = (0..c.len()).collect();
    let mut p = pane_for(&c, "get_payment");
    let on = offline(&c, &tools);
    // A reset's message is not a failed load.
    p.handle(BreakerReset, &on);
    assert!(p.message.as_deref().unwrap().starts_with("breaker reset"));
    p.handle(BreakerOpenTrace, &on);
    assert_eq!(p.trace_error, None);
    // A missing file is, and says why; a new prompt starts clean.
    open(&mut p, "/no/such/trace.jsonl");
    assert!(
        p.trace_error
            .as_deref()
            .unwrap()
            .contains("/no/such/trace.jsonl")
    );
    p.handle(InputCancel, &on);
    p.handle(BreakerOpenTrace, &on);
    assert_eq!(p.trace_error, None);
}

#[test]
fn next_and_previous_tool_go_round_the_rows_from_the_first_when_not_among_them() {
    let c = demo();
    let (a, b) = (
        c.index_of("get_payment").unwrap(),
        c.index_of("send_email").unwrap(),
    );
    let rows = [a, b];
    let on = offline(&c, &rows);
    let mut p = pane_for(&c, "get_payment");
    p.handle(Action::BreakerPrevTool, &on);
    assert_eq!(p.tool, b);
    p.handle(Action::BreakerNextTool, &on);
    assert_eq!(p.tool, a);
    // A tool the rows lack: either key picks their first.
    let mut p = pane_for(&c, "get_ticket");
    p.handle(Action::BreakerPrevTool, &on);
    assert_eq!(p.tool, a);
}
