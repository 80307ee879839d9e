//! `toolsift gateway` sending traces and metrics over OTLP/HTTP to a real
//! receiver on loopback (tests/external/otlp_receiver.rs decodes them with
//! opentelemetry-proto), the official MCP Python SDK as the host on both
//! revisions, in front of the real mcp-server-time, our conformance server
//! (it asks the host a question) and a fake server that echoes the `_meta`
//! it receives: the host's `traceparent` is the parent of its request's
//! span, the search and the call are spans under it with their
//! attributes, the server gets the call's span as its parent in `_meta`,
//! and the counters arrive. Without the variables nothing is sent and
//! `_meta` reaches the server without a trace context.

use std::time::Duration;

use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use serde_json::{Value, json};

use crate::gateway::{HttpGateway, gateway_cmd, host_in_env, text};
use crate::mcp_support::*;
use crate::otlp_receiver::{Receiver, attr};

/// The servers: the real time server, the conformance server, and the
/// fake one that echoes `_meta`.
fn otel_servers(dir: &TempDir, m: &str) -> Vec<String> {
    let servers = json!({
        "time": {"command": time_bin(), "args": ["--local-timezone", "Etc/UTC"]},
        "conformance": {"command": python(), "args": [mcp_fixture("conformance_server.py")]},
        "echo": fake("paged", m, &["--pages", "1", "--per-page", "2", "--echo-meta"]),
    });
    vec!["--mcp".into(), mcp_json(dir, servers)]
}

/// The host's span: a trace id and span id of its own for each run.
pub(crate) fn host_span(n: u8) -> (String, String) {
    (
        format!("{n:02x}{}", "ab".repeat(15)),
        format!("{n:02x}cdef0123456789"),
    )
}

pub(crate) fn traceparent(trace: &str, span: &str) -> String {
    format!("00-{trace}-{span}-01")
}

fn traced_steps(tp: &str) -> Value {
    let meta = json!({ "traceparent": tp });
    let call = |name: &str, arguments: Value| {
        json!({"op": "call", "name": "call_tool",
               "arguments": {"name": name, "arguments": arguments}, "meta": meta})
    };
    json!([
        {"op": "call", "name": "search_tools", "arguments": {"query": "current time"}, "meta": meta},
        call("get_current_time", json!({"timezone": "Etc/UTC"})),
        call("paged_tool_00", json!({"n": 1})),
        call("test_elicitation", json!({"message": "Who are you?"})),
    ])
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The spans of one trace, by name.
fn named<'a>(spans: &'a [Span], trace: &str, name: &str) -> Vec<&'a Span> {
    spans
        .iter()
        .filter(|s| hex(&s.trace_id) == trace && s.name == name)
        .collect()
}

/// The one span under `parent` named `name`.
pub(crate) fn under<'a>(spans: &'a [Span], parent: &Span, name: &str) -> &'a Span {
    let found: Vec<&Span> = spans
        .iter()
        .filter(|s| s.parent_span_id == parent.span_id && s.name == name)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one {name} under {}: {spans:#?}",
        parent.name
    );
    found[0]
}

/// The echo server's `_meta`, from its answer's text.
fn echoed_meta(result: &Value) -> Value {
    let echoed: Value = serde_json::from_str(&text(result)).unwrap();
    echoed["_meta"].clone()
}

fn otel_env(receiver: &Receiver) -> Vec<(&'static str, String)> {
    vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()),
        ("OTEL_SERVICE_NAME", "toolsift-under-test".into()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100".into()),
        ("OTEL_METRIC_EXPORT_INTERVAL", "500".into()),
    ]
}

fn run_stdio(dir: &TempDir, m: &str, mode: &str, tp: &str, env: &[(&str, String)]) -> Vec<Value> {
    let cmd = gateway_cmd(&otel_servers(dir, m));
    let vars: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let target = [
        "--stdio",
        cmd.as_str(),
        "--elicit",
        "accept",
        "--elicit-content",
    ];
    let mut target = target.to_vec();
    target.push(r#"{"username": "ada", "email": "ada@example.org"}"#);
    let (doc, stderr) = host_in_env(&target, mode, &traced_steps(tp), 1, &vars);
    let results = doc["sessions"][0].as_array().unwrap().clone();
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r["isError"], false, "step {i} in {mode}: {r}\n{stderr}");
    }
    results
}

