//! `toolsift serve` over real HTTP: the contract's answers, every kind of bad
//! input (each a JSON error, and the service still serving afterwards), auth
//! and session scope, limits, metrics, shutdown.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::Server;
use serde_json::{Value, json};

/// A raw HTTP/1.1 exchange (so tests control every byte): status and body.
fn http(
    url: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Value) {
    let addr = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    parse_response(&raw)
}

fn parse_response(raw: &[u8]) -> (u16, Value) {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_string()
    };
    (
        status,
        serde_json::from_str(&body).unwrap_or(Value::String(body)),
    )
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
    out
}

const JSON: (&str, &str) = ("content-type", "application/json");

pub(crate) fn search(url: &str, key: Option<&str>, body: &Value) -> (u16, Value) {
    let auth = key.map(|k| format!("Bearer {k}"));
    let mut headers = vec![JSON];
    if let Some(a) = &auth {
        headers.push(("authorization", a.as_str()));
    }
    http(
        url,
        "POST",
        "/sdk/v1/tool-search",
        &headers,
        body.to_string().as_bytes(),
    )
}

/// What `GET /metrics` answers, head and all.
pub(crate) fn metrics_text(url: &str) -> String {
    let addr = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    text
}

pub(crate) fn catalog() -> Value {
    json!([
        {"name": "lookup_status", "description": "Look up the current service status", "input_schema": {"type": "object", "properties": {}}, "read_only": true, "idempotent": true, "always_load": false},
        {"name": "send_invoice", "description": "Send an invoice to a customer", "input_schema": {"type": "object"}, "read_only": false, "idempotent": false, "always_load": false},
        {"name": "page_oncall", "description": "Page the on-call engineer", "input_schema": {"type": "object"}, "read_only": false, "idempotent": false, "always_load": true}
    ])
}

pub(crate) fn good() -> Value {
    json!({"tools": catalog(), "query": "check service status"})
}

