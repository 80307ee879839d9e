//! Requests of several steps (`--intent`, and a query's own clauses), the
//! findability audit, the gate's one policy through the embedded search and
//! HTTP, and what `search --service` sends.

use std::io::{Read, Write};
use std::net::TcpListener;

use serde_json::{Value, json};

use crate::common;

use common::{Server, assert_usage_error, json, run};

/// The short requests' catalog: 51 tools of six real MCP servers.
fn short_catalog() -> String {
    format!("{}/eval/mcp-short/catalog.json", env!("CARGO_MANIFEST_DIR"))
}

/// A catalog file of `tools` (JSON), removed when dropped.
struct CatalogFile(std::path::PathBuf);

impl CatalogFile {
    fn new(name: &str, tools: &Value) -> Self {
        let path =
            std::env::temp_dir().join(format!("toolsift-test-{}-{name}.json", std::process::id()));
        std::fs::write(&path, tools.to_string()).unwrap();
        CatalogFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for CatalogFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn loaded(v: &Value) -> Vec<String> {
    v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn intents_given_apart_each_bring_their_tools() {
    let catalog = short_catalog();
    let v = json(&run(&[
        "search",
        &catalog,
        "",
        "--intent",
        "current time in London",
        "--intent",
        "list the files in the docs folder",
        "--intent",
        "fetch https://example.com",
        "--max-tools",
        "4",
        "--json",
    ]));
    // Room for one tool past the three steps' first: the time step's
    // second (convert_time) and the folder step's first rank close.
    let tools = loaded(&v);
    for wanted in ["get_current_time", "list_directory", "fetch"] {
        assert!(
            tools.iter().any(|t| t == wanted),
            "{wanted} not in {tools:?}"
        );
    }
    // The same steps in one message are split the same way.
    let split = json(&run(&[
        "search",
        &catalog,
        "current time in London; list the files in the docs folder; then fetch https://example.com",
        "--max-tools",
        "4",
        "--json",
    ]));
    let mut a = loaded(&split);
    let mut b = tools.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    // Without the split, one bag of words: a step's tool falls out.
    let one = json(&run(&[
        "search",
        &catalog,
        "current time in London list the files in the docs folder fetch https://example.com",
        "--max-tools",
        "4",
        "--json",
    ]));
    assert_ne!(loaded(&one), b, "{one}");
}

#[test]
fn bad_intents_are_usage_errors() {
    let catalog = short_catalog();
    let mut args = vec!["search".to_string(), catalog.clone(), "x".into()];
    for i in 0..17 {
        args.push("--intent".into());
        args.push(format!("step {i}"));
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_usage_error(&run(&refs), "--intent is given 17 times; at most 16");
    assert_usage_error(
        &run(&["search", &catalog, "x", "--intent", "a", "--intent", " "]),
        "--intent number 2 is empty",
    );
}

#[test]
fn findability_lists_tools_not_found_and_shadowed() {
    let v = json(&run(&["check", "@demo", "--findability", "--json"]));
    let f = &v["findability"];
    assert_eq!(f["k"], 3);
    assert_eq!(f["method"], "bm25");
    assert_eq!(f["always_load"], 4);
    assert_eq!(f["audited"], 60);
    let tools = f["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 60);
    for t in tools {
        let probes = t["probes"].as_array().unwrap();
        assert_eq!(probes[0]["source"], "name", "{t}");
        let found = probes
            .iter()
            .any(|p| p["rank"].as_u64().is_some_and(|r| r <= 3));
        assert_eq!(t["found"], found, "{t}");
    }
    // Two tools that say the same thing, one with the words in its name:
    // it comes first for what the other's description says.
    let twins = CatalogFile::new(
        "twins",
        &json!([
            {"name": "find_things", "description": "Look up open tickets in the tracker by keyword."},
            {"name": "ticket_lookup", "description": "Look up open tickets in the tracker by keyword, tickets by keyword in the tracker."},
            {"name": "add_numbers", "description": "Add two numbers and return their sum."}
        ]),
    );
    let v = json(&run(&[
        "check",
        twins.path(),
        "--findability",
        "--json",
        "--findability-k",
        "1",
    ]));
    let tools = v["findability"]["tools"].as_array().unwrap();
    let shadowed: Vec<(&str, &str)> = tools
        .iter()
        .filter(|t| !t["shadowed_by"].is_null())
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                t["shadowed_by"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(shadowed, [("find_things", "ticket_lookup")], "{tools:?}");
    // Still found: its name's words find it.
    assert_eq!(tools[0]["found"], true);
    let out = run(&[
        "check",
        twins.path(),
        "--findability",
        "--findability-k",
        "1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Findability (bm25"), "{text}");
    assert!(
        text.contains("Shadowed (another tool first for what its description says):\n  find_things by ticket_lookup"),
        "{text}"
    );
    // K is checked.
    assert_usage_error(
        &run(&["check", "@demo", "--findability", "--findability-k", "0"]),
        "--findability-k",
    );
}

#[test]
fn findability_escapes_hostile_names() {
    let hostile = CatalogFile::new(
        "hostile",
        &json!([
            {"name": "evil_tool", "description": "\u{1b}[2J\u{1b}[31mwipe the screen"},
            {"name": "other", "description": "Something else entirely."}
        ]),
    );
    let out = run(&["check", hostile.path(), "--findability"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains('\u{1b}'), "{text:?}");
}

/// The tools of one request through the embedded search (the CLI) and
/// through HTTP (`toolsift serve`) are the same, gate on and off.
#[test]
fn the_same_request_loads_the_same_tools_embedded_and_over_http() {
    let catalog = short_catalog();
    let text = std::fs::read_to_string(&catalog).unwrap();
    let tools: Value = serde_json::from_str(&text).unwrap();
    let server = Server::start(&[], &[]);
    let client = common::http_client();
    for (query, gate) in [
        ("make a folder called reports", "on"),
        ("add 17 and 25", "on"),
        ("book a flight to Paris on Friday", "on"),
        ("check what changed, stage it and commit", "on"),
        ("show me a picture", "off"),
    ] {
        let cli = json(&run(&[
            "search",
            &catalog,
            query,
            "--gate",
            gate,
            "--max-tools",
            "5",
            "--json",
        ]));
        let body = json!({
            "tools": tools["tools"],
            "query": query,
            "max_tools": 5,
            "gate": gate == "on",
        });
        let http: Value = client
            .post(format!("{}/sdk/v1/tool-search", server.url))
            .json(&body)
            .send()
            .unwrap()
            .json()
            .unwrap();
        assert_eq!(loaded(&cli), loaded(&http), "{query:?} (gate {gate})");
    }
}

/// A one-shot HTTP server that records the body it is sent and answers a
/// valid empty search.
fn recording_service() -> (String, std::thread::JoinHandle<Value>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 65536];
        let body_start = loop {
            let n = stream.read(&mut chunk).unwrap();
            assert!(n > 0, "the client closed before its body");
            buf.extend_from_slice(&chunk[..n]);
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
        };
        let head = String::from_utf8_lossy(&buf[..body_start]).to_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map(|v| v.trim().parse().unwrap())
            .unwrap();
        while buf.len() < body_start + length {
            let n = stream.read(&mut chunk).unwrap();
            assert!(n > 0);
            buf.extend_from_slice(&chunk[..n]);
        }
        let body: Value = serde_json::from_slice(&buf[body_start..body_start + length]).unwrap();
        let answer = r#"{"tools":[],"session_id":"s1","method":"bm25","deferred_count":3,"full_schema_tokens":10,"sent_schema_tokens":0}"#;
        write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
            answer.len()
        )
        .unwrap();
        body
    });
    (url, handle)
}

#[test]
fn search_sends_a_remote_service_only_the_sdks_fields_unless_asked() {
    let (url, seen) = recording_service();
    let out = run(&["search", "@demo", "check service status", "--service", &url]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let body = seen.join().unwrap();
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for key in &keys {
        assert!(
            [
                "tools",
                "query",
                "context",
                "max_tools",
                "session_id",
                "ranker"
            ]
            .contains(key),
            "{key} sent to a Caveman service: {keys:?}"
        );
    }
    // An extension the user chose is sent.
    let (url, seen) = recording_service();
    let out = run(&[
        "search",
        "@demo",
        "check service status",
        "--service",
        &url,
        "--gate",
        "on",
        "--intent",
        "check service status",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let body = seen.join().unwrap();
    assert_eq!(body["gate"], true);
    assert_eq!(body["queries"], json!(["check service status"]));
}
