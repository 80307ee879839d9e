//! The results pane drawn, from the app's [`PaneView`] as the main screen reads it: the
//! loaded set of the current search, best first.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph, Wrap};

use super::Results;
use super::rows::Rows;
use crate::search::{SearchError, SearchResult};
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::paint::{Theme, pane};
use crate::tui::pane::view::PaneView;
use crate::tui::text::wrap_words;

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
pub fn retry_key(view: &PaneView) -> String {
    if view.focused.query {
        match view.keymap.first_non_text(Action::RetrySearch) {
            Some(k) => k.to_string(),
            None => view.keymap.label(Action::RetrySearch),
        }
    } else {
        view.keymap.label(Action::RetrySearch)
    }
}

/// The results pane's note under strategy all.
pub const ALL_SENT: &str =
    "strategy all sends every tool; this ranking is what deferred would load";

/// The title: the pane's number, how many tools of the catalog were
/// found and how (all sent, the gateway's request searched here), the
/// search's time (its cached part where the border has room), whether a
/// search is under way.
fn title(view: &PaneView, width: u16, theme: &Theme) -> Line<'static> {
    let number = crate::tui::pane::number(view.keymap, Action::FocusResults);
    let mut title = vec![Span::styled(format!(" {number}Results "), theme.title)];
    match &view.search.results {
        Results::Found(r) => {
            title.push(Span::styled(
                format!(
                    "{} of {} ",
                    crate::numbers::thousands(r.tools.len() as u64),
                    crate::numbers::thousands(view.catalog.len() as u64)
                ),
                theme.title,
            ));
            if view.handle.strategy() == crate::tools_handle::Strategy::All {
                title.push(Span::styled("· all sent ", theme.title));
            }
            if view.gateway_answered {
                // A followed request searched again: the gateway's answer
                // is in the detail; this list is the explorer's own.
                title.push(Span::styled("· toolsift here ", theme.title));
            }
            if let Some(whole) = view.search.time_text(true) {
                // The cached part only where the border has room for it
                // whole; the time itself always.
                let used: usize = title.iter().map(|s| s.width()).sum();
                let room = usize::from(width).saturating_sub(2 + used);
                let text = if crate::tui::text::width(&whole) + 2 <= room {
                    format!("· {whole} ")
                } else {
                    format!("· {} ", view.search.time_text(false).unwrap_or_default())
                };
                title.push(Span::styled(text, theme.dim));
            }
        }
        Results::Failed(_) => title.push(Span::styled("· failed ", theme.error)),
        Results::Waiting => {}
    }
    if view.search.searching() {
        title.push(Span::styled("· searching… ", theme.dim));
    }
    Line::from(title)
}

pub fn draw(f: &mut Frame, area: Rect, view: &PaneView, theme: &Theme) {
    let focused = view.focused.results;
    let mut block = pane(title(view, area.width, theme), focused, theme);
    // Where the highlight is, while the pane has the keys (`3/8`).
    if let Results::Found(r) = &view.search.results
        && focused
        && !r.tools.is_empty()
    {
        let rows = view.search.rows();
        let at = view.search.list.selected.min(rows - 1) + 1;
        block = block.title_bottom(Line::from(format!(" {at}/{rows} ")).right_aligned());
    }
    let inner = block.inner(area);
    f.render_widget(block, area);
    match &view.search.results {
        Results::Waiting => {
            f.render_widget(Paragraph::new(Span::styled("searching…", theme.dim)), inner);
        }
        Results::Failed(error) => f.render_widget(
            Paragraph::new(failed_lines(view, error, theme)).wrap(Wrap { trim: true }),
            inner,
        ),
        Results::Found(result) => draw_found(f, inner, view, result, theme),
    }
}

/// A failed search: its code and message, the way out (the retry key when
/// the service may be back, else the settings), and the full catalog sent
/// instead or offered, or why not.
fn failed_lines(view: &PaneView, error: &SearchError, theme: &Theme) -> Vec<Line<'static>> {
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
            Span::styled(retry_key(view), theme.key),
            Span::styled(
                " retries the search (the service may be back); nothing is shown as found",
                theme.dim,
            ),
        ]));
    } else {
        text.push(Line::from(Span::styled(
            format!(
                "nothing is shown as found: fix the settings ({}) or the query",
                view.keymap.label(Action::Settings)
            ),
            theme.dim,
        )));
    }
    text.push(Line::from(""));
    text.push(full_catalog_line(view, theme));
    text
}