pub(crate) fn assert_error(answer: &(u16, Value), status: u16, code: &str) {
    assert_eq!(answer.0, status, "{answer:?}");
    assert_eq!(answer.1["error"]["code"], code, "{answer:?}");
    assert!(
        answer.1["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{answer:?}"
    );
}

#[test]
fn answers_the_contract() {
    let server = Server::start(&[], &[]);
    let (status, r) = search(&server.url, None, &good());
    assert_eq!(status, 200, "{r}");
    let names: Vec<&str> = r["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["page_oncall", "lookup_status"]);
    for key in [
        "sent_schema_tokens",
        "full_schema_tokens",
        "deferred_count",
        "method",
        "token_basis",
        "session_id",
    ] {
        assert!(!r[key].is_null(), "{key} missing: {r}");
    }
    assert_eq!(r["method"], "bm25");
    assert_eq!(r["deferred_count"], 1);
    assert!(r["sent_schema_tokens"].as_u64() <= r["full_schema_tokens"].as_u64());
    assert_eq!(r["tools"][1]["matched"][0]["fields"][0], "description");
    // The session continues.
    let id = r["session_id"].as_str().unwrap().to_string();
    let mut again = good();
    again["query"] = json!("send an invoice");
    again["session_id"] = json!(id);
    let (_, r2) = search(&server.url, None, &again);
    assert_eq!(r2["session_id"], id.as_str());
    assert_eq!(
        r2["session_tools"],
        json!(["page_oncall", "lookup_status", "send_invoice"])
    );
    let (status, h) = http(&server.url, "GET", "/healthz", &[], b"");
    assert_eq!((status, h["status"].as_str()), (200, Some("ok")));
    let log = server.log_lines("POST /sdk/v1/tool-search", 2);
    assert!(log.contains("POST /sdk/v1/tool-search 200 "), "{log}");
    assert!(log.contains("tools=3 returned=2"), "{log}");
    assert!(
        !log.contains("check service status"),
        "queries stay out of the log: {log}"
    );
}

#[test]
fn a_request_chooses_a_basis_and_the_answer_names_it_as_people_read_it() {
    let server = Server::start(&[], &[]);
    let mut body = good();
    body["token_basis"] = json!("anthropic:claude-3-opus-20240229");
    let (status, r) = search(&server.url, None, &body);
    assert_eq!(status, 200, "{r}");
    // An estimate says so, in the name the Caveman clients show.
    assert_eq!(r["token_basis"], "anthropic:claude-3-opus (estimate)");
    // That name, sent back, chooses the same basis.
    body["token_basis"] = r["token_basis"].clone();
    let (status, again) = search(&server.url, None, &body);
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["full_schema_tokens"], r["full_schema_tokens"]);
    body["token_basis"] = json!("openai:gpt-4o-mini");
    let (_, openai) = search(&server.url, None, &body);
    assert_eq!(openai["token_basis"], "openai");
}

#[test]
fn every_bad_request_is_a_json_error_and_the_service_goes_on() {
    let server = Server::start(
        &["--max-body-bytes", "200000", "--request-timeout-ms", "1500"],
        &[],
    );
    let url = server.url.as_str();
    let post = |body: &[u8]| http(url, "POST", "/sdk/v1/tool-search", &[JSON], body);
    assert_error(&post(b"{not json"), 400, "invalid_request");
    assert_error(&post(b"[1,2]"), 400, "invalid_request");
    assert_error(&post(br#"{"query": "x"}"#), 400, "invalid_request");
    assert_error(
        &post(json!({"tools": catalog()}).to_string().as_bytes()),
        400,
        "invalid_request",
    );
    assert_error(
        &post(
            json!({"tools": catalog(), "query": 7})
                .to_string()
                .as_bytes(),
        ),
        400,
        "invalid_request",
    );
    assert_error(
        &post(json!({"tools": "x", "query": "q"}).to_string().as_bytes()),
        400,
        "invalid_catalog",
    );
    assert_error(
        &post(
            json!({"tools": [{"name": "  "}], "query": "q"})
                .to_string()
                .as_bytes(),
        ),
        400,
        "invalid_catalog",
    );
    assert_error(
        &post(
            json!({"tools": [{"name": "a"}, {"name": "a"}], "query": "q"})
                .to_string()
                .as_bytes(),
        ),
        400,
        "invalid_catalog",
    );
    let r = post(
        json!({"tools": [{"name": "a", "input_schema": "no"}], "query": "q"})
            .to_string()
            .as_bytes(),
    );
    assert_error(&r, 400, "invalid_catalog");
    assert!(
        r.1["error"]["message"]
            .as_str()
            .unwrap()
            .contains("input_schema"),
        "{r:?}"
    );
    let mut b = good();
    b["ranker"] = json!("tfidf");
    assert_error(&post(b.to_string().as_bytes()), 400, "unknown_ranker");
    b["ranker"] = json!("embeddings");
    assert_error(&post(b.to_string().as_bytes()), 400, "ranker_unavailable");
    let mut b = good();
    b["max_tools"] = json!(0);
    assert_error(&post(b.to_string().as_bytes()), 400, "invalid_max_tools");
    b["max_tools"] = json!("3");
    assert_error(&post(b.to_string().as_bytes()), 400, "invalid_max_tools");
    b["max_tools"] = json!(1.5);
    assert_error(&post(b.to_string().as_bytes()), 400, "invalid_max_tools");
    let big = vec![b' '; 200_001];
    assert_error(&post(&big), 413, "body_too_large");
    assert_error(
        &http(
            url,
            "POST",
            "/sdk/v1/tool-search",
            &[("content-type", "text/plain")],
            good().to_string().as_bytes(),
        ),
        415,
        "unsupported_media_type",
    );
    assert_error(
        &http(
            url,
            "POST",
            "/sdk/v1/tool-search",
            &[],
            good().to_string().as_bytes(),
        ),
        415,
        "unsupported_media_type",
    );
    assert_error(
        &http(url, "GET", "/sdk/v1/tool-search", &[], b""),
        405,
        "method_not_allowed",
    );
    assert_error(&http(url, "GET", "/nope", &[], b""), 404, "not_found");
    // Still serving.
    let (status, _) = search(url, None, &good());
    assert_eq!(status, 200);
}

#[test]
fn catalog_size_limit() {
    let server = Server::start(&[], &[]);
    let tools: Vec<Value> = (0..10_001)
        .map(|i| json!({"name": format!("t{i}")}))
        .collect();
    let r = search(&server.url, None, &json!({"tools": tools, "query": "x"}));
    assert_error(&r, 400, "too_many_tools");
    assert!(
        r.1["error"]["message"].as_str().unwrap().contains("10000"),
        "{r:?}"
    );
    assert_eq!(search(&server.url, None, &good()).0, 200);
}

#[test]
fn a_stalled_or_slow_body_is_cut_off_within_the_time_limit() {
    let server = Server::start(&["--request-timeout-ms", "800"], &[]);
    let addr = server.url.strip_prefix("http://").unwrap().to_string();
    // Promises 1,000 bytes, sends 10, then nothing.
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(b"POST /sdk/v1/tool-search HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"tools\":")
        .unwrap();
    let started = Instant::now();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "cut off late: {:?}",
        started.elapsed()
    );
    let (status, body) = parse_response(&raw);
    assert_eq!(status, 408, "{body}");
    assert_eq!(body["error"]["code"], "request_timeout");
    // A slow body: one byte every 200 ms never finishes in time either.
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let body = good().to_string();
    stream
        .write_all(format!("POST /sdk/v1/tool-search HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n", body.len()).as_bytes())
        .unwrap();
    let started = Instant::now();
    for b in body.bytes().take(20) {
        if stream.write_all(&[b]).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    assert!(started.elapsed() < Duration::from_secs(6));
    assert_eq!(parse_response(&raw).0, 408);
    assert_eq!(search(&server.url, None, &good()).0, 200);
}

#[test]
fn refuses_a_public_address_without_a_key() {
    let out = common::run(&["serve", "--addr", "0.0.0.0:0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("without an API key") && err.contains("--insecure-no-auth"),
        "{err}"
    );
    let out = common::run(&["serve", "--api-key-env", "TOOLSIFT_SURELY_UNSET"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("TOOLSIFT_SURELY_UNSET"));
}

#[test]
fn metrics_in_prometheus_text() {
    let server = Server::start(&[], &[]);
    search(&server.url, None, &good());
    search(&server.url, None, &good());
    search(&server.url, None, &json!({"query": "x"}));
    let text = metrics_text(&server.url);
    for needle in [
        "toolsift_requests_total{path=\"/sdk/v1/tool-search\",status=\"200\"} 2",
        "toolsift_requests_total{path=\"/sdk/v1/tool-search\",status=\"400\"} 1",
        "toolsift_request_duration_seconds_bucket",
        "toolsift_index_cache_hits_total 1",
        "toolsift_index_cache_misses_total 1",
        "toolsift_sessions 2",
    ] {
        assert!(text.contains(needle), "{needle} not in:\n{text}");
    }
    // The caches' bytes, cache by cache, add up to the total; the token
    // counts of the catalog's tools are among them.
    let gauge = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .map(|v| v.parse::<f64>().unwrap())
    };
    let total = gauge("toolsift_cache_bytes").unwrap_or_else(|| panic!("{text}"));
    let parts: Vec<f64> = [
        "catalogs",
        "rankers",
        "token_costs",
        "token_counts",
        "vectors",
    ]
    .iter()
    .map(|c| {
        gauge(&format!("toolsift_cache_bytes_by_cache{{cache=\"{c}\"}}"))
            .unwrap_or_else(|| panic!("{c} not in:\n{text}"))
    })
    .collect();
    assert_eq!(parts.iter().sum::<f64>(), total, "{text}");
    assert!(parts[..4].iter().all(|&b| b > 0.0), "{parts:?}");
    assert_eq!(parts[4], 0.0, "no embedding provider");
    let counts = catalog().as_array().unwrap().len() as f64;
    assert_eq!(
        gauge("toolsift_token_counts_cached"),
        Some(counts),
        "{text}"
    );
}

#[test]
fn sigterm_stops_it_cleanly() {
    let mut server = Server::start(&[], &[]);
    assert_eq!(search(&server.url, None, &good()).0, 200);
    let pid = server.child.id().to_string();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(status.success());
    let started = Instant::now();
    loop {
        if let Some(code) = server.child.try_wait().unwrap() {
            assert!(code.success(), "{code:?}");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(TcpStream::connect(server.url.strip_prefix("http://").unwrap()).is_err());
}

/// The benchmark's own scorer, run against `toolsift serve`, gives exactly
/// `toolsift eval`'s figures on the same data.
#[test]
fn score_py_against_serve_matches_eval() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let server = Server::start(&[], &[]);
    let out_path = std::env::temp_dir().join(format!("toolsift-score-{}.json", std::process::id()));
    let run = std::process::Command::new("python3")
        .arg(root.join("eval/bfcl-dev/score.py"))
        .args(["--base-url", &server.url, "--json-out"])
        .arg(&out_path)
        .output()
        .expect("python3 runs score.py");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let scored: Value = serde_json::from_str(&std::fs::read_to_string(&out_path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out_path);
    assert_eq!(scored["errors"], 0);
    assert_eq!(scored["n_queries"], 504);
    let eval = common::json(&common::run(&[
        "eval",
        root.join("eval/bfcl-dev/catalog.json").to_str().unwrap(),
        root.join("eval/bfcl-dev/queries-dev.jsonl")
            .to_str()
            .unwrap(),
        "--json",
        "--time-budget-ms",
        "0",
        // score.py sends no `gate`: the service's default, off.
        "--gate",
        "off",
    ]));
    for (ours, theirs) in [("strict", "strict"), ("lenient", "name")] {
        for k in ["all@1", "all@3", "all@5", "all@10", "any@1", "any@10"] {
            let a = eval[ours][k].as_f64().unwrap();
            let b = scored["metrics"][theirs][k].as_f64().unwrap() * 100.0;
            assert!((a - b).abs() < 0.01, "{ours} {k}: eval {a}, score.py {b}");
        }
        let a = eval[ours]["mrr@10"].as_f64().unwrap();
        let b = scored["metrics"][theirs]["mrr@10"].as_f64().unwrap();
        assert!((a - b).abs() < 1e-3, "{ours} mrr: eval {a}, score.py {b}");
    }
}

/// `[serve]` of the config file sets what the flags would.
#[test]
fn serve_settings_from_the_config_file() {
    let dir = std::env::temp_dir().join(format!("toolsift-serve-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        "[serve]\napi_key_env = [\"CONF_KEY\"]\ndefault_max_tools = 1\nmax_catalog_tools = 2\ntoken_cache_bytes = 4096\nhead_timeout_ms = 5000\nmax_passthrough = 3\n",
    )
    .unwrap();
    let server = Server::start(
        &["--config", config.to_str().unwrap()],
        &[("CONF_KEY", "from-config")],
    );
    assert_error(&search(&server.url, None, &good()), 401, "unauthorized");
    let (status, r) = search(
        &server.url,
        Some("from-config"),
        &json!({"tools": catalog().as_array().unwrap()[..2], "query": "status invoice"}),
    );
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        r["tools"].as_array().unwrap().len(),
        1,
        "default_max_tools 1: {r}"
    );
    assert_error(
        &search(&server.url, Some("from-config"), &good()),
        400,
        "too_many_tools",
    );
    // A bad value names the file, line and column.
    std::fs::write(&config, "[serve]\ntoken_basis = \"gpt2\"\n").unwrap();
    let out = common::run(&["serve", "--config", config.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.toml:2:"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// SIGTERM lets a request in flight finish, then stops. The request's head
/// and half its body are in the socket when the signal comes: shutdown
/// serves a head already sent (no sleep decides it).
#[test]
fn graceful_shutdown_finishes_the_request_in_flight() {
    let mut server = Server::start(&[], &[]);
    let addr = server.url.strip_prefix("http://").unwrap().to_string();
    let body = good().to_string();
    let (first, rest) = body.split_at(body.len() / 2);
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(
            format!(
                "POST /sdk/v1/tool-search HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{first}",
                body.len()
            )
            .as_bytes(),
        )
        .unwrap();
    // Connections are accepted in order: once a later one is answered, the
    // server holds this one.
    let (health, _) = http(&server.url, "GET", "/healthz", &[], b"");
    assert_eq!(health, 200);
    let pid = server.child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    // The rest of the body once the server says it is shutting down.
    let said = Instant::now();
    while !server.log().contains("shutting down") {
        assert!(said.elapsed() < Duration::from_secs(10), "{}", server.log());
        std::thread::sleep(Duration::from_millis(10));
    }
    stream.write_all(rest.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let (status, answer) = parse_response(&raw);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["tools"][0]["name"], "page_oncall");
    let text = String::from_utf8_lossy(&raw).to_ascii_lowercase();
    assert!(text.contains("connection: close"), "{text}");
    let started = Instant::now();
    while server.child.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < Duration::from_secs(10), "did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
}
