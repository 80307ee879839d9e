//! Connections that have not yet been answered anything but 401: when
//! every place is taken, a new connection takes the place of the oldest of
//! them that holds no request. Without it, a few thousand connections that
//! never send a request (or only requests without a key) would have every
//! other client, keys and all, answered 503 for as long as they idle.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};

use super::conn::ConnState;

/// The connections not proven yet, oldest first.
#[derive(Default)]
pub(super) struct Unproven {
    list: Mutex<VecDeque<Weak<ConnState>>>,
}

impl Unproven {
    pub(super) fn add(&self, state: &Arc<ConnState>) {
        crate::lock::lock(&self.list).push_back(Arc::downgrade(state));
    }

    /// Closes the oldest unproven connection that holds no request (as a
    /// shutdown closes an idle one); whether there was one.
    pub(super) fn evict_one(&self) -> bool {
        let mut list = crate::lock::lock(&self.list);
        // Gone and proven connections leave the list as they are met.
        while let Some(weak) = list.pop_front() {
            let Some(state) = weak.upgrade() else {
                continue;
            };
            if state.proven.load(Ordering::Acquire) {
                continue;
            }
            if state.in_flight.load(Ordering::Acquire) > 0 || state.stopping.load(Ordering::Acquire)
            {
                list.push_back(weak);
                // Every one left is busy or closing: none to take.
                if list.iter().all(|w| {
                    w.upgrade().is_none_or(|s| {
                        s.proven.load(Ordering::Acquire)
                            || s.in_flight.load(Ordering::Acquire) > 0
                            || s.stopping.load(Ordering::Acquire)
                    })
                }) {
                    return false;
                }
                continue;
            }
            state.stop();
            return true;
        }
        false
    }
}
