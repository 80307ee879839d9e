//! The session the caching lines simulate: [`TURNS`] turns of
//! [`TURN_TOKENS`] message tokens, a system prompt of [`SYSTEM_TOKENS`],
//! and a search's tools found on turn [`FOUND_ON`]; what it costs each
//! way, and the words the lines name a provider with.

use crate::caching::{self, Pricing, Tools};
use std::sync::Arc;

use crate::catalog::Catalog;
use crate::settings::Settings;
use crate::tools_handle::ToolsHandle;
use crate::tui::text;

pub const TURNS: usize = 10;
pub const FOUND_ON: usize = 2;
pub const TURN_TOKENS: u64 = 400;
pub const SYSTEM_TOKENS: u64 = 1000;

/// The simulated session's costs (input-token units) under `settings`,
/// in [`caching::Way::ALL`]'s order, `found` found on turn [`FOUND_ON`]:
/// `costs` per tool, `in_force` the handle of the settings in force.
pub fn costs(
    costs: &[u64],
    catalog: &Arc<Catalog>,
    in_force: &ToolsHandle,
    settings: &Settings,
    found: &[usize],
    pricing: &Pricing,
) -> [f64; 3] {
    let initial = deferred_initial(catalog, in_force, settings);
    let session = caching::simulated(SYSTEM_TOKENS, TURNS, TURN_TOKENS, FOUND_ON, found);
    let tools = Tools {
        costs,
        initial: &initial,
    };
    let ways = caching::costs(pricing, tools, &session);
    [ways[0].cost, ways[1].cost, ways[2].cost]
}

/// The initial set deferred loading sends (under strategy `all` too: what
/// deferred would send, so the ways compare).
fn deferred_initial(
    catalog: &Arc<Catalog>,
    in_force: &ToolsHandle,
    settings: &Settings,
) -> Vec<usize> {
    let settings = Settings {
        strategy: crate::tools_handle::Strategy::Deferred,
        ..settings.clone()
    };
    match settings.validate(catalog) {
        Ok(handle) => handle.initial_indices().to_vec(),
        Err(_) => in_force.initial_indices().to_vec(),
    }
}

/// The provider as the lines name it.
pub fn who(pricing: &Pricing) -> &'static str {
    match pricing.name {
        "anthropic" => "Anthropic",
        "openai" => "OpenAI",
        other => other,
    }
}

/// The first of `candidates` (longest first) that fits `width`, else the
/// last cut at a word.
pub fn longest_fitting(candidates: &[String], width: usize) -> String {
    candidates
        .iter()
        .find(|c| text::width(c) <= width)
        .cloned()
        .unwrap_or_else(|| text::fit_words(candidates.last().map_or("", |c| c), width))
}
