//! Connections no request has proved a client's yet: when every place is
//! taken, a new connection takes the place of the oldest of them that holds
//! no request. Without it, a few thousand connections that never send a
//! request (or only requests that need no key, or lack one) would have
//! every other client, keys and all, answered 503 for as long as they idle.
//!
//! A connection is proved by an answer marked [`Proven`]: the routes that
//! check a request's API key mark what they answer once the key passes
//! (on a server without keys, every route that would check one). What
//! needs no key (`/healthz`, an open `/metrics`), a 401 and a path no
//! route answers prove nothing.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};

use axum::response::Response;

/// In an answer's extensions: the request's API key was checked and let
/// through, so its connection is a client's of this server and keeps its
/// place when every place is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proven;

/// `response`, marked [`Proven`].
pub fn proven(mut response: Response) -> Response {
    response.extensions_mut().insert(Proven);
    response
}

/// Whether `response` is marked [`Proven`].
pub(super) fn is_proven(response: &Response) -> bool {
    response.extensions().get::<Proven>().is_some()
}

/// What the list needs to know of a connection (`conn.rs`'s state).
pub(super) trait Connection: Send + Sync {
    /// Answered with a key checked ([`Proven`]): a client of this server's.
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
