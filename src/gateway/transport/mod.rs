//! How a host reaches the gateway: stdio (one process, one session) and
//! streamable HTTP (its sessions bounded and bound to their key), each
//! message checked before rmcp reads it (`http_wire.rs`), and the stop
//! that lets the calls in flight finish (`drain.rs`).

pub(super) mod drain;
pub(super) mod http;
pub(super) mod http_sessions;
pub(super) mod http_wire;
pub(super) mod stdio;
