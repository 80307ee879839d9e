//! The two dispatchers (read-only and any tool) and the per-tool rules,
//! without servers or a host.

use serde_json::json;

use super::answer::call::Via;
use super::answer::meta::listing;
use super::tests::{args, gateway, runtime, text};
use super::*;
use crate::gateway::Reach;

fn annotations(g: &Gateway, name: &str) -> serde_json::Value {
    let listed = listing(
        &g.snapshot(),
        crate::tools_handle::MaxTools::of(8),
        &[],
        "d",
    );
    let tool = listed.iter().find(|t| t.name == name).expect(name);
    serde_json::to_value(tool.annotations.as_ref().unwrap()).unwrap()
}

#[test]
fn the_read_dispatcher_is_annotated_read_only_and_the_other_destructive() {
    let g = gateway(GatewayConfig::default());
    let read = annotations(&g, CALL_READ_TOOL);
    assert_eq!(read["readOnlyHint"], true);
    let any = annotations(&g, CALL_TOOL);
    assert_eq!(
        (&any["readOnlyHint"], &any["destructiveHint"]),
        (&json!(false), &json!(true))
    );
}

#[test]
fn call_read_tool_runs_read_only_tools_only_and_results_name_the_tool() {
    let g = gateway(GatewayConfig::default());
    let rt = runtime();
    let read = Via {
        read_only: true,
        ..Via::default()
    };
    let b = g.new_breaker();
    let weather = args(json!({"name": "get_weather", "arguments": {"city": "Oslo"}}));
    let r = rt.block_on(g.call_tool_meta_done("s", &b, &weather, read.clone()));
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let meta = serde_json::to_value(r.meta.as_ref().unwrap()).unwrap();
    assert_eq!(meta[TOOL_META]["name"], "get_weather");
    // A tool that may write is refused, and the model told where to go.
    let flight = args(json!({"name": "book_flight", "arguments": {"from": "OSL", "to": "CDG"}}));
    let r = rt.block_on(g.call_tool_meta_done("s", &b, &flight, read.clone()));
    assert_eq!(r.is_error, Some(true));
    assert!(
        text(&r).contains("not marked read-only") && text(&r).contains(CALL_TOOL),
        "{}",
        text(&r)
    );
    // call_tool runs either.
    let r = rt.block_on(g.call_tool_meta_done("s", &b, &flight, Via::default()));
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let r = rt.block_on(g.call_tool_meta_done("s", &b, &weather, Via::default()));
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    // Its own messages name the dispatcher called.
    let r = rt.block_on(g.call_tool_meta_done("s", &b, &args(json!({"nme": "x"})), read));
    assert!(text(&r).starts_with("call_read_tool takes"), "{}", text(&r));
}

#[test]
fn a_denied_tool_is_never_listed_found_or_called_and_an_asked_one_needs_the_user() {
    let mut rules = ToolRules::default();
    rules.add("book_*", ToolRule::Deny).unwrap();
    rules.add("send_email", ToolRule::Ask).unwrap();
    let g = gateway(GatewayConfig {
        rules,
        ..GatewayConfig::default()
    });
    assert!(g.catalog().index_of("book_flight").is_none());
    let rt = runtime();
    let found = rt.block_on(g.search_tools(
        "s",
        None,
        &Reach::default(),
        &args(json!({"query": "book a flight"})),
    ));
    assert!(
        !found.names.iter().any(|n| n == "book_flight"),
        "{:?}",
        found.names
    );
    let b = g.new_breaker();
    let flight = args(json!({"name": "book_flight", "arguments": {"from": "OSL", "to": "CDG"}}));
    let r = rt.block_on(g.call_tool_meta_done("s", &b, &flight, Via::default()));
    // Named as not available, with no tool offered in its place.
    assert!(
        text(&r).contains("no tool named \"book_flight\" is available"),
        "{}",
        text(&r)
    );
    assert!(!text(&r).contains("closest"), "{}", text(&r));
    let shouted = args(json!({"name": "BOOK_FLIGHT", "arguments": {}}));
    let r = rt.block_on(g.call_tool_meta_done("s", &b, &shouted, Via::default()));
    assert!(text(&r).contains("is available"), "{}", text(&r));
    // Ask, with no host that can ask: refused, the model told to ask.
    let email = args(json!({"name": "send_email", "arguments": {}}));
    let r = rt.block_on(g.call_tool_meta_done("s", &b, &email, Via::default()));
    assert_eq!(r.is_error, Some(true));
    assert!(
        text(&r).contains("needs the user's approval") && text(&r).contains("not sent"),
        "{}",
        text(&r)
    );
    // Allowed tools run as before.
    let weather = args(json!({"name": "get_weather", "arguments": {"city": "Oslo"}}));
    let r = rt.block_on(g.call_tool_meta_done("s", &b, &weather, Via::default()));
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
}

