//! A repeated catalog over real sockets: recognised from its bytes however
//! the client cuts them, answered as the first time, and anything else
//! read whole.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::Server;
use crate::serve::{catalog, metrics_text, search};

/// POSTs `body` in pieces of `piece` bytes, pausing between them so they
/// arrive apart; the status and the answer.
fn trickle(url: &str, body: &[u8], piece: usize) -> (u16, Value) {
    let addr = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_nodelay(true).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "POST /sdk/v1/tool-search HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    for chunk in body.chunks(piece) {
        stream.write_all(chunk).unwrap();
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap())
}

/// The counter `name` of `/metrics`.
fn metric(url: &str, name: &str) -> f64 {
    crate::common::metric_value(&metrics_text(url), name).unwrap_or(0.0)
}

fn without_session(mut r: Value) -> Value {
    r["session_id"] = Value::Null;
    r
}

#[test]
fn a_repeated_catalog_is_recognised_however_it_arrives() {
    let server = Server::start(&[], &[]);
    let url = server.url.as_str();
    let body = json!({"tools": catalog(), "query": "check service status", "max_tools": 2});
    let (status, first) = search(url, None, &body);
    assert_eq!(status, 200, "{first}");
    assert_eq!(metric(url, "toolsift_catalog_parses_total"), 1.0);
    // The same bytes in pieces of every size: recognised, the same answer.
    let text = body.to_string();
    for piece in [1, 7, 64, text.len()] {
        let (status, again) = trickle(url, text.as_bytes(), piece);
        assert_eq!(status, 200, "{again}");
        assert_eq!(without_session(again), without_session(first.clone()));
    }
    assert_eq!(metric(url, "toolsift_catalog_parses_total"), 1.0);
    assert!(metric(url, "toolsift_catalogs_recognised_total") >= 3.0);
    // Pieces of 7 and 64 bytes and the whole: recognised as they arrived
    // (a byte at a time, the start takes too many looks).
    assert!(metric(url, "toolsift_catalogs_recognised_arriving_total") >= 3.0);
    // One byte changed in the catalog: parsed as the new catalog it is.
    let changed = text.replace("Page the on-call", "Page the on-cal");
    let (status, r) = trickle(url, changed.as_bytes(), 50);
    assert_eq!(status, 200, "{r}");
    assert_eq!(metric(url, "toolsift_catalog_parses_total"), 2.0);
    // A repeated catalog whose rest is bad: the whole body's error.
    let bad = text.replace("\"max_tools\":2", "\"max_tools\":0");
    let (status, r) = trickle(url, bad.as_bytes(), 100);
    assert_eq!(
        (status, &r["error"]["code"]),
        (400, &json!("invalid_max_tools"))
    );
}

/// A catalog of a few hundred kilobytes, sent again and again on one
/// connection kept alive, as the SDKs do: once the server's read buffer
/// has grown, a body comes in chunks of hundreds of kilobytes, and each is
/// still recognised as it arrives, never kept whole.
#[test]
fn a_large_catalog_on_a_kept_alive_connection_is_recognised_as_it_arrives() {
    let server = Server::start(&[], &[]);
    let url = server.url.as_str();
    let tools: Vec<Value> = (0..1500)
        .map(|i| {
            json!({"name": format!("tool_{i}"),
                   "description": format!("Looks after the service number {i} and reports on it"),
                   "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}}})
        })
        .collect();
    let tools = serde_json::to_string(&tools).unwrap();
    assert!(tools.len() > 200 << 10);
    toolsift::http::client::install_tls();
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .pool_max_idle_per_host(1)
        .build()
        .unwrap();
    let rounds = 12;
    for i in 0..rounds {
        let body = format!(r#"{{"tools":{tools},"query":"service number {i}","max_tools":3}}"#);
        let r = client
            .post(format!("{url}/sdk/v1/tool-search"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .unwrap();
        assert_eq!(r.status(), 200);
        let v: Value = r.json().unwrap();
        assert_eq!(v["tools"].as_array().map(Vec::len), Some(3), "{v}");
    }
    assert_eq!(metric(url, "toolsift_catalog_parses_total"), 1.0);
    assert_eq!(
        metric(url, "toolsift_catalogs_recognised_arriving_total"),
        f64::from(rounds - 1)
    );
}
