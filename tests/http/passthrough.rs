//! The provider pass-through of `toolsift serve` against a fake upstream
//! (tests/common/fake_upstream.rs) that records what arrives: the
//! forwarded headers, the session's tools added to OpenAI Responses, Chat
//! Completions and Anthropic Messages requests, streamed answers relayed
//! chunk by chunk, upstream errors kept, and our own errors when the
//! upstream is missing, unreachable or silent.

use crate::common;

use std::io::Read;

use common::Server;
use common::fake_upstream::{FIRST_EVENT, FakeUpstream, LAST_EVENT, tool_names};
use serde_json::{Value, json};

const KEY: &str = "k-pass";

fn tool(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "input_schema": {"type": "object", "properties": {"id": {"type": "string", "description": "which one"}}},
        "read_only": false, "idempotent": false, "always_load": false,
    })
}

fn catalog() -> Value {
    json!([
        tool("lookup_status", "Look up the current service status"),
        tool("send_email", "Send an email message to a recipient"),
        tool("create_ticket", "Create a support ticket"),
        tool("close_ticket", "Close a support ticket"),
        tool("get_weather", "Current weather for a city"),
    ])
}

/// `serve` with a key, both providers pointed at the fake, `extra` flags.
fn serve(up: &FakeUpstream, extra: &[&str]) -> Server {
    let openai = format!("openai={}/v1", up.url);
    let anthropic = format!("anthropic={}", up.url);
    let mut args = vec![
        "--api-key-env",
        "TOOLSIFT_TEST_KEY",
        "--upstream",
        &openai,
        "--upstream",
        &anthropic,
    ];
    args.extend_from_slice(extra);
    Server::start(&args, &[("TOOLSIFT_TEST_KEY", KEY)])
}

/// A search that loads `query`'s best tool into session `id` (or a new one);
/// returns the session id.
fn search(srv: &Server, query: &str, id: Option<&str>) -> String {
    let mut body = json!({"tools": catalog(), "query": query, "max_tools": 1});
    if let Some(id) = id {
        body["session_id"] = json!(id);
    }
    let r = common::http_client()
        .post(format!("{}/sdk/v1/tool-search", srv.url))
        .bearer_auth(KEY)
        .json(&body)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    v["session_id"].as_str().unwrap().to_string()
}

/// A provider call with the SDK's headers.
fn call(
    srv: &Server,
    path: &str,
    session: Option<&str>,
    body: &Value,
    extra: &[(&str, &str)],
) -> reqwest::blocking::Response {
    let mut r = common::http_client()
        .post(format!("{}{path}", srv.url))
        .bearer_auth(KEY)
        .header("content-type", "application/json")
        .header("x-cave-agent", "toolsift-test")
        .header("x-cave-workflow", "pass")
        .header("x-cave-retention", "metadata")
        .header("x-cave-upstream-key", "sk-upstream-1")
        .body(body.to_string());
    if let Some(id) = session {
        r = r.header("x-cave-tool-session", id);
    }
    for (k, v) in extra {
        r = r.header(*k, *v);
    }
    r.send().unwrap()
}

fn header(r: &reqwest::blocking::Response, name: &str) -> Option<String> {
    r.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
}

/// No Caveman header, no Caveman key anywhere in what the upstream got.
fn assert_clean(seen: &common::fake_upstream::Recorded) {
    for (name, value) in &seen.headers {
        assert!(!name.starts_with("x-cave-"), "{name} forwarded: {seen:?}");
        assert!(!value.contains(KEY), "the Caveman key forwarded in {name}");
    }
}

