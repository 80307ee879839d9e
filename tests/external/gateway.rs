//! `toolsift gateway` driven by REAL MCP hosts: the official Python SDK
//! (tests/interop/gateway_host.py, over stdio and streamable HTTP) and
//! @modelcontextprotocol/inspector-cli, in front of real mcp-server-time,
//! mcp-server-git and server-everything, and of the fake servers that
//! crash, hang, change their tools or write hostile text. A missing program
//! FAILS the test (scripts/setup-test-deps.sh installs them).

use crate::mcp_support::*;

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

pub(crate) fn toolsift() -> &'static str {
    env!("CARGO_BIN_EXE_toolsift")
}

/// `args` as one shell-quoted command line (for the host's `--stdio`).
pub(crate) fn command_line(args: &[String]) -> String {
    args.iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

fn host_script() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/interop/gateway_host.py").to_string()
}

/// Runs `steps` in the Python SDK host against `target` (`--stdio CMD` or
/// `--url URL`), `sessions` at once; the host's JSON document.
pub(crate) fn host(target: &[&str], mode: &str, steps: &Value, sessions: usize) -> Value {
    host_with_stderr(target, mode, steps, sessions).0
}

/// [`host`], and what the host and a stdio gateway wrote on stderr.
pub(crate) fn host_with_stderr(
    target: &[&str],
    mode: &str,
    steps: &Value,
    sessions: usize,
) -> (Value, String) {
    host_in_env(target, mode, steps, sessions, &[])
}

/// [`host_with_stderr`] with `vars` added to the host's environment (a
/// stdio gateway it starts inherits them).
pub(crate) fn host_in_env(
    target: &[&str],
    mode: &str,
    steps: &Value,
    sessions: usize,
    vars: &[(&str, &str)],
) -> (Value, String) {
    // The gateway a host starts ranks with BM25F unless `vars` turn the
    // built-in model on (shipped_model.rs).
    let mut child = Command::new(python())
        .env("TOOLSIFT_MODEL", "off")
        .envs(vars.iter().copied())
        .arg(host_script())
        .args(target)
        .args(["--mode", mode, "--sessions", &sessions.to_string()])
        .args(["--timeout", "120"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the test venv's python runs gateway_host.py");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(steps.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "gateway_host.py: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "gateway_host.py printed no JSON ({e}): {}\n{stderr}",
            String::from_utf8_lossy(&out.stdout),
        )
    });
    (doc, stderr)
}

/// The gateway's command line with `args`.
pub(crate) fn gateway_cmd(args: &[String]) -> String {
    let mut all = vec![
        toolsift().to_string(),
        "gateway".into(),
        "--offline".into(),
        "--mcp-timeout".into(),
        "60".into(),
        // Every server listed before the host is answered: the tests look
        // at the first tools/list.
        "--start-wait".into(),
        "60".into(),
    ];
    all.extend(args.iter().cloned());
    command_line(&all)
}

pub(crate) fn stdio(args: &[String], mode: &str, steps: &Value) -> Vec<Value> {
    let doc = host(&["--stdio", &gateway_cmd(args)], mode, steps, 1);
    doc["sessions"][0].as_array().unwrap().clone()
}

pub(crate) use crate::common::names;

pub(crate) fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {result}"))
        .to_string()
}

pub(crate) fn found(result: &Value) -> Vec<String> {
    names(&result["structuredContent"]["tools"])
}

/// The description of `search_tools` in a `tools/list` answer's tools.
pub(crate) fn search_tools_description(tools: &Value) -> String {
    tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "search_tools")
        .unwrap()["description"]
        .as_str()
        .unwrap()
        .to_string()
}

pub(crate) fn search(query: &str) -> Value {
    json!({"op": "call", "name": "search_tools", "arguments": {"query": query}})
}

pub(crate) fn call(name: &str, arguments: Value) -> Value {
    json!({"op": "call", "name": "call_tool", "arguments": {"name": name, "arguments": arguments}})
}

