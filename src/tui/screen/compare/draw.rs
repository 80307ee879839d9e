//! The comparison screen drawn: a side by side pair of panes under one
//! title (the request), each with what it sends and its tools, and a
//! summary of what the sides share below.
//!
//! A side's row: its place (★ for always-load), the name (cut with `…`
//! when the pane is narrow; names get room first), its tokens, and where
//! the other side has it: the same place (`=`), another place, or nowhere
//! (`+`: only this side sends it).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::{Answer, ComparePane, Side};
use crate::catalog::Catalog;
use crate::numbers::thousands;
use crate::search::SearchHit;
use crate::terminal_text::escape;
use crate::tui::paint::{Theme, draw_position, pane, position};
use crate::tui::text::wrap_words;
use crate::tui::text::{self, fit_segments, fit_words, pad, short_number};

/// Rows of a side above its list: what it sends, how it searched, the
/// columns' heading.
const SIDE_HEAD: u16 = 3;
/// Rows of the summary under the sides.
const SUMMARY: u16 = 3;

/// The screen's parts in `area`: the two sides and the summary (a row
/// more with the caching line).
fn areas(area: Rect, caching: bool) -> (Rect, Rect, Rect) {
    let inner = crate::tui::layout::inner(area);
    let summary_rows = SUMMARY + u16::from(caching);
    let [sides, summary] =
        Layout::vertical([Constraint::Min(4), Constraint::Length(summary_rows)]).areas(inner);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(sides);
    (left, right, summary)
}

/// How many list rows a side shows in `area` (paging moves half of them),
/// with or without the caching line.
pub fn list_rows(area: Rect, caching: bool) -> usize {
    let (left, _, _) = areas(area, caching);
    usize::from(left.height.saturating_sub(2 + SIDE_HEAD))
}

/// Draws the screen; `caching` is the summary's line of what each side
/// costs with prompt caching (`$` in the explorer), when it is on.
pub fn draw(
    f: &mut Frame,
    area: Rect,
    pane_state: &ComparePane,
    catalog: &Catalog,
    caching: Option<String>,
    theme: &Theme,
) {
    f.render_widget(Clear, area);
    let room = usize::from(area.width.saturating_sub(4));
    let query = escape(pane_state.query());
    let head = " Compare · ";
    let quoted = text::cut(&query, room.saturating_sub(text::width(head) + 3));
    f.render_widget(
        pane(
            Line::from(vec![
                Span::styled(head, theme.title),
                Span::styled(format!("“{quoted}” "), theme.title),
            ]),
            true,
            theme,
        ),
        area,
    );
    let (left, right, summary) = areas(area, caching.is_some());
    let (at, of) = pane_state.way_place();
    let sides = [
        (
            pane_state.left(),
            pane_state.right(),
            left,
            "in force".to_string(),
        ),
        (
            pane_state.right(),
            pane_state.left(),
            right,
            // Two sides that found the same tools say so in the title: the
            // way changes nothing for this request, or only how many tools
            // go with it (strategy all sends every one).
            match same_found(pane_state.left(), pane_state.right(), catalog.len()) {
                Some(what) => format!("{} ({at}/{of}) · {what}", pane_state.right().way.label),
                None => format!("{} ({at}/{of})", pane_state.right().way.label),
            },
        ),
    ];
    for (side, other, r, title) in sides {
        draw_side(f, r, side, other, &title, pane_state, catalog, theme);
    }
    draw_summary(f, summary, pane_state, catalog, caching, theme);
}

/// What the other way changes when both sides found the same tools in
/// the same order: nothing (`same tools`), or how many more or fewer tools
/// `b` sends than `a` (`sends 56 more`: strategy all sends every tool
/// whatever the search found).
fn same_found(a: &Side, b: &Side, catalog_len: usize) -> Option<String> {
    if !same_tools(a, b) {
        return None;
    }
    let (x, y) = (a.sent(catalog_len)?.tools, b.sent(catalog_len)?.tools);
    Some(match y.cmp(&x) {
        std::cmp::Ordering::Equal => "same tools".to_string(),
        std::cmp::Ordering::Greater => format!("sends {} more", y - x),
        std::cmp::Ordering::Less => format!("sends {} fewer", x - y),
    })
}

