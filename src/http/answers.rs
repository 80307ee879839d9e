//! The answers a connection gets from the server itself, before or
//! without the service: 503 to a connection over the limit, and hyper's
//! own bodiless error answers (400, 414, 431) made JSON, so every answer
//! the server gives is JSON (`conn.rs` writes them).

use std::io;
use std::time::Duration;

use tokio::net::TcpStream;

use crate::wire::{ErrorBody, ErrorDetail};

/// 503 to a connection over the limit, then closed after reading what the
/// client sent (briefly), so it sees the answer rather than a reset.
pub(super) async fn refuse(mut stream: TcpStream, max: usize) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let answer = json_answer(
        503,
        "too_many_connections",
        &format!("this server holds at most {max} connections at once; try again shortly"),
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(&answer).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        let mut read = 0usize;
        while read < 64 << 10 {
            let n = stream.read(&mut sink).await?;
            if n == 0 {
                break;
            }
            read += n;
        }
        Ok::<_, io::Error>(())
    })
    .await;
}

/// A whole HTTP/1.1 answer with a JSON error body, closing the connection.
pub(crate) fn json_answer(status: u16, code: &str, message: &str) -> Vec<u8> {
    let body = serde_json::to_vec(&ErrorBody {
        error: ErrorDetail {
            code: code.to_string(),
            message: message.to_string(),
        },
    })
    .unwrap_or_default();
    let reason = axum::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Error");
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(&body);
    out
}

/// The JSON answer for hyper's own answer `head`, when it is one: a 400, 414
/// or 431 with no body, written before any request reached the service.
pub(super) fn protocol_error(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let status: u16 = text
        .strip_prefix("HTTP/1.1 ")
        .or_else(|| text.strip_prefix("HTTP/1.0 "))?
        .get(..3)?
        .parse()
        .ok()?;
    let empty = text.ends_with("\r\n\r\n")
        && text
            .split("\r\n")
            .any(|l| l.eq_ignore_ascii_case("content-length: 0"));
    if !empty {
        return None;
    }
    let (code, message) = match status {
        400 => (
            "bad_request",
            "the request is not valid HTTP/1.1: a malformed request line, header or version, or a bad Content-Length or Transfer-Encoding",
        ),
        414 => (
            "uri_too_long",
            "the request's path and query are over this server's limit of 65,534 bytes",
        ),
        431 => (
            "headers_too_large",
            "the request's header fields are over this server's limits (100 fields, about 400 KiB)",
        ),
        _ => return None,
    };
    Some(json_answer(status, code, message))
}
