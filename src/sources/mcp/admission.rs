//! How many calls one server runs at once: at most [`MAX_RUNNING`], the
//! next ones waiting their turn in order (within the call's own time
//! limit), and past [`MAX_WAITING`] waiting a call is refused at once,
//! saying so. Two thousand calls at once no longer reach a server at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Calls of one server running at once.
pub const MAX_RUNNING: usize = 16;
/// Calls of one server waiting for a place at once.
pub const MAX_WAITING: usize = 256;

/// One server's places.
struct Places {
    running: Arc<Semaphore>,
    waiting: AtomicUsize,
}

/// Every server's places, made as each is first called.
#[derive(Default)]
pub(super) struct Admission {
    servers: Mutex<HashMap<String, Arc<Places>>>,
}

/// Why a call did not get a place.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// Too many calls already wait for this server.
    Full,
}

impl Admission {
    fn places(&self, server: &str) -> Arc<Places> {
        crate::lock::lock(&self.servers)
            .entry(server.to_string())
            .or_insert_with(|| {
                Arc::new(Places {
                    running: Arc::new(Semaphore::new(MAX_RUNNING)),
                    waiting: AtomicUsize::new(0),
                })
            })
            .clone()
    }

    /// A place to run a call of `server`, waited for in turn; refused when
    /// [`MAX_WAITING`] calls wait already. The place is given back when
    /// the permit is dropped.
    pub(super) async fn enter(&self, server: &str) -> Result<OwnedSemaphorePermit, Refused> {
        let places = self.places(server);
        if let Ok(permit) = places.running.clone().try_acquire_owned() {
            return Ok(permit);
        }
        if places.waiting.fetch_add(1, Ordering::AcqRel) >= MAX_WAITING {
            places.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(Refused::Full);
        }
        let permit = places.running.clone().acquire_owned().await;
        places.waiting.fetch_sub(1, Ordering::AcqRel);
        // The semaphore is never closed.
        permit.map_err(|_| Refused::Full)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_server_runs_a_bounded_number_of_calls_and_queues_a_bounded_number() {
        let admission = Arc::new(Admission::default());
        let mut running = Vec::new();
        for _ in 0..MAX_RUNNING {
            running.push(admission.enter("s").await.unwrap());
        }
        // Another server is not held up by this one.
        drop(admission.enter("other").await.unwrap());
        let mut waiting = Vec::new();
        for _ in 0..MAX_WAITING {
            let a = admission.clone();
            waiting.push(tokio::spawn(async move { a.enter("s").await.map(|_| ()) }));
        }
        tokio::task::yield_now().await;
        while admission.places("s").waiting.load(Ordering::Acquire) < MAX_WAITING {
            tokio::task::yield_now().await;
        }
        assert_eq!(admission.enter("s").await.err(), Some(Refused::Full));
        // Places given back let the waiting calls run, in turn.
        drop(running);
        for w in waiting {
            assert_eq!(w.await.unwrap(), Ok(()));
        }
    }
}
