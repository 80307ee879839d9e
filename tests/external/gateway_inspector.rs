//! A second real host, @modelcontextprotocol/inspector-cli, over stdio and
//! over streamable HTTP: it lists, searches and calls through the gateway;
//! over HTTP it sees the first view name a slow server as starting, the
//! first search wait for it, `call_read_tool` refuse an open-world tool,
//! and an answer with nothing say that nothing fits.

use std::process::Command;

use serde_json::{Value, json};

use crate::gateway::{HttpGateway, names, toolsift};
use crate::mcp_support::*;

/// inspector-cli's directory: it reads its package.json relative to the
/// working directory.
fn inspector() -> (String, std::path::PathBuf) {
    let prefix = std::env::var_os("TOOLSIFT_NPM_PREFIX")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/toolsift-npm")
        });
    let dir = prefix.join("node_modules/@modelcontextprotocol/inspector-cli/build");
    let index = dir.join("index.js");
    assert!(
        index.is_file(),
        "@modelcontextprotocol/inspector-cli is not installed: {} is missing. Run {SETUP} once",
        index.display()
    );
    (index.to_str().unwrap().to_string(), dir)
}

/// inspector-cli against `target` (a command line or a URL), `extra` its
/// method and arguments; what it printed, as JSON.
fn run_inspector(target: &[String], extra: &[&str]) -> Value {
    let (index, dir) = inspector();
    let out = Command::new("node")
        .current_dir(&dir)
        .arg(&index)
        .args(target)
        .args(extra)
        .output()
        .expect("node runs inspector-cli");
    assert!(out.status.success(), "inspector-cli {extra:?}: {out:?}");
    serde_json::from_slice::<Value>(&out.stdout).unwrap()
}

#[test]
fn inspector_cli_lists_and_calls_through_the_gateway() {
    let gateway = [
        toolsift().to_string(),
        "gateway".into(),
        "--offline".into(),
        "--start-wait".into(),
        "60".into(),
        "--mcp-stdio".into(),
        format!("{} --local-timezone Etc/UTC", time_bin()),
    ];
    let run = |extra: &[&str]| run_inspector(&gateway, extra);
    let listed = run(&["--method", "tools/list"]);
    assert_eq!(
        names(&listed["tools"]),
        ["search_tools", "call_read_tool", "call_tool"]
    );
    let found = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "search_tools",
        "--tool-arg",
        "query=current time in a timezone",
    ]);
    assert!(
        found["structuredContent"]["tools"]
            .to_string()
            .contains("get_current_time"),
        "{found}"
    );
    let called = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "call_tool",
        "--tool-arg",
        "name=get_current_time",
        "arguments={\"timezone\":\"Asia/Tokyo\"}",
    ]);
    assert_eq!(called["isError"], false, "{called}");
    assert!(
        called["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Asia/Tokyo"),
        "{called}"
    );
}

#[test]
fn inspector_cli_over_http_sees_a_slow_server_waited_for_reads_kept_closed_and_nothing_fits() {
    let dir = TempDir::new("gw-inspector");
    let config = mcp_json(
        &dir,
        json!({
            "everything": {"command": everything_bin()},
            "fetch": {"command": fetch_bin()},
            "time": {"command": "sh", "args": ["-c", format!("sleep 4; exec {} --local-timezone Etc/UTC", time_bin())]},
        }),
    );
    let gateway = HttpGateway::start(
        &["--mcp".into(), config, "--start-wait".into(), "0.5".into()],
        &[],
    );
    let target = [gateway.url.clone(), "--transport".into(), "http".into()];
    let run = |extra: &[&str]| run_inspector(&target, extra);
    let listed = run(&["--method", "tools/list"]);
    let description = crate::gateway::search_tools_description(&listed["tools"]);
    let starting = description
        .split("starting when this list was made: ")
        .nth(1)
        .unwrap_or_default();
    assert!(starting.contains("time"), "{description}");
    // The first search waits for time, and finds its tools first.
    let found = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "search_tools",
        "--tool-arg",
        "query=what time is it in Tokyo",
    ]);
    let tools = &found["structuredContent"]["tools"];
    assert!(tools.to_string().contains("get_current_time"), "{found}");
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .take(2)
            .all(|t| t["server"] == "time"),
        "{found}"
    );
    // fetch is read-only but open-world: not through call_read_tool.
    let fetched = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "call_read_tool",
        "--tool-arg",
        "name=fetch",
        "arguments={\"url\":\"http://127.0.0.1:9/\"}",
    ]);
    assert_eq!(fetched["isError"], true, "{fetched}");
    assert!(
        fetched["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("open"),
        "{fetched}"
    );
    let nothing = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "search_tools",
        "--tool-arg",
        "query=book a flight next Friday",
    ]);
    assert_eq!(
        nothing["structuredContent"]["tools"],
        json!([]),
        "{nothing}"
    );
    assert_eq!(
        nothing["structuredContent"]["nothing_fits"], true,
        "{nothing}"
    );
}
