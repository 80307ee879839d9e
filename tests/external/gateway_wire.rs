//! What the gateway answers over HTTP to a message it cannot take: a body
//! that is not JSON, a batch, a `tools/call` without a name, a second
//! `initialize` on a live session, a body over the limit sent whole
//! before the answer is read (as Python's http.client does). Each is a
//! JSON-RPC error, and the session goes on. Raw streamable HTTP against
//! the real binary, in front of real mcp-server-time.

use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::{Value, json};

use crate::gateway::HttpGateway;
use crate::gateway_faults::time_stdio;
use crate::gateway_sessions::{initialize, list, open, post};

/// Posts `body` as it is (not necessarily JSON).
fn post_raw(
    client: &reqwest::blocking::Client,
    url: &str,
    session: Option<&str>,
    body: &str,
) -> (u16, String, Value) {
    let mut req = client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-06-18")
        .body(body.to_string());
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let r = req.send().unwrap();
    let status = r.status().as_u16();
    let kind = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let text = r.text().unwrap();
    let value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("not a JSON answer ({e}): {status} {kind} {text}"));
    (status, kind, value)
}

fn error_code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no error: {v}"))
}

#[test]
fn a_message_the_gateway_cannot_take_is_a_json_rpc_error_and_the_session_goes_on() {
    toolsift::http::client::install_tls();
    let gw = HttpGateway::start(&time_stdio(), &[]);
    let client = reqwest::blocking::Client::new();
    let id = open(&client, &gw.url, "");

    let (status, kind, v) = post_raw(&client, &gw.url, Some(&id), "{not json");
    assert_eq!((status, kind.as_str()), (400, "application/json"), "{v}");
    assert_eq!(error_code(&v), -32700, "{v}");
    assert!(v["id"].is_null(), "{v}");

    let batch = json!([{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]).to_string();
    let (status, _, v) = post_raw(&client, &gw.url, Some(&id), &batch);
    assert_eq!((status, error_code(&v)), (400, -32600), "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("batch"),
        "{v}"
    );

    let nameless = json!({"jsonrpc": "2.0", "id": "n1", "method": "tools/call",
        "params": {"arguments": {}}})
    .to_string();
    let (status, _, v) = post_raw(&client, &gw.url, Some(&id), &nameless);
    assert_eq!((status, error_code(&v)), (200, -32602), "{v}");
    assert_eq!(v["id"], "n1", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("params.name"),
        "{v}"
    );

    let (status, _, v) = post_raw(&client, &gw.url, Some(&id), &initialize().to_string());
    assert_eq!((status, error_code(&v)), (400, -32600), "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already initialized"),
        "{v}"
    );

    // The session is as it was.
    let (status, _, body) = post(&client, &gw.url, "", Some(&id), list());
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("search_tools"), "{body}");
}

#[test]
fn a_body_over_the_limit_sent_whole_is_read_and_answered_413_in_json_rpc() {
    let gw = HttpGateway::start(&time_stdio(), &[]);
    let address = gw
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let mut stream = TcpStream::connect(&address).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    // 6 MiB: over the 4 MiB limit. The whole body goes before a byte is
    // read, as Python's http.client sends it; a refusal that does not read
    // it is a reset here (broken pipe).
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(6 << 20)
    );
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {address}\r\naccept: application/json, text/event-stream\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream
        .write_all(body.as_bytes())
        .expect("the whole body is taken before the answer");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    let json = answer.split("\r\n\r\n").nth(1).unwrap_or("");
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert_eq!(error_code(&v), -32600, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("4,194,304 bytes"),
        "{v}"
    );
}

#[test]
fn over_stdio_the_same_messages_are_answered_in_json_rpc_and_the_session_goes_on() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut args = vec![
        "gateway".to_string(),
        "--offline".into(),
        "--start-wait".into(),
        "60".into(),
    ];
    args.extend(time_stdio());
    let mut child = Command::new(crate::gateway::toolsift())
        .env("TOOLSIFT_MODEL", "off")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A gateway that leaves a line unanswered fails the test, not hangs it.
    let pid = child.id() as i32;
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(90));
        // SAFETY: kill only signals the process this test started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    });
    let init = initialize();
    let lines = [
        init.to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"arguments": {}}})
            .to_string(),
        "{not json".to_string(),
        json!([{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}]).to_string(),
        {
            let mut again = init.clone();
            again["id"] = json!(4);
            again.to_string()
        },
        list().to_string(),
    ];
    for line in &lines {
        writeln!(stdin, "{line}").unwrap();
    }
    let out = BufReader::new(child.stdout.take().unwrap());
    let mut answers: Vec<Value> = Vec::new();
    for line in out.lines().map_while(Result::ok) {
        answers.push(serde_json::from_str(&line).unwrap());
        if answers.len() == 6 {
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let errors: Vec<(Value, i64)> = answers
        .iter()
        .filter(|a| a.get("error").is_some())
        .map(|a| (a["id"].clone(), error_code(a)))
        .collect();
    assert_eq!(
        errors,
        vec![
            (json!(2), -32602),
            (Value::Null, -32700),
            (Value::Null, -32600),
            (json!(4), -32600),
        ],
        "{answers:?}"
    );
    // The list after them was answered: the session went on.
    assert!(
        answers
            .iter()
            .any(|a| a["id"] == 2 && a["result"]["tools"].is_array()),
        "{answers:?}"
    );
}
