//! Connections that have not yet been answered anything but 401: when
//! every place is taken, a new connection takes the place of the oldest of
//! them that holds no request. Without it, a few thousand connections that
//! never send a request (or only requests without a key) would have every
//! other client, keys and all, answered 503 for as long as they idle.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};

/// What the list needs to know of a connection (`conn.rs`'s state).
pub(super) trait Connection: Send + Sync {
    /// Answered something other than 401: a client of this server's.
    fn proven(&self) -> bool;
    /// Holding a request, or closing already.
    fn busy(&self) -> bool;
    /// Closes it as a shutdown closes an idle connection.
    fn close(&self);
}

/// The connections not proven yet, oldest first.
pub(super) struct Unproven<C> {
    list: Mutex<VecDeque<Weak<C>>>,
}

impl<C> Default for Unproven<C> {
    fn default() -> Self {
        Unproven {
            list: Mutex::new(VecDeque::new()),
        }
    }
}

impl<C: Connection> Unproven<C> {
    pub(super) fn add(&self, state: &Arc<C>) {
        crate::lock::lock(&self.list).push_back(Arc::downgrade(state));
    }

    /// Closes the oldest unproven connection that holds no request; whether
    /// there was one. Gone and proven connections leave the list as they
    /// are met; busy ones stay in it.
    pub(super) fn evict_one(&self) -> bool {
        let mut list = crate::lock::lock(&self.list);
        let mut kept = VecDeque::with_capacity(list.len());
        let mut evicted = false;
        while let Some(weak) = list.pop_front() {
            let Some(state) = weak.upgrade() else {
                continue;
            };
            if state.proven() {
                continue;
            }
            if !evicted && !state.busy() {
                state.close();
                evicted = true;
                continue;
            }
            kept.push_back(weak);
        }
        *list = kept;
        evicted
    }
}
