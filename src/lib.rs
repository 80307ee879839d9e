//! toolsift: see what a tool catalog costs, how deferred loading and search
//! treat it, and why a tool was or was not found.
//!
//! The pure core: [`catalog`] (descriptors and importers), [`tools_handle`]
//! (the SDK's tools handle), [`engine`] (ranking), [`provider`] (each model
//! provider's names, tool shapes and how its models see a tool list),
//! [`tokens`] (token costs and savings), [`export`] (tools written out),
//! [`breaker`] (the retry-loop breaker), [`settings`] (the explorer's
//! settings record). ARCHITECTURE.md maps the floors above it; below all,
//! [`terminal_text`] makes untrusted text safe to print on a terminal.

pub mod breaker;
pub mod caching;
pub mod catalog;
pub mod check;
pub mod client;
pub mod config;
pub mod embed;
pub mod engine;
pub mod eval;
pub mod export;
pub mod file_stamps;
pub mod file_value;
pub mod findability;
pub mod follow;
#[cfg(feature = "mcp")]
pub mod gateway;
pub mod heap_size;
pub mod http;
pub mod layer;
pub mod lock;
pub mod numbers;
pub mod private_file;
pub mod provider;
pub mod provider_count;
pub mod replay;
pub mod search;
pub mod server;
pub mod service;
pub mod settings;
pub mod sources;
pub mod telemetry;
pub mod terminal_text;
pub mod tokens;
pub mod tools_handle;
pub mod traffic;
#[cfg(feature = "tui")]
pub mod tui;
pub mod tune;
pub mod wire;

#[cfg(test)]
mod module_rules;
