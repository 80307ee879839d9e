//! A server's `/events` stream: server-sent events, one traffic event a
//! `data:` line. A stream that ends or fails is opened again.

use std::time::Duration;

use futures_util::StreamExt;

use super::{BATCH_EVERY, Batch, Note, reconnect_delays};
use crate::traffic;

/// How long a connection may stay silent: the server sends a comment every
/// ten seconds, so a silent one is gone.
const SILENT: Duration = Duration::from_secs(30);

pub(super) async fn follow(url: &str, key: Option<&str>, tell: &(impl Fn(Note) -> bool + Sync)) {
    let client = match crate::http::client::builder()
        .connect_timeout(Duration::from_secs(5))
        .build()
    {
        Ok(c) => c,
        Err(e) => {
            tell(Note::Lost(format!("cannot make an HTTP client: {e}")));
            return;
        }
    };
    let mut delays = reconnect_delays();
    loop {
        let mut request = client.get(url).header("accept", "text/event-stream");
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let lost = match request.send().await {
            Err(e) => format!("{url}: {}", plain(&e)),
            Ok(r) if r.status() == reqwest::StatusCode::UNAUTHORIZED => format!(
                "{url}: 401 unauthorized: give the server's API key (--follow-key-env NAME)"
            ),
            Ok(r) if !r.status().is_success() => {
                format!(
                    "{url}: HTTP {} (is this a toolsift gateway or service?)",
                    r.status()
                )
            }
            Ok(response) => {
                delays = reconnect_delays();
                if !tell(Note::Connected) {
                    return;
                }
                match read(response, tell).await {
                    None => return,
                    Some(why) => why,
                }
            }
        };
        if !tell(Note::Lost(lost)) {
            return;
        }
        let delay = delays.next().unwrap_or(Duration::from_secs(5));
        tokio::time::sleep(delay).await;
    }
}

/// Reads one stream until it ends (`Some(why)`) or the reader is gone
/// (`None`).
async fn read(response: reqwest::Response, tell: &impl Fn(Note) -> bool) -> Option<String> {
    let mut body = response.bytes_stream();
    let mut pending: Vec<u8> = Vec::new();
    let mut batch = Batch::default();
    let mut tick = tokio::time::interval(BATCH_EVERY);
    let mut last_heard = tokio::time::Instant::now();
    loop {
        tokio::select! {
            chunk = body.next() => match chunk {
                None => {
                    flush(&mut batch, tell)?;
                    return Some("the server closed the stream".into());
                }
                Some(Err(e)) => {
                    flush(&mut batch, tell)?;
                    return Some(format!("the stream broke: {}", plain(&e)));
                }
                Some(Ok(bytes)) => {
                    last_heard = tokio::time::Instant::now();
                    pending.extend_from_slice(&bytes);
                    while let Some(end) = pending.iter().position(|&b| b == b'\n') {
                        let line: Vec<u8> = pending.drain(..=end).collect();
                        let line = String::from_utf8_lossy(&line);
                        let line = line.trim_end_matches(['\r', '\n']);
                        if let Some(data) = line.strip_prefix("data:") {
                            match traffic::parse_line(data.trim_start()) {
                                Ok(Some(event)) => batch.push(event),
                                Ok(None) => {}
                                Err(e) => {
                                    if !tell(Note::BadLine(format!("an event the server sent: {e}"))) {
                                        return None;
                                    }
                                }
                            }
                        }
                    }
                }
            },
            _ = tick.tick() => {
                flush(&mut batch, tell)?;
                if last_heard.elapsed() > SILENT {
                    return Some(format!("nothing heard for {} s", SILENT.as_secs()));
                }
            }
        }
    }
}

fn flush(batch: &mut Batch, tell: &impl Fn(Note) -> bool) -> Option<()> {
    match batch.take() {
        Some(note) => tell(note).then_some(()),
        None => Some(()),
    }
}

/// An HTTP error without reqwest's nesting noise.
pub(super) fn plain(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}
