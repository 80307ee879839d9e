//! `toolsift serve` against callers that try to misuse it or that break:
//! paths that would leave an upstream's base, connections that send half a
//! head or idle, more connections than the limit, a SIGTERM with
//! connections open, pass-through admission, protocol errors (each answered
//! with a JSON body), bodies the service would misread, bearer schemes and
//! the metrics key. Each runs the real binary over real sockets.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::fake_upstream::FakeUpstream;
use common::{Server, held_open};
use serde_json::{Value, json};

const KEY: &str = "k-hard";
const OPERATOR_KEY: &str = "sk-operator-secret";

/// Writes `request` as it is on a new connection and reads the whole answer
/// (the server closes, or 10 s pass).
fn raw(addr: &str, request: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = s.write_all(request);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

/// Status and JSON body of a raw answer.
fn parse(raw: &[u8]) -> (u16, Value) {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no answer head in {text:?}"));
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let mut body = body.to_string();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut rest = body.as_str();
        let mut plain = String::new();
        while let Some((size, after)) = rest.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap();
            if n == 0 {
                break;
            }
            plain.push_str(&after[..n]);
            rest = &after[n + 2..];
        }
        body = plain;
    }
    let body: Value =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("body not JSON ({e}): {text:?}"));
    (status, body)
}

fn assert_json_error(raw: &[u8], status: u16, code: &str) {
    let (s, body) = parse(raw);
    assert_eq!(s, status, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

/// `serve` with a key and the OpenAI upstream under a base path, the
/// operator's key given to it.
fn gateway(up: &FakeUpstream, extra: &[&str]) -> Server {
    let openai = format!("openai={}/tenant-a/openai/v1", up.url);
    let anthropic = format!("anthropic={}/tenant-a/anthropic", up.url);
    let mut args = vec![
        "--api-key-env",
        "HARD_KEY",
        "--upstream",
        &openai,
        "--upstream",
        &anthropic,
        "--upstream-key-env",
        "openai=OPKEY",
        "--upstream-key-env",
        "anthropic=OPKEY",
    ];
    args.extend_from_slice(extra);
    Server::start(&args, &[("HARD_KEY", KEY), ("OPKEY", OPERATOR_KEY)])
}

fn get(path: &str) -> Vec<u8> {
    format!(
        "GET {path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {KEY}\r\nconnection: close\r\n\r\n"
    )
    .into_bytes()
}

#[test]
fn no_spelling_of_a_climbing_path_reaches_the_upstream_or_its_key() {
    let up = FakeUpstream::start();
    let srv = gateway(&up, &[]);
    for path in [
        "/openai/v1/%2e%2e/%2e%2e/admin",
        "/openai/v1/%2E%2E/%2E%2E/admin",
        "/openai/v1/.%2e/.%2e/admin",
        "/openai/v1/../../admin",
        "/openai/v1/..\\..\\admin",
        "/openai/v1/models/..%2f..%2f..%2fadmin",
        "/openai/v1/models%5c..%5c..",
        "/openai/v1/./models",
        "/anthropic/../openai/v1/models",
        "/anthropic/%2e%2e/openai/v1/models",
        "/openai/v1/models%00",
    ] {
        let answer = raw(srv.addr(), &get(path));
        let (status, body) = parse(&answer);
        assert!(status == 400 || status == 404, "{path}: {status} {body}");
        if status == 400 {
            assert_eq!(body["error"]["code"], "invalid_path", "{path}: {body}");
        }
    }
    assert!(up.seen().is_empty(), "the upstream saw {:#?}", up.seen());
    // A path that stays under the base goes there, with the operator's key.
    let answer = raw(srv.addr(), &get("/openai/v1/models?limit=2"));
    assert_eq!(parse(&answer).0, 200);
    let seen = up.only();
    assert_eq!(seen.path, "/tenant-a/openai/v1/models?limit=2");
    assert_eq!(
        seen.header("authorization"),
        Some(format!("Bearer {OPERATOR_KEY}").as_str())
    );
}

#[test]
fn a_half_sent_head_gets_408_and_an_idle_connection_is_closed_within_its_limits() {
    let srv = Server::start(
        &["--head-timeout-ms", "600", "--idle-timeout-ms", "1500"],
        &[],
    );
    // Half a head: 408 with a JSON body, then closed, in about 600 ms.
    let started = Instant::now();
    let answer = raw(srv.addr(), b"GET /healthz HTTP/1.1\r\nhost: x\r\n");
    let took = started.elapsed();
    assert_json_error(&answer, 408, "request_timeout");
    assert!(took < Duration::from_secs(5), "closed after {took:?}");
    // Nothing sent: closed without an answer after the idle limit.
    let started = Instant::now();
    let answer = raw(srv.addr(), b"");
    assert!(answer.is_empty(), "{:?}", String::from_utf8_lossy(&answer));
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(1200) && took < Duration::from_secs(6),
        "idle closed after {took:?}"
    );
    // Kept alive after an answer: the idle limit again, not the head's.
    let mut s = TcpStream::connect(srv.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 4096];
    let n = s.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    let started = Instant::now();
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(1200) && took < Duration::from_secs(6),
        "kept-alive closed after {took:?}"
    );
}

