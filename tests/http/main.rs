//! `toolsift serve` over real sockets, and the client against real servers: the contract, limits, hardening, the provider pass-through, the regex ranker, the relevance gate.

#[path = "../common/mod.rs"]
mod common;

mod client;
mod events;
mod follow;
mod gate;
mod hardening;
mod passthrough;
mod recognised;
mod regex_ranker;
mod serve;
mod sessions;
