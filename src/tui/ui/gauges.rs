//! Token gauges: what the current search sends against the full catalog, and
//! the initial set against strategy `all`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph};

use super::{Theme, pane};
use crate::numbers::thousands;
use crate::select::Strategy;
use crate::tokens::Savings;
use crate::tui::app::App;
use crate::tui::state::results::Results;

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let block = pane(
        Line::from(Span::styled(" Tokens ", theme.title)),
        false,
        theme,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    let [first, second] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(inner);

    // Line 1: the current search.
    match &app.search().results {
        Results::Found(r) => {
            let s = r.savings;
            let left = format!(
                " full {}  sent {}  saved {} ",
                thousands(s.full_schema_tokens),
                thousands(s.sent_schema_tokens),
                thousands(s.saved_tokens)
            );
            let wide = inner.width >= 100;
            let right = if wide {
                format!(
                    " deferred {} · {} · {} ({}) · {} ",
                    r.deferred_count,
                    r.method,
                    r.token_basis,
                    r.basis,
                    app.search().latency.map_or_else(String::new, |l| format!(
                        "{:.2} ms",
                        l.as_secs_f64() * 1000.0
                    ))
                )
            } else {
                format!(" deferred {} ", r.deferred_count)
            };
            let [l, g, rt] = Layout::horizontal([
                Constraint::Length(left.chars().count() as u16),
                Constraint::Min(10),
                Constraint::Length(right.chars().count() as u16),
            ])
            .areas(first);
            f.render_widget(Paragraph::new(left), l);
            f.render_widget(
                Gauge::default()
                    .gauge_style(theme.gauge)
                    .ratio((s.reduction_pct / 100.0).clamp(0.0, 1.0))
                    .label(format!("{:.1} % saved", s.reduction_pct))
                    .use_unicode(true),
                g,
            );
            f.render_widget(Paragraph::new(Span::styled(right, theme.dim)), rt);
        }
        Results::Failed(_) if app.search().full_catalog => {
            let full: u64 = app.costs().map_or(0, |c| c.iter().sum());
            f.render_widget(
                Paragraph::new(Span::styled(
                    format!(
                        " the search failed; full catalog sent instead: {} tools, {} tokens, nothing saved",
                        app.catalog().len(),
                        thousands(full)
                    ),
                    theme.error,
                )),
                first,
            );
        }
        Results::Failed(_) => f.render_widget(
            Paragraph::new(Span::styled(" no figures: the search failed", theme.error)),
            first,
        ),
        Results::Waiting => f.render_widget(
            Paragraph::new(Span::styled(" waiting for the first search…", theme.dim)),
            first,
        ),
    }

    // Line 2: the initial set against strategy all.
    let line = match app.costs() {
        None => Line::from(Span::styled(
            format!(" counting tokens ({})…", app.settings().basis()),
            theme.dim,
        )),
        Some(costs) => {
            let full: u64 = costs.iter().sum();
            let initial: u64 = app
                .handle()
                .initial_indices()
                .iter()
                .map(|&i| costs[i])
                .sum();
            let always = app
                .catalog()
                .tools()
                .iter()
                .filter(|t| t.always_load)
                .count();
            let lazy = app.handle().initial_indices().len()
                - match app.handle().strategy() {
                    Strategy::Deferred => always,
                    Strategy::All => 0,
                };
            let what = match app.handle().strategy() {
                Strategy::Deferred => format!("deferred, {lazy} + {always} always-load"),
                Strategy::All => format!("all, {} tools", app.catalog().len()),
            };
            let saving = Savings::new(full, initial);
            Line::from(vec![
                Span::raw(format!(
                    " initial set ({what}): {} tk  ·  strategy all: {} tk",
                    thousands(initial),
                    thousands(full)
                )),
                Span::styled(
                    format!("  ·  first turn saves {:.1} %", saving.reduction_pct),
                    theme.dim,
                ),
            ])
        }
    };
    f.render_widget(Paragraph::new(line), second);
}
