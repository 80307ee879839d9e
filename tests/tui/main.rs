//! The explorer: whole screens as snapshots, the real binary in a pseudo-terminal (a pager and the clipboard too), hidden text on every screen.

#[path = "../common/mod.rs"]
mod common;

mod columns;
mod command_line;
mod compare;
mod exact;
#[cfg(feature = "bundled-model")]
mod first_run;
mod follow_gateway;
mod hidden_text;
mod live;
mod messages;
mod numbering;
mod pager;
mod reload;
mod same_answer;
mod screens;
mod servers_start;
mod state;
mod terminal;
mod tty;
mod widths;