/// time (behind a counting proxy), git and everything; git_status always-load.
pub(crate) fn real_config(dir: &TempDir, counter: &str) -> String {
    let repo = git_repo(dir);
    dir.write(
        "mcp.toml",
        &format!(
            "[mcp]\nalways_load = [\"git/git_status\"]\n\n[mcp.servers.time]\ncommand = {py:?}\nargs = [{proxy:?}, {counter:?}, {time:?}, \"--local-timezone\", \"Etc/UTC\"]\n\n[mcp.servers.git]\ncommand = {git:?}\nargs = [\"--repository\", {repo:?}]\n\n[mcp.servers.everything]\ncommand = {every:?}\n",
            py = python(),
            proxy = mcp_fixture("counting_proxy.py"),
            time = time_bin(),
            git = git_bin(),
            every = everything_bin(),
        ),
    )
}

/// The recorded GitHub MCP catalog (shared/ beside the clone).
pub(crate) use crate::common::github_catalog;

fn calls_counted(counter: &str) -> usize {
    std::fs::read_to_string(counter)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// The whole path over stdio, in both protocol eras: the listing, a search
/// that finds the time tool with its schema, a real call, a refused call,
/// an unknown name, and the breaker.
fn the_host_sees_two_meta_tools_finds_calls_and_is_stopped_in_a_loop(mode: &str) {
    let dir = TempDir::new("gw-stdio");
    let counter = dir.path("calls.jsonl");
    let config = real_config(&dir, &counter);
    let tokyo = json!({"timezone": "Asia/Tokyo"});
    let steps = json!([
        {"op": "list"},
        search("what time is it in Tokyo"),
        call("get_current_time", tokyo.clone()),
        call("git_log", json!({"repo_path": 7})),
        call("get_curent_time", tokyo.clone()),
        call("get_current_time", tokyo.clone()),
        call("get_current_time", tokyo.clone()),
        call("get_current_time", tokyo.clone()),
        call("get_current_time", tokyo.clone()),
        {"op": "call", "name": "git_status", "arguments": {"repo_path": dir.path("repo")}},
        call("get_current_time", tokyo.clone()),
    ]);
    let trace = dir.path("trace.jsonl");
    let r = stdio(
        &["--mcp".into(), config, "--trace".into(), trace.clone()],
        mode,
        &steps,
    );
    assert_eq!(
        names(&r[0]),
        ["git_status", "search_tools", "call_read_tool", "call_tool"],
        "{}",
        r[0]
    );
    let hits = &r[1]["structuredContent"]["tools"];
    let time = hits
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get_current_time")
        .unwrap_or_else(|| panic!("get_current_time found: {}", r[1]));
    assert_eq!(time["server"], "time");
    assert_eq!(time["inputSchema"]["required"], json!(["timezone"]));
    assert!(time["why"].as_str().unwrap().contains("time"), "{time}");
    // The real server's own answer, passed through.
    assert_eq!(r[2]["isError"], false, "{}", r[2]);
    assert_eq!(
        r[2]["structuredContent"]["timezone"], "Asia/Tokyo",
        "{}",
        r[2]
    );
    // Arguments that break git_log's schema never reach it.
    assert_eq!(r[3]["isError"], true);
    assert!(text(&r[3]).contains("was not sent"), "{}", r[3]);
    assert!(
        text(&r[4]).contains("The closest names: get_current_time"),
        "{}",
        r[4]
    );
    // Three identical calls in a row run, the fourth is blocked; a
    // different call (git_status, listed, called directly) resets the
    // streak.
    for (i, call) in r.iter().enumerate().take(8).skip(5) {
        assert_eq!(call["isError"], false, "call {i}: {call}");
    }
    assert_eq!(r[8]["isError"], true, "{}", r[8]);
    assert!(text(&r[8]).contains("called 4 times in a row"), "{}", r[8]);
    assert_eq!(r[9]["isError"], false, "{}", r[9]);
    assert_eq!(r[10]["isError"], false, "{}", r[10]);
    // The server saw calls 2, 5, 6, 7 and 10: never the blocked one.
    assert_eq!(calls_counted(&counter), 5);
    // The trace holds every call (and the search before them), and
    // `toolsift replay` finds the loop where the gateway stopped it: the
    // 7th call of the trace, on the line the gateway wrote `blocked`.
    let out = crate::common::run(&["replay", &trace, "--json"]);
    let replayed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(replayed["calls"].as_array().unwrap().len(), 9, "{replayed}");
    assert_eq!(replayed["fired_at_call"], 6, "{replayed}");
    let fired_line = replayed["calls"][6]["line"].as_u64().unwrap() as usize;
    let lines = std::fs::read_to_string(&trace).unwrap();
    assert!(
        lines
            .lines()
            .next()
            .unwrap()
            .contains("\"kind\":\"search\""),
        "{lines}"
    );
    assert!(
        lines
            .lines()
            .nth(fired_line - 1)
            .unwrap()
            .contains("\"outcome\":\"blocked\""),
        "{lines}"
    );
}

#[test]
fn python_sdk_over_stdio_handshake_revision() {
    the_host_sees_two_meta_tools_finds_calls_and_is_stopped_in_a_loop("legacy");
}

#[test]
fn python_sdk_over_stdio_2026_07_28() {
    the_host_sees_two_meta_tools_finds_calls_and_is_stopped_in_a_loop("auto");
}

pub(crate) use crate::common::http_gateway::HttpGateway;

pub(crate) fn get(url: &str, key: Option<&str>) -> (u16, String) {
    toolsift::http::client::install_tls();
    let mut req = reqwest::blocking::Client::new().get(url);
    if let Some(k) = key {
        req = req.bearer_auth(k);
    }
    let r = req.send().unwrap();
    (r.status().as_u16(), r.text().unwrap())
}

/// A raw `initialize` over streamable HTTP, with `origin` as the `Origin`
/// header: the status and the session id.
fn initialize(url: &str, key: &str, origin: Option<&str>) -> (u16, Option<String>) {
    toolsift::http::client::install_tls();
    let mut req = reqwest::blocking::Client::new()
        .post(url)
        .bearer_auth(key)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"}}})
            .to_string(),
        );
    if let Some(o) = origin {
        req = req.header("origin", o);
    }
    let r = req.send().unwrap();
    let session = r
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    (r.status().as_u16(), session)
}