/// The seed's fallback, made visible: the full catalog sent instead of a
/// failed search, or offered (only within the context budget), or why not.
fn full_catalog_line(view: &PaneView, theme: &Theme) -> Line<'static> {
    if view.search.full_catalog {
        return Line::from(Span::styled(
            format!(
                "sending the full catalog instead: all {} tools",
                view.catalog.len()
            ),
            theme.selected,
        ));
    }
    match &view.full_catalog_offer {
        Ok(tokens) => Line::from(vec![
            Span::styled(view.keymap.label(Action::SendFullCatalog), theme.key),
            Span::raw(format!(
                " sends the full catalog instead ({} tools, {} tokens, within the budget of {})",
                view.catalog.len(),
                crate::numbers::thousands(*tokens),
                crate::numbers::thousands(view.search.context_budget().unwrap_or(0))
            )),
        ]),
        Err(why) => Line::from(Span::styled(
            format!("full catalog not offered: {why}"),
            theme.dim,
        )),
    }
}

/// A search's answer: the loaded tools, then the nearest held back when no
/// tool fits or the tools just below the cap, the gauge of the vectors
/// computed meanwhile, and the notes under them. One line per tool (no
/// wrapping, so rows and list positions agree).
fn draw_found(f: &mut Frame, inner: Rect, view: &PaneView, result: &SearchResult, theme: &Theme) {
    let mut rows = Rows::new(view, result, theme, inner);
    rows.loaded();
    // The relevance gate found that no tool fits: says so, with the
    // nearest tools it held back and how close they came.
    let no_fit = !result.held_back.is_empty();
    if no_fit {
        rows.held_back();
    } else {
        rows.below_cap();
    }
    let gauge = gauge_row(&mut rows, inner);
    notes(&mut rows, gauge.is_some() || no_fit);
    f.render_widget(Paragraph::new(rows.lines), inner);
    if let Some((area, done, total)) = gauge {
        draw_gauge(f, area, (done, total), theme);
    }
}

/// While the service computes a dense ranker's vectors (BM25F answers
/// meanwhile): a blank row and the gauge's row, when both fit; the
/// gauge's place and the tools embedded so far of all.
fn gauge_row(rows: &mut Rows, inner: Rect) -> Option<(Rect, u64, u64)> {
    let (done, total) = rows.result.embedding?;
    if rows.lines.len() + 2 > rows.height {
        return None;
    }
    rows.lines.push(Line::from(""));
    let area = Rect {
        y: inner.y + rows.lines.len() as u16,
        height: 1,
        ..inner
    };
    rows.lines.push(Line::from(""));
    Some((area, done, total))
}

/// The gauge of the tools embedded so far, labelled as wide as it fits.
fn draw_gauge(f: &mut Frame, area: Rect, (done, total): (u64, u64), theme: &Theme) {
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

/// The notes under the rows: the service's note (which the gauge and the
/// header show instead while vectors are computed, or when no tool fits:
/// `quiet`) and strategy all's, then what the cap left out ("8 of 23
/// matching; 11 more in server github").
fn notes(rows: &mut Rows, quiet: bool) {
    let all = rows.all;
    let note = match rows.result.note.as_ref().filter(|_| !quiet) {
        Some(note) if all => Some(format!("{ALL_SENT}; deferred: {}", escape(note))),
        Some(note) => Some(escape(note).into_owned()),
        None if all => Some(ALL_SENT.to_string()),
        None => None,
    };
    if let Some(note) = note {
        wrapped_note(rows, &format!("note: {note}"));
    }
    if let Some(more) = rows
        .result
        .matching
        .as_deref()
        .filter(|m| m.total > m.sent && !quiet)
        .and_then(crate::service::matching::note)
    {
        let more = if all {
            format!("deferred: {more}")
        } else {
            more
        };
        wrapped_note(rows, &more);
    }
}

/// A blank row and `text` dimmed, wrapped at word boundaries in the rows
/// left (what does not fit ends with an ellipsis), when two rows are left.
fn wrapped_note(rows: &mut Rows, text: &str) {
    if rows.lines.len() + 2 > rows.height {
        return;
    }
    rows.lines.push(Line::from(""));
    let wrapped = wrap_words(text, rows.width.max(1), rows.height - rows.lines.len());
    rows.lines.extend(
        wrapped
            .into_iter()
            .map(|l| Line::from(Span::styled(l, rows.theme.dim))),
    )
}
