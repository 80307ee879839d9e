//! The HTTP layer under both servers (`serve` and the gateway's `--http`)
//! and every client that connects out.
//!
//! - [`conn`]: the accept loop (connection limits, head and idle timeouts);
//!   [`proven`] marks an answer whose request's key was checked, which
//!   keeps its connection's place.
//! - [`body`]: a request body read within its limit and deadline.
//! - [`keys`]: API keys, checked in constant time; [`guard`]: the one rule
//!   for a public address without keys, the one answer to a request
//!   without a valid key, `/metrics`' answer, and the stop signal.
//! - [`metrics`]: the Prometheus recorder, one per process.
//! - [`events`]: `GET /events`, the traffic as server-sent events.
//! - [`client`]: an HTTP client with the TLS provider installed;
//!   [`backoff`]: the delays between its tries.
//!
//! What a route answers is its front end's; how it is served is here.

mod answers;
pub mod backoff;
pub mod body;
pub mod client;
pub mod conn;
pub mod events;
pub mod guard;
pub mod keys;
pub mod metrics;
mod metrics_beside;
mod unproven;

pub use conn::ConnLimits;
pub use guard::{PublicWithoutKey, check_bind, shutdown_signal, unauthorized};
pub use keys::{ApiKeys, KeyError};
pub use unproven::{Proven, proven};
