//! A request body read whole within a size and a time limit. A body over
//! the limit is read to its end (up to a bound, in the time left) and
//! thrown away before the refusal, as nginx's lingering close does: a
//! client that sends its whole body before reading (Python's http.client
//! and urllib, so the Caveman Python SDK and the MCP SDKs' test clients)
//! then reads the answer instead of a broken pipe. `serve` and the
//! gateway each word the refusal their way.

use std::time::Instant;

use axum::body::Body;
use axum::http::HeaderMap;
use axum::http::header::CONTENT_LENGTH;
use futures_util::StreamExt;

/// Why a body was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyFault {
    /// Over the limit (what came was read and thrown away).
    TooLarge,
    /// Not all there by the deadline.
    TimedOut,
    /// The connection failed while it came.
    Broken(String),
}

/// The most a too-large body is read on (and thrown away) before its
/// refusal, so that a client still sending sees the answer rather than a
/// reset: four times the limit, at least 64 MiB.
pub(crate) fn discard_bound(limit: usize) -> usize {
    limit.saturating_mul(4).max(64 << 20)
}

/// The body's declared length, if it gives a valid one.
pub(crate) fn declared_length(headers: &HeaderMap) -> Option<usize> {
    headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
}

/// What a body's chunks are given to as they arrive.
pub(crate) trait BodySink {
    fn push(&mut self, chunk: &[u8]);
}

impl BodySink for Vec<u8> {
    fn push(&mut self, chunk: &[u8]) {
        self.extend_from_slice(chunk);
    }
}

/// Reads `body` whole into the sink `make` gives, which is handed the room
/// to make at once (the declared length, up to 4 MiB, so a body of a few
/// MB is copied once, not again as a buffer doubles, and a length declared
/// but not sent holds little).
pub(crate) async fn read_limited<S: BodySink>(
    limit: usize,
    deadline: Instant,
    headers: &HeaderMap,
    body: Body,
    make: impl FnOnce(usize) -> S,
) -> Result<S, BodyFault> {
    let declared = declared_length(headers);
    let deadline = tokio::time::Instant::from_std(deadline);
    let mut stream = body.into_data_stream();
    if declared.is_some_and(|n| n > discard_bound(limit)) {
        return Err(BodyFault::TooLarge);
    }
    // `None` once the body is over the limit (what comes is thrown away).
    let mut out = declared
        .is_none_or(|n| n <= limit)
        .then(|| make(declared.unwrap_or(0).min(4 << 20)));
    let mut seen = 0usize;
    loop {
        let over = out.is_none();
        let next = match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(next) => next,
            Err(_) if over => break,
            Err(_) => return Err(BodyFault::TimedOut),
        };
        let Some(chunk) = next else { break };
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(_) if over => break,
            Err(e) => return Err(BodyFault::Broken(e.to_string())),
        };
        seen = seen.saturating_add(chunk.len());
        if seen > limit {
            out = None;
        }
        match out.as_mut() {
            Some(sink) => sink.push(&chunk),
            None if seen > discard_bound(limit) => break,
            None => {}
        }
    }
    out.ok_or(BodyFault::TooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[tokio::test]
    async fn a_body_within_the_limit_is_read_whole_and_one_over_it_refused() {
        let headers = HeaderMap::new();
        let got = read_limited(
            10,
            soon(),
            &headers,
            Body::from("0123456789"),
            Vec::with_capacity,
        )
        .await
        .unwrap();
        assert_eq!(got, b"0123456789");
        let over = read_limited(
            10,
            soon(),
            &headers,
            Body::from("0123456789!"),
            Vec::with_capacity,
        )
        .await;
        assert_eq!(over, Err(BodyFault::TooLarge));
    }

    #[tokio::test]
    async fn a_declared_length_past_the_discard_bound_is_refused_unread() {
        let mut headers = HeaderMap::new();
        headers.insert(
            CONTENT_LENGTH,
            (discard_bound(10) + 1).to_string().parse().unwrap(),
        );
        let got = read_limited(
            10,
            soon(),
            &headers,
            Body::from("small"),
            Vec::with_capacity,
        )
        .await;
        assert_eq!(got, Err(BodyFault::TooLarge));
    }
}