#[test]
fn a_found_tool_an_ask_rule_holds_says_so_before_it_is_called() {
    let mut rules = ToolRules::default();
    rules.add("send_email", ToolRule::Ask).unwrap();
    let g = gateway(GatewayConfig {
        rules,
        ..GatewayConfig::default()
    });
    let rt = runtime();
    let found = rt.block_on(g.search_tools(
        "s",
        None,
        &Reach::default(),
        &args(json!({"query": "send an email to the customer"})),
    ));
    let tools = found.result.structured_content.unwrap()["tools"].clone();
    let of = |name: &str| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} found: {tools}"))
    };
    assert_eq!(of("send_email")["needs_approval"], true);
    assert!(
        of("send_email")["approval"]
            .as_str()
            .unwrap()
            .contains("approval")
    );
    for t in tools
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"] != "send_email")
    {
        assert!(t.get("needs_approval").is_none(), "{t}");
    }
}

#[test]
fn identical_searches_in_a_row_are_stopped_by_the_breaker() {
    let g = gateway(GatewayConfig::default());
    let b = g.new_breaker();
    let query = json!({"query": "weather in Paris"});
    let mut refused = None;
    for i in 0..10 {
        if let Err(e) = b.record(SEARCH_TOOLS, &query, true) {
            refused = Some((i, e));
            break;
        }
    }
    let (at, why) = refused.expect("stopped");
    assert_eq!(at as u32, g.config.breaker_threshold_read_only);
    assert!(why.to_string().contains("search_tools was called"), "{why}");
    // Another search resets the streak.
    assert!(
        b.record(SEARCH_TOOLS, &json!({"query": "book a flight"}), true)
            .is_ok()
    );
}

#[test]
fn rules_that_deny_every_tool_are_an_error_not_an_empty_gateway() {
    let mut rules = ToolRules::default();
    rules.add("*", ToolRule::Deny).unwrap();
    let host = std::sync::Arc::new(
        crate::sources::mcp::McpHost::new(std::time::Duration::from_secs(5)).unwrap(),
    );
    let e = Gateway::new(
        GatewayConfig {
            rules,
            ..GatewayConfig::default()
        },
        host,
        None,
        vec![super::tests::catalog()],
        Recorder::quiet(),
    )
    .unwrap_err();
    assert!(matches!(e, super::GatewayError::AllDenied { .. }), "{e}");
    assert!(e.to_string().contains("denied by the tool rules"), "{e}");
}

#[test]
fn a_rule_holds_for_every_spelling_a_call_may_use() {
    // The rules are written in another case than the tools, and the calls
    // spell the names other ways again: each resolves to the tool, so each
    // meets its rule.
    let mut rules = ToolRules::default();
    rules.add("*BOOK*", ToolRule::Deny).unwrap();
    rules.add("Send-Email", ToolRule::Ask).unwrap();
    let g = gateway(GatewayConfig {
        rules,
        ..GatewayConfig::default()
    });
    assert!(g.catalog().index_of("book_flight").is_none());
    let rt = runtime();
    for name in [
        "book_flight",
        "Book_Flight",
        "BOOK_FLIGHT",
        "bookFlight",
        "book-flight",
    ] {
        let call = args(json!({"name": name, "arguments": {"from": "OSL", "to": "CDG"}}));
        let r = rt.block_on(g.call_tool_meta_done("s", &g.new_breaker(), &call, Via::default()));
        assert_eq!(r.is_error, Some(true), "{name}: {}", text(&r));
        assert!(text(&r).contains("is available"), "{name}: {}", text(&r));
    }
    for name in ["send_email", "SEND_EMAIL", "sendEmail", "Send-Email"] {
        let call = args(json!({"name": name, "arguments": {}}));
        let r = rt.block_on(g.call_tool_meta_done("s", &g.new_breaker(), &call, Via::default()));
        assert!(
            text(&r).contains("needs the user's approval"),
            "{name}: {}",
            text(&r)
        );
    }
}
