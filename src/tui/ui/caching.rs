//! The Tokens box's caching line (`$`): what a session costs with the
//! provider's prompt caching, for all tools up front, deferred with the
//! found tools in the conversation, and deferred with them added to the
//! tool list, over the simulated session of [`crate::tui::session`]
//! (`toolsift eval --costs` prices other sessions, and recorded ones).

use ratatui::text::{Line, Span};

use super::Theme;
use crate::caching::Pricing;
use crate::tui::app::App;
use crate::tui::session::{self, TURNS};
use crate::tui::text::short_number;

/// Each way's cost (input-token units) of the simulated session, in
/// [`caching::Way::ALL`]'s order; `None` until the tokens are counted.
pub fn way_costs(app: &App, pricing: &Pricing) -> Option<[f64; 3]> {
    let found: Vec<usize> = match &app.search().results {
        crate::tui::pane::results::Results::Found(r) => r.tools.iter().map(|h| h.index).collect(),
        _ => Vec::new(),
    };
    let costs = app.costs()?;
    Some(session::costs(
        costs,
        app.catalog(),
        app.handle(),
        app.settings(),
        &found,
        pricing,
    ))
}

/// The line, the longest form that fits `width`.
pub fn line(app: &App, pricing: &Pricing, width: usize, theme: &Theme) -> Line<'static> {
    let Some([all, conv, list]) = way_costs(app, pricing) else {
        return Line::from(Span::styled(" caching: counting tokens…", theme.dim));
    };
    let pct = |c: f64| format!("{:.0} %", c / all.max(f64::MIN_POSITIVE) * 100.0);
    let n = |c: f64| short_number(c.round() as u64);
    let who = session::who(pricing);
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
    Line::from(session::longest_fitting(&candidates, width))
}
