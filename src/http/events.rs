//! `GET /events`: a server's traffic as server-sent events, one
//! [`crate::traffic`] event a `data:` line, for `toolsift explore --follow`.
//! Read-only and behind the same keys as the other routes. The sender
//! never waits: a follower that falls behind misses the oldest events and
//! gets a `dropped` event counting them. The stream ends when the server
//! stops.

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

/// How often an idle stream sends a comment, so proxies keep it open and
/// a follower notices a far side that went away.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// Events to a follower and a way to end every stream.
pub struct Followers {
    events: broadcast::Sender<Arc<str>>,
    stop: watch::Sender<bool>,
}

impl Followers {
    pub fn new(buffer: usize) -> Followers {
        Followers {
            events: broadcast::channel(buffer).0,
            stop: watch::channel(false).0,
        }
    }

    /// Someone follows (an event is built only then).
    pub fn any(&self) -> bool {
        self.events.receiver_count() > 0
    }

    /// An event to every follower; never waits.
    pub fn send(&self, event: &traffic::Event) {
        if self.any() {
            let _ = self.events.send(traffic::to_line(event).into());
        }
    }

    /// A follower from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<str>> {
        self.events.subscribe()
    }

    /// Ends every stream (the server stops).
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }

    /// The response of `GET /events`.
    pub fn response(&self) -> Response {
        let state = (self.subscribe(), self.stop.subscribe());
        let stream = futures_util::stream::unfold(state, |(mut rx, mut stop)| async move {
            if *stop.borrow() {
                return None;
            }
            let line: Arc<str> = tokio::select! {
                got = rx.recv() => match got {
                    Ok(line) => line,
                    Err(RecvError::Lagged(count)) => {
                        traffic::to_line(&traffic::Event::Dropped { count }).into()
                    }
                    Err(RecvError::Closed) => return None,
                },
                _ = stop.changed() => return None,
            };
            let event = SseEvent::default().data(line.as_ref());
            Some((Ok::<_, Infallible>(event), (rx, stop)))
        });
        Sse::new(stream)
            .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
            .into_response()
    }
}
