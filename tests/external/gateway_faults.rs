//! `toolsift gateway` when upstream goes wrong: a server that exits during
//! a call, one that never answers, one whose tools change; no server
//! process outlives the gateway.

use crate::gateway::{call, found, host_with_stderr, names, search, stdio, text, toolsift};
use crate::mcp_support::*;

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// `--mcp-stdio` for the fake server in `mode` (with `marker` on its
/// command line).
pub(crate) fn fake_stdio(mode: &str, marker: &str, extra: &[&str]) -> Vec<String> {
    let mut line = format!("{} {} {mode}", python(), mcp_fixture("fake_server.py"));
    for e in extra {
        line.push(' ');
        line.push_str(e);
    }
    line.push_str(&format!(" --marker {marker}"));
    vec!["--mcp-stdio".into(), line]
}

pub(crate) fn time_stdio() -> Vec<String> {
    vec![
        "--mcp-stdio".into(),
        format!("{} --local-timezone Etc/UTC", time_bin()),
    ]
}

#[test]
fn a_server_that_exits_or_hangs_is_an_error_naming_it_and_the_others_keep_working() {
    let m = marker("gw-faults");
    let mut args = fake_stdio("exit-on-call", &m, &["--pages", "1", "--per-page", "2"]);
    args.extend(time_stdio());
    args.extend(["--call-timeout".into(), "3".into()]);
    let tokyo = json!({"timezone": "Asia/Tokyo"});
    let steps = json!([
        call("paged_tool_00", json!({"n": 1})),
        call("get_current_time", tokyo),
        // Started again on its next call, which it answers the same way.
        call("paged_tool_01", json!({"n": 2})),
    ]);
    let r = stdio(&args, "legacy", &steps);
    assert_eq!(r[0]["isError"], true, "{}", r[0]);
    let first = text(&r[0]);
    assert!(
        first.contains("fake_server") || first.contains("python"),
        "names the server: {first}"
    );
    assert!(first.contains("exited"), "{first}");
    assert_eq!(r[1]["isError"], false, "{}", r[1]);
    assert_eq!(r[2]["isError"], true, "{}", r[2]);
    assert_gone(&m, Duration::from_secs(10));

    let m = marker("gw-hang");
    let mut args = fake_stdio("hang-call", &m, &["--pages", "1", "--per-page", "2"]);
    args.extend(time_stdio());
    args.extend(["--call-timeout".into(), "2".into()]);
    let steps = json!([
        call("paged_tool_00", json!({"n": 1})),
        call("get_current_time", json!({"timezone": "Europe/Oslo"})),
    ]);
    let r = stdio(&args, "legacy", &steps);
    assert_eq!(r[0]["isError"], true);
    assert!(
        text(&r[0]).contains("did not answer within 2 s"),
        "{}",
        r[0]
    );
    assert_eq!(
        r[1]["structuredContent"]["timezone"], "Europe/Oslo",
        "{}",
        r[1]
    );
    assert_gone(&m, Duration::from_secs(10));
}

/// A server whose calls hang starts again: it answers a ping, so the first
/// call out of time leaves it running (other calls may be on it); the
/// second in a row, none answered between, restarts it for the next one
/// (many servers answer one request at a time, so a hung one would hang
/// every later call).
#[test]
fn a_server_whose_call_hung_is_started_again_for_the_next_call() {
    let m = marker("gw-hang-once");
    let dir = TempDir::new("gw-hang-once");
    let once = dir.path("hung-once");
    let mut args = fake_stdio(
        "hang-once",
        &m,
        &["--pages", "1", "--per-page", "2", "--once", &once],
    );
    args.extend(["--call-timeout".into(), "2".into()]);
    let steps = json!([
        call("paged_tool_00", json!({"n": 1})),
        call("paged_tool_01", json!({"n": 2})),
        call("paged_tool_00", json!({"n": 3})),
        call("paged_tool_01", json!({"n": 4})),
        call("paged_tool_00", json!({"n": 5})),
    ]);
    let r = stdio(&args, "legacy", &steps);
    // It answers a ping, so one call out of time leaves it running; the
    // second in a row, with none answered between, starts it again.
    for i in [0, 1] {
        assert_eq!(r[i]["isError"], true, "{}", r[i]);
        assert!(
            text(&r[i]).contains("did not answer within 2 s"),
            "{}",
            r[i]
        );
    }
    for (i, n) in [(2, 3), (3, 4), (4, 5)] {
        assert_eq!(r[i]["isError"], false, "call {i}: {}", r[i]);
        assert!(
            text(&r[i]).contains(&format!("\"n\": {n}")),
            "call {i}: {}",
            r[i]
        );
    }
    assert_gone(&m, Duration::from_secs(10));
}

