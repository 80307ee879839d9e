//! The results pane drawn, from `&App` as the main screen reads it: the
//! loaded set of the current search, best first.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph, Wrap};

use super::Results;
use crate::search::Reason;
use crate::search::SearchError;
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::app::{App, Focus};
use crate::tui::paint::{Theme, pane, row};
use crate::tui::text::{fit_words, pad, wrap_words};

/// A failed search's code and message. Errors the service did not send
/// (a malformed answer) have a code of their own here.
/// Text from a remote service is escaped.
pub fn error_parts(e: &SearchError) -> (&str, String) {
    match e {
        SearchError::Service(s) => (s.code, escape(&s.message).into_owned()),
        SearchError::Remote(r) => (r.code(), escape(&r.to_string()).into_owned()),
        other => ("invalid_response", escape(&other.to_string()).into_owned()),
    }
}

/// The retry keys as the error view names them: those that type nothing
/// too when the query box has the keyboard (a letter would be typed).
pub fn retry_key(app: &App) -> String {
    if app.focus() == Focus::Query {
        match app.keymap().first_non_text(Action::RetrySearch) {
            Some(k) => k.to_string(),
            None => app.keymap().label(Action::RetrySearch),
        }
    } else {
        app.keymap().label(Action::RetrySearch)
    }
}