#[test]
fn python_sdk_over_streamable_http_with_an_api_key_and_metrics() {
    let dir = TempDir::new("gw-http");
    let counter = dir.path("calls.jsonl");
    let config = real_config(&dir, &counter);
    let gw = HttpGateway::start(
        &[
            "--mcp".into(),
            config,
            "--api-key-env".into(),
            "GW_TEST_KEY".into(),
        ],
        &[("GW_TEST_KEY", "s3cret")],
    );
    let steps = json!([
        {"op": "list"},
        search("what time is it in Tokyo"),
        call("get_current_time", json!({"timezone": "Asia/Tokyo"})),
        call("made_up_tool_7f3", json!({})),
    ]);
    for mode in ["legacy", "auto"] {
        let doc = host(
            &["--url", &gw.url, "--header", "Authorization: Bearer s3cret"],
            mode,
            &steps,
            1,
        );
        let r = doc["sessions"][0].as_array().unwrap();
        assert_eq!(
            names(&r[0]),
            ["git_status", "search_tools", "call_read_tool", "call_tool"],
            "{mode}: {}",
            r[0]
        );
        assert!(
            found(&r[1]).contains(&"get_current_time".to_string()),
            "{mode}: {}",
            r[1]
        );
        assert_eq!(
            r[2]["structuredContent"]["timezone"], "Asia/Tokyo",
            "{mode}: {}",
            r[2]
        );
    }
    // Without the key: refused, before any MCP.
    let doc = host(&["--url", &gw.url], "legacy", &json!([{"op": "list"}]), 1);
    let refused = doc["sessions"][0][0].to_string();
    assert!(refused.contains("exception"), "{refused}");
    assert_eq!(get(&format!("{}/healthz", gw.base()), None).0, 200);
    assert_eq!(get(&format!("{}/metrics", gw.base()), None).0, 401);
    let (status, metrics) = get(&format!("{}/metrics", gw.base()), Some("s3cret"));
    assert_eq!(status, 200);
    assert!(
        metrics.contains("toolsift_gateway_searches_total 2"),
        "{metrics}"
    );
    // A page of another site cannot reach the gateway (its Origin is
    // refused); a page of this machine, and clients that send no Origin,
    // can. A session closed with DELETE answers 204.
    let (status, _) = initialize(&gw.url, "s3cret", Some("http://evil.example"));
    assert_eq!(status, 403);
    let (status, _) = initialize(&gw.url, "s3cret", Some("http://localhost:6274"));
    assert_eq!(status, 200);
    let (status, session) = initialize(&gw.url, "s3cret", None);
    assert_eq!(status, 200);
    let session = session.expect("a session id");
    let closed = reqwest::blocking::Client::new()
        .delete(&gw.url)
        .bearer_auth("s3cret")
        .header("mcp-session-id", session)
        .send()
        .unwrap();
    assert_eq!(closed.status().as_u16(), 204);
    // A made-up name is counted, but as one series for all such names.
    assert!(
        metrics.contains("tool=\"(unknown)\",outcome=\"refused\"} 2"),
        "{metrics}"
    );
    assert!(!metrics.contains("made_up_tool_7f3"), "{metrics}");
    // The real servers hide no text: none cleaned, none left out.
    assert!(
        metrics.contains("toolsift_gateway_hidden_text_tools{action=\"stripped\"} 0"),
        "{metrics}"
    );
    assert!(
        metrics.contains("toolsift_gateway_calls_total{server=\"time\",tool=\"get_current_time\",outcome=\"ok\"} 2"),
        "{metrics}"
    );
    // The access log has one line per request, no arguments.
    let lines = gw.stderr();
    assert!(lines.contains("POST /mcp 200"), "{lines}");
    assert!(
        !lines.contains("Asia/Tokyo"),
        "no arguments without --log-calls: {lines}"
    );
}

