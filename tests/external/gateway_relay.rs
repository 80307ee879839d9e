//! What a server asks of its host, and a host of the servers beside tools,
//! through `toolsift gateway`, with the official MCP Python SDK as the host
//! on both revisions: elicitation and sampling during a call reach the host
//! and its answers the server; log messages during a call reach the host at
//! the level its session set; completions and resource subscriptions go to
//! their server. A host that cannot answer a request reads in the call's
//! result what the server asked for. The server is ours
//! (tests/fixtures/mcp/conformance_server.py).

use crate::gateway::{HttpGateway, gateway_cmd, host, text};
use crate::mcp_support::*;

use serde_json::{Value, json};

fn fixture_args() -> Vec<String> {
    vec![
        "--mcp-stdio".into(),
        format!("{} {}", python(), mcp_fixture("conformance_server.py")),
        "--always-load".into(),
        "*".into(),
    ]
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"op": "call", "name": name, "arguments": arguments})
}

/// The results of `steps` run by a host started with `host_args` (after
/// `--stdio GATEWAY`) in `mode`.
fn stdio_host(mode: &str, host_args: &[&str], steps: &Value) -> Vec<Value> {
    let cmd = gateway_cmd(&fixture_args());
    let mut target = vec!["--stdio", cmd.as_str()];
    target.extend_from_slice(host_args);
    let doc = host(&target, mode, steps, 1);
    doc["sessions"][0].as_array().unwrap().clone()
}

#[test]
fn a_servers_elicitation_sampling_and_logs_reach_a_handshake_host_and_back() {
    let steps = json!([
        call("test_elicitation", json!({"message": "Who are you?"})),
        call("test_sampling", json!({"prompt": "Say hi"})),
        call("test_tool_with_logging", json!({})),
        {"op": "logs"},
        {"op": "elicitations"},
        {"op": "samplings"},
        {"op": "complete", "prompt": "test_prompt_with_arguments", "argument": "arg1", "value": "te"},
        {"op": "subscribe", "uri": "test://watched-resource"},
        call("touch_watched_resource", json!({})),
        {"op": "wait_notification", "method": "notifications/resources/updated", "timeout": 10},
    ]);
    let r = stdio_host(
        "legacy",
        &[
            "--elicit",
            "accept",
            "--elicit-content",
            r#"{"username": "ada", "email": "ada@example.org"}"#,
            "--sample",
            "Hello from the host's model",
        ],
        &steps,
    );
    // The user's answer reached the server.
    assert_eq!(r[0]["isError"], false, "{}", r[0]);
    let answered = text(&r[0]);
    assert!(
        answered.contains("action=accept") && answered.contains("ada@example.org"),
        "{answered}"
    );
    // The host's model answered the server.
    assert_eq!(
        text(&r[1]),
        "LLM response: Hello from the host's model",
        "{}",
        r[1]
    );
    // The three log messages of the call, named by their server.
    let logs = r[3].as_array().unwrap();
    assert_eq!(logs.len(), 3, "{logs:?}");
    assert_eq!(logs[0]["data"], "Tool execution started");
    assert_eq!(logs[0]["level"], "info");
    assert!(logs[0]["logger"].as_str().is_some(), "{logs:?}");
    assert_eq!(r[4], json!(["Who are you?"]));
    assert_eq!(r[5], json!(["Say hi"]));
    // The prompt's server completed its argument.
    let values = &r[6]["completion"]["values"];
    assert!(
        values.as_array().is_some_and(
            |v| !v.is_empty() && v.iter().all(|x| x.as_str().unwrap_or("").starts_with("te"))
        ),
        "{}",
        r[6]
    );
    // Subscribed through the gateway; the server's update came back.
    assert!(r[7].get("exception").is_none(), "{}", r[7]);
    assert!(text(&r[8]).contains("test://watched-resource"), "{}", r[8]);
    assert_eq!(
        r[9]["method"], "notifications/resources/updated",
        "{}",
        r[9]
    );
}

