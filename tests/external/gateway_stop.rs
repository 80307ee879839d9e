//! `toolsift gateway` told to stop (SIGTERM) while a call runs: the call
//! finishes and is answered within the grace period, a call sent during
//! it is answered that it was not started, and a call still running when
//! the grace period ends is answered that the gateway stopped. Over stdio
//! and over HTTP, the real binary in front of the fake server.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::gateway::{HttpGateway, text, toolsift};
use crate::gateway_faults::fake_stdio;
use crate::gateway_sessions::{open, post};
use crate::mcp_support::*;

fn tool_call(id: u64, n: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "call_tool",
        "arguments": {"name": "paged_tool_00", "arguments": {"n": n}}}})
}

/// A gateway over stdio, its answers read line by line on a thread.
struct StdioGateway {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<Value>,
    stderr: std::thread::JoinHandle<String>,
}

impl StdioGateway {
    fn start(args: &[String]) -> StdioGateway {
        let mut child = Command::new(toolsift())
            .env("TOOLSIFT_MODEL", "off")
            .args(["gateway", "--offline", "--start-wait", "60"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, answers) = channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                let _ = tx.send(serde_json::from_str(&line).unwrap());
            }
        });
        let mut err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut s);
            s
        });
        let mut gw = StdioGateway {
            child,
            stdin,
            answers,
            stderr,
        };
        gw.send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        );
        gw.answer(1);
        gw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        gw
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
    }

    /// The answer to request `id` (others are skipped).
    fn answer(&self, id: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let a = self
                .answers
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to request {id}"));
            if a["id"] == json!(id) {
                return a;
            }
        }
    }

    /// Waits for the exit: its status code and the gateway's stderr.
    fn exit(mut self) -> (Option<i32>, String) {
        let status = wait_exit(&mut self.child, Duration::from_secs(30));
        (status.code(), self.stderr.join().unwrap())
    }
}

#[test]
fn a_call_running_at_sigterm_finishes_and_is_answered_and_a_new_one_is_refused() {
    let m = marker("gw-stop-finish");
    let args = fake_stdio(
        "paged",
        &m,
        &["--pages", "1", "--per-page", "2", "--call-delay", "3"],
    );
    let mut gw = StdioGateway::start(&args);
    gw.send(&tool_call(2, 7));
    // The call is with the server (it answers after 3 s).
    std::thread::sleep(Duration::from_millis(1000));
    sigterm(gw.child.id());
    std::thread::sleep(Duration::from_millis(300));
    gw.send(&tool_call(3, 8));
    let refused = gw.answer(3);
    let finished = gw.answer(2);
    let (code, stderr) = gw.exit();

    assert_eq!(finished["result"]["isError"], false, "{finished}");
    assert!(text(&finished["result"]).contains("\"n\": 7"), "{finished}");
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(
        text(&refused["result"]).contains("the gateway is stopping: this call was not started"),
        "{refused}"
    );
    assert_eq!(code, Some(143), "{stderr}");
    assert!(
        stderr.contains("stopping: 1 call finished, 0 answered that the gateway stopped"),
        "{stderr}"
    );
    assert_gone(&m, Duration::from_secs(10));
}

#[test]
fn a_call_still_running_when_the_grace_period_ends_is_answered_that_the_gateway_stopped() {
    let m = marker("gw-stop-cut");
    let mut args = fake_stdio("hang-call", &m, &["--pages", "1", "--per-page", "2"]);
    args.extend(["--shutdown-grace".into(), "1".into()]);
    let mut gw = StdioGateway::start(&args);
    gw.send(&tool_call(2, 7));
    std::thread::sleep(Duration::from_millis(500));
    sigterm(gw.child.id());
    let cut = gw.answer(2);
    let (code, stderr) = gw.exit();

    assert_eq!(cut["result"]["isError"], true, "{cut}");
    assert!(
        text(&cut["result"])
            .contains("the gateway stopped (it was told to end) before this call finished"),
        "{cut}"
    );
    assert_eq!(code, Some(143), "{stderr}");
    assert!(
        stderr.contains(
            "stopping: 0 calls finished, 1 answered that the gateway stopped (grace 1 s)"
        ),
        "{stderr}"
    );
    assert_gone(&m, Duration::from_secs(10));
}

/// The result in an answer over streamable HTTP (JSON or one SSE event).
fn http_result(body: &str) -> Value {
    let json = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .find(|d| !d.trim().is_empty())
        .unwrap_or(body);
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {body}"));
    v["result"].clone()
}

#[test]
fn over_http_a_call_running_at_sigterm_is_answered_before_the_gateway_exits() {
    toolsift::http::client::install_tls();
    let m = marker("gw-stop-http");
    let args = fake_stdio(
        "paged",
        &m,
        &["--pages", "1", "--per-page", "2", "--call-delay", "3"],
    );
    let gw = HttpGateway::start(&args, &[]);
    let client = reqwest::blocking::Client::new();
    let session = open(&client, &gw.url, "");
    let url = gw.url.clone();
    let call = std::thread::spawn(move || post(&client, &url, "", Some(&session), tool_call(2, 7)));
    std::thread::sleep(Duration::from_millis(1000));
    sigterm(gw.pid());
    let (status, _, body) = call.join().unwrap();

    assert_eq!(status, 200, "{body}");
    let result = http_result(&body);
    assert_eq!(result["isError"], false, "{body}");
    assert!(text(&result).contains("\"n\": 7"), "{body}");
    drop(gw);
    assert_gone(&m, Duration::from_secs(10));
}
