//! Parts of the command line too large for `main.rs`.

pub mod embed;
pub mod mcp;
pub mod tune;