/// A tool a client cannot take (`"readOnlyHint": "true"`, an empty name)
/// is skipped and named; its server's other tools serve.
#[test]
fn a_tool_that_does_not_read_is_skipped_and_its_server_serves_the_rest() {
    let m = marker("gw-bad-tool");
    let mut cmd = vec![toolsift().to_string(), "gateway".into(), "--offline".into()];
    cmd.extend(fake_stdio(
        "paged",
        &m,
        &["--pages", "1", "--per-page", "4", "--bad"],
    ));
    let steps = json!([
        call("paged_tool_00", json!({"n": 1})),
        call("paged_tool_01", json!({"n": 2})),
        call("paged_tool_02", json!({"n": 3})),
        call("paged_tool_03", json!({"n": 4})),
    ]);
    let (doc, stderr) = host_with_stderr(
        &["--stdio", &crate::gateway::command_line(&cmd)],
        "legacy",
        &steps,
        1,
    );
    assert_gone(&m, Duration::from_secs(10));
    let r = doc["sessions"][0].as_array().unwrap();
    for i in [0, 3] {
        assert_eq!(r[i]["isError"], false, "{}: {stderr}", r[i]);
    }
    for i in [1, 2] {
        assert!(text(&r[i]).contains("no tool is named"), "{}", r[i]);
    }
    assert!(
        stderr.contains(
            "tool \"paged_tool_01\" skipped: its definition does not read as an MCP tool"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("tool \"\" skipped: ") && stderr.contains("tool name is empty"),
        "{stderr}"
    );
}

#[test]
fn a_server_whose_tools_change_is_listed_again_and_its_new_tool_found() {
    let m = marker("gw-change");
    let args = fake_stdio("changing", &m, &["--pages", "1", "--per-page", "3"]);
    let steps = json!([
        search("weather forecast for a city"),
        call("add_tool", json!({})),
        {"op": "sleep", "seconds": 1.5},
        search("weather forecast for a city"),
        call("weather_forecast", json!({"city": "Oslo"})),
        call("weather_forecast", json!({})),
        {"op": "list", "cache_mode": "bypass"},
    ]);
    let r = stdio(&args, "legacy", &steps);
    // search_tools says what the servers cover, and follows a tool that
    // joined (the host was told the list changed).
    let described = crate::gateway::search_tools_description(&r[6]);
    assert!(
        described.starts_with("Find the tools for a task among the 5 tools this gateway reaches (only a few are listed): fake_server.py (5 tools: "),
        "{described}"
    );
    assert!(
        !found(&r[0]).contains(&"weather_forecast".to_string()),
        "{}",
        r[0]
    );
    assert_eq!(r[1]["isError"], false, "{}", r[1]);
    assert_eq!(
        found(&r[3]).first().map(String::as_str),
        Some("weather_forecast"),
        "{}",
        r[3]
    );
    assert_eq!(r[4]["isError"], false, "{}", r[4]);
    // The new tool's schema is checked too.
    assert!(
        text(&r[5]).contains("\"city\" is a required property"),
        "{}",
        r[5]
    );
    assert_gone(&m, Duration::from_secs(10));
}

#[test]
fn no_server_outlives_the_gateway_when_the_host_goes_or_a_signal_comes() {
    for how in ["stdin closed", "SIGTERM", "SIGINT"] {
        let m = marker("gw-exit");
        let mut args = vec!["gateway".to_string(), "--offline".to_string()];
        args.extend(fake_stdio(
            "paged",
            &m,
            &[
                "--grandchild",
                "--escaped-grandchild",
                "--daemon-grandchild",
            ],
        ));
        let mut child = Command::new(toolsift())
            .env("TOOLSIFT_MODEL", "off")
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The server and its grandchildren: one in its group, one that
        // left it (setsid), one whose parent exited (a daemon).
        wait_for_procs(&m, 4, Duration::from_secs(60));
        match how {
            "stdin closed" => drop(child.stdin.take()),
            // SAFETY: kill only sends a signal to the child this test started.
            "SIGTERM" => unsafe {
                libc::kill(child.id() as i32, libc::SIGTERM);
            },
            // SAFETY: as above.
            _ => unsafe {
                libc::kill(child.id() as i32, libc::SIGINT);
            },
        }
        wait_exit(&mut child, Duration::from_secs(20));
        assert_gone(&m, Duration::from_secs(10));
    }
}

#[test]
fn no_server_or_daemon_outlives_a_gateway_killed_outright() {
    let m = marker("gw-sigkill");
    let mut args = vec!["gateway".to_string(), "--offline".to_string()];
    args.extend(fake_stdio(
        "paged",
        &m,
        &["--escaped-grandchild", "--daemon-grandchild"],
    ));
    let mut child = Command::new(toolsift())
        .env("TOOLSIFT_MODEL", "off")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The server, one process that left its group (setsid) and a daemon
    // whose parent exited; the warden looks every 100 ms.
    wait_for_procs(&m, 3, Duration::from_secs(60));
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill only sends a signal to the child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGKILL);
    }
    wait_exit(&mut child, Duration::from_secs(20));
    assert_gone(&m, Duration::from_secs(10));
}

