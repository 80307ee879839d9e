//! The connection bounds under tokio's paused clock: the limits are the
//! defaults, and time only moves when every task waits.

use super::*;
use crate::http::answers::protocol_error;
use axum::routing::get;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[test]
fn hypers_bodiless_error_answers_become_json_and_nothing_else_does() {
    let hyper_400 = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: Tue, 01 Dec 2026 07:00:00 GMT\r\n\r\n";
    let out = protocol_error(hyper_400).unwrap();
    let text = String::from_utf8(out).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{head}");
    assert!(
        head.contains(&format!("content-length: {}", body.len())),
        "{head}"
    );
    assert!(head.contains("connection: close"));
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(v["error"]["code"], "bad_request");
    for (status, code) in [(431, "headers_too_large"), (414, "uri_too_long")] {
        let head = format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\n\r\n");
        let out = String::from_utf8(protocol_error(head.as_bytes()).unwrap()).unwrap();
        assert!(out.contains(code), "{out}");
    }
    // An answer with a body, another status, or a body's bytes: left alone.
    assert!(
        protocol_error(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 5\r\n\r\nhello").is_none()
    );
    assert!(protocol_error(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
    assert!(protocol_error(b"{\"error\":1}").is_none());
}

async fn start(limits: ConnLimits) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // `/` as a route behind a key answers once the key passed; `/healthz`
    // as one that needs none.
    let router = Router::new()
        .route(
            "/",
            get(|| async {
                crate::http::proven(axum::response::IntoResponse::into_response("hi"))
            }),
        )
        .route("/healthz", get(|| async { "ok" }));
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_as(
        "toolsift serve",
        listener,
        router,
        limits,
        async {
            let _ = rx.await;
        },
    ));
    (addr, tx)
}

async fn read_all(s: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out).await;
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test(start_paused = true)]
async fn a_half_sent_head_is_answered_408_at_the_head_limit() {
    let (addr, _stop) = start(ConnLimits::default()).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nhost: x\r\n").await.unwrap();
    let started = Instant::now();
    let answer = read_all(&mut s).await;
    let waited = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    assert!(answer.contains("\"request_timeout\""), "{answer}");
    assert!(
        waited >= DEFAULT_HEAD_TIMEOUT && waited < DEFAULT_HEAD_TIMEOUT + Duration::from_secs(1),
        "{waited:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn an_idle_kept_alive_connection_closes_at_the_idle_limit_not_the_heads() {
    let (addr, _stop) = start(ConnLimits::default()).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 1024];
    let n = s.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    let started = Instant::now();
    let rest = read_all(&mut s).await;
    let waited = started.elapsed();
    assert_eq!(rest, "", "an idle close says nothing");
    assert!(
        waited >= DEFAULT_IDLE_TIMEOUT && waited < DEFAULT_IDLE_TIMEOUT + Duration::from_secs(1),
        "{waited:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn shutdown_serves_a_whole_head_and_closes_a_half_one() {
    let (addr, stop) = start(ConnLimits::default()).await;
    let mut whole = TcpStream::connect(addr).await.unwrap();
    let mut half = TcpStream::connect(addr).await.unwrap();
    half.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
    // Both accepted (in order) once a third is answered.
    let mut third = TcpStream::connect(addr).await.unwrap();
    third
        .write_all(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    assert!(read_all(&mut third).await.starts_with("HTTP/1.1 200"));
    whole
        .write_all(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    let _ = stop.send(());
    let started = Instant::now();
    let answer = read_all(&mut whole).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
    assert_eq!(read_all(&mut half).await, "");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(start_paused = true)]
async fn connections_that_never_ask_give_their_places_to_new_ones() {
    let limits = ConnLimits {
        max_connections: 4,
        ..ConnLimits::default()
    };
    let (addr, _stop) = start(limits).await;
    // Every place taken by connections that send nothing.
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(10)).await;
    // A client still gets in, at once: the oldest idle one is closed.
    for _ in 0..3 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            .await
            .unwrap();
        let answer = read_all(&mut s).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
    assert_eq!(read_all(&mut idle[0]).await, "", "the oldest was closed");
}

#[tokio::test(start_paused = true)]
async fn a_full_server_of_clients_in_use_still_refuses_with_503() {
    let limits = ConnLimits {
        max_connections: 2,
        ..ConnLimits::default()
    };
    let (addr, _stop) = start(limits).await;
    // Two kept-alive clients answered with their keys checked: proven, kept.
    let mut kept = Vec::new();
    for _ in 0..2 {
        kept.push(answered(addr, "/").await);
    }
    let mut s = TcpStream::connect(addr).await.unwrap();
    let answer = read_all(&mut s).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
}

/// A kept-alive connection: `GET path` answered, the socket kept open.
async fn answered(addr: std::net::SocketAddr, path: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!("GET {path} HTTP/1.1\r\nhost: x\r\n\r\n");
    s.write_all(head.as_bytes()).await.unwrap();
    let mut buf = [0u8; 512];
    let n = s.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    s
}

#[tokio::test(start_paused = true)]
async fn connections_answered_only_where_no_key_is_needed_give_their_places_up() {
    let limits = ConnLimits {
        max_connections: 4,
        ..ConnLimits::default()
    };
    let (addr, _stop) = start(limits).await;
    // Every place taken by kept-alive connections that asked /healthz.
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(answered(addr, "/healthz").await);
    }
    // A keyed request still gets in, again and again: the oldest of them
    // is closed each time.
    for _ in 0..3 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            .await
            .unwrap();
        let answer = read_all(&mut s).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
    assert_eq!(read_all(&mut idle[0]).await, "", "the oldest was closed");
}
