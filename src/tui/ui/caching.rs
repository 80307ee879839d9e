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
/// [`caching::Way::ALL`]'s order; `None` until the tokens are counted.
pub fn way_costs(app: &App, pricing: &Pricing) -> Option<[f64; 3]> {
    let found: Vec<usize> = match &app.search().results {
        crate::tui::pane::results::Results::Found(r) => r.tools.iter().map(|h| h.index).collect(),
        _ => Vec::new(),
    };
    session_costs(app, app.settings(), &found, pricing)
}

/// The simulated session's costs under `settings`, `found` found on turn
/// [`FOUND_ON`].
fn session_costs(
    app: &App,
    settings: &crate::settings::Settings,
    found: &[usize],
    pricing: &Pricing,
) -> Option<[f64; 3]> {
    let costs = app.costs()?;
    let initial: Vec<usize> = deferred_initial(app, settings);
    let session = caching::simulated(SYSTEM_TOKENS, TURNS, TURN_TOKENS, FOUND_ON, found);
    let tools = Tools {
        costs,
        initial: &initial,
    };
    let ways = caching::costs(pricing, tools, &session);
    Some([ways[0].cost, ways[1].cost, ways[2].cost])
}

/// The initial set deferred loading sends (under strategy `all` too: what
/// deferred would send, so the ways compare).
fn deferred_initial(app: &App, settings: &crate::settings::Settings) -> Vec<usize> {
    let settings = crate::settings::Settings {
        strategy: crate::tools_handle::Strategy::Deferred,
        ..settings.clone()
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
    let who = who(pricing);
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
    Line::from(longest_fitting(&candidates, width))
}

/// The comparison's line: what each side's way costs over the simulated
/// session (strategy `all`: every tool up front; deferred: the tools it
/// found put in the conversation).
pub fn compare_line(
    app: &App,
    pane: &crate::tui::screen::compare::ComparePane,
    pricing: &Pricing,
    width: usize,
) -> Option<String> {
    let cost = |side: &crate::tui::screen::compare::Side| -> Option<f64> {
        let found: Vec<usize> = side.found().iter().map(|h| h.index).collect();
        let [all, conv, _] = session_costs(app, &side.way.settings, &found, pricing)?;
        Some(if side.sends_all() { all } else { conv })
    };
    let (left, right) = (cost(pane.left())?, cost(pane.right())?);
    let label = &pane.right().way.label;
    let n = |c: f64| short_number(c.round() as u64);
    let who = who(pricing);
    let candidates = [
        format!(
            "{who} caching over {TURNS} turns (input-token units): in force costs {} · {label} {} ({:.0} %)",
            n(left),
            n(right),
            right / left.max(f64::MIN_POSITIVE) * 100.0
        ),
        format!("{who} cached: in force {} · {label} {}", n(left), n(right)),
    ];
    Some(longest_fitting(&candidates, width))
}

/// The provider as the lines name it.
fn who(pricing: &Pricing) -> &'static str {
    match pricing.name {
        "anthropic" => "Anthropic",
        "openai" => "OpenAI",
        other => other,
    }
}

/// The first of `candidates` (longest first) that fits `width`, else the
/// last cut at a word.
fn longest_fitting(candidates: &[String], width: usize) -> String {
    candidates
        .iter()
        .find(|c| text::width(c) <= width)
        .cloned()
        .unwrap_or_else(|| text::fit_words(candidates.last().map_or("", |c| c), width))
}
