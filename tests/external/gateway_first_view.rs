//! The model's first view is right although a server is slow to start: a
//! real mcp-server-time behind a four-second delay, with the real
//! server-everything and server-filesystem quick beside it, and the
//! gateway answering the host after half a second. The description and
//! instructions name the slow server as starting, the first search waits
//! for it (and finds its tool), and the changed description is announced:
//! to the session on the handshake revision, on the host's
//! `subscriptions/listen` stream on 2026-07-28. Driven by the official
//! Python SDK as the host.

use serde_json::{Value, json};

use crate::gateway::{command_line, found, host, search_tools_description, toolsift};
use crate::mcp_support::*;

/// The gateway over `config`, answering the host after half a second, each
/// server given `timeout` seconds to start.
fn gateway_line(config: String, timeout: &str) -> String {
    command_line(&[
        toolsift().into(),
        "gateway".into(),
        "--offline".into(),
        "--mcp".into(),
        config,
        "--mcp-timeout".into(),
        timeout.into(),
        "--start-wait".into(),
        "0.5".into(),
    ])
}

fn first_view(mode: &str) {
    let dir = TempDir::new("gw-first");
    let files = dir.path("files");
    std::fs::create_dir_all(&files).unwrap();
    let config = mcp_json(
        &dir,
        json!({
            "everything": {"command": everything_bin()},
            "filesystem": {"command": filesystem_bin(), "args": [files]},
            "time": {"command": "sh", "args": ["-c", format!("sleep 4; exec {} --local-timezone Etc/UTC", time_bin())]},
        }),
    );
    let cmd = gateway_line(config, "60");
    let mut steps = vec![
        json!({"op": "list"}),
        json!({"op": "call", "name": "search_tools", "arguments": {"query": "what time is it in Tokyo"}}),
        json!({"op": "wait_notification", "method": "notifications/tools/list_changed", "timeout": 30}),
        json!({"op": "list", "cache_mode": "refresh"}),
    ];
    let new = mode == "auto";
    if new {
        steps.insert(0, json!({"op": "listen"}));
    }
    let doc = host(&["--stdio", &cmd], mode, &Value::from(steps), 1);
    let mut r = doc["sessions"][0].as_array().unwrap().clone();
    if new {
        // The SDK's default picks the newest revision.
        assert_eq!(doc["protocol_version"], "2026-07-28", "{doc}");
        assert_eq!(
            r[0]["toolsListChanged"], true,
            "the listen is honoured: {}",
            r[0]
        );
        r.remove(0);
    }
    let instructions = doc["instructions"].as_str().unwrap_or_default();
    assert!(instructions.contains("time (starting)"), "{doc}");
    let first = search_tools_description(&r[0]);
    let starting = first
        .split("starting when this list was made: ")
        .nth(1)
        .unwrap_or_default();
    assert!(
        starting.split(" (").next().unwrap().contains("time"),
        "{first}"
    );
    // The first search waited for time and found its tool.
    let tools = found(&r[1]);
    assert!(tools.contains(&"get_current_time".to_string()), "{}", r[1]);
    let servers: Vec<&Value> = r[1]["structuredContent"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["server"])
        .collect();
    // Time's two tools first: the answer stands whole below them (the
    // gate every front end has).
    assert!(
        servers.len() >= 2 && servers[..2].iter().all(|s| *s == "time"),
        "{tools:?} from {servers:?}"
    );
    assert!(
        r[1]["structuredContent"].get("servers_starting").is_none(),
        "{}",
        r[1]
    );
    // The host heard that the list changed, and the new description names
    // time's tools, no server starting.
    assert_eq!(
        r[2]["method"], "notifications/tools/list_changed",
        "{}",
        r[2]
    );
    let now = search_tools_description(&r[3]);
    assert!(now.contains("time (2 tools"), "{now}");
    assert!(!now.contains("still starting"), "{now}");
}

#[test]
fn a_slow_server_is_named_waited_for_and_announced_handshake_revision() {
    first_view("legacy");
}

/// The SDK's default mode (`auto`: server/discover, which gives the
/// instructions, then 2026-07-28).
#[test]
fn a_slow_server_is_named_waited_for_and_announced_2026_07_28() {
    first_view("auto");
}

/// A name the model has found never changes: a second time server whose
/// first start hangs past its limit joins later with the same tool names,
/// and only its tools take the `server__` prefix.
fn names_stay(mode: &str) {
    let dir = TempDir::new("gw-names");
    let mark = dir.path("started-once");
    let config = mcp_json(
        &dir,
        json!({
            "time": {"command": time_bin(), "args": ["--local-timezone", "Etc/UTC"]},
            // The first start hangs (past --mcp-timeout), the retry is quick.
            "later": {"command": "sh", "args": ["-c", format!(
                "if [ -e {mark} ]; then exec {} --local-timezone Etc/UTC; else touch {mark}; sleep 60; fi",
                time_bin()
            )]},
        }),
    );
    let cmd = gateway_line(config, "3");
    let steps = json!([
        {"op": "call", "name": "search_tools", "arguments": {"query": "what time is it in Tokyo"}},
        {"op": "sleep", "seconds": 6},
        {"op": "call", "name": "call_read_tool", "arguments": {"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}},
        {"op": "call", "name": "search_tools", "arguments": {"query": "select:get_current_time,later__get_current_time"}},
    ]);
    let doc = host(&["--stdio", &cmd], mode, &steps, 1);
    let r = doc["sessions"][0].as_array().unwrap();
    assert!(
        found(&r[0]).contains(&"get_current_time".to_string()),
        "{}",
        r[0]
    );
    // The name found first still runs time's tool.
    assert_eq!(r[2]["isError"], false, "{}", r[2]);
    assert_eq!(
        r[2]["_meta"]["io.toolsift/tool"]["server"], "time",
        "{}",
        r[2]
    );
    let now = found(&r[3]);
    assert!(
        now.contains(&"get_current_time".to_string())
            && now.contains(&"later__get_current_time".to_string()),
        "{}",
        r[3]
    );
}

#[test]
fn a_name_found_never_changes_when_a_clashing_server_joins_handshake_revision() {
    names_stay("legacy");
}

#[test]
fn a_name_found_never_changes_when_a_clashing_server_joins_2026_07_28() {
    names_stay("auto");
}