#[test]
fn responses_call_gets_the_sessions_tools_after_its_own_with_the_upstream_key() {
    let up = FakeUpstream::start();
    let srv = serve(&up, &[]);
    let id = search(&srv, "check service status", None);
    search(&srv, "send an email", Some(&id));
    search(&srv, "weather in a city", Some(&id));
    let body = json!({
        "model": "gpt-test",
        "input": "Check service status.",
        "tools": [
            {"type": "function", "name": "send_email", "description": "the client's own", "parameters": {"type": "object"}},
            {"type": "function", "name": "my_local_tool", "description": "not in the catalog", "parameters": {"type": "object"}}
        ],
    });
    let r = call(&srv, "/openai/v1/responses?trace=1", Some(&id), &body, &[]);
    assert_eq!(r.status(), 200);
    assert_eq!(
        header(&r, "x-toolsift-tool-session").as_deref(),
        Some("applied")
    );
    assert_eq!(
        header(&r, "x-toolsift-injected-tools").as_deref(),
        Some("lookup_status,get_weather")
    );
    assert_eq!(
        header(&r, "x-upstream-request-id").as_deref(),
        Some("req_123")
    );
    let answer: Value = r.json().unwrap();
    assert_eq!(answer["id"], "resp_fake");
    let seen = up.only();
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.path, "/v1/responses?trace=1");
    assert_eq!(seen.header("authorization"), Some("Bearer sk-upstream-1"));
    assert_eq!(seen.header("content-type"), Some("application/json"));
    assert_clean(&seen);
    // The client's own first, untouched, then the session's in first-load order.
    assert_eq!(
        seen.tool_names(),
        [
            "send_email",
            "my_local_tool",
            "lookup_status",
            "get_weather"
        ]
    );
    let sent = seen.json();
    assert_eq!(sent["tools"][0]["description"], "the client's own");
    let added = &sent["tools"][2];
    assert_eq!(added["type"], "function");
    assert_eq!(added["description"], "Look up the current service status");
    assert_eq!(added["parameters"]["properties"]["id"]["type"], "string");
    assert_eq!(sent["model"], "gpt-test");
    assert_eq!(sent["input"], "Check service status.");
    // The access line is written as the answer ends: wait for it.
    let log = srv.log_lines("POST /openai/v1/responses", 1);
    assert!(log.contains("POST /openai/v1/responses 200"), "{log}");
    assert!(log.contains("injected=2"), "{log}");
    assert!(
        !log.contains(KEY) && !log.contains("sk-upstream-1"),
        "{log}"
    );
    assert!(
        !log.contains("Check service status."),
        "a body in the log: {log}"
    );
}

