//! Whether the keys of an HTTP gateway share one connection to a server
//! (one process, for a stdio server) or each has its own.
//!
//! A server that cannot say which call it asks for (a stdio one) runs a
//! call it may ask its host about alone on its connection; with
//! `"isolation": "per-key"` each API key has its own connection, started on
//! the key's first call, so one key's calls never wait behind, share the
//! state of, or restart another key's server.

use serde::Deserialize;

/// How the keys of a gateway reach one server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// One connection for every key (the servers' listing goes through it).
    #[default]
    Shared,
    /// A connection of its own for each API key.
    PerKey,
}
