//! A session write waiting for its replicas (`--sessions-wait-replicas N`),
//! so a failover loses no session whose search was answered. Before it
//! waits, the write asks its primary how many replicas it has (`ROLE`, one
//! round trip): a primary left with fewer than N (its replica died, or it
//! is a replica promoted by a failover) is not waited on, since `WAIT`
//! would spend its whole limit on every write and, on the one connection
//! the store shares, hold every other store call behind it (about 2
//! requests/s instead of thousands). Such a write is answered at once,
//! counted, and said in the log, at most once a minute; a write that
//! waits again after a quiet spell says the replicas are back.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::redis_conn::Conn;

/// The longest a session write waits for its replicas.
pub const WAIT_MS: u64 = 500;

/// At most one log line in this long about writes not waited on.
const WARN_EVERY_MS: u64 = 60_000;

/// A write that waits this long after the last one not waited on says
/// the replicas are back.
const BACK_AFTER_MS: u64 = 10_000;

/// How session writes wait for replicas, and what they found.
#[derive(Debug)]
pub(super) struct ReplicaWait {
    /// The replicas a write waits for; 0 waits for none.
    wanted: u32,
    /// Writes answered before the replicas asked for held them.
    unreplicated: AtomicU64,
    /// Of them, writes not waited on: their primary had too few replicas.
    skipped: AtomicU64,
    /// Writes have been skipped since the replicas were last seen.
    degraded: AtomicBool,
    born: Instant,
    /// Milliseconds since `born` of the last warning, +1 (0: none yet).
    last_warned: AtomicU64,
    /// Milliseconds since `born` of the last write skipped.
    last_skip: AtomicU64,
}

impl ReplicaWait {
    pub(super) fn new(wanted: u32) -> ReplicaWait {
        ReplicaWait {
            wanted,
            unreplicated: AtomicU64::new(0),
            skipped: AtomicU64::new(0),
            degraded: AtomicBool::new(false),
            born: Instant::now(),
            last_warned: AtomicU64::new(0),
            last_skip: AtomicU64::new(0),
        }
    }

    pub(super) fn unreplicated(&self) -> u64 {
        self.unreplicated.load(Ordering::Relaxed)
    }

    pub(super) fn skipped(&self) -> u64 {
        self.skipped.load(Ordering::Relaxed)
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.born.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// After a write to the primary holding `key`: waits for the replicas
    /// asked for, up to [`WAIT_MS`], unless that primary has too few.
    /// `store` names the store in the log.
    pub(super) async fn after_write(
        &self,
        c: &mut Conn,
        key: &str,
        store: &str,
    ) -> redis::RedisResult<()> {
        if self.wanted == 0 {
            return Ok(());
        }
        // A store that does not answer ROLE (renamed, or not allowed to
        // this user) is waited on as before.
        let connected = c.connected_replicas(key).await.unwrap_or(self.wanted);
        if connected < self.wanted {
            self.unreplicated.fetch_add(1, Ordering::Relaxed);
            self.skipped.fetch_add(1, Ordering::Relaxed);
            self.note_skip(connected, store);
            return Ok(());
        }
        let held = c.wait_replicas(key, self.wanted, WAIT_MS).await?;
        if held < self.wanted {
            self.unreplicated.fetch_add(1, Ordering::Relaxed);
        } else {
            self.note_held(store);
        }
        Ok(())
    }

    fn note_skip(&self, connected: u32, store: &str) {
        let now = self.now_ms();
        self.last_skip.store(now, Ordering::Relaxed);
        self.degraded.store(true, Ordering::Relaxed);
        let last = self.last_warned.load(Ordering::Relaxed);
        let due = last == 0 || now.saturating_sub(last - 1) >= WARN_EVERY_MS;
        if due
            && self
                .last_warned
                .compare_exchange(last, now + 1, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            eprintln!(
                "session store {store}: a primary has {connected} of the {} replicas --sessions-wait-replicas asks for; its session writes are answered without waiting, not replicated ({} so far: toolsift_session_replica_waits_skipped_total), until it has them again",
                self.wanted,
                self.skipped()
            );
        }
    }

    fn note_held(&self, store: &str) {
        if !self.degraded.load(Ordering::Relaxed) {
            return;
        }
        let quiet = self
            .now_ms()
            .saturating_sub(self.last_skip.load(Ordering::Relaxed));
        if quiet >= BACK_AFTER_MS && self.degraded.swap(false, Ordering::Relaxed) {
            eprintln!(
                "session store {store}: session writes wait for {} replicas again ({} were answered without waiting)",
                self.wanted,
                self.skipped()
            );
        }
    }
}
