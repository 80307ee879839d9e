//! The explorer: whole screens as snapshots, the real binary in a pseudo-terminal, hidden text on every screen.

#[path = "../common/mod.rs"]
mod common;

mod hidden_text;
mod screens;
mod terminal;
mod widths;