/// Both sides answered, with the same tools in the same order.
fn same_tools(a: &Side, b: &Side) -> bool {
    match (&a.answer, &b.answer) {
        (Answer::Found { result: x, .. }, Answer::Found { result: y, .. }) => {
            x.tools.len() == y.tools.len()
                && x.tools
                    .iter()
                    .zip(&y.tools)
                    .all(|(p, q)| p.index == q.index)
        }
        _ => false,
    }
}

/// The ranker, strategy and gate of a side: `bm25 · deferred · gate on`.
fn describe(side: &Side, regex: bool) -> String {
    let s = &side.way.settings;
    let ranker = if regex {
        "regex".to_string()
    } else {
        s.ranker.to_string()
    };
    format!(
        "{ranker} · {} · gate {}",
        s.strategy,
        if s.gate { "on" } else { "off" }
    )
}

#[allow(clippy::too_many_arguments)]
fn draw_side(
    f: &mut Frame,
    area: Rect,
    side: &Side,
    other: &Side,
    title: &str,
    state: &ComparePane,
    catalog: &Catalog,
    theme: &Theme,
) {
    let width = usize::from(area.width.saturating_sub(2));
    let block = pane(
        Line::from(Span::styled(
            format!(" {} ", fit_words(title, width.saturating_sub(2))),
            theme.title,
        )),
        false,
        theme,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    let mut lines: Vec<Line> = Vec::new();
    let how = describe(side, state.regex);
    match &side.answer {
        Answer::Waiting => {
            lines.push(Line::from(Span::styled("searching…", theme.dim)));
            lines.push(Line::from(Span::styled(fit_words(&how, width), theme.dim)));
        }
        Answer::Failed(message) => {
            lines.push(Line::from(Span::styled(fit_words(&how, width), theme.dim)));
            for l in wrap_words(&escape(message), width, 4) {
                lines.push(Line::from(Span::styled(l, theme.error)));
            }
        }
        Answer::Found {
            elapsed,
            query_cached,
            result,
            ..
        } => {
            let sent = side.sent(catalog.len()).expect("found");
            lines.push(Line::from(sends_line(sent, side.sends_all(), width)));
            // A dense ranker's side answered by BM25F while the catalog's
            // vectors are computed says so (it is asked again shortly).
            let how = match result.embedding {
                Some((done, total)) if result.stands_in_for(side.way.settings.ranker) => {
                    format!("{how} · BM25F's answer until the vectors are in ({done} of {total})")
                }
                _ => how,
            };
            let ms = format!(" · {}", text::search_time(*elapsed, *query_cached));
            let how = if text::width(&how) + text::width(&ms) <= width {
                format!("{how}{ms}")
            } else {
                how
            };
            lines.push(Line::from(Span::styled(fit_words(&how, width), theme.dim)));
            lines.extend(rows(
                side,
                other,
                width,
                state,
                catalog,
                theme,
                inner.height,
            ));
        }
    }
    f.render_widget(Paragraph::new(lines), inner);
    let list = usize::from(inner.height.saturating_sub(SIDE_HEAD));
    let len = side.rows();
    draw_position(f, area, position(state.scroll().min(len), list, len));
}

/// `sends 455 of 10,445 tk · saves 95.6 %`, shortened as numbers to fit.
fn sends_line(sent: super::Sent, all: bool, width: usize) -> String {
    let pct = crate::tokens::Savings::new(sent.full, sent.tokens).reduction_pct;
    let long = if all {
        format!(
            "sends all {} tools, {} tk · saves {pct:.1} %",
            thousands(sent.tools as u64),
            thousands(sent.tokens)
        )
    } else {
        format!(
            "sends {} tools, {} of {} tk · saves {pct:.1} %",
            thousands(sent.tools as u64),
            thousands(sent.tokens),
            thousands(sent.full)
        )
    };
    let medium = format!(
        "{} tools, {}/{} tk, saves {pct:.1} %",
        short_number(sent.tools as u64),
        short_number(sent.tokens),
        short_number(sent.full)
    );
    let short = format!(
        "{} tools, {}/{} tk · {pct:.1} %",
        short_number(sent.tools as u64),
        short_number(sent.tokens),
        short_number(sent.full)
    );
    [long, medium]
        .into_iter()
        .find(|l| text::width(l) <= width)
        .unwrap_or(short)
}

/// The column heading and the list rows of a side, from the scroll
/// position; once the list reaches its end with room below, what the gate
/// held back and what strategy all sends beside the tools found.
fn rows<'a>(
    side: &Side,
    other: &Side,
    width: usize,
    state: &ComparePane,
    catalog: &Catalog,
    theme: &Theme,
    height: u16,
) -> Vec<Line<'a>> {
    let list = usize::from(height.saturating_sub(SIDE_HEAD));
    // place (2) + space, name, space, tokens (5), space, other (5).
    let name_width = width.saturating_sub(3 + 1 + 5 + 1 + 5).max(4);
    let mut out = vec![Line::from(Span::styled(
        format!(
            "{:>2} {} {:>5} {:>5}",
            "#",
            pad("tool", name_width),
            "tk",
            "other"
        ),
        theme.dim,
    ))];
    let found = side.found().len();
    let columns = Columns::of(side, other, name_width);
    for (i, hit) in side
        .found()
        .iter()
        .enumerate()
        .skip(state.scroll())
        .take(list)
    {
        out.push(columns.row(i, hit, catalog, theme));
    }
    // The list's end is in view and a row is free under it.
    let room_below = |out: &[Line]| {
        let shown = out.len() - 1;
        state.scroll() + shown >= found && shown < list
    };
    let held = match &side.answer {
        Answer::Found { result, .. } => result.held_back.len(),
        _ => 0,
    };
    if held > 0 && room_below(&out) {
        out.push(held_back_line(held, width, theme));
    }
    if side.sends_all() && room_below(&out) {
        let rest = catalog.len().saturating_sub(found) as u64;
        out.push(all_sent_line(rest, width, theme));
    }
    out
}

