//! The Tokens box's caching line (`$`): what a session costs with the
//! provider's prompt caching, for all tools up front, deferred with the
//! found tools in the conversation, and deferred with them added to the
//! tool list. The session is simulated: [`TURNS`] turns of
//! [`TURN_TOKENS`] message tokens, a system prompt of [`SYSTEM_TOKENS`],
//! and this search's tools found on turn [`FOUND_ON`]
//! (`toolsift eval --costs` prices other sessions, and recorded ones).

use ratatui::text::{Line, Span};

use super::Theme;
use crate::caching::{self, Pricing, Tools};
use crate::tui::app::App;
use crate::tui::text::{self, short_number};

pub const TURNS: usize = 10;
pub const FOUND_ON: usize = 2;
pub const TURN_TOKENS: u64 = 400;
pub const SYSTEM_TOKENS: u64 = 1000;

/// Each way's cost (input-token units) of the simulated session, in
/// [`Way::ALL`]'s order; `None` until the tokens are counted.
pub fn way_costs(app: &App, pricing: &Pricing) -> Option<[f64; 3]> {
    let costs = app.costs()?;
    let found: Vec<usize> = match &app.search().results {
        crate::tui::state::results::Results::Found(r) => r.tools.iter().map(|h| h.index).collect(),
        _ => Vec::new(),
    };
    let initial: Vec<usize> = deferred_initial(app);
    let session = caching::simulated(SYSTEM_TOKENS, TURNS, TURN_TOKENS, FOUND_ON, &found);
    let tools = Tools {
        costs,
        initial: &initial,
    };
    let ways = caching::costs(pricing, tools, &session);
    Some([ways[0].cost, ways[1].cost, ways[2].cost])
}

/// The initial set deferred loading sends (under strategy `all` too: what
/// deferred would send, so the ways compare).
fn deferred_initial(app: &App) -> Vec<usize> {
    let settings = crate::settings::Settings {
        strategy: crate::select::Strategy::Deferred,
        ..app.settings().clone()
    };
    match settings.validate(app.catalog()) {
        Ok(handle) => handle.initial_indices().to_vec(),
        Err(_) => app.handle().initial_indices().to_vec(),
    }
}

/// The line, the longest form that fits `width`.
pub fn line(app: &App, pricing: &Pricing, width: usize, theme: &Theme) -> Line<'static> {
    let Some([all, conv, list]) = way_costs(app, pricing) else {
        return Line::from(Span::styled(" caching: counting tokens…", theme.dim));
    };
    let pct = |c: f64| format!("{:.0} %", c / all.max(f64::MIN_POSITIVE) * 100.0);
    let n = |c: f64| short_number(c.round() as u64);
    let who = match pricing.name {
        "anthropic" => "Anthropic",
        "openai" => "OpenAI",
        other => other,
    };
    let candidates = [
        format!(
            " cached, {TURNS} turns ({who}): all up front {} · found in conversation {} ({}) · added to list {} ({})",
            n(all),
            n(conv),
            pct(conv),
            n(list),
            pct(list)
        ),
        format!(
            " {who} cached, {TURNS} turns: all {} · in conversation {} ({}) · added to list {} ({})",
            n(all),
            n(conv),
            pct(conv),
            n(list),
            pct(list)
        ),
        format!(
            " {who} cached: all {} · in conversation {} · added to list {}",
            n(all),
            n(conv),
            n(list)
        ),
        format!(
            " {who}: all {} · conversation {} · list {}",
            n(all),
            n(conv),
            n(list)
        ),
    ];
    let text = candidates
        .iter()
        .find(|c| text::width(c) <= width)
        .cloned()
        .unwrap_or_else(|| text::fit_words(&candidates[3], width));
    Line::from(text)
}
