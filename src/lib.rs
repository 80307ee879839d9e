//! toolsift: see what a tool catalog costs, how deferred loading and search
//! treat it, and why a tool was or was not found.
//!
//! The pure core: [`catalog`] (descriptors and importers), [`select`] (the
//! tools handle), [`breaker`] (the retry-loop breaker), [`tokens`] (schema
//! token costs and savings).

pub mod breaker;
pub mod catalog;
pub mod select;
pub mod tokens;