#[test]
fn fifty_http_sessions_keep_their_own_breakers_and_found_tools() {
    let gw = HttpGateway::start(
        &[
            "--mcp-stdio".into(),
            format!(
                "{} {} {}",
                python(),
                mcp_fixture("stub_server.py"),
                github_catalog()
            ),
            "--expose-found".into(),
            "--breaker-threshold".into(),
            "3".into(),
        ],
        &[],
    );
    // Each session: its own search, then the same call three times (three
    // sessions sharing a breaker would block), then its listing.
    let steps = json!([
        search("list the issues of a repository"),
        call("get_me", json!({})),
        call("get_me", json!({})),
        call("get_me", json!({})),
        {"op": "list"},
        {"op": "notifications"},
    ]);
    let doc = host(&["--url", &gw.url], "legacy", &steps, 50);
    let sessions = doc["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 50);
    for (i, s) in sessions.iter().enumerate() {
        let found = found(&s[0]);
        assert!(
            found.contains(&"list_issues".to_string()),
            "session {i}: {}",
            s[0]
        );
        for c in &s.as_array().unwrap()[1..4] {
            assert_eq!(
                c["isError"], false,
                "session {i}: a breaker shared between sessions: {c}"
            );
        }
        // The session's tools/list: the meta-tools and what it found.
        let listed = names(&s[4]);
        assert_eq!(
            &listed[..3],
            ["search_tools", "call_read_tool", "call_tool"],
            "session {i}"
        );
        assert_eq!(listed[3..].to_vec(), found, "session {i}");
        // And the session was told its list changed.
        assert!(
            s[5].to_string()
                .contains("notifications/tools/list_changed"),
            "session {i}: {}",
            s[5]
        );
    }
}

/// With no ranker and no provider named, the gateway ranks with hybrid and
/// the model built in, offline, whatever the hub cache holds, and says so;
/// with the model turned off, BM25F, said.
#[test]
fn the_gateway_ranks_with_hybrid_and_the_built_in_model_unless_it_is_off() {
    let empty = tempfile::tempdir().unwrap();
    let time = time_bin();
    let dry_run = |model: &str, extra: &[&str]| {
        let mut args = vec![
            "gateway",
            "--offline",
            "--mcp-stdio",
            time.as_str(),
            "--dry-run",
            "--mcp-timeout",
            "60",
        ];
        args.extend(extra);
        let out = crate::common::bin()
            .args(&args)
            .env("HF_HOME", empty.path())
            .env("TOOLSIFT_MODEL", model)
            .env("XDG_CONFIG_HOME", empty.path())
            .env_remove("TOOLSIFT_CONFIG")
            .env_remove("TOOLSIFT_EMBEDDINGS_LOCAL")
            .env_remove("TOOLSIFT_EMBEDDINGS_URL")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let with_model = dry_run("on", &[]);
    assert!(
        with_model.contains("search_tools ranks with hybrid: toolsift-tools-minilm (built in)"),
        "{with_model}"
    );
    let off = dry_run("off", &[]);
    assert!(!off.contains("ranks with hybrid"), "{off}");
    assert!(off.contains("the search model is off"), "{off}");
    // A ranker named is kept.
    assert!(!dry_run("on", &["--ranker", "bm25"]).contains("ranks with hybrid"));
}