#[test]
fn connections_beyond_the_limit_get_503_and_the_server_answers_again_after() {
    let srv = Server::start(
        &["--max-connections", "4", "--head-timeout-ms", "60000"],
        &[],
    );
    // Four clients that searched and keep their connections open
    // (connections no search or key proved would give their places up).
    let search = kept_alive(&search_request(
        "content-type: application/json\r\n",
        &small_search(),
    ));
    let held: Vec<TcpStream> = (0..4).map(|_| held_open(srv.addr(), &search)).collect();
    // Wait until the server holds all four (an answer 503 says so).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let answer = raw(srv.addr(), b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n");
        let (status, body) = parse(&answer);
        if status == 503 {
            assert_eq!(body["error"]["code"], "too_many_connections", "{body}");
            assert!(body["error"]["message"].as_str().unwrap().contains('4'));
            break;
        }
        assert!(Instant::now() < deadline, "never refused: {status} {body}");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let answer = raw(
            srv.addr(),
            b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
        );
        if parse(&answer).0 == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the places never came back");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `request` without its `connection: close`.
fn kept_alive(request: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(request)
        .replacen("connection: close\r\n", "", 1)
        .into_bytes()
}

/// How long the server takes to exit, at most `within`.
fn time_to_exit(srv: &mut Server, within: Duration) -> Duration {
    let started = Instant::now();
    common::wait_exit(&mut srv.child, within);
    started.elapsed()
}

#[test]
fn sigterm_closes_idle_and_half_sent_connections_at_once() {
    let mut srv = Server::start(
        &["--head-timeout-ms", "60000", "--idle-timeout-ms", "60000"],
        &[],
    );
    let mut half = TcpStream::connect(srv.addr()).unwrap();
    half.write_all(b"POST /sdk/v1/tool-search HTTP/1.1\r\nhost: x\r\n")
        .unwrap();
    let _idle = TcpStream::connect(srv.addr()).unwrap();
    // Both are the server's once a health check on a third gets through.
    assert_eq!(parse(&raw(srv.addr(), &get("/healthz"))).0, 200);
    std::thread::sleep(Duration::from_millis(100));
    common::sigterm(srv.child.id());
    let took = time_to_exit(&mut srv, Duration::from_secs(5));
    assert!(took < Duration::from_secs(3), "exit took {took:?}");
}

#[test]
fn sigterm_waits_for_a_request_in_flight_only_as_long_as_the_grace() {
    let up = FakeUpstream::start();
    let mut srv = gateway(&up, &["--shutdown-grace-ms", "800"]);
    let mut s = TcpStream::connect(srv.addr()).unwrap();
    s.write_all(
        format!(
            "POST /openai/v1/responses HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {KEY}\r\ncontent-type: application/json\r\nx-fake-hang: 1\r\ncontent-length: 2\r\n\r\n{{}}"
        )
        .as_bytes(),
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while up.seen().is_empty() {
        assert!(
            Instant::now() < deadline,
            "the call never reached the upstream"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    common::sigterm(srv.child.id());
    let took = time_to_exit(&mut srv, Duration::from_secs(10));
    assert!(
        took >= Duration::from_millis(700) && took < Duration::from_secs(5),
        "exit took {took:?}"
    );
}

#[test]
fn provider_calls_beyond_the_admission_get_503() {
    let up = FakeUpstream::start();
    let srv = gateway(
        &up,
        &["--max-passthrough", "1", "--request-timeout-ms", "1000"],
    );
    let hang = |extra: &str| {
        let mut s = TcpStream::connect(srv.addr()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(
            format!(
                "POST /openai/v1/responses HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {KEY}\r\ncontent-type: application/json\r\n{extra}content-length: 2\r\nconnection: close\r\n\r\n{{}}"
            )
            .as_bytes(),
        )
        .unwrap();
        s
    };
    let _first = hang("x-fake-hang: 1\r\n");
    let deadline = Instant::now() + Duration::from_secs(10);
    while up.seen().is_empty() {
        assert!(Instant::now() < deadline, "the first call never arrived");
        std::thread::sleep(Duration::from_millis(20));
    }
    // One waits (its place never comes free in time: 503 after the request
    // limit) and a third finds the queue full (503 at once).
    let mut waiting = hang("");
    std::thread::sleep(Duration::from_millis(100));
    let third = raw(
        srv.addr(),
        format!(
            "POST /openai/v1/responses HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {KEY}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{{}}"
        )
        .as_bytes(),
    );
    assert_json_error(&third, 503, "overloaded");
    let mut answer = Vec::new();
    let _ = waiting.read_to_end(&mut answer);
    assert_json_error(&answer, 503, "overloaded");
    assert_eq!(up.seen().len(), 1, "only the first reached the upstream");
    up.release();
}

#[test]
fn every_protocol_error_the_server_answers_has_a_json_body() {
    let srv = Server::start(&[], &[]);
    let long_path = format!("GET /{} HTTP/1.1\r\nhost: x\r\n\r\n", "a".repeat(70_000));
    let big_header = format!(
        "GET / HTTP/1.1\r\nhost: x\r\nx-big: {}\r\n\r\n",
        "b".repeat(2 << 20)
    );
    let many_headers = format!(
        "GET / HTTP/1.1\r\nhost: x\r\n{}\r\n",
        (0..5000)
            .map(|i| format!("x-h{i}: v\r\n"))
            .collect::<String>()
    );
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        ("bad content-length", b"POST /sdk/v1/tool-search HTTP/1.1\r\nhost: x\r\ncontent-length: abc\r\n\r\n".to_vec(), 400),
        ("negative content-length", b"POST /sdk/v1/tool-search HTTP/1.1\r\nhost: x\r\ncontent-length: -5\r\n\r\n".to_vec(), 400),
        ("two content-lengths", b"POST /sdk/v1/tool-search HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\nhello".to_vec(), 400),
        ("TE xchunked", b"POST /sdk/v1/tool-search HTTP/1.1\r\nhost: x\r\ntransfer-encoding: xchunked\r\n\r\n".to_vec(), 400),
        ("HTTP/9.9", b"GET /healthz HTTP/9.9\r\nhost: x\r\n\r\n".to_vec(), 400),
        ("garbage", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n".to_vec(), 400),
        ("obs-fold", b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-a: one\r\n two\r\n\r\n".to_vec(), 400),
        ("control byte in a header", b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-a: o\x01ne\r\n\r\n".to_vec(), 400),
        ("2 MB header", big_header.into_bytes(), 431),
        ("5,000 headers", many_headers.into_bytes(), 431),
        ("64 KB path", long_path.into_bytes(), 414),
    ];
    for (what, request, status) in cases {
        let answer = raw(srv.addr(), &request);
        assert!(!answer.is_empty(), "{what}: closed without an answer");
        let (s, body) = parse(&answer);
        assert_eq!(s, status, "{what}: {body}");
        assert!(body["error"]["code"].is_string(), "{what}: {body}");
    }
    // HTTP/0.9 (no version): answered 400 in HTTP/1.1, as JSON.
    assert_json_error(
        &raw(srv.addr(), b"GET /healthz\r\n\r\n"),
        400,
        "bad_request",
    );
    // An HTTP/2 preface: hyper closes with no answer (there is no HTTP/1.1
    // answer an HTTP/2 client would read).
    assert!(raw(srv.addr(), b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").is_empty());
    // The server still answers.
    assert_eq!(parse(&raw(srv.addr(), &get("/healthz"))).0, 200);
}

fn search_request(headers: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "POST /sdk/v1/tool-search HTTP/1.1\r\nhost: x\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn small_search() -> Vec<u8> {
    json!({
        "tools": [{"name": "page_oncall", "description": "Page the on-call engineer", "input_schema": {"type": "object"}}],
        "query": "page",
    })
    .to_string()
    .into_bytes()
}

#[test]
fn bodies_the_service_would_misread_are_refused_and_bearer_is_any_case() {
    let srv = Server::start(&["--api-key-env", "HARD_KEY"], &[("HARD_KEY", KEY)]);
    let auth = format!("authorization: bearer {KEY}\r\n");
    let ok = raw(
        srv.addr(),
        &search_request(
            &format!("{auth}content-type: application/json\r\n"),
            &small_search(),
        ),
    );
    assert_eq!(parse(&ok).0, 200, "lower-case bearer");
    let upper = format!("authorization: BEARER {KEY}\r\ncontent-type: application/json\r\n");
    assert_eq!(
        parse(&raw(srv.addr(), &search_request(&upper, &small_search()))).0,
        200
    );
    let gzip = raw(
        srv.addr(),
        &search_request(
            &format!("{auth}content-type: application/json\r\ncontent-encoding: gzip\r\n"),
            b"\x1f\x8b\x08\x00\x00\x00\x00\x00",
        ),
    );
    assert_json_error(&gzip, 415, "unsupported_content_encoding");
    let utf16: Vec<u8> = "{\"query\":\"x\"}"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let answer = raw(
        srv.addr(),
        &search_request(
            &format!("{auth}content-type: application/json; charset=utf-16\r\n"),
            &utf16,
        ),
    );
    assert_json_error(&answer, 415, "unsupported_charset");
    let answer = raw(
        srv.addr(),
        &search_request(
            &format!("{auth}content-type: application/json; charset=\"UTF-8\"\r\n"),
            &small_search(),
        ),
    );
    assert_eq!(parse(&answer).0, 200, "quoted UTF-8 charset");
}

#[test]
fn a_body_over_the_limit_is_read_away_and_its_413_reaches_the_sender() {
    let srv = Server::start(&["--max-body-bytes", "1000"], &[]);
    let body = vec![b' '; 3 << 20];
    let mut s = TcpStream::connect(srv.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // All of it is sent before reading, as urllib does: a server that closed
    // at once would make this write fail with a broken pipe or a reset.
    s.write_all(&search_request("content-type: application/json\r\n", &body))
        .unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    assert_json_error(&answer, 413, "body_too_large");
}

#[test]
fn metrics_needs_its_key_when_one_is_set() {
    let srv = Server::start(
        &["--metrics-key-env", "MKEY"],
        &[("MKEY", "metrics-secret")],
    );
    let open = raw(
        srv.addr(),
        b"GET /metrics HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    );
    assert_json_error(&open, 401, "unauthorized");
    let keyed = raw(
        srv.addr(),
        b"GET /metrics HTTP/1.1\r\nhost: x\r\nauthorization: Bearer metrics-secret\r\nconnection: close\r\n\r\n",
    );
    assert!(String::from_utf8_lossy(&keyed).starts_with("HTTP/1.1 200"));
    // /healthz stays open.
    let health = raw(
        srv.addr(),
        b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    );
    assert_eq!(parse(&health).0, 200);
}

#[test]
fn a_provider_body_with_nothing_to_splice_streams_through_within_the_limit() {
    let up = FakeUpstream::start();
    let srv = gateway(&up, &["--max-body-bytes", "4000000"]);
    let body = format!("{{\"input\":\"{}\"}}", "z".repeat(3 << 20));
    let request = |body: &str| {
        format!(
            "POST /openai/v1/embeddings HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {KEY}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let answer = raw(srv.addr(), request(&body).as_bytes());
    assert_eq!(parse(&answer).0, 200);
    let seen = up.only();
    assert_eq!(seen.body, body.as_bytes(), "the body arrived whole");
    assert_eq!(
        seen.header("content-length"),
        Some(body.len().to_string().as_str())
    );
    assert_eq!(seen.header("transfer-encoding"), None);
    // Over the limit: 413, read away so the sender sees it.
    let big = "y".repeat(5 << 20);
    let answer = raw(srv.addr(), request(&big).as_bytes());
    assert_json_error(&answer, 413, "body_too_large");
    // Chunked, over the limit: the stream is cut and answered 413 too.
    let mut chunked = format!(
        "POST /openai/v1/embeddings HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {KEY}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n"
    )
    .into_bytes();
    for _ in 0..5 {
        chunked.extend_from_slice(format!("{:x}\r\n", 1 << 20).as_bytes());
        chunked.extend(std::iter::repeat_n(b'c', 1 << 20));
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let answer = raw(srv.addr(), &chunked);
    assert_json_error(&answer, 413, "body_too_large");
}

/// Connections that never send a request (or send only half a head) hold
/// no place against a client: the oldest gives its place up.
#[test]
fn connections_that_never_ask_do_not_keep_a_client_out() {
    let srv = Server::start(
        &["--max-connections", "4", "--head-timeout-ms", "60000"],
        &[],
    );
    let _idle: Vec<TcpStream> = (0..8)
        .map(|i| {
            let mut s = TcpStream::connect(srv.addr()).unwrap();
            if i % 2 == 0 {
                s.write_all(b"GET /healthz HTTP/1.1\r\n").unwrap();
            }
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    for _ in 0..3 {
        let answer = raw(
            srv.addr(),
            b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
        );
        assert_eq!(parse(&answer).0, 200, "{answer:?}");
    }
}

/// `/healthz` needs no key, so asking it makes no client of a connection:
/// connections that asked it and idle give their places up to a request
/// with a key, as connections that never asked do.
#[test]
fn connections_that_only_asked_healthz_do_not_keep_a_keyed_client_out() {
    let srv = Server::start(
        &[
            "--api-key-env",
            "HARD_KEY",
            "--max-connections",
            "4",
            "--head-timeout-ms",
            "60000",
        ],
        &[("HARD_KEY", KEY)],
    );
    let health = b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n";
    let _idle: Vec<TcpStream> = (0..4).map(|_| held_open(srv.addr(), health)).collect();
    let auth = format!("authorization: Bearer {KEY}\r\ncontent-type: application/json\r\n");
    for _ in 0..3 {
        let answer = raw(srv.addr(), &search_request(&auth, &small_search()));
        assert_eq!(
            parse(&answer).0,
            200,
            "{}",
            String::from_utf8_lossy(&answer)
        );
    }
}
