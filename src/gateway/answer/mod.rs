//! What the gateway answers a host: `tools/list` (the always-load tools and
//! the meta-tools, `meta.rs`), each meta-tool's answer (`find.rs` for
//! `search_tools`, `call.rs` for `call_tool` and `call_read_tool`), the
//! first view and the description made from the catalog, the results' own
//! JSON and text, a server's questions during a call (`rounds.rs`), and
//! the servers' resources, prompts and the rest passed on (`offered.rs`,
//! `relayed.rs`).

pub(super) mod call;
mod call_send;
pub(super) mod compact;
pub(super) mod describe;
pub(super) mod find;
pub(super) mod first_view;
pub(super) mod meta;
pub(super) mod offered;
pub(super) mod relayed;
pub(super) mod results;
pub(super) mod rounds;