/// What a side's rows read: each found tool's place on both sides, the
/// side's token counts, and the room for names.
struct Columns<'s> {
    other: &'s Side,
    places: Vec<Option<usize>>,
    other_places: Vec<Option<usize>>,
    tokens: Option<&'s [u64]>,
    name_width: usize,
}

impl<'s> Columns<'s> {
    fn of(side: &'s Side, other: &'s Side, name_width: usize) -> Self {
        let tokens = match &side.answer {
            Answer::Found { result, .. } => result.tool_tokens.as_deref().map(Vec::as_slice),
            _ => None,
        };
        Columns {
            other,
            places: side.places(),
            other_places: other.places(),
            tokens,
            name_width,
        }
    }

    /// The row of the side's `i`th tool found: its place (★ for
    /// always-load), its name, its tokens, and where the other side has
    /// it.
    fn row<'a>(&self, i: usize, hit: &SearchHit, catalog: &Catalog, theme: &Theme) -> Line<'a> {
        let (places, other_places) = (&self.places, &self.other_places);
        let tool = catalog.tools().get(hit.index);
        let place = places[i].map_or(" ★".to_string(), |p| format!("{p:>2}"));
        let name = tool.map_or_else(|| "?".to_string(), |t| escape(&t.name).into_owned());
        let tk = self
            .tokens
            .and_then(|t| t.get(hit.index))
            .map_or(String::new(), |&n| short_number(n));
        let there = self.other.found().iter().position(|h| h.index == hit.index);
        let (cell, style) = match there {
            Some(j) if other_places[j] == places[i] => ("=".to_string(), theme.dim),
            Some(j) => (
                other_places[j].map_or("★".to_string(), |p| p.to_string()),
                theme.dim,
            ),
            // Under `all` the other side sends it though its search did
            // not find it.
            None if self.other.sends_all() => ("sent".to_string(), theme.dim),
            None => ("+".to_string(), theme.matched),
        };
        let star = if places[i].is_none() {
            theme.always
        } else {
            ratatui::style::Style::default()
        };
        Line::from(vec![
            Span::styled(place, star),
            Span::raw(" "),
            Span::raw(pad(&name, self.name_width)),
            Span::raw(format!(" {tk:>5} ")),
            Span::styled(format!("{cell:>5}"), style),
        ])
    }
}