/// The results pane's note under strategy all.
pub const ALL_SENT: &str =
    "strategy all sends every tool; this ranking is what deferred would load";

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let focused = app.focus() == Focus::Results;
    let number = crate::tui::pane::number(app.keymap(), crate::tui::action::Action::FocusResults);
    let mut title = vec![Span::styled(format!(" {number}Results "), theme.title)];
    match &app.search().results {
        Results::Found(r) => {
            title.push(Span::styled(
                format!(
                    "{} of {} ",
                    crate::numbers::thousands(r.tools.len() as u64),
                    crate::numbers::thousands(app.catalog().len() as u64)
                ),
                theme.title,
            ));
            if app.handle().strategy() == crate::tools_handle::Strategy::All {
                title.push(Span::styled("· all sent ", theme.title));
            }
            if app.gateway_answer().is_some() {
                // A followed request searched again: the gateway's answer
                // is in the detail; this list is the explorer's own.
                title.push(Span::styled("· toolsift here ", theme.title));
            }
            if let Some(whole) = app.search().time_text(true) {
                // The cached part only where the border has room for it
                // whole; the time itself always.
                let used: usize = title.iter().map(|s| s.width()).sum();
                let room = usize::from(area.width).saturating_sub(2 + used);
                let text = if crate::tui::text::width(&whole) + 2 <= room {
                    format!("· {whole} ")
                } else {
                    format!("· {} ", app.search().time_text(false).unwrap_or_default())
                };
                title.push(Span::styled(text, theme.dim));
            }
        }
        Results::Failed(_) => title.push(Span::styled("· failed ", theme.error)),
        Results::Waiting => {}
    }
    if app.searching() {
        title.push(Span::styled("· searching… ", theme.dim));
    }
    let mut block = pane(Line::from(title), focused, theme);
    // Where the highlight is, while the pane has the keys (`3/8`).
    if let Results::Found(r) = &app.search().results
        && focused
        && !r.tools.is_empty()
    {
        let rows = app.search().rows();
        let at = app.search().list.selected.min(rows - 1) + 1;
        block = block.title_bottom(Line::from(format!(" {at}/{rows} ")).right_aligned());
    }
    let inner = block.inner(area);
    f.render_widget(block, area);
    let result = match &app.search().results {
        Results::Waiting => {
            f.render_widget(Paragraph::new(Span::styled("searching…", theme.dim)), inner);
            return;
        }
        Results::Failed(error) => {
            let (code, message) = error_parts(error);
            let mut text = vec![
                Line::from(vec![
                    Span::styled("search failed: ", theme.error),
                    Span::styled(code.to_string(), theme.error),
                ]),
                Line::from(message),
                Line::from(""),
            ];
            if matches!(error, SearchError::Remote(_)) {
                // The service may be back: the retry key is the way out.
                text.push(Line::from(vec![
                    Span::styled(retry_key(app), theme.key),
                    Span::styled(
                        " retries the search (the service may be back); nothing is shown as found",
                        theme.dim,
                    ),
                ]));
            } else {
                text.push(Line::from(Span::styled(
                    format!(
                        "nothing is shown as found: fix the settings ({}) or the query",
                        app.keymap().label(Action::Settings)
                    ),
                    theme.dim,
                )));
            }
            // The seed's fallback, made visible: the full catalog instead,
            // only within the context budget.
            text.push(Line::from(""));
            if app.search().full_catalog {
                text.push(Line::from(Span::styled(
                    format!(
                        "sending the full catalog instead: all {} tools",
                        app.catalog().len()
                    ),
                    theme.selected,
                )));
            } else {
                match app.full_catalog_offer() {
                    Ok(tokens) => text.push(Line::from(vec![
                        Span::styled(app.keymap().label(Action::SendFullCatalog), theme.key),
                        Span::raw(format!(
                            " sends the full catalog instead ({} tools, {} tokens, within the budget of {})",
                            app.catalog().len(),
                            crate::numbers::thousands(tokens),
                            crate::numbers::thousands(app.search().context_budget().unwrap_or(0))
                        )),
                    ])),
                    Err(why) => text.push(Line::from(Span::styled(
                        format!("full catalog not offered: {why}"),
                        theme.dim,
                    ))),
                }
            }
            f.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), inner);
            return;
        }
        Results::Found(r) => r,
    };
    let height = usize::from(inner.height);
    let width = usize::from(inner.width);
    let list = app.search().list;
    // Under strategy all every tool is sent: the ranking shown is what
    // deferred would load, and the pane says so.
    let all = app.handle().strategy() == crate::tools_handle::Strategy::All;
    let mut lines: Vec<Line> = Vec::with_capacity(height);
    // Places count the searched tools from 1, as `toolsift search` and the
    // detail do (always-load tools show ★).
    let mut rank = result
        .tools
        .iter()
        .take(list.offset)
        .filter(|h| h.reason != Some(Reason::AlwaysLoad))
        .count();
    let name_width = result
        .tools
        .iter()
        .map(|h| escape(&app.tool(h.index).name).chars().count())
        .max()
        .unwrap_or(4)
        // Names first: room for the rank and a score, the words after.
        .min(width.saturating_sub(4 + 8).max(8));
    for (i, hit) in result.tools.iter().enumerate().skip(list.offset) {
        if lines.len() >= height {
            break;
        }
        let t = app.tool(hit.index);
        let current = i == list.selected;
        // The place the detail gives, once the ranking is known (the one
        // the answer was cut from, so the same); until then, the answer's
        // order.
        let rank_cell = if hit.reason == Some(Reason::AlwaysLoad) {
            " ★".to_string()
        } else {
            rank += 1;
            let place = app
                .search()
                .standing
                .as_ref()
                .and_then(|s| s.place(hit.index))
                .unwrap_or(rank);
            format!("{place:>2}")
        };
        let name = pad(&escape(&t.name), name_width);
        // What is left of the row after the mark, rank and name: the
        // explanation shortens to fit (whole words, then "…"), never cut
        // mid-word by the pane's edge.
        let mut room = width.saturating_sub(1 + 2 + 1 + name.chars().count());
        let mut spans = vec![
            if app.picked().contains(&hit.index) {
                Span::styled("✓", theme.key)
            } else {
                Span::raw(if current { "›" } else { " " })
            },
            Span::styled(
                rank_cell,
                if hit.reason == Some(Reason::AlwaysLoad) {
                    theme.always
                } else {
                    Default::default()
                },
            ),
            Span::raw(" "),
            Span::raw(name),
        ];
        let push =
            |spans: &mut Vec<Span<'static>>, text: String, style, room: &mut usize| -> bool {
                let n = text.chars().count();
                if n <= *room {
                    *room -= n;
                    spans.push(Span::styled(text, style));
                    true
                } else {
                    false
                }
            };
        match (hit.reason, hit.score) {
            (Some(Reason::AlwaysLoad), _) if hit.explanation.matches.is_empty() => {
                // One word wherever the tool came from (the ★ says it too).
                if let Some(label) = ["  always-load", " always"]
                    .into_iter()
                    .find(|l| l.len() <= room)
                {
                    push(&mut spans, label.into(), theme.always, &mut room);
                }
            }
            // A tool a `select:` named: no score to show, a space before
            // "exact name" (a name as wide as the column would run into it).
            (Some(Reason::ExactName), Some(score))
                if score == 0.0 && hit.explanation.matches.is_empty() =>
            {
                push(&mut spans, " ".into(), Style::default(), &mut room);
            }
            (_, Some(score)) => {
                push(
                    &mut spans,
                    format!(" {score:>6.2} "),
                    Style::default(),
                    &mut room,
                );
            }
            _ => {}
        }
        let mut words: Vec<(String, Style)> = Vec::new();
        if hit.reason == Some(Reason::ExactName) {
            words.push(("exact name".into(), theme.matched));
        }
        words.extend(
            hit.explanation
                .matches
                .iter()
                .map(|m| (escape(&m.shown()).into_owned(), theme.matched)),
        );
        let count = words.len();
        for (i, (word, style)) in words.into_iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            // Keep room for "…" unless this is the last word.
            let reserve = if i + 1 < count { 1 } else { 0 };
            let need = sep.chars().count() + word.chars().count() + reserve;
            if need > room {
                if i == 0 && room >= 3 {
                    // Not even the first word fits: its start, shortened.
                    push(&mut spans, pad(&word, room), style, &mut room);
                } else {
                    push(&mut spans, "…".into(), theme.dim, &mut room);
                }
                break;
            }
            if !sep.is_empty() {
                push(&mut spans, sep.into(), Style::default(), &mut room);
            }
            push(&mut spans, word, style, &mut room);
        }
        lines.push(row(spans, current && focused, theme));
    }
    // The relevance gate found that no tool fits: says so, with the
    // nearest tools it held back and how close they came.
    let no_fit = !result.held_back.is_empty();
    // The rows below the loaded ones can be highlighted too (their
    // detail says why they were not loaded): which one is, if any.
    let near_at = |j: usize| list.selected == result.tools.len() + j;
    let near_shown = |j: usize| result.tools.len() + j >= list.offset;
    if no_fit {
        held_back(
            &mut lines,
            result,
            app,
            theme,
            (width, height),
            name_width,
            (&near_at, &near_shown),
        );
    }
    // What just missed: the next few ranked tools below the cap, dimmed.
    let runners: Vec<(usize, f32)> = match app.search().standing.as_ref() {
        Some(standing) if !no_fit => {
            let near = app.search().near();
            standing
                .runners_up(near.len())
                .into_iter()
                .filter(|(i, _)| near.contains(i))
                .collect()
        }
        _ => Vec::new(),
    };
    if let Some(standing) = app.search().standing.as_ref()
        && !runners.is_empty()
        && lines.len() < height
    {
        lines.push(Line::from(Span::styled(
            cap_heading(standing.cap(), standing.always_load(), all, width),
            theme.dim,
        )));
        // Their places, as the rows above and the detail count them.
        // Names get the room there is: as wide as the longest, loaded or
        // below the cap, before the pane's edge cuts them.
        let runners_width = runners
            .iter()
            .map(|(i, _)| escape(&app.tool(*i).name).chars().count())
            .max()
            .unwrap_or(0)
            .max(name_width)
            .max(8);
        for (j, (index, score)) in runners.into_iter().enumerate() {
            if !near_shown(j) || lines.len() >= height {
                continue;
            }
            let name = escape(&app.tool(index).name).into_owned();
            let rank = standing
                .place(index)
                .map_or_else(|| " -".to_string(), |r| format!("{r:>2}"));
            let score = format!(" {score:>6.2}");
            let name_room = width.saturating_sub(4 + score.len());
            // The highlight's mark, as on the loaded rows.
            let mark = if near_at(j) { "›" } else { " " };
            let text = format!(
                "{mark}{rank} {}{score}",
                pad(&name, name_room.min(runners_width))
            );
            lines.push(row(
                vec![Span::styled(text, theme.dim)],
                near_at(j) && focused,
                theme,
            ));
        }
    }
    // While the service computes a dense ranker's vectors (BM25F answers
    // meanwhile): a gauge of the tools embedded so far.
    let mut gauge = None;
    if let Some((done, total)) = result.embedding
        && lines.len() + 2 <= height
    {
        lines.push(Line::from(""));
        gauge = Some((
            Rect {
                y: inner.y + lines.len() as u16,
                height: 1,
                ..inner
            },
            done,
            total,
        ));
        lines.push(Line::from(""));
    }
    // The service's note says what the gauge and the header show.
    let note = match result.note.as_ref().filter(|_| gauge.is_none() && !no_fit) {
        Some(note) if all => Some(format!("{ALL_SENT}; deferred: {}", escape(note))),
        Some(note) => Some(escape(note).into_owned()),
        None if all => Some(ALL_SENT.to_string()),
        None => None,
    };
    if let Some(note) = note
        && lines.len() + 2 <= height
    {
        // The note wraps at word boundaries in the rows left (a remote
        // service's text, escaped); what does not fit ends with an ellipsis.
        lines.push(Line::from(""));
        let text = format!("note: {note}");
        let wrapped = wrap_words(&text, width.max(1), height - lines.len());
        lines.extend(
            wrapped
                .into_iter()
                .map(|l| Line::from(Span::styled(l, theme.dim))),
        );
    }
    // What the cap left out: "8 of 23 matching; 11 more in server github".
    if let Some(more) = result
        .matching
        .as_deref()
        .filter(|m| m.total > m.sent && gauge.is_none() && !no_fit)
        .and_then(crate::service::matching::note)
        && lines.len() + 2 <= height
    {
        let more = if all {
            format!("deferred: {more}")
        } else {
            more
        };
        lines.push(Line::from(""));
        let wrapped = wrap_words(&more, width.max(1), height - lines.len());
        lines.extend(
            wrapped
                .into_iter()
                .map(|l| Line::from(Span::styled(l, theme.dim))),
        );
    }
    // One line per tool (no wrapping, so rows and list positions agree).
    f.render_widget(Paragraph::new(lines), inner);
    if let Some((area, done, total)) = gauge {
        let ratio = if total == 0 {
            0.0
        } else {
            (done as f64 / total as f64).clamp(0.0, 1.0)
        };
        let label = format!("embedding the catalog: {done} of {total} tools");
        let label = if label.chars().count() <= usize::from(area.width) {
            label
        } else {
            format!("{done}/{total}")
        };
        f.render_widget(
            Gauge::default()
                .gauge_style(theme.gauge)
                .ratio(ratio)
                .label(label),
            area,
        );
    }
}

