//! The command line, run as the real binary: check, search, eval, tune, replay, export-catalog, config files, hidden text, terminal safety, search regressions, the relevance gate, the evaluation sets' one check.

#[path = "../common/mod.rs"]
mod common;

mod check;
mod config;
mod count_with;
mod eval_sets;
mod gate;
mod generated;
mod hidden_text;
mod intents;
mod offline;
mod regex_ranker;
mod replay;
mod search;
mod search_regressions;
mod terminal_safety;
mod tune;
mod usage;
