//! Token gauges: what this search's turn sends against the full catalog
//! (under strategy `all`, the whole catalog: nothing saved, and what
//! deferred would send beside), and what the first turn sends.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph};

use super::{Theme, pane};
use crate::numbers::thousands;
use crate::search::SearchResult;
use crate::terminal_text::escape;
use crate::tokens::Savings;
use crate::tools_handle::Strategy;
use crate::tui::app::App;
use crate::tui::pane::results::Results;
use crate::tui::text::{self, count, short_number};

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
    draw_search(f, first, app, theme);
    // Line 2: the initial set against strategy all, or what a session
    // costs with prompt caching (`$`).
    let line = match (app.caching(), app.costs()) {
        (Some(pricing), _) => super::caching::line(app, &pricing, usize::from(second.width), theme),
        (None, None) => Line::from(Span::styled(
            format!(" counting tokens ({})…", app.settings().basis().label()),
            theme.dim,
        )),
        (None, Some(costs)) => first_turn(app, costs, usize::from(second.width), theme),
    };
    f.render_widget(Paragraph::new(line), second);
}

/// Line 1: what the current search sends, or why there are no figures.
fn draw_search(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let no_request = app.search().query.trim().is_empty()
        && app.handle().strategy() != Strategy::All
        && matches!(app.search().results, Results::Found(_));
    let (text, style) = match &app.search().results {
        Results::Found(r) if no_request => {
            (no_request_yet(app, r, usize::from(area.width)), theme.dim)
        }
        Results::Found(r) => return draw_savings(f, area, app, r, theme),
        Results::Failed(_) if app.search().full_catalog => (
            format!(
                " the search failed; full catalog sent instead: {} tools, {} tokens, nothing saved",
                app.catalog().len(),
                thousands(app.full_tokens().unwrap_or(0))
            ),
            theme.error,
        ),
        Results::Failed(_) => (" no figures: the search failed".to_string(), theme.error),
        Results::Waiting => (" waiting for the first search…".to_string(), theme.dim),
    };
    f.render_widget(Paragraph::new(Span::styled(text, style)), area);
}

/// Nothing asked yet: no saving to claim; what a search sends (the
/// provider's count once it came), in the longest form that fits `width`.
fn no_request_yet(app: &App, r: &SearchResult, width: usize) -> String {
    let exact = app.exact_full().zip(app.exact_sent());
    let always = thousands(exact.map_or(r.savings.sent_schema_tokens, |(_, sent)| sent));
    let mark =
        exact_mark(app, exact.is_some()).map_or(String::new(), |m| format!(" · {}", m.short));
    let choices = [
        format!(
            " no request yet: a search sends the always-load tools ({always} tk) and the tools it finds ({} types one)",
            app.keymap().label(crate::tui::action::Action::FocusQuery)
        ),
        format!(" no request yet: a search sends the always-load tools ({always} tk) and what it finds"),
        format!(" no request yet ({always} tk always-load)"),
        " no request yet".to_string(),
    ]
    .map(|c| format!("{c}{mark}"));
    choices
        .iter()
        .find(|c| text::width(c) <= width)
        .unwrap_or(&choices[3])
        .clone()
}

/// A search's figures: what it sends of the full catalog (left), the
/// gauge of the saving, and what it defers, how it ranked and counted
/// (right). The provider's counts once both came, else the estimates.
/// Under strategy all every turn sends the whole catalog: the search saves
/// nothing, and what deferred would send is said beside.
fn draw_savings(f: &mut Frame, area: Rect, app: &App, r: &SearchResult, theme: &Theme) {
    let exact = app.exact_full().zip(app.exact_sent());
    let s = match exact {
        Some((full, sent)) => Savings::new(full, sent),
        None => r.savings,
    };
    let mark = exact_mark(app, exact.is_some());
    let width = usize::from(area.width);
    let all = app.handle().strategy() == Strategy::All;
    let shown = if all {
        Savings::new(s.full_schema_tokens, s.full_schema_tokens)
    } else {
        s
    };
    let lefts = savings_lefts(&s, all);
    let rights = savings_rights(app, r, &s, all, mark.as_ref(), exact.is_some());
    // The gauge keeps 14 columns; the right side goes first.
    let (left, right) = lefts
        .iter()
        .flat_map(|l| rights.iter().map(move |r| (l, r)))
        .find(|(l, r)| text::width(l) + text::width(r) + 14 <= width)
        .unwrap_or((&lefts[1], &rights[4]));
    let [l, g, rt] = Layout::horizontal([
        Constraint::Length(text::width(left) as u16),
        Constraint::Min(10),
        Constraint::Length(text::width(right) as u16),
    ])
    .areas(area);
    f.render_widget(Paragraph::new(left.clone()), l);
    f.render_widget(
        Gauge::default()
            .gauge_style(theme.gauge)
            .ratio((shown.reduction_pct / 100.0).clamp(0.0, 1.0))
            .label(format!("{:.1} %", shown.reduction_pct))
            .use_unicode(true),
        g,
    );
    f.render_widget(Paragraph::new(Span::styled(right.clone(), theme.dim)), rt);
}

