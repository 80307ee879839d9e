//! Parts of the command line too large for `main.rs`.

pub mod mcp;
pub mod tune;