#[test]
fn a_host_that_cannot_answer_reads_what_the_server_asked_for() {
    // The handshake revision, a host with neither elicitation nor sampling.
    let steps = json!([
        call("test_elicitation", json!({"message": "Who are you?"})),
        call("test_sampling", json!({"prompt": "Say hi"})),
    ]);
    let r = stdio_host("legacy", &[], &steps);
    let elicited = serde_json::to_string(&r[0]).unwrap();
    assert!(
        elicited.contains("asked the host for input from the user (elicitation)")
            && elicited.contains("did not declare the elicitation capability")
            && elicited.contains("Who are you?"),
        "{elicited}"
    );
    let sampled = serde_json::to_string(&r[1]).unwrap();
    assert!(
        sampled.contains("a model's completion (sampling)")
            && sampled.contains("did not declare the sampling capability"),
        "{sampled}"
    );
    // 2026-07-28 without elicitation: told the same way.
    let r = stdio_host(
        "2026-07-28",
        &[],
        &json!([call("test_elicitation", json!({"message": "Who are you?"}))]),
    );
    let elicited = serde_json::to_string(&r[0]).unwrap();
    assert!(
        elicited.contains("did not declare the elicitation capability"),
        "{elicited}"
    );
}

#[test]
fn a_2026_host_answers_a_servers_requests_in_input_required_rounds() {
    // The server's call runs on while the host is asked in an
    // input_required answer; the SDK's retry brings the answer back.
    let steps = json!([
        call("test_elicitation", json!({"message": "Who are you?"})),
        call("test_sampling", json!({"prompt": "Say hi"})),
        {"op": "elicitations"},
        {"op": "complete", "prompt": "test_prompt_with_arguments", "argument": "arg1", "value": "te"},
    ]);
    let r = stdio_host(
        "2026-07-28",
        &[
            "--elicit",
            "accept",
            "--elicit-content",
            r#"{"username": "grace", "email": "grace@example.org"}"#,
            "--sample",
            "Hello in a round",
        ],
        &steps,
    );
    assert_eq!(r[0]["isError"], false, "{}", r[0]);
    let answered = text(&r[0]);
    assert!(
        answered.contains("action=accept") && answered.contains("grace@example.org"),
        "{answered}"
    );
    assert_eq!(text(&r[1]), "LLM response: Hello in a round", "{}", r[1]);
    assert_eq!(r[2], json!(["Who are you?"]));
    assert!(
        r[3]["completion"]["values"]
            .as_array()
            .is_some_and(|v| !v.is_empty()),
        "{}",
        r[3]
    );
}

#[test]
fn each_session_hears_the_servers_logs_at_the_level_it_set() {
    let gw = HttpGateway::start(&fixture_args(), &[]);
    let quiet = json!([
        {"op": "setlevel", "level": "error"},
        call("test_tool_with_logging", json!({})),
        {"op": "logs"},
    ]);
    let doc = host(&["--url", &gw.url], "legacy", &quiet, 1);
    let r = doc["sessions"][0].as_array().unwrap();
    assert!(r[0].get("exception").is_none(), "{}", r[0]);
    assert_eq!(r[2], json!([]), "info messages below error: {}", r[2]);
    // Another session, which set no level, hears them all.
    let plain = json!([call("test_tool_with_logging", json!({})), {"op": "logs"}]);
    let doc = host(&["--url", &gw.url], "legacy", &plain, 1);
    let r = doc["sessions"][0].as_array().unwrap();
    assert_eq!(r[1].as_array().map(Vec::len), Some(3), "{}", r[1]);
}

#[test]
fn a_request_the_server_gives_up_is_cancelled_at_the_host_too() {
    let steps = json!([
        call("test_cancelled_elicitation", json!({})),
        {"op": "sleep", "seconds": 1},
        {"op": "elicitations"},
    ]);
    let r = stdio_host(
        "legacy",
        &["--elicit", "accept", "--elicit-delay", "5"],
        &steps,
    );
    assert_eq!(r[0]["isError"], false, "{}", r[0]);
    assert_eq!(
        r[2],
        json!(["Are you still there?", "cancelled: Are you still there?"]),
        "the host's question was cancelled: {}",
        r[2]
    );
}