/// Below a side's tools: no tool fits, the gate held `held` back (as
/// long as the width allows).
fn held_back_line<'a>(held: usize, width: usize, theme: &Theme) -> Line<'a> {
    Line::from(Span::styled(
        [
            format!(
                "no tool fits the request: the gate held back {}",
                text::count(held as u64, "tool", "tools")
            ),
            format!("no tool fits: the gate held back {held}"),
        ]
        .into_iter()
        .find(|l| text::width(l) <= width)
        .unwrap_or_else(|| format!("none fits: {held} held back")),
        theme.dim,
    ))
}

/// Below a side under strategy all: the `rest` of the catalog, sent too.
fn all_sent_line<'a>(rest: u64, width: usize, theme: &Theme) -> Line<'a> {
    Line::from(Span::styled(
        [
            format!(
                "… and {} other tools: strategy all sends every one",
                thousands(rest)
            ),
            format!("… and {} more tools, all sent", thousands(rest)),
        ]
        .into_iter()
        .find(|l| text::width(l) <= width)
        .unwrap_or_else(|| format!("+{} more", short_number(rest))),
        theme.dim,
    ))
}

/// What the sides share and the tokens between them, then what the marks
/// mean.
fn draw_summary(
    f: &mut Frame,
    area: Rect,
    state: &ComparePane,
    catalog: &Catalog,
    caching: Option<String>,
    theme: &Theme,
) {
    let width = usize::from(area.width);
    let right = &state.right().way.label;
    let (first, second) = match (
        state.overlap(),
        state.left().sent(catalog.len()),
        state.right().sent(catalog.len()),
    ) {
        (Some(o), Some(l), Some(r)) => {
            let segments = [
                format!("both send {}", thousands(o.both as u64)),
                format!("only in force {}", thousands(o.only_left as u64)),
                format!("only {right} {}", thousands(o.only_right as u64)),
            ];
            let (more, by) = if r.tokens >= l.tokens {
                ("more", r.tokens - l.tokens)
            } else {
                ("less", l.tokens - r.tokens)
            };
            let long = format!(
                "{right} sends {} tk {more} than the settings in force ({} against {})",
                thousands(by),
                thousands(r.tokens),
                thousands(l.tokens)
            );
            let short = format!(
                "{right}: {} tk {more} ({} against {})",
                short_number(by),
                short_number(r.tokens),
                short_number(l.tokens)
            );
            let tokens = if by == 0 {
                format!("both send {} tk", thousands(l.tokens))
            } else if text::width(&long) <= width {
                long
            } else {
                fit_words(&short, width)
            };
            (fit_segments(&segments, width), tokens)
        }
        _ => ("searching…".to_string(), String::new()),
    };
    let legend = "other: its place on the other side (=: the same; +: only this side)";
    let mut lines = vec![Line::from(first), Line::from(second)];
    if let Some(c) = caching {
        lines.push(Line::from(fit_words(&c, width)));
    }
    lines.push(Line::from(Span::styled(
        fit_words(legend, width),
        theme.dim,
    )));
    f.render_widget(Paragraph::new(lines), area);
}
