//! What the gateway allows: what each API key may reach, the per-tool
//! rules (allow, deny, ask, read) and their warnings, the user's approval of an `ask` call, a call's
//! arguments checked against its schema, a name that claims another
//! server, hidden text in a tool's definition or result, and the refusal
//! to stand in front of itself.

pub(super) mod access;
pub(super) mod approve;
pub(super) mod breaker;
pub(super) mod hidden;
pub(super) mod prefix;
pub(super) mod recursion;
pub(super) mod rule_warnings;
pub(super) mod rules;
pub(super) mod validate;
