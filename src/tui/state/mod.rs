//! The screens' states, one file each, each with its keys: what a key does
//! to the screen, and what it asks of the app (effects to run, settings to
//! put in force). Drawing each is the file of the same name in
//! [`super::ui`].

pub mod breaker;
pub mod catalog;
pub mod detail;
pub mod exact;
pub mod export;
pub mod help;
pub mod query;
pub mod results;
pub mod settings;
pub mod tune;