/// The left of a search's figures, long then short: what it sends of the
/// full catalog (figures shortened as numbers: 10,445, then 10.4k).
fn savings_lefts(s: &Savings, all: bool) -> [String; 2] {
    if all {
        [
            format!(
                " this turn sends all {} tk (strategy all) ",
                thousands(s.full_schema_tokens)
            ),
            format!(
                " this turn sends all {} tk ",
                short_number(s.full_schema_tokens)
            ),
        ]
    } else {
        [
            format!(
                " this search sends {} of {} tk, saves {} ",
                thousands(s.sent_schema_tokens),
                thousands(s.full_schema_tokens),
                thousands(s.saved_tokens)
            ),
            format!(
                " search sends {} of {} ",
                short_number(s.sent_schema_tokens),
                short_number(s.full_schema_tokens)
            ),
        ]
    }
}

/// The right of a search's figures, longest first: what deferred sends
/// beside (under all, what a deferred search would send; else how many
/// tools it defers), the ranker, the basis counted with and whether the
/// figures are the provider's, the search's time.
fn savings_rights(
    app: &App,
    r: &SearchResult,
    s: &Savings,
    all: bool,
    mark: Option<&Mark>,
    exact: bool,
) -> [String; 5] {
    let latency = app
        .search()
        .time_text(true)
        .map_or_else(String::new, |t| format!(" · {t}"));
    let basis = match (mark, exact) {
        (Some(m), true) => m.long.clone(),
        (Some(m), false) => format!("{} ({}) · {}", escape(&r.token_basis), r.basis, m.long),
        (None, _) => format!("{} ({})", escape(&r.token_basis), r.basis),
    };
    let short = mark.map_or(String::new(), |m| format!(" · {}", m.short));
    let (deferred, deferred_short) = if all {
        (
            format!("deferred would send {}", thousands(s.sent_schema_tokens)),
            format!("deferred: {}", short_number(s.sent_schema_tokens)),
        )
    } else {
        (
            format!("deferred {}", thousands(r.deferred_count)),
            format!("deferred {}", short_number(r.deferred_count)),
        )
    };
    [
        format!(" {deferred} · {} · {basis}{latency} ", r.method),
        format!(" {deferred}{short} "),
        format!(" {deferred_short}{short} "),
        mark.map_or(String::new(), |m| format!(" {} ", m.short)),
        String::new(),
    ]
}

/// Line 2: what the first turn sends (the initial set, or the whole
/// catalog under strategy all) of the full catalog, and what that saves,
/// as a request costs them under the basis in force, or as the provider
/// counted them once both came; the longest that fits `width`, every word
/// whole, numbers shortened as numbers.
fn first_turn(app: &App, costs: &[u64], width: usize, theme: &Theme) -> Line<'static> {
    let basis = app.settings().basis();
    let exact = app.exact_full().zip(app.exact_initial());
    let (full, initial) = exact.unwrap_or_else(|| {
        (
            basis.set_cost(costs.iter().copied()),
            basis.set_cost(app.handle().initial_indices().iter().map(|&i| costs[i])),
        )
    });
    let mark = exact_mark(app, exact.is_some());
    let (long, short) = mark.map_or((String::new(), String::new()), |m| {
        (format!("  ·  {}", m.long), format!(" · {}", m.short))
    });
    let saving = Savings::new(full, initial);
    let saves = format!("saves {:.1} %", saving.reduction_pct);
    let (what, few) = initial_set(app);
    let (i, a) = (thousands(initial), thousands(full));
    let (si, sa) = (short_number(initial), short_number(full));
    let candidates = [
        format!(" first turn sends {i} of {a} tk ({what})  ·  {saves}{long}"),
        format!(" first turn sends {i} of {a} tk ({few}) · {saves}{short}"),
        format!(" first turn sends {si} of {sa} tk ({few}) · {saves}{short}"),
        format!(" first turn sends {si} of {sa} tk · {saves}{short}"),
        format!(" first turn {si} of {sa} tk · {saves}{short}"),
        format!(" first turn {si} of {sa} · {saves}{short}"),
    ];
    let text = candidates
        .iter()
        .find(|c| text::width(c) <= width)
        .cloned()
        .unwrap_or_else(|| text::fit_words(&candidates[5], width));
    // The saving (and the mark after it) is dim, after the figures.
    match text.rfind("saves ").and_then(|at| text[..at].rfind(" · ")) {
        Some(at) => Line::from(vec![
            Span::raw(text[..at].to_string()),
            Span::styled(text[at..].to_string(), theme.dim),
        ]),
        None => Line::from(text),
    }
}

/// What the first turn sends, long and short: the initial set's searched
/// and always-load tools, or every tool under strategy all.
fn initial_set(app: &App) -> (String, String) {
    let always = app.always_load_count();
    match app.handle().strategy() {
        Strategy::Deferred => {
            let lazy = app.handle().initial_indices().len() - always;
            (
                format!("initial set: {lazy} + {always} always-load"),
                format!("{lazy} + {always} always-load"),
            )
        }
        Strategy::All => {
            let tools = count(app.catalog().len() as u64, "tool", "tools");
            (format!("strategy all: {tools}"), format!("all {tools}"))
        }
    }
}

/// What the figures are, when a provider counts (`--count-with`): long
/// and short forms.
struct Mark {
    long: String,
    short: &'static str,
}

fn exact_mark(app: &App, shown: bool) -> Option<Mark> {
    let exact = app.exact()?;
    let model = escape(&exact.model()).into_owned();
    Some(if shown {
        Mark {
            long: format!("exact ({model})"),
            short: "exact",
        }
    } else if exact.failed().is_some() {
        Mark {
            long: format!("estimate ({model} could not count)"),
            short: "estimate",
        }
    } else {
        Mark {
            long: format!("estimate, {model} counting…"),
            short: "counting…",
        }
    })
}