#[test]
fn a_message_the_gateway_cannot_read_fails_its_server_at_once_saying_why() {
    for (mode, why) in [
        ("deep-list", "JSON nested 128 levels deep or deeper"),
        (
            "long-list",
            "a message of 20.0 MB, more than the 16.8 MB one may be",
        ),
    ] {
        let m = marker("gw-unreadable");
        let mut args = vec!["gateway", "--offline", "--mcp-timeout", "60"]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
        args.extend(fake_stdio(mode, &m, &[]));
        args.extend(time_stdio());
        args.push("--dry-run".into());
        let out = Command::new(toolsift())
            .env("TOOLSIFT_MODEL", "off")
            .args(&args)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            said.contains(&format!("its answer could not be read: {why}")),
            "{mode}: {said}"
        );
        assert!(!said.contains("did not answer"), "{mode}: {said}");
        assert_gone(&m, Duration::from_secs(10));
    }
}

#[test]
fn dry_run_and_check_print_the_tools_list_saving() {
    let dir = TempDir::new("gw-dry");
    let repo = git_repo(&dir);
    let mut servers = real_servers(&repo);
    servers["broken"] =
        json!({"command": python(), "args": [mcp_fixture("fake_server.py"), "boom"]});
    let config = mcp_json(&dir, servers);
    let out = crate::common::run(&[
        "gateway",
        "--offline",
        "--mcp",
        &config,
        "--mcp-timeout",
        "60",
        "--dry-run",
        "--json",
    ]);
    assert!(out.status.success(), "{out:?}");
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["gateway_tools"], 3);
    // Each server's state; the one that failed says why.
    let broken = s["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "broken")
        .unwrap_or_else(|| panic!("{s}"))
        .clone();
    assert_eq!(broken["state"], "failed", "{s}");
    assert!(broken["error"].as_str().unwrap().contains("boom"), "{s}");
    assert_eq!(s["servers"].as_array().unwrap().len(), 4, "{s}");
    assert!(s["direct_tools"].as_u64().unwrap() > 20, "{s}");
    assert!(
        s["direct_tokens"].as_u64().unwrap() > 5 * s["gateway_tokens"].as_u64().unwrap(),
        "{s}"
    );
    let out = crate::common::run(&[
        "check",
        "--mcp",
        &config,
        "--mcp-timeout",
        "60",
        "--gateway",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("tools/list through gateway:    3 tools"),
        "{text}"
    );
    // The report's two counts of the catalog each say what they count.
    assert!(
        text.contains("counted on the tools/list JSON a host receives; the tokens above (")
            && text.contains("count the same tools as the model's provider definitions"),
        "{text}"
    );
}

#[test]
fn a_server_killed_between_calls_is_started_again_before_the_next_call() {
    let m = marker("gw-killed");
    let mut cmd = vec![
        toolsift().to_string(),
        "gateway".into(),
        "--offline".into(),
        "--start-wait".into(),
        "60".into(),
    ];
    cmd.extend(fake_stdio("paged", &m, &[]));
    let steps = json!([
        call("paged_tool_00", json!({"n": 1})),
        {"op": "sleep", "seconds": 6},
        call("paged_tool_00", json!({"n": 2})),
    ]);
    let line = crate::gateway::command_line(&cmd);
    let host =
        std::thread::spawn(move || host_with_stderr(&["--stdio", &line], "legacy", &steps, 1));
    // The server is up and has answered the first call: kill it, as an
    // out-of-memory killer or a crash would, while the host waits. (The
    // host's and the gateway's command lines hold the marker too: the
    // server is the process whose own program is fake_server.py.)
    let server = |m: &str| -> Vec<u32> {
        procs_with(m)
            .into_iter()
            .filter(|p| {
                std::fs::read(format!("/proc/{p}/cmdline"))
                    .unwrap_or_default()
                    .split(|&b| b == 0)
                    .any(|arg| arg.ends_with(b"fake_server.py"))
            })
            .collect()
    };
    let start = std::time::Instant::now();
    while server(&m).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the server never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(3));
    let killed = server(&m);
    assert_eq!(killed.len(), 1, "{killed:?}");
    // SAFETY: kill only sends a signal to the server process found above.
    unsafe {
        libc::kill(killed[0] as i32, libc::SIGKILL);
    }
    let (doc, stderr) = host.join().unwrap();
    let r = doc["sessions"][0].as_array().unwrap();
    assert_eq!(r[0]["isError"], false, "{}", r[0]);
    // The next call finds the server gone, starts it again and is answered.
    assert_eq!(r[2]["isError"], false, "{}\n{stderr}", r[2]);
    assert!(
        text(&r[2]).contains("\"n\": 2") || text(&r[2]).contains("\"n\":2"),
        "{}",
        r[2]
    );
    assert_gone(&m, Duration::from_secs(10));
}