#[test]
fn chat_completions_history_calls_define_their_tools_once() {
    let up = FakeUpstream::start();
    let srv = serve(&up, &[]);
    let id = search(&srv, "check service status", None);
    let body = json!({
        "model": "gpt-test",
        "messages": [
            {"role": "user", "content": "close ticket 7"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "close_ticket", "arguments": "{\"id\":\"7\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "lookup_status", "arguments": "{}"}},
                {"id": "c3", "type": "function", "function": {"name": "close_ticket", "arguments": "{\"id\":\"8\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "closed"}
        ],
    });
    let r = call(&srv, "/openai/v1/chat/completions", Some(&id), &body, &[]);
    assert_eq!(r.status(), 200);
    assert_eq!(
        header(&r, "x-toolsift-injected-tools").as_deref(),
        Some("lookup_status,close_ticket")
    );
    let seen = up.only();
    assert_eq!(seen.path, "/v1/chat/completions");
    assert_clean(&seen);
    let sent = seen.json();
    assert_eq!(tool_names(&sent), ["lookup_status", "close_ticket"]);
    assert_eq!(sent["tools"][1]["type"], "function");
    assert_eq!(
        sent["tools"][1]["function"]["description"],
        "Close a support ticket"
    );
    assert_eq!(sent["messages"], body["messages"]);
}

#[test]
fn anthropic_messages_get_x_api_key_version_and_tools_in_anthropic_shape() {
    let up = FakeUpstream::start();
    let srv = serve(&up, &[]);
    let id = search(&srv, "send an email", None);
    let body = json!({
        "model": "claude-test", "max_tokens": 64,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "create_ticket", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}
        ],
        "tools": [{"name": "web_lookup", "description": "the client's", "input_schema": {"type": "object"}}],
    });
    let r = call(
        &srv,
        "/anthropic/v1/messages",
        Some(&id),
        &body,
        &[("anthropic-beta", "tools-1")],
    );
    assert_eq!(r.status(), 200);
    assert_eq!(
        header(&r, "x-toolsift-injected-tools").as_deref(),
        Some("send_email,create_ticket")
    );
    let seen = up.only();
    assert_eq!(seen.path, "/v1/messages");
    assert_eq!(seen.header("x-api-key"), Some("sk-upstream-1"));
    assert_eq!(seen.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(seen.header("anthropic-beta"), Some("tools-1"));
    assert_eq!(seen.header("authorization"), None);
    assert_clean(&seen);
    let sent = seen.json();
    assert_eq!(
        tool_names(&sent),
        ["web_lookup", "send_email", "create_ticket"]
    );
    let added = sent["tools"][1].as_object().unwrap();
    assert_eq!(added.len(), 3, "{added:?}");
    assert_eq!(sent["tools"][1]["input_schema"]["type"], "object");
}

/// Reads `r` until `want` bytes have come (or the stream ends).
fn read_at_least(r: &mut impl Read, want: usize) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    while got.len() < want {
        let n = r.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    got
}

#[test]
fn streams_pass_through_chunk_by_chunk_for_each_provider() {
    let up = FakeUpstream::start();
    let srv = serve(&up, &[]);
    let id = search(&srv, "check service status", None);
    for (i, (path, body)) in [
        (
            "/openai/v1/responses",
            json!({"model": "m", "input": "hi", "stream": true}),
        ),
        (
            "/openai/v1/chat/completions",
            json!({"model": "m", "messages": [], "stream": true}),
        ),
        (
            "/anthropic/v1/messages",
            json!({"model": "m", "max_tokens": 8, "messages": [], "stream": true}),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let mut r = call(
            &srv,
            path,
            Some(&id),
            &body,
            &[("accept", "text/event-stream")],
        );
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(
            header(&r, "content-type").as_deref(),
            Some("text/event-stream")
        );
        assert_eq!(
            header(&r, "x-toolsift-injected-tools").as_deref(),
            Some("lookup_status")
        );
        // The upstream holds its last event until released: the first one
        // must arrive on its own.
        let first = read_at_least(&mut r, FIRST_EVENT.len());
        assert_eq!(String::from_utf8_lossy(&first), FIRST_EVENT, "{path}");
        up.release();
        let mut rest = String::new();
        r.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, LAST_EVENT, "{path}");
        let seen = &up.seen()[i];
        assert_clean(seen);
        assert_eq!(seen.tool_names(), ["lookup_status"], "{path}");
        assert_eq!(seen.header("accept"), Some("text/event-stream"));
    }
}

#[test]
fn unknown_or_foreign_session_forwards_the_body_as_sent() {
    let up = FakeUpstream::start();
    let srv = Server::start(
        &[
            "--api-key-env",
            "TOOLSIFT_KEY_A",
            "--api-key-env",
            "TOOLSIFT_KEY_B",
            "--upstream",
            &format!("openai={}/v1", up.url),
        ],
        &[("TOOLSIFT_KEY_A", KEY), ("TOOLSIFT_KEY_B", "k-other")],
    );
    let id = search(&srv, "check service status", None);
    let text = r#"{"model": "m",  "input": "hi", "tools": []}"#;
    let send = |key: &str, session: &str| {
        common::http_client()
            .post(format!("{}/openai/v1/responses", srv.url))
            .bearer_auth(key)
            .header("content-type", "application/json")
            .header("x-cave-tool-session", session)
            .body(text)
            .send()
            .unwrap()
    };
    for (key, session) in [
        (KEY, "no-such-session"),
        ("k-other", id.as_str()),
        (KEY, "bad id!"),
    ] {
        let r = send(key, session);
        assert_eq!(r.status(), 200);
        assert_eq!(
            header(&r, "x-toolsift-tool-session").as_deref(),
            Some("unknown")
        );
        assert_eq!(header(&r, "x-toolsift-injected-tools"), None);
    }
    for seen in up.seen() {
        assert_eq!(String::from_utf8(seen.body.clone()).unwrap(), text);
        // No upstream key configured or sent: no authorization at all.
        assert_eq!(seen.header("authorization"), None);
    }
    assert_eq!(up.seen().len(), 3);
    // The owner's call still gets the tool.
    let r = send(KEY, &id);
    assert_eq!(
        header(&r, "x-toolsift-injected-tools").as_deref(),
        Some("lookup_status")
    );
}

#[test]
fn upstream_errors_keep_status_and_body() {
    let up = FakeUpstream::start();
    let srv = serve(&up, &[]);
    let r = call(
        &srv,
        "/openai/v1/responses",
        None,
        &json!({"model": "m"}),
        &[("x-fake-status", "429")],
    );
    assert_eq!(r.status(), 429);
    assert_eq!(header(&r, "x-upstream-said").as_deref(), Some("no"));
    let v: Value = r.json().unwrap();
    assert_eq!(v["error"]["type"], "rate_limit");
    // A call without a session carries no session header back.
    let r = call(&srv, "/anthropic/v1/messages", None, &json!({}), &[]);
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-toolsift-tool-session"), None);
}

#[test]
fn upstream_key_from_the_environment_unless_the_request_gives_one() {
    let up = FakeUpstream::start();
    let srv = Server::start(
        &[
            "--api-key-env",
            "TOOLSIFT_TEST_KEY",
            "--upstream",
            &format!("openai={}/v1", up.url),
            "--upstream",
            &format!("anthropic={}", up.url),
            "--upstream-key-env",
            "openai=TEST_OPENAI_KEY",
            "--upstream-key-env",
            "anthropic=TEST_ANTHROPIC_KEY",
        ],
        &[
            ("TOOLSIFT_TEST_KEY", KEY),
            ("TEST_OPENAI_KEY", "sk-env"),
            ("TEST_ANTHROPIC_KEY", "ak-env"),
        ],
    );
    let plain = |path: &str| {
        common::http_client()
            .post(format!("{}{path}", srv.url))
            .bearer_auth(KEY)
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .unwrap()
    };
    assert_eq!(plain("/openai/v1/responses").status(), 200);
    assert_eq!(plain("/anthropic/v1/messages").status(), 200);
    assert_eq!(
        call(&srv, "/openai/v1/responses", None, &json!({}), &[]).status(),
        200
    );
    let seen = up.seen();
    assert_eq!(seen[0].header("authorization"), Some("Bearer sk-env"));
    assert_eq!(seen[1].header("x-api-key"), Some("ak-env"));
    assert_eq!(
        seen[2].header("authorization"),
        Some("Bearer sk-upstream-1")
    );
    assert!(!srv.log().contains("sk-env"));
}

#[test]
fn our_errors_for_auth_missing_unreachable_and_silent_upstreams() {
    let up = FakeUpstream::start();
    // Auth comes first: no key, no pass-through.
    let srv = serve(&up, &["--upstream", "anthropic=none"]);
    let r = common::http_client()
        .post(format!("{}/openai/v1/responses", srv.url))
        .body("{}")
        .send()
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(up.seen().is_empty());
    // A provider turned off: 501 saying how to configure it.
    let r = call(&srv, "/anthropic/v1/messages", None, &json!({}), &[]);
    assert_eq!(r.status(), 501);
    let v: Value = r.json().unwrap();
    assert_eq!(v["error"]["code"], "upstream_not_configured");
    let m = v["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("--upstream anthropic=URL") && m.contains("[serve.upstreams]"),
        "{m}"
    );
    // Providers the service does not pass through.
    let r = call(
        &srv,
        "/gemini/v1/models/x:generateContent",
        None,
        &json!({}),
        &[],
    );
    assert_eq!(r.status(), 501);
    // Nothing listening: 502 in our shape.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let dead = Server::start(
        &["--upstream", &format!("openai=http://127.0.0.1:{port}/v1")],
        &[],
    );
    let r = common::http_client()
        .post(format!("{}/openai/v1/responses", dead.url))
        .body("{}")
        .send()
        .unwrap();
    assert_eq!(r.status(), 502);
    let v: Value = r.json().unwrap();
    assert_eq!(v["error"]["code"], "upstream_unreachable");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("openai upstream")
    );
    // An upstream that never answers: 504 once the upstream time limit passes.
    let slow = serve(&up, &["--upstream-timeout-ms", "200"]);
    let r = call(
        &slow,
        "/openai/v1/responses",
        None,
        &json!({}),
        &[("x-fake-hang", "1")],
    );
    assert_eq!(r.status(), 504);
    let v: Value = r.json().unwrap();
    assert_eq!(v["error"]["code"], "upstream_timeout");
    up.release();
}

#[test]
fn bad_upstream_flags_are_usage_errors() {
    for (args, needle) in [
        (&["--upstream", "openai"][..], "PROVIDER=VALUE"),
        (
            &["--upstream", "gemini=http://x"][..],
            "unknown provider \"gemini\"",
        ),
        (&["--upstream", "openai=ftp://x"][..], "http or https"),
        (
            &["--upstream-key-env", "openai=TOOLSIFT_NO_SUCH_VAR"][..],
            "TOOLSIFT_NO_SUCH_VAR",
        ),
        (&["--sessions", "postgres://x"][..], "redis://"),
    ] {
        let out = common::bin()
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .env_remove("TOOLSIFT_NO_SUCH_VAR")
            .output()
            .unwrap();
        common::assert_usage_error(&out, needle);
    }
}
