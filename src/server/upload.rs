//! A provider call's body streamed to the upstream as it arrives, within the
//! service's size limit and the request's time limit, so that a large body
//! is never held whole.

use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use futures_util::{Stream, StreamExt};
use tokio::time::Instant;

/// Why an upload stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// Over the size limit (the rest was read and thrown away).
    TooLarge,
    /// Not whole by the deadline.
    TimedOut,
    /// The client's connection failed.
    Broken,
}

/// Where an upload says why it stopped, read after the upstream call fails.
#[derive(Clone, Default)]
pub(crate) struct UploadFate(Arc<Mutex<Option<Stopped>>>);

impl UploadFate {
    pub(crate) fn get(&self) -> Option<Stopped> {
        self.0.lock().ok().and_then(|f| *f)
    }

    fn set(&self, why: Stopped) {
        if let Ok(mut f) = self.0.lock() {
            *f = Some(why);
        }
    }
}

/// `body` as a stream of at most `limit` bytes, whole by `deadline`. Past the
/// limit it reads on, up to `discard` bytes in all, throwing them away (so
/// the client that is still sending can read the 413), then fails.
pub(crate) fn bounded(
    body: Body,
    limit: usize,
    discard: usize,
    deadline: Instant,
    fate: UploadFate,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    struct St {
        stream: axum::body::BodyDataStream,
        seen: usize,
        done: bool,
    }
    let start = St {
        stream: body.into_data_stream(),
        seen: 0,
        done: false,
    };
    futures_util::stream::unfold(start, move |mut st| {
        let fate = fate.clone();
        async move {
            if st.done {
                return None;
            }
            let outcome = match tokio::time::timeout_at(deadline, st.stream.next()).await {
                Err(_) => Err(Stopped::TimedOut),
                Ok(None) => return None,
                Ok(Some(Err(_))) => Err(Stopped::Broken),
                Ok(Some(Ok(chunk))) => {
                    st.seen = st.seen.saturating_add(chunk.len());
                    if st.seen <= limit {
                        Ok(chunk)
                    } else {
                        // Over the limit: read the rest away, then fail.
                        while st.seen <= discard {
                            match tokio::time::timeout_at(deadline, st.stream.next()).await {
                                Ok(Some(Ok(more))) => st.seen = st.seen.saturating_add(more.len()),
                                _ => break,
                            }
                        }
                        Err(Stopped::TooLarge)
                    }
                }
            };
            match outcome {
                Ok(chunk) => Some((Ok(chunk), st)),
                Err(why) => {
                    st.done = true;
                    fate.set(why);
                    Some((Err(std::io::Error::other(format!("{why:?}"))), st))
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    async fn collect(
        body: Body,
        limit: usize,
        deadline: Instant,
    ) -> (Vec<u8>, bool, Option<Stopped>) {
        let fate = UploadFate::default();
        let mut s = Box::pin(bounded(body, limit, 1 << 20, deadline, fate.clone()));
        let mut out = Vec::new();
        let mut failed = false;
        while let Some(item) = s.next().await {
            match item {
                Ok(b) => out.extend_from_slice(&b),
                Err(_) => failed = true,
            }
        }
        (out, failed, fate.get())
    }

    #[tokio::test]
    async fn passes_a_body_within_the_limit_and_stops_one_over_it() {
        let later = Instant::now() + Duration::from_secs(5);
        let (out, failed, fate) = collect(Body::from("hello"), 5, later).await;
        assert_eq!(
            (out.as_slice(), failed, fate),
            (b"hello".as_slice(), false, None)
        );
        let chunks = futures_util::stream::iter(
            (0..4).map(|_| Ok::<_, std::io::Error>(Bytes::from_static(b"abc"))),
        );
        let (out, failed, fate) = collect(Body::from_stream(chunks), 7, later).await;
        assert_eq!(out, b"abcabc");
        assert!(failed);
        assert_eq!(fate, Some(Stopped::TooLarge));
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_does_not_end_in_time_times_out() {
        let slow =
            futures_util::stream::once(async { Ok::<_, std::io::Error>(Bytes::from_static(b"x")) })
                .chain(futures_util::stream::pending());
        let deadline = Instant::now() + Duration::from_secs(10);
        let (out, failed, fate) = collect(Body::from_stream(slow), 100, deadline).await;
        assert_eq!(out, b"x");
        assert!(failed);
        assert_eq!(fate, Some(Stopped::TimedOut));
    }
}
