//! Catalog sources beyond files: live MCP servers.

pub mod mcp;