/// The heading over the tools below the cap: how many places the cap has
/// and how many the always-load tools took, in the longest form that fits
/// `width` ("below the cap of 8 (4 always-load + 4 searched), next:"), so
/// a place of 5 below a cap of 8 reads as it is.
pub fn cap_heading(cap: usize, always_load: usize, all: bool, width: usize) -> String {
    let head = if all {
        format!("deferred's cap of {cap} stops here")
    } else {
        format!("below the cap of {cap}")
    };
    let mut forms = Vec::new();
    if always_load > 0 {
        let searched = cap.saturating_sub(always_load);
        forms.push(format!(
            "{head} ({always_load} always-load + {searched} searched), next:"
        ));
        forms.push(format!("{head} ({always_load} always-load), next:"));
        forms.push(format!("{head} ({always_load} ★), next:"));
    }
    forms.push(format!("{head}, next:"));
    forms
        .iter()
        .find(|f| crate::tui::text::width(f) <= width)
        .cloned()
        .unwrap_or_else(|| fit_words(&forms[forms.len() - 1], width))
}

/// The lines of a search the relevance gate emptied: "no tool fits", and
/// the nearest tools held back with their evidence (and cosine) and score.
/// `(width, height)` is the pane's; `near` says whether held-back row `j`
/// is highlighted and whether it is scrolled into view.
fn held_back(
    lines: &mut Vec<Line<'static>>,
    result: &crate::search::SearchResult,
    app: &App,
    theme: &Theme,
    (width, height): (usize, usize),
    name_width: usize,
    near: (&dyn Fn(usize) -> bool, &dyn Fn(usize) -> bool),
) {
    let (highlighted, shown) = near;
    if lines.len() >= height {
        return;
    }
    if !lines.is_empty() {
        lines.push(Line::from(""));
    }
    lines.push(Line::from(Span::styled(
        fit_words("no tool fits this request", width),
        theme.error,
    )));
    let asked = crate::engine::Gate::MIN_EVIDENCE;
    let head = format!(
        "nearest, held back (fit: how much of the request each matched, of the {asked} the gate asks; {} settings turn the gate off):",
        app.keymap().label(Action::Settings)
    );
    // The heading wraps between words rather than lose its end.
    for l in wrap_words(&head, width.max(1), 3) {
        if lines.len() < height {
            lines.push(Line::from(Span::styled(l, theme.dim)));
        }
    }
    let names: Vec<String> = result
        .held_back
        .iter()
        .map(|h| escape(&app.tool(h.index).name).into_owned())
        .collect();
    let name_width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .max(name_width.min(8));
    for (j, (h, name)) in result.held_back.iter().zip(&names).enumerate() {
        if lines.len() >= height {
            break;
        }
        if !shown(j) {
            continue;
        }
        // Names first: the figures shorten (evidence and score, then the
        // evidence alone) before a name is cut.
        // Each figure named: the fit against what the gate asks, the
        // cosine, the score.
        let fit = format!("{:.1}/{asked}", h.evidence);
        let mut choices = Vec::new();
        if let Some(c) = h.cosine {
            choices.push(format!("  fit {fit}  cosine {c:.2}  score {:.2}", h.score));
            choices.push(format!("  fit {fit} cos {c:.2} {:.2}", h.score));
        }
        choices.push(format!("  fit {fit}  score {:.2}", h.score));
        choices.push(format!("  fit {fit} {:.2}", h.score));
        choices.push(format!("  fit {fit}"));
        choices.push(format!("  {fit}"));
        let fits = |f: &String| 3 + name_width + f.chars().count() <= width;
        let figures = choices
            .iter()
            .find(|f| fits(f))
            .or(choices.last())
            .cloned()
            .unwrap_or_default();
        let room = width.saturating_sub(3 + figures.chars().count());
        let name = pad(name, name_width.min(room));
        let mark = if highlighted(j) { "›" } else { " " };
        lines.push(row(
            vec![Span::styled(format!("{mark}  {name}{figures}"), theme.dim)],
            highlighted(j) && app.focus() == Focus::Results,
            theme,
        ));
    }
}
