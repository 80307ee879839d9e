//! An HTTP gateway serving several API keys: what a shared server asks
//! during a call (elicitation, sampling, log messages) reaches the host of
//! that call alone, and its answer that call alone, on both revisions, for
//! two keys at once and for many sessions of one key; one key's burst
//! leaves another key's calls as quick as on an idle server. The hosts are
//! the official MCP Python SDK (tests/interop/gateway_host.py); the server
//! runs its calls at the same time (tests/fixtures/mcp/tenant_server.py).

use crate::gateway::{HttpGateway, host, text};
use crate::mcp_support::*;

use serde_json::{Value, json};

fn server(extra: &str) -> Vec<String> {
    vec![
        "--mcp-stdio".into(),
        format!("{} {} {extra}", python(), mcp_fixture("tenant_server.py")),
        "--always-load".into(),
        "*".into(),
    ]
}

/// A gateway over the tenant server with `keys` keys (`key0`, `key1`, ...).
fn gateway(keys: usize, extra: &str, more: &[&str]) -> HttpGateway {
    let mut args = server(extra);
    let names: Vec<String> = (0..keys).map(|k| format!("TENANT_KEY_{k}")).collect();
    let values: Vec<String> = (0..keys).map(|k| format!("key{k}")).collect();
    for name in &names {
        args.extend(["--api-key-env".into(), name.clone()]);
    }
    args.extend(more.iter().map(|s| s.to_string()));
    let env: Vec<(&str, &str)> = names
        .iter()
        .zip(&values)
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    HttpGateway::start(&args, &env)
}

fn ask(tag: &str) -> Value {
    json!({"op": "call", "name": "ask", "arguments": {"tag": tag}})
}

/// Runs `steps` in `sessions` hosts at once, session N with the key
/// `header`'s "{session}" makes; each answers elicitations with
/// `{"who": "host{session}"}` and sampling with "model{session}".
fn hosts(gw: &HttpGateway, mode: &str, header: &str, sessions: usize, steps: &Value) -> Vec<Value> {
    let doc = host(
        &[
            "--url",
            &gw.url,
            "--header",
            header,
            "--elicit",
            "accept",
            "--elicit-content",
            r#"{"who": "host{session}"}"#,
            "--sample",
            "model{session}",
        ],
        mode,
        steps,
        sessions,
    );
    doc["sessions"].as_array().unwrap().clone()
}

/// Checks that every `ask` result of session `s` carries its own tag and
/// its own host's answers, and that its host was asked its own questions
/// alone (and, `logs`, heard its own log lines alone).
fn each_call_got_its_own_hosts_answers(results: &[Value], s: usize, rounds: usize, logs: bool) {
    for (n, r) in results[..rounds].iter().enumerate() {
        let said: Value = serde_json::from_str(&text(r)).unwrap_or_else(|_| panic!("{r}"));
        let tag = format!("s{s}-r{n}");
        assert_eq!(said["tag"], tag, "{r}");
        assert_eq!(
            said["elicited"],
            json!({"who": format!("host{s}")}),
            "session {s} round {n}: {r}"
        );
        assert_eq!(
            said["sampled"],
            format!("model{s}"),
            "session {s} round {n}: {r}"
        );
    }
    let questions = results[rounds + 1].as_array().unwrap();
    assert_eq!(questions.len(), rounds, "session {s}: {questions:?}");
    assert!(
        questions.iter().all(|q| q
            .as_str()
            .is_some_and(|q| q.starts_with(&format!("question s{s}-")))),
        "session {s} was asked another's question: {questions:?}"
    );
    let prompts = results[rounds + 2].as_array().unwrap();
    assert_eq!(prompts.len(), rounds, "session {s}: {prompts:?}");
    assert!(
        prompts.iter().all(|p| p
            .as_str()
            .is_some_and(|p| p.starts_with(&format!("prompt s{s}-")))),
        "session {s} sampled another's prompt: {prompts:?}"
    );
    let lines = results[rounds].as_array().unwrap();
    assert!(
        lines.iter().all(|l| l["data"]
            .as_str()
            .is_some_and(|d| d.starts_with(&format!("log s{s}-")))),
        "session {s} heard another's log: {lines:?}"
    );
    if logs {
        assert_eq!(lines.len(), rounds, "session {s}: {lines:?}");
    }
}

fn steps(rounds: usize) -> Value {
    let mut steps: Vec<Value> = (0..rounds)
        .map(|n| ask(&format!("s{{session}}-r{n}")))
        .collect();
    steps.extend([
        json!({"op": "logs"}),
        json!({"op": "elicitations"}),
        json!({"op": "samplings"}),
    ]);
    Value::Array(steps)
}

#[test]
fn two_keys_calling_at_once_never_see_each_others_questions_samples_or_logs() {
    let rounds = 100;
    let gw = gateway(2, "", &[]);
    for mode in ["legacy", "2026-07-28"] {
        let sessions = hosts(
            &gw,
            mode,
            "Authorization: Bearer key{session}",
            2,
            &steps(rounds),
        );
        for (s, results) in sessions.iter().enumerate() {
            let results = results.as_array().unwrap();
            // Log messages are the handshake revisions' (deprecated on
            // 2026-07-28): none may cross there either.
            each_call_got_its_own_hosts_answers(results, s, rounds, mode == "legacy");
        }
    }
}

