//! The progress a server reports of one call, on its way to the call's
//! host: bounded in memory whatever the host does. At most [`KEPT`]
//! reports wait; past that the oldest waiting one is dropped (a report
//! supersedes the ones before it, so the newest is always kept). A host
//! that stops reading costs a few reports, never memory without end, and
//! what waited is freed when the call ends.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::ProgressNotificationParam;

use crate::lock::lock;

/// Reports waiting for the host at most, per call.
pub const KEPT: usize = 64;

struct Inner {
    waiting: std::sync::Mutex<VecDeque<ProgressNotificationParam>>,
    senders: AtomicUsize,
    dropped: AtomicUsize,
    changed: tokio::sync::Notify,
}

/// Where the progress of one call goes (cloned as often as needed).
pub struct ProgressSink(Arc<Inner>);

/// The reports of one call, in order, as the host can take them.
pub struct ProgressReports(Arc<Inner>);

/// A sink and its reports.
pub fn progress_channel() -> (ProgressSink, ProgressReports) {
    let inner = Arc::new(Inner {
        waiting: std::sync::Mutex::new(VecDeque::new()),
        senders: AtomicUsize::new(1),
        dropped: AtomicUsize::new(0),
        changed: tokio::sync::Notify::new(),
    });
    (ProgressSink(inner.clone()), ProgressReports(inner))
}

impl ProgressSink {
    /// Queues `report`; the oldest waiting one gives way when [`KEPT`]
    /// wait already. Never blocks.
    pub fn push(&self, report: ProgressNotificationParam) {
        {
            let mut waiting = lock(&self.0.waiting);
            if waiting.len() >= KEPT {
                waiting.pop_front();
                self.0.dropped.fetch_add(1, Ordering::Relaxed);
            }
            waiting.push_back(report);
        }
        self.0.changed.notify_one();
    }
}

impl Clone for ProgressSink {
    fn clone(&self) -> ProgressSink {
        self.0.senders.fetch_add(1, Ordering::AcqRel);
        ProgressSink(self.0.clone())
    }
}

impl Drop for ProgressSink {
    fn drop(&mut self) {
        if self.0.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.changed.notify_one();
        }
    }
}

impl ProgressReports {
    /// The next report; `None` once every sink is gone and none waits.
    pub async fn recv(&mut self) -> Option<ProgressNotificationParam> {
        loop {
            let changed = self.0.changed.notified();
            if let Some(report) = lock(&self.0.waiting).pop_front() {
                return Some(report);
            }
            if self.0.senders.load(Ordering::Acquire) == 0 {
                return None;
            }
            changed.await;
        }
    }

    /// Hands the reports on to `host` under its own `token`, in order,
    /// until the call is over or the host is gone.
    pub async fn relay(mut self, host: rmcp::Peer<rmcp::RoleServer>, token: rmcp::model::ProgressToken) {
        while let Some(mut report) = self.recv().await {
            report.progress_token = token.clone();
            if host.notify_progress(report).await.is_err() {
                return;
            }
        }
    }

    /// Reports dropped so far because the host did not keep up.
    pub fn dropped(&self) -> usize {
        self.0.dropped.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{NumberOrString, ProgressToken};

    fn report(n: u32) -> ProgressNotificationParam {
        ProgressNotificationParam::new(ProgressToken(NumberOrString::Number(1)), f64::from(n))
    }

    #[tokio::test]
    async fn a_host_that_does_not_read_holds_a_bounded_number_of_reports_the_newest_kept() {
        let (sink, mut reports) = progress_channel();
        for n in 0..300_000 {
            sink.push(report(n));
        }
        assert_eq!(lock(&reports.0.waiting).len(), KEPT);
        assert_eq!(reports.dropped(), 300_000 - KEPT);
        drop(sink);
        let mut got = Vec::new();
        while let Some(r) = reports.recv().await {
            got.push(r.progress);
        }
        assert_eq!(got.len(), KEPT);
        assert_eq!(got.last().copied(), Some(299_999.0));
        assert!(got.windows(2).all(|w| w[0] < w[1]), "in order");
    }

    #[tokio::test]
    async fn reports_end_when_every_sink_is_gone() {
        let (sink, mut reports) = progress_channel();
        let other = sink.clone();
        drop(sink);
        other.push(report(1));
        let waiter = tokio::spawn(async move {
            let mut n = 0;
            while reports.recv().await.is_some() {
                n += 1;
            }
            n
        });
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert!(!waiter.is_finished());
        drop(other);
        assert_eq!(waiter.await.unwrap(), 1);
    }
}
