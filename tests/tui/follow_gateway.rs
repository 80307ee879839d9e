//! The live screen following a real `toolsift gateway` over HTTP, in front
//! of real mcp-server-time and server-everything (installed by
//! scripts/setup-test-deps.sh): a host (the MCP Python SDK) searches
//! through it, and Enter on that search in the explorer explains each tool
//! from what the gateway answered, which is what the host received.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::http_gateway::HttpGateway;
use crate::common::installed::{everything_bin, python, time_bin};
use crate::tty::Tty;

const REQUEST: &str = "what time is it in Tokyo";

/// A gateway over HTTP on a free port in front of the servers of `config`,
/// calls logged; one tool a search: the explorer's own search (a cap of 8)
/// loads more, so the two answers differ.
fn start_gateway(config: &str) -> HttpGateway {
    let args = ["--mcp", config, "--log-calls", "--max-tools", "1"];
    HttpGateway::start(&args.map(String::from), &[])
}

/// The tools the gateway's `search_tools` gave a real host (the MCP
/// Python SDK, tests/interop/gateway_host.py) for `query`.
fn host_search(url: &str, query: &str) -> Vec<String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/interop/gateway_host.py");
    let mut child = Command::new(python())
        .env("TOOLSIFT_MODEL", "off")
        .arg(script)
        .args(["--url", url, "--mode", "auto", "--sessions", "1"])
        .args(["--timeout", "120"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the test venv's python runs gateway_host.py");
    let steps = serde_json::json!([
        {"op": "call", "name": "search_tools", "arguments": {"query": query}}
    ]);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(steps.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "gateway_host.py: {out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = &doc["sessions"][0][0];
    result["structuredContent"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("a search's tools: {doc}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// The detail's line that starts with `label`, read across the lines it
/// wraps to (up to the next blank or labelled line), spaces collapsed.
fn detail_line(screen: &str, label: &str) -> String {
    let rows: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let label_chars: Vec<char> = label.chars().collect();
    let (at, col) = rows
        .iter()
        .enumerate()
        .find_map(|(i, r)| {
            r.windows(label_chars.len())
                .position(|w| w == label_chars.as_slice())
                .map(|c| (i, c))
        })
        .unwrap_or_else(|| panic!("no {label:?}:\n{screen}"));
    let mut text = String::new();
    for (n, row) in rows[at..(at + 4).min(rows.len())].iter().enumerate() {
        let part: String = row
            .iter()
            .skip(col)
            .take_while(|c| !matches!(c, '│' | '┃'))
            .collect();
        let part = part.trim();
        if n > 0 && (part.is_empty() || part.contains(": ") && !part.starts_with("the ")) {
            break;
        }
        text.push(' ');
        text.push_str(part);
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn enter_on_a_followed_search_explains_it_from_what_the_host_received() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("servers.json");
    let servers = serde_json::json!({"mcpServers": {
        "time": {"command": time_bin(), "args": ["--local-timezone", "Etc/UTC"]},
        "everything": {"command": everything_bin()},
    }});
    std::fs::write(&config, servers.to_string()).unwrap();
    let gateway = start_gateway(config.to_str().unwrap());
    let mut tty = Tty::spawn_sized(&["explore", "--follow", &gateway.url], &[], 200, 60);
    tty.wait_for("following");
    // The explorer judges by the gateway's own catalog.
    tty.wait_for("judged by mcp: everything, time");
    let received = host_search(&gateway.url, REQUEST);
    assert_eq!(received.len(), 1, "the gateway's cap: {received:?}");
    tty.wait_for(&format!("search “{REQUEST}”"));
    tty.send(b"\r");
    tty.wait_for("toolsift here");
    tty.wait_for("standing at the gateway: ");
    // Each tool the detail shows, stepping down the results: its standing
    // is the host's answer, the explorer's own labelled beside it.
    tty.send(b"2");
    let mut seen = Vec::new();
    let mut differs = false;
    for _ in 0..2 {
        let screen = tty.contents();
        let name = screen
            .lines()
            .find_map(|l| {
                let at = l.find(" [3] ")?;
                let rest = &l[at + " [3] ".len()..];
                Some(rest.split_whitespace().next()?.to_string())
            })
            .unwrap_or_else(|| panic!("no detail pane:\n{screen}"));
        let standing = detail_line(&screen, "standing at the gateway: ");
        let expected = match received.iter().position(|n| *n == name) {
            Some(at) => format!(
                "returned: the gateway gave it {} of {}",
                ordinal(at + 1),
                received.len()
            ),
            None => format!("not returned: the gateway answered {}", received.join(", ")),
        };
        assert!(
            standing.contains(&expected),
            "{name}: {standing:?} is not {expected:?}:\n{screen}"
        );
        let here = detail_line(&screen, "toolsift here, for comparison: ");
        if !received.contains(&name) {
            // Not what the gateway gave, though the explorer loads it.
            assert!(here.contains("loaded: ranked"), "{name}: {here:?}");
            differs = true;
        }
        seen.push(name);
        tty.send(b"j");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(differs, "the answers differ on a tool: {seen:?}");
    assert!(
        received.iter().any(|n| seen.contains(n)),
        "a tool the gateway returned was explained: {seen:?} against {received:?}"
    );
    tty.send(b"\x03");
    assert!(tty.wait_exit().success());
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