#[test]
fn sixteen_sessions_of_one_key_each_get_their_own_answers() {
    let rounds = 8;
    let gw = gateway(1, "", &[]);
    for mode in ["legacy", "2026-07-28"] {
        let sessions = hosts(&gw, mode, "Authorization: Bearer key0", 16, &steps(rounds));
        for (s, results) in sessions.iter().enumerate() {
            each_call_got_its_own_hosts_answers(
                results.as_array().unwrap(),
                s,
                rounds,
                mode == "legacy",
            );
        }
    }
}

#[test]
fn a_server_that_cannot_say_which_call_asks_never_asks_the_wrong_host() {
    // No logging declared: its first calls run side by side, until it
    // asks; what it asks then cannot be told apart and reaches no host,
    // and from then on its calls that may be asked run alone.
    let rounds = 6;
    let gw = gateway(2, "--no-logging", &[]);
    let sessions = hosts(
        &gw,
        "legacy",
        "Authorization: Bearer key{session}",
        2,
        &steps(rounds),
    );
    for (s, results) in sessions.iter().enumerate() {
        let results = results.as_array().unwrap();
        for (n, r) in results[..rounds].iter().enumerate() {
            let said: Value = serde_json::from_str(&text(r)).unwrap_or_else(|_| panic!("{r}"));
            let elicited = said["elicited"].to_string();
            // Its own host's answer, or a refusal that says why: never
            // the other host's.
            assert!(
                said["elicited"] == json!({"who": format!("host{s}")})
                    || elicited.contains("cannot tell which"),
                "session {s} round {n}: {r}"
            );
            let sampled = said["sampled"].as_str().unwrap_or_default();
            assert!(
                sampled == format!("model{s}") || sampled.contains("cannot tell which"),
                "session {s} round {n}: {r}"
            );
        }
        let questions = results[rounds + 1].as_array().unwrap();
        assert!(
            questions.iter().all(|q| q
                .as_str()
                .is_some_and(|q| q.starts_with(&format!("question s{s}-")))),
            "session {s} was asked another's question: {questions:?}"
        );
        // The last rounds, after the first ask, all got their answers.
        let last: Value = serde_json::from_str(&text(&results[rounds - 1])).unwrap();
        assert_eq!(
            last["elicited"],
            json!({"who": format!("host{s}")}),
            "{last}"
        );
    }
}

/// Seconds the slowest of `n` `quick` calls of key1 takes (the first one
/// waits for a place, if any does).
fn quick_calls(gw: &HttpGateway, n: usize) -> f64 {
    let steps: Vec<Value> = (0..n)
        // Other arguments each time: the breaker stops a call repeated.
        .map(|i| json!({"op": "call", "name": "quick", "arguments": {"n": i}, "timed": true}))
        .collect();
    let doc = host(
        &["--url", &gw.url, "--header", "Authorization: Bearer key1"],
        "legacy",
        &Value::Array(steps),
        1,
    );
    let results = doc["sessions"][0].as_array().unwrap();
    assert!(results.iter().all(|r| text(r) == "quick"), "{results:?}");
    let mut seconds: Vec<f64> = results
        .iter()
        .map(|r| r["seconds"].as_f64().unwrap())
        .collect();
    seconds.sort_by(f64::total_cmp);
    seconds[n - 1]
}

