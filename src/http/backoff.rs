//! The delays between tries of a client that connects out: doubling from a
//! first delay up to a cap (the `backon` crate's exponential backoff, no
//! jitter), and a server's `Retry-After` honoured within the same cap.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBackoff, ExponentialBuilder};

/// Delays doubling from `first`, each at most `cap`, without end.
pub fn doubling(first: Duration, cap: Duration) -> ExponentialBackoff {
    ExponentialBuilder::new()
        .with_min_delay(first)
        .with_factor(2.0)
        .with_max_delay(cap)
        .without_max_times()
        .build()
}

/// Delays between tries, one a try, a server's `Retry-After` in place of the
/// next doubling when it gave one, never over the cap.
pub struct Retries {
    doubling: ExponentialBackoff,
    cap: Duration,
}

impl Retries {
    /// Doubling from `first`, capped at `cap` (a `Retry-After` too).
    pub fn new(first: Duration, cap: Duration) -> Retries {
        Retries {
            doubling: doubling(first, cap),
            cap,
        }
    }

    /// The wait before the next try: `retry_after` when the server said
    /// one, else the next doubling; at most the cap either way.
    pub fn next_wait(&mut self, retry_after: Option<Duration>) -> Duration {
        let doubled = self.doubling.next().unwrap_or(self.cap);
        retry_after.unwrap_or(doubled).min(self.cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn doubling_starts_at_the_first_delay_and_stops_at_the_cap() {
        let delays: Vec<Duration> = doubling(ms(500), ms(5_000)).take(7).collect();
        assert_eq!(
            delays,
            [
                ms(500),
                ms(1000),
                ms(2000),
                ms(4000),
                ms(5000),
                ms(5000),
                ms(5000)
            ]
        );
    }

    #[test]
    fn retries_honour_retry_after_within_the_cap() {
        let mut retries = Retries::new(ms(250), Duration::from_secs(30));
        assert_eq!(retries.next_wait(None), ms(250));
        assert_eq!(retries.next_wait(Some(Duration::from_secs(3))), ms(3000));
        // The doubling went on under the server's wait.
        assert_eq!(retries.next_wait(None), ms(1000));
        assert_eq!(
            retries.next_wait(Some(Duration::from_secs(3600))),
            Duration::from_secs(30)
        );
        let mut long = Retries::new(Duration::from_secs(20), Duration::from_secs(30));
        long.next_wait(None);
        assert_eq!(long.next_wait(None), Duration::from_secs(30));
    }
}
