//! Following a running gateway or service (`toolsift explore --follow`):
//! its `/events` stream over HTTP, or its `--trace` file as it grows. The
//! events come in batches, bounded: a reader that cannot keep up loses the
//! oldest and counts them. Losing the far side is told, and it is tried
//! again until it is back (a restarted gateway, a trace file started
//! anew).

pub mod catalog;
mod error;
mod sse;
mod tail;
pub use error::FollowError;
pub use tail::CHUNK;

use std::time::Duration;

use crate::traffic::{Event, KEPT_EVENTS};

/// What to follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A server's event stream (`…/events`), with the API key to send.
    Url { url: String, key: Option<String> },
    /// A trace file, read from its start and then as it grows.
    File(std::path::PathBuf),
    /// A recorded session bundled with toolsift (`@example`), told whole
    /// at once: nothing to follow after it.
    Recorded,
}

/// The recorded gateway session `--follow @example` plays: a help desk's
/// agent with four searches that failed it.
pub const EXAMPLE: &str = include_str!("../../assets/traces/gateway-session.jsonl");

impl Source {
    /// `text` as a source: an `http://` or `https://` address (the server's
    /// base, its `/mcp`, or its `/events`), else a file path.
    pub fn parse(text: &str, key: Option<String>) -> Result<Source, FollowError> {
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            let mut url = reqwest::Url::parse(text).map_err(|e| FollowError::NotAnAddress {
                given: text.to_string(),
                why: e.to_string(),
            })?;
            let path = url.path().trim_end_matches('/').to_string();
            let path = match path.strip_suffix("/mcp") {
                Some(base) => format!("{base}/events"),
                None if path.ends_with("/events") => path,
                None => format!("{path}/events"),
            };
            url.set_path(&path);
            return Ok(Source::Url {
                url: url.to_string(),
                key,
            });
        }
        if text.trim().is_empty() {
            return Err(FollowError::Nothing);
        }
        if text == "@example" {
            return Ok(Source::Recorded);
        }
        Ok(Source::File(text.into()))
    }

    /// As shown to the user.
    pub fn shown(&self) -> String {
        match self {
            Source::Url { url, .. } => url.clone(),
            Source::File(path) => path.display().to_string(),
            Source::Recorded => "@example (a recorded gateway session)".into(),
        }
    }

    /// What a recorded source tells, at once; `None` for one to follow.
    pub fn recorded(&self) -> Option<Vec<Note>> {
        match self {
            Source::Recorded => Some(vec![
                Note::Connected,
                Note::Events {
                    events: crate::traffic::parse(EXAMPLE, "@example").unwrap_or_default(),
                    dropped: 0,
                },
            ]),
            _ => None,
        }
    }
}

/// What a follower tells.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// Reached (again): events follow.
    Connected,
    /// Events, oldest first, and how many were lost before them (the far
    /// side's buffer, or this batch's bound).
    Events { events: Vec<Event>, dropped: u64 },
    /// A line that is not an event (told, skipped).
    BadLine(String),
    /// The far side is gone or not there yet; tried again in a moment.
    Lost(String),
    /// The trace file was started anew (a gateway restarted): what was read
    /// of it is from an earlier run.
    Restarted,
}

/// How long to wait before each try to connect again: doubling from half a
/// second to five.
fn reconnect_delays() -> impl Iterator<Item = Duration> {
    crate::http::backoff::doubling(Duration::from_millis(500), Duration::from_secs(5))
}

/// How often a batch goes out: events that come in a burst go together.
const BATCH_EVERY: Duration = Duration::from_millis(100);

/// A batch in the making, bounded by [`KEPT_EVENTS`].
#[derive(Default)]
struct Batch {
    events: std::collections::VecDeque<Event>,
    dropped: u64,
}

impl Batch {
    fn push(&mut self, event: Event) {
        if let Event::Dropped { count } = event {
            self.dropped += count;
            return;
        }
        if self.events.len() == KEPT_EVENTS {
            self.events.pop_front();
            self.dropped += 1;
        }
        self.events.push_back(event);
    }

    fn take(&mut self) -> Option<Note> {
        if self.events.is_empty() && self.dropped == 0 {
            return None;
        }
        Some(Note::Events {
            events: std::mem::take(&mut self.events).into(),
            dropped: std::mem::take(&mut self.dropped),
        })
    }
}

/// Follows `source` until `tell` refuses a note (the reader is gone).
pub async fn follow(source: Source, tell: impl Fn(Note) -> bool + Send + Sync + 'static) {
    match source {
        Source::Url { url, key } => sse::follow(&url, key.as_deref(), &tell).await,
        Source::File(path) => tail::follow(&path, &tell).await,
        Source::Recorded => {
            for note in source_notes() {
                if !tell(note) {
                    return;
                }
            }
        }
    }
}

fn source_notes() -> Vec<Note> {
    Source::Recorded.recorded().unwrap_or_default()
}

#[cfg(test)]
mod tests;
