//! The calls in flight when the gateway is told to stop (SIGTERM, SIGINT,
//! SIGHUP): no new call starts, those running get a grace period to finish
//! and be answered, and the ones still running then are answered that the
//! gateway stopped, before the servers are killed and the process exits.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::watch;

/// How long a stop waits for the calls in flight, unless told otherwise.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Time for an answer handed over to be written to the host (stdout, or
/// the HTTP response) before the process exits.
const WRITE_TIME: Duration = Duration::from_millis(300);

/// The most a call cut short takes to be answered.
const CUT_TIME: Duration = Duration::from_secs(2);

/// The gateway's calls in flight, and whether it is stopping.
#[derive(Debug)]
pub struct Drain {
    in_flight: AtomicUsize,
    stopping: AtomicBool,
    /// The grace period, in milliseconds.
    grace_ms: AtomicU64,
    /// True once the calls still running are to be answered at once.
    cut: watch::Sender<bool>,
    /// True once every call is answered (or given up on).
    settled: watch::Sender<bool>,
}

impl Default for Drain {
    fn default() -> Self {
        Drain {
            in_flight: AtomicUsize::new(0),
            stopping: AtomicBool::new(false),
            grace_ms: AtomicU64::new(DEFAULT_SHUTDOWN_GRACE.as_millis() as u64),
            cut: watch::channel(false).0,
            settled: watch::channel(false).0,
        }
    }
}

/// A call counted in flight until dropped.
#[derive(Debug)]
pub(crate) struct InFlight<'a>(&'a Drain);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How a stop went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped {
    /// Calls that finished within the grace period.
    pub finished: usize,
    /// Calls answered that the gateway stopped.
    pub cut: usize,
}

impl Drain {
    /// Counts a call in flight; `None` once the gateway is stopping.
    pub(crate) fn enter(&self) -> Option<InFlight<'_>> {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let guard = InFlight(self);
        (!self.stopping.load(Ordering::SeqCst)).then_some(guard)
    }

    /// Resolves when the calls in flight are to be answered at once.
    pub(crate) async fn cut(&self) {
        let mut cut = self.cut.subscribe();
        let _ = cut.wait_for(|c| *c).await;
    }

    /// How long a stop waits for the calls in flight.
    pub fn set_grace(&self, grace: Duration) {
        self.grace_ms.store(
            u64::try_from(grace.as_millis()).unwrap_or(u64::MAX),
            Ordering::SeqCst,
        );
    }

    /// The grace period.
    pub fn grace(&self) -> Duration {
        Duration::from_millis(self.grace_ms.load(Ordering::SeqCst))
    }

    fn running(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    /// Stops: refuses new calls, waits up to the grace period for those
    /// in flight, answers the rest that the gateway stopped, and leaves
    /// time for the answers to be written. Blocks the calling thread (the
    /// signal thread's, or one of the runtime's blocking pool), not the
    /// runtime's. A stop already begun is waited for, and `None`.
    pub fn stop(&self) -> Option<Stopped> {
        if self.stopping.swap(true, Ordering::SeqCst) {
            while !*self.settled.borrow() {
                std::thread::sleep(Duration::from_millis(20));
            }
            return None;
        }
        let at_start = self.running();
        let deadline = Instant::now() + self.grace();
        while self.running() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let cut = self.running();
        if cut > 0 {
            self.cut.send_replace(true);
            let deadline = Instant::now() + CUT_TIME;
            while self.running() > 0 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        if at_start > 0 {
            std::thread::sleep(WRITE_TIME);
        }
        self.settled.send_replace(true);
        Some(Stopped {
            finished: at_start.saturating_sub(cut),
            cut,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_stop_waits_for_a_call_refuses_new_ones_and_cuts_one_past_the_grace() {
        let drain = Arc::new(Drain::default());
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        // One call ends 100 ms into the stop; one would run for ever.
        let quick = {
            let drain = drain.clone();
            rt.spawn(async move {
                let _in = drain.enter().unwrap();
                tokio::time::sleep(Duration::from_millis(100)).await;
                "finished"
            })
        };
        let stuck = {
            let drain = drain.clone();
            rt.spawn(async move {
                let _in = drain.enter().unwrap();
                tokio::select! {
                    () = std::future::pending::<()>() => "never",
                    () = drain.cut() => "cut",
                }
            })
        };
        while drain.running() < 2 {
            std::thread::sleep(Duration::from_millis(5));
        }
        drain.set_grace(Duration::from_millis(500));
        let stopped = drain.stop();
        assert_eq!(
            stopped,
            Some(Stopped {
                finished: 1,
                cut: 1
            })
        );
        assert!(drain.enter().is_none(), "no call starts once stopping");
        assert_eq!(drain.running(), 0);
        assert_eq!(rt.block_on(quick).unwrap(), "finished");
        assert_eq!(rt.block_on(stuck).unwrap(), "cut");
        assert_eq!(drain.stop(), None, "a second stop waits for the first");
    }

    #[test]
    fn a_stop_with_nothing_in_flight_is_at_once() {
        let drain = Drain::default();
        drain.set_grace(Duration::from_secs(600));
        assert_eq!(
            drain.stop(),
            Some(Stopped {
                finished: 0,
                cut: 0
            })
        );
        assert!(drain.enter().is_none());
    }
}