/// The request span of the call whose target is `target`, under the host's
/// span.
pub(crate) fn request_span<'a>(
    spans: &'a [Span],
    trace: &str,
    target: &str,
    host: &str,
) -> &'a Span {
    let found = named(spans, trace, &format!("tools/call {target}"));
    assert_eq!(found.len(), 1, "one request span for {target}: {spans:#?}");
    let span = found[0];
    assert_eq!(
        hex(&span.parent_span_id),
        host,
        "the host's span is the parent"
    );
    assert_eq!(span.kind, SpanKind::Server as i32);
    assert_eq!(
        attr(&span.attributes, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
    span
}

fn check_trace(receiver: &Receiver, trace: &str, host: &str, results: &[Value]) {
    let complete = |r: &Receiver| {
        let spans = r.spans();
        named(&spans, trace, "elicitation/create").len() == 1
            && named(&spans, trace, "tools/call call_tool").len() >= 3
    };
    assert!(
        receiver.wait_until(Duration::from_secs(20), complete),
        "the spans of trace {trace}: {:#?}",
        receiver.spans()
    );
    let spans = receiver.spans();
    assert!(
        receiver
            .services()
            .iter()
            .all(|s| s == "toolsift-under-test")
    );
    // The search: a span under the request's, with its ranker and counts.
    let asked = request_span(&spans, trace, "search_tools", host);
    let search = under(&spans, asked, "toolsift.search");
    assert_eq!(
        attr(&search.attributes, "toolsift.ranker").as_deref(),
        Some("bm25")
    );
    assert_eq!(
        attr(&search.attributes, "toolsift.query.length").as_deref(),
        Some("12")
    );
    let returned: u64 = attr(&search.attributes, "toolsift.search.returned")
        .unwrap()
        .parse()
        .unwrap();
    assert!(returned >= 1, "{search:#?}");
    // No query text on any span.
    let texts = spans.iter().flat_map(|s| {
        let attributes = &s.attributes;
        attributes.iter().filter_map(|kv| attr(attributes, &kv.key))
    });
    assert!(
        texts.clone().all(|t| t != "current time"),
        "{:?}",
        texts.collect::<Vec<_>>()
    );
    // Each call: a client span under its request's, naming server, tool
    // and outcome.
    let calls: Vec<&Span> = named(&spans, trace, "tools/call call_tool")
        .into_iter()
        .map(|request| {
            assert_eq!(hex(&request.parent_span_id), host);
            under(&spans, request, "toolsift.call")
        })
        .collect();
    let call_of = |tool: &str| {
        *calls
            .iter()
            .find(|c| attr(&c.attributes, "gen_ai.tool.name").as_deref() == Some(tool))
            .unwrap_or_else(|| panic!("a call span of {tool}: {calls:#?}"))
    };
    let time = call_of("get_current_time");
    assert_eq!(time.kind, SpanKind::Client as i32);
    assert_eq!(
        attr(&time.attributes, "toolsift.server").as_deref(),
        Some("time")
    );
    assert_eq!(
        attr(&time.attributes, "toolsift.outcome").as_deref(),
        Some("ok")
    );
    // The server got the call's span as its parent.
    let echo = call_of("paged_tool_00");
    assert_eq!(
        attr(&echo.attributes, "toolsift.server").as_deref(),
        Some("echo")
    );
    let meta = echoed_meta(&results[2]);
    let sent = meta["traceparent"]
        .as_str()
        .unwrap_or_else(|| panic!("{meta}"));
    assert_eq!(sent, traceparent(trace, &hex(&echo.span_id)), "{meta}");
    // The server's question to the host: a span under its call's.
    // (On 2026-07-28 the question is a round: the call that asked is
    // answered input_required, and the host's retry is a call of its own.)
    let asked_by = spans
        .iter()
        .find(|s| hex(&s.trace_id) == trace && s.name == "elicitation/create")
        .unwrap();
    let asking = calls
        .iter()
        .find(|c| c.span_id == asked_by.parent_span_id)
        .unwrap_or_else(|| panic!("the question under a call: {spans:#?}"));
    assert_eq!(
        attr(&asking.attributes, "gen_ai.tool.name").as_deref(),
        Some("test_elicitation")
    );
    let relayed = under(&spans, asking, "elicitation/create");
    assert_eq!(
        attr(&relayed.attributes, "toolsift.server").as_deref(),
        Some("conformance")
    );
}

#[test]
fn a_hosts_trace_runs_through_the_gateway_to_the_server_and_the_receiver() {
    for (n, mode) in [(1u8, "legacy"), (2, "2026-07-28")] {
        let receiver = Receiver::start();
        let dir = TempDir::new("gw-otel");
        let m = marker("gw-otel");
        let (trace, host) = host_span(n);
        let env = otel_env(&receiver);
        let results = run_stdio(&dir, &m, mode, &traceparent(&trace, &host), &env);
        check_trace(&receiver, &trace, &host, &results);
        // The counters /metrics shows arrive too.
        let counted = |r: &Receiver| {
            r.metric_names()
                .iter()
                .any(|n| n == "toolsift_gateway_calls_total")
        };
        assert!(
            receiver.wait_until(Duration::from_secs(10), counted),
            "{mode}: metrics {:?}",
            receiver.metric_names()
        );
        assert!(
            receiver
                .metric_names()
                .iter()
                .any(|n| n == "toolsift_gateway_searches_total")
        );
    }
}

#[test]
fn without_the_variables_nothing_is_sent_and_meta_is_left_alone() {
    let receiver = Receiver::start();
    let dir = TempDir::new("gw-otel-off");
    let m = marker("gw-otel-off");
    let (trace, host) = host_span(3);
    let tp = traceparent(&trace, &host);
    // The receiver's address is known to the process, but no variable
    // names it as an endpoint.
    let env = vec![("TOOLSIFT_TEST_RECEIVER", receiver.endpoint())];
    let results = run_stdio(&dir, &m, "legacy", &tp, &env);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(receiver.requests(), 0);
    let meta = echoed_meta(&results[2]);
    assert!(meta.get("traceparent").is_none(), "{meta}");
}

#[test]
fn the_http_transports_traceparent_header_is_the_parent() {
    let receiver = Receiver::start();
    let dir = TempDir::new("gw-otel-http");
    let m = marker("gw-otel-http");
    let env = otel_env(&receiver);
    let vars: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let gw = HttpGateway::start(&otel_servers(&dir, &m), &vars);
    let (trace, host) = host_span(4);
    let header = format!("traceparent: {}", traceparent(&trace, &host));
    let steps = json!([{"op": "call", "name": "search_tools", "arguments": {"query": "time"}}]);
    let doc = crate::gateway::host(
        &["--url", &gw.url, "--header", &header],
        "legacy",
        &steps,
        1,
    );
    assert_eq!(doc["sessions"][0][0]["isError"], false, "{doc}");
    let arrived = |r: &Receiver| !named(&r.spans(), &trace, "toolsift.search").is_empty();
    assert!(
        receiver.wait_until(Duration::from_secs(20), arrived),
        "{:#?}\n{}",
        receiver.spans(),
        gw.stderr()
    );
    let spans = receiver.spans();
    request_span(&spans, &trace, "search_tools", &host);
}

#[test]
fn a_protocol_the_gateway_cannot_send_is_refused_by_name_and_value() {
    let out = std::process::Command::new(crate::gateway::toolsift())
        .args(["gateway", "--offline", "--mcp-stdio", "true"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let said = stderr(&out);
    assert!(
        said.contains(
            "OTEL_EXPORTER_OTLP_PROTOCOL=\"grpc\": toolsift sends OTLP as http/protobuf only"
        ),
        "{said}"
    );
}
