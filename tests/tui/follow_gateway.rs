//! The live screen following a real `toolsift gateway` over HTTP, in front
//! of real mcp-server-time and server-everything (installed by
//! scripts/setup-test-deps.sh): a host (the MCP Python SDK) searches
//! through it, and Enter on that search in the explorer explains each tool
//! from what the gateway answered, which is what the host received.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::terminal::Tty;

const REQUEST: &str = "what time is it in Tokyo";

/// A program of the test venv or npm prefix, or a failure naming the
/// setup script (these tests never skip).
fn installed(path: PathBuf) -> String {
    assert!(
        path.is_file(),
        "{} is missing. Run scripts/setup-test-deps.sh once",
        path.display()
    );
    path.display().to_string()
}

fn home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
}

fn venv_bin(name: &str) -> String {
    let nonempty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let dir = nonempty("TOOLSIFT_MCP_BIN_DIR")
        .map(PathBuf::from)
        .or_else(|| nonempty("TOOLSIFT_SDK_VENV").map(|v| PathBuf::from(v).join("bin")))
        .unwrap_or_else(|| home().join(".cache/toolsift-sdk-venv/bin"));
    installed(dir.join(name))
}

fn everything_bin() -> String {
    let prefix = std::env::var_os("TOOLSIFT_NPM_PREFIX")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(".cache/toolsift-npm"));
    installed(prefix.join("node_modules/.bin/mcp-server-everything"))
}

/// A gateway over HTTP on a free port: its child and its `/mcp` address.
struct Gateway {
    child: Child,
    url: String,
}

impl Gateway {
    fn start(config: &str) -> Gateway {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolsift"))
            .env("TOOLSIFT_MODEL", "off")
            .args(["gateway", "--offline", "--mcp-timeout", "60"])
            .args(["--http", "127.0.0.1:0", "--start-wait", "60"])
            .args(["--mcp", config, "--log-calls"])
            // One tool a search: the explorer's own search (a cap of 8)
            // loads more, so the two answers differ.
            .args(["--max-tools", "1"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if let Some(at) = line.find("listening on ") {
                    let url = line[at + "listening on ".len()..]
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_string();
                    let _ = tx.send(url);
                }
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the gateway listens");
        Gateway { child, url }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        // The gateway and the servers it started: its process group.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tools the gateway's `search_tools` gave a real host (the MCP
/// Python SDK, tests/interop/gateway_host.py) for `query`.
fn host_search(url: &str, query: &str) -> Vec<String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/interop/gateway_host.py");
    let mut child = Command::new(venv_bin("python"))
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
        "time": {"command": venv_bin("mcp-server-time"), "args": ["--local-timezone", "Etc/UTC"]},
        "everything": {"command": everything_bin()},
    }});
    std::fs::write(&config, servers.to_string()).unwrap();
    let gateway = Gateway::start(config.to_str().unwrap());
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