#[test]
fn one_keys_burst_leaves_another_keys_calls_as_quick_as_idle() {
    let dir = TempDir::new("gw-burst");
    let running = dir.path("running");
    let gw = gateway(2, &format!("--no-logging --running-file {running}"), &[]);
    let idle = quick_calls(&gw, 7);
    // Key 0 fills the server with 16 calls that hold it 10 s each (long
    // enough for the other host to start and call meanwhile).
    let burst_url = gw.url.clone();
    let burst = std::thread::spawn(move || {
        let hold = json!([{"op": "call", "name": "hold", "arguments": {"seconds": 10}}]);
        host(
            &[
                "--url",
                &burst_url,
                "--header",
                "Authorization: Bearer key0",
            ],
            "legacy",
            &hold,
            16,
        )
    });
    // As many of its calls run as the gateway lets one key run.
    let at_once = || {
        std::fs::read_to_string(&running)
            .ok()
            .and_then(|n| n.trim().parse::<usize>().ok())
            .unwrap_or(0)
    };
    // Its calls have started once their count stops growing for a second.
    let waited = std::time::Instant::now();
    let (mut seen, mut since) = (0, std::time::Instant::now());
    while waited.elapsed() < std::time::Duration::from_secs(30) {
        let now = at_once();
        if now != seen {
            (seen, since) = (now, std::time::Instant::now());
        } else if seen >= 8 && since.elapsed() > std::time::Duration::from_secs(1) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(seen >= 8, "the burst never ran: {seen}");
    let busy = quick_calls(&gw, 7);
    let doc = burst.join().unwrap();
    // The burst's own calls ran or waited their turn; none broke the server.
    for s in doc["sessions"].as_array().unwrap() {
        assert_eq!(text(&s[0]), "held 10.0", "{}", s[0]);
    }
    // A few tens of milliseconds either way are noise on a shared machine.
    assert!(
        busy < idle * 2.0 + 0.05,
        "idle {:.1} ms, during the burst {:.1} ms",
        idle * 1e3,
        busy * 1e3
    );
}

#[test]
fn a_call_out_of_time_does_not_restart_a_server_that_still_answers() {
    // Key 0's calls run out of time (2 s) while key 1's call runs on the
    // same server: the server still answers a ping, so it keeps running,
    // and key 1's call gets its answer.
    let gw = gateway(2, "--no-logging", &["--call-timeout", "2"]);
    let url = gw.url.clone();
    let late = std::thread::spawn(move || {
        let hold = json!([{"op": "call", "name": "hold", "arguments": {"seconds": 4}}]);
        host(
            &["--url", &url, "--header", "Authorization: Bearer key0"],
            "legacy",
            &hold,
            4,
        )
    });
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let doc = host(
        &["--url", &gw.url, "--header", "Authorization: Bearer key1"],
        "legacy",
        &json!([{"op": "call", "name": "hold", "arguments": {"seconds": 1.5}}]),
        1,
    );
    let mine = &doc["sessions"][0][0];
    assert_eq!(text(mine), "held 1.5", "{mine}");
    for s in late.join().unwrap()["sessions"].as_array().unwrap() {
        let r = serde_json::to_string(&s[0]).unwrap();
        assert!(r.contains("did not answer within"), "{r}");
    }
}

/// The gateway's resident memory, in MB.
fn resident_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb / 1024.0
}

#[test]
fn a_host_that_does_not_read_its_progress_costs_bounded_memory() {
    toolsift::http::client::install_tls();
    let gw = gateway(1, "--no-logging", &[]);
    let client = reqwest::blocking::Client::new();
    let post = |body: Value, session: Option<&str>| {
        let mut req = client
            .post(&gw.url)
            .bearer_auth("key0")
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(s) = session {
            req = req.header("mcp-session-id", s);
        }
        req.send().unwrap()
    };
    let opened = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "never-reads", "version": "1"}}}),
        None,
    );
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    drop(opened.text());
    drop(post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(&session),
    ));
    let before = resident_mb(gw.pid());
    // A call that reports its progress 300,000 times to a host that never
    // reads the stream it asked for them on.
    let stream = post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "flood", "arguments": {"count": 300000},
            "_meta": {"progressToken": "p1"}}}),
        Some(&session),
    );
    let mut most = before;
    for _ in 0..40 {
        std::thread::sleep(std::time::Duration::from_millis(500));
        most = most.max(resident_mb(gw.pid()));
    }
    drop(stream);
    // Every report kept would be about 100 MB here (each carries a
    // 200-byte message); a bounded few are a few MB.
    assert!(
        most - before < 40.0,
        "the gateway grew from {before:.0} MB to {most:.0} MB"
    );
}

/// The process id each of `keys` keys' `pid` calls answer, twice each.
fn pids(gw: &HttpGateway, keys: usize) -> Vec<Vec<String>> {
    let steps = json!([
        {"op": "call", "name": "pid", "arguments": {"n": 1}},
        {"op": "call", "name": "pid", "arguments": {"n": 2}},
    ]);
    let doc = host(
        &[
            "--url",
            &gw.url,
            "--header",
            "Authorization: Bearer key{session}",
        ],
        "legacy",
        &steps,
        keys,
    );
    doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_array().unwrap().iter().map(text).collect())
        .collect()
}

#[test]
fn a_server_isolated_per_key_runs_a_process_for_each_key() {
    let dir = TempDir::new("gw-per-key");
    let file = dir.path("servers.json");
    let command = |isolation: &str| {
        json!({"mcpServers": {"tenant": {
            "command": python(),
            "args": [mcp_fixture("tenant_server.py"), "--no-logging"],
            "isolation": isolation,
        }}})
        .to_string()
    };
    let start = |isolation: &str| {
        std::fs::write(&file, command(isolation)).unwrap();
        let names: Vec<String> = (0..2).map(|k| format!("TENANT_KEY_{k}")).collect();
        let mut args = vec![
            "--mcp".into(),
            file.clone(),
            "--always-load".into(),
            "*".into(),
        ];
        for name in &names {
            args.extend(["--api-key-env".into(), name.clone()]);
        }
        HttpGateway::start(&args, &[("TENANT_KEY_0", "key0"), ("TENANT_KEY_1", "key1")])
    };
    let own = pids(&start("per-key"), 2);
    // Each key keeps its own process, and the two differ.
    assert_eq!(own[0][0], own[0][1], "{own:?}");
    assert_eq!(own[1][0], own[1][1], "{own:?}");
    assert_ne!(own[0][0], own[1][0], "{own:?}");
    let shared = pids(&start("shared"), 2);
    assert!(
        shared.iter().flatten().all(|p| *p == shared[0][0]),
        "{shared:?}"
    );
}