#[test]
fn a_server_that_never_answers_holds_nothing_up() {
    let m = marker("gw-hang-start");
    // The first search waits for a server's first start, up to its start
    // limit: a short one here.
    let mut args = vec!["--mcp-timeout".to_string(), "6".to_string()];
    args.extend(time_stdio());
    args.extend(fake_stdio("hang", &m, &[]));
    let cmd = {
        let mut all = vec![toolsift().to_string(), "gateway".into(), "--offline".into()];
        all.extend(args.iter().cloned());
        crate::gateway::command_line(&all)
    };
    let steps = json!([
        {"op": "list"},
        {"op": "sleep", "seconds": 4},
        search("what time is it in Tokyo"),
        call("get_current_time", json!({"timezone": "Asia/Tokyo"})),
    ]);
    let started = std::time::Instant::now();
    let (doc, stderr) = host_with_stderr(&["--stdio", &cmd], "legacy", &steps, 1);
    // Before, the host waited for the hanging server's start limit to be
    // answered at all; now tools/list is answered at once and only the
    // first search waits, up to that limit (6 s).
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "{:?}: {stderr}",
        started.elapsed()
    );
    let r = doc["sessions"][0].as_array().unwrap();
    assert!(
        names(&r[0]).contains(&"search_tools".to_string()),
        "{}",
        r[0]
    );
    // The time server came up meanwhile and its tools joined; the hanging
    // one, past its limit, is named as missing (down, or being tried
    // again).
    assert!(
        found(&r[2]).contains(&"get_current_time".to_string()),
        "{}",
        r[2]
    );
    let missing = &r[2]["structuredContent"];
    assert!(
        missing["servers_starting"] == json!(["fake_server.py"])
            || missing["servers_down"] == json!(["fake_server.py"]),
        "{}",
        r[2]
    );
    assert!(
        text(&r[2]).contains("Still starting") || text(&r[2]).contains("Servers down"),
        "{}",
        r[2]
    );
    assert_eq!(r[3]["isError"], false, "{}", r[3]);
    assert!(stderr.contains("fake_server.py: starting"), "{stderr}");
    assert_gone(&m, Duration::from_secs(10));
}

#[test]
fn healthz_gives_each_servers_state() {
    let m = marker("gw-healthz");
    let mut args = vec!["--start-wait".to_string(), "1".to_string()];
    args.extend(time_stdio());
    args.extend(fake_stdio("hang", &m, &[]));
    let gw = crate::gateway::HttpGateway::start(&args, &[]);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let health = loop {
        let (status, body) = crate::gateway::get(&format!("{}/healthz", gw.base()), None);
        assert_eq!(status, 200, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        let up = v["servers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["state"] == "loaded");
        if up || std::time::Instant::now() > deadline {
            break v;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let servers = health["servers"].as_array().unwrap();
    let state = |name: &str| {
        servers
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {health}"))["state"]
            .clone()
    };
    assert_eq!(state("fake_server.py"), "starting", "{health}");
    assert_eq!(state("mcp-server-time"), "loaded", "{health}");
    drop(gw);
    assert_gone(&m, Duration::from_secs(10));
}

#[test]
fn a_port_in_use_is_said_at_once_not_after_the_servers_start() {
    // The port is taken by someone else; the server would take 60 s to
    // start.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let m = marker("gw-port");
    let mut args = vec!["gateway".to_string(), "--offline".to_string()];
    args.extend(fake_stdio("slow", &m, &[]));
    args.extend([
        "--http".into(),
        format!("127.0.0.1:{port}"),
        "--start-wait".into(),
        "60".into(),
    ]);
    let started = std::time::Instant::now();
    let out = Command::new(toolsift())
        .env("TOOLSIFT_MODEL", "off")
        .args(&args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert_gone(&m, Duration::from_secs(10));
}
