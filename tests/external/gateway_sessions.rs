//! The gateway's MCP sessions over HTTP are bounded and bound to their
//! key: a flood of initialize-only sessions stays within the cap (the
//! idlest closed, its next request told why) and the process's memory
//! stays flat; a session answers only the API key that opened it. Raw
//! streamable HTTP against the real binary, in front of real
//! mcp-server-time.

use serde_json::{Value, json};

use crate::gateway::{HttpGateway, get};
use crate::mcp_support::*;

/// One JSON-RPC message posted to the MCP endpoint: the status, the
/// session id it gave, and the body.
pub(crate) fn post(
    client: &reqwest::blocking::Client,
    url: &str,
    key: &str,
    session: Option<&str>,
    message: Value,
) -> (u16, Option<String>, String) {
    let mut req = client
        .post(url)
        .bearer_auth(key)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-06-18")
        .body(message.to_string());
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let r = req.send().unwrap();
    let status = r.status().as_u16();
    let id = r
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    (status, id, r.text().unwrap_or_default())
}

pub(crate) fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
}

pub(crate) fn list() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
}

/// A session opened and made ready (`notifications/initialized`).
pub(crate) fn open(client: &reqwest::blocking::Client, url: &str, key: &str) -> String {
    let (status, id, body) = post(client, url, key, None, initialize());
    assert_eq!(status, 200, "{body}");
    let id = id.expect("a session id");
    let ready = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, body) = post(client, url, key, Some(&id), ready);
    assert_eq!(status, 202, "{body}");
    id
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

fn metric(text: &str, name: &str) -> f64 {
    crate::common::metric_value(text, name).unwrap_or_else(|| panic!("no {name} in {text}"))
}

#[test]
fn a_flood_of_sessions_is_capped_the_idlest_closed_and_memory_stays_flat() {
    toolsift::http::client::install_tls();
    let gw = HttpGateway::start(
        &[
            "--mcp-stdio".into(),
            format!("{} --local-timezone Etc/UTC", time_bin()),
            "--api-key-env".into(),
            "GW_FLOOD_KEY".into(),
            "--max-sessions".into(),
            "100".into(),
        ],
        &[("GW_FLOOD_KEY", "k1")],
    );
    let client = reqwest::blocking::Client::new();
    let first = open(&client, &gw.url, "k1");
    for _ in 0..200 {
        post(&client, &gw.url, "k1", None, initialize());
    }
    let warm = rss_kib(gw.pid());
    for _ in 0..3000 {
        let (status, _, body) = post(&client, &gw.url, "k1", None, initialize());
        assert_eq!(status, 200, "{body}");
    }
    let after = rss_kib(gw.pid());
    // Uncapped, 3,000 sessions took about 180 MB (60 KB each).
    assert!(
        after < warm + 40 * 1024,
        "RSS grew from {warm} KiB to {after} KiB over 3,000 sessions"
    );
    let (_, metrics) = get(&format!("{}/metrics", gw.base()), Some("k1"));
    assert_eq!(
        metric(&metrics, "toolsift_gateway_sessions"),
        100.0,
        "{metrics}"
    );
    assert!(
        metric(&metrics, "toolsift_gateway_sessions_evicted_total") >= 3100.0,
        "{metrics}"
    );
    // The first session was the idlest: closed, and its host told why.
    let (status, _, body) = post(&client, &gw.url, "k1", Some(&first), list());
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("closed to make room"), "{body}");
    // A new one works.
    let id = open(&client, &gw.url, "k1");
    let (status, _, body) = post(&client, &gw.url, "k1", Some(&id), list());
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("search_tools"), "{body}");
}

#[test]
fn a_session_answers_only_the_key_that_opened_it_and_each_key_has_its_share() {
    toolsift::http::client::install_tls();
    let gw = HttpGateway::start(
        &[
            "--mcp-stdio".into(),
            format!("{} --local-timezone Etc/UTC", time_bin()),
            "--api-key-env".into(),
            "GW_KEY_ONE".into(),
            "--api-key-env".into(),
            "GW_KEY_TWO".into(),
            "--max-sessions-per-key".into(),
            "3".into(),
        ],
        &[("GW_KEY_ONE", "one"), ("GW_KEY_TWO", "two")],
    );
    let client = reqwest::blocking::Client::new();
    let ones = open(&client, &gw.url, "one");
    // Key two cannot continue key one's session: it does not exist for it.
    let (status, _, body) = post(&client, &gw.url, "two", Some(&ones), list());
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("Session not found"), "{body}");
    let (status, _, body) = post(&client, &gw.url, "one", Some(&ones), list());
    assert_eq!(status, 200, "{body}");
    // Key two's sessions past its share close its own idlest, not key one's.
    let twos: Vec<String> = (0..4).map(|_| open(&client, &gw.url, "two")).collect();
    let (status, _, body) = post(&client, &gw.url, "two", Some(&twos[0]), list());
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("closed to make room"), "{body}");
    for id in &twos[1..] {
        let (status, _, body) = post(&client, &gw.url, "two", Some(id), list());
        assert_eq!(status, 200, "{body}");
    }
    let (status, _, body) = post(&client, &gw.url, "one", Some(&ones), list());
    assert_eq!(status, 200, "{body}");
}
