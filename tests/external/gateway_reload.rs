//! The servers file read again while the gateway runs: a real
//! server-everything taken out and a real mcp-server-time put in,
//! mid-session, without restarting the host. The host hears that the list
//! changed, the new server's tools are found and run, the old server's are
//! gone from search and the description, a file broken by the next edit
//! leaves the servers as they were, with a warning, and a server whose
//! entry changed starts again as written. Driven by the
//! official Python SDK as the host, on both revisions.

use serde_json::{Value, json};

use crate::gateway::{
    call, command_line, found, host_with_stderr, search, search_tools_description, toolsift,
};
use crate::mcp_support::*;

fn servers_file(servers: Value) -> String {
    serde_json::to_string_pretty(&json!({ "mcpServers": servers })).unwrap()
}

fn reload(mode: &str) {
    let dir = TempDir::new("gw-reload");
    let config = mcp_json(&dir, json!({"everything": {"command": everything_bin()}}));
    let time_only = servers_file(json!({
        "time": {"command": time_bin(), "args": ["--local-timezone", "Etc/UTC"]},
    }));
    let time_in_tokyo = servers_file(json!({
        "time": {"command": time_bin(), "args": ["--local-timezone", "Asia/Tokyo"]},
    }));
    let cmd = command_line(&[
        toolsift().into(),
        "gateway".into(),
        "--offline".into(),
        "--mcp".into(),
        config.clone(),
        "--mcp-timeout".into(),
        "60".into(),
    ]);
    let mut steps = vec![
        search("echo a message back"),
        json!({"op": "write", "path": config, "text": time_only}),
        json!({"op": "wait_notification", "method": "notifications/tools/list_changed", "timeout": 30}),
        search("what time is it in Tokyo"),
        json!({"op": "call", "name": "call_read_tool", "arguments": {"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}}),
        search("echo a message back"),
        json!({"op": "list", "cache_mode": "refresh"}),
        // The next edit breaks the file: the servers stay.
        json!({"op": "write", "path": config, "text": "{\"mcpServers\": {"}),
        json!({"op": "sleep", "seconds": 3}),
        call("get_current_time", json!({"timezone": "Europe/Paris"})),
        // A server's entry changed: it starts again as written.
        json!({"op": "write", "path": config, "text": time_in_tokyo}),
        json!({"op": "sleep", "seconds": 2}),
        call("get_current_time", json!({"timezone": "Europe/Paris"})),
    ];
    let new = mode == "auto";
    if new {
        steps.insert(0, json!({"op": "listen"}));
    }
    let (doc, stderr) = host_with_stderr(&["--stdio", &cmd], mode, &Value::from(steps), 1);
    let mut r = doc["sessions"][0].as_array().unwrap().clone();
    if new {
        assert_eq!(doc["protocol_version"], "2026-07-28", "{doc}");
        r.remove(0);
    }
    assert_eq!(
        found(&r[0]).first().map(String::as_str),
        Some("echo"),
        "{}",
        r[0]
    );
    assert_eq!(
        r[2]["method"], "notifications/tools/list_changed",
        "{}",
        r[2]
    );
    // The search waited for time, the server the file added.
    assert!(
        found(&r[3]).contains(&"get_current_time".to_string()),
        "{}\n{stderr}",
        r[3]
    );
    assert_eq!(r[4]["isError"], false, "{}", r[4]);
    assert_eq!(
        r[4]["_meta"]["io.toolsift/tool"]["server"], "time",
        "{}",
        r[4]
    );
    assert!(!found(&r[5]).contains(&"echo".to_string()), "{}", r[5]);
    let now = search_tools_description(&r[6]);
    assert!(now.contains("time (2 tools"), "{now}");
    assert!(!now.contains("everything"), "{now}");
    assert_eq!(r[9]["isError"], false, "{}", r[9]);
    // The call after the change waited for the restarted server.
    assert_eq!(r[12]["isError"], false, "{}\n{stderr}", r[12]);
    assert!(
        stderr.contains("the servers file changed: changed time"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the servers file changed: added time; removed everything"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the servers file changed but cannot be read"),
        "{stderr}"
    );
}

#[test]
fn servers_added_and_removed_in_the_file_join_and_leave_handshake_revision() {
    reload("legacy");
}

#[test]
fn servers_added_and_removed_in_the_file_join_and_leave_2026_07_28() {
    reload("auto");
}
