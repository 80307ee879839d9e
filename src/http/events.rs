//! `GET /events`: a server's traffic as server-sent events, one
//! [`crate::traffic`] event a `data:` line, for `toolsift explore --follow`.
//! Read-only and behind the same keys as the other routes. A follower sees
//! the traffic of its own API key (each event is sent with the digest of
//! the key that made it), every key's only with an operator's key
//! (`--operator-key-env`), or when the server has no keys. The sender
//! never waits: a follower that falls behind misses the oldest events and
//! gets a `dropped` event counting them. At most [`MAX_PER_KEY`] followers
//! of one key at once (more are answered 429), and a stream ends after
//! [`STREAM_LIMIT`] (a follower connects again) or when the server stops.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, watch};

use crate::traffic;

/// The path followers read.
pub const EVENTS_PATH: &str = "/events";

/// Events a follower may fall behind by before it is told it dropped some.
pub const BUFFER: usize = 1024;

/// Followers of one key at once.
pub const MAX_PER_KEY: usize = 8;

/// How long one stream lasts: a follower that wants more connects again.
pub const STREAM_LIMIT: Duration = Duration::from_secs(60 * 60);

/// Who follows: which events a stream carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Viewer {
    /// Every event (an operator's key, or a server without keys).
    All,
    /// The events of this key (its digest, or its name), and those of no key.
    Key(String),
}

impl Viewer {
    fn sees(&self, scope: Option<&str>) -> bool {
        match (self, scope) {
            (Viewer::All, _) | (_, None) => true,
            (Viewer::Key(mine), Some(theirs)) => mine == theirs,
        }
    }

    /// The viewer of a request that proved `key` to a server with `keys`.
    pub fn of(keys: &crate::http::ApiKeys, key: &str) -> Viewer {
        Viewer::named(keys, key, crate::http::keys::digest(key))
    }

    /// [`Viewer::of`] for a key its events carry as `label` (its name,
    /// where the gateway names its keys, else its digest).
    pub fn named(keys: &crate::http::ApiKeys, key: &str, label: Option<String>) -> Viewer {
        if keys.is_empty() || keys.is_operator(key) {
            return Viewer::All;
        }
        label.map_or(Viewer::All, Viewer::Key)
    }
}

/// An event, and the digest of the key it belongs to (none: everyone's).
type Scoped = (Option<Arc<str>>, Arc<str>);

/// How often an idle stream sends a comment, so proxies keep it open and
/// a follower notices a far side that went away.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// Events to a follower and a way to end every stream.
pub struct Followers {
    events: broadcast::Sender<Scoped>,
    stop: watch::Sender<bool>,
    /// Streams open, by viewer.
    open: Arc<std::sync::Mutex<HashMap<String, usize>>>,
}

impl Followers {
    pub fn new(buffer: usize) -> Followers {
        Followers {
            events: broadcast::channel(buffer).0,
            stop: watch::channel(false).0,
            open: Arc::default(),
        }
    }

    /// Someone follows (an event is built only then).
    pub fn any(&self) -> bool {
        self.events.receiver_count() > 0
    }

    /// An event of no key's (every follower's); never waits.
    pub fn send(&self, event: &traffic::Event) {
        self.send_as(event, None);
    }

    /// An event of the key whose digest is `key` (its followers' and the
    /// operators'); never waits.
    pub fn send_as(&self, event: &traffic::Event, key: Option<&str>) {
        if self.any() {
            let _ = self
                .events
                .send((key.map(Arc::from), traffic::to_line(event).into()));
        }
    }

    /// A follower from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Scoped> {
        self.events.subscribe()
    }

    /// Ends every stream (the server stops).
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }

    /// The response of `GET /events` for `viewer`: 429 past
    /// [`MAX_PER_KEY`] streams of one viewer.
    pub fn response(&self, viewer: Viewer) -> Response {
        let slot = match Slot::take(&self.open, &viewer) {
            Some(slot) => slot,
            None => {
                return (
                    axum::http::StatusCode::TOO_MANY_REQUESTS,
                    axum::Json(serde_json::json!({"error": {
                        "type": "too_many_followers",
                        "message": format!("at most {MAX_PER_KEY} followers of one API key at once"),
                    }})),
                )
                    .into_response();
            }
        };
        let ends = tokio::time::Instant::now() + STREAM_LIMIT;
        let state = (self.subscribe(), self.stop.subscribe(), viewer, slot);
        let stream = futures_util::stream::unfold(
            state,
            move |(mut rx, mut stop, viewer, slot)| async move {
                loop {
                    if *stop.borrow() {
                        return None;
                    }
                    let line: Arc<str> = tokio::select! {
                        got = rx.recv() => match got {
                            Ok((scope, line)) if viewer.sees(scope.as_deref()) => line,
                            Ok(_) => continue,
                            Err(RecvError::Lagged(count)) => {
                                traffic::to_line(&traffic::Event::Dropped { count }).into()
                            }
                            Err(RecvError::Closed) => return None,
                        },
                        _ = stop.changed() => return None,
                        () = tokio::time::sleep_until(ends) => return None,
                    };
                    let event = SseEvent::default().data(line.as_ref());
                    return Some((Ok::<_, Infallible>(event), (rx, stop, viewer, slot)));
                }
            },
        );
        Sse::new(stream)
            .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
            .into_response()
    }
}

/// One open stream of a viewer, given back when the stream ends.
struct Slot {
    open: Arc<std::sync::Mutex<HashMap<String, usize>>>,
    key: String,
}

impl Slot {
    fn take(open: &Arc<std::sync::Mutex<HashMap<String, usize>>>, viewer: &Viewer) -> Option<Slot> {
        let key = match viewer {
            Viewer::All => String::new(),
            Viewer::Key(k) => k.clone(),
        };
        let mut map = crate::lock::lock(open);
        let n = map.entry(key.clone()).or_default();
        // An operator (or a server without keys) is one viewer too.
        if *n >= MAX_PER_KEY {
            return None;
        }
        *n += 1;
        Some(Slot {
            open: open.clone(),
            key,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut map = crate::lock::lock(&self.open);
        if let Some(n) = map.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_follower_sees_its_own_keys_events_and_an_operator_every_keys() {
        let a = Viewer::Key("key-a".into());
        assert!(a.sees(Some("key-a")) && a.sees(None) && !a.sees(Some("key-b")));
        assert!(Viewer::All.sees(Some("key-b")));
        let keys = crate::http::ApiKeys::new(vec!["alpha".into()])
            .with_operators(crate::http::ApiKeys::new(vec!["boss".into()]));
        assert_eq!(Viewer::of(&keys, "boss"), Viewer::All);
        assert_eq!(
            Viewer::of(&keys, "alpha"),
            Viewer::Key(crate::http::keys::digest("alpha").unwrap())
        );
        assert_eq!(
            Viewer::of(&crate::http::ApiKeys::default(), ""),
            Viewer::All
        );
    }

    #[test]
    fn followers_of_one_key_are_capped() {
        let open = Arc::default();
        let viewer = Viewer::Key("key-a".into());
        let slots: Vec<Slot> = (0..MAX_PER_KEY)
            .map(|_| Slot::take(&open, &viewer).unwrap())
            .collect();
        assert!(Slot::take(&open, &viewer).is_none());
        assert!(Slot::take(&open, &Viewer::Key("key-b".into())).is_some());
        drop(slots);
        assert!(Slot::take(&open, &viewer).is_some());
    }
}
