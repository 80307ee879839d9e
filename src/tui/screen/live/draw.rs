//! The live screen drawn: what is followed and whether it is reached, the
//! counts, the events (or the misses) newest last, and the highlighted row
//! whole at the bottom with what its keys do.
//!
//! A row: the time (UTC), the session, `!` when the row is or shows a
//! miss, then the event: a search's query and the tools it returned, a
//! call's tool, outcome, time and the breaker's count. A row too long for
//! the screen is cut at a word; the box at the bottom shows it whole.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::{Link, LivePane, Row};
use crate::numbers::thousands;
use crate::terminal_text::escape;
use crate::traffic::misses::Miss;
use crate::traffic::{Event, Outcome};
use crate::tui::paint::{Theme, pane, row};
use crate::tui::text::{count, cut, cut_middle, fit_words, wrap_words};

/// Rows above the list: the counts and the columns' heading.
const HEAD: u16 = 2;

/// The counts, the list, and the box with the highlighted row whole (as
/// tall as its text, up to half the screen; a rule above it).
fn areas(area: Rect, live: &LivePane) -> (Rect, Rect, Rect) {
    let inner = crate::tui::layout::inner(area);
    let width = usize::from(inner.width).max(1);
    let most = (inner.height.saturating_sub(HEAD) / 2).max(2);
    let message = live
        .message
        .as_deref()
        .map_or(0, |m| wrap_words(m, width, usize::MAX).len());
    let lost = match live.link() {
        Link::Lost(why) => wrap_words(
            &format!("not reached: {why} (tried again every few seconds)"),
            width,
            usize::MAX,
        )
        .len(),
        _ => 0,
    };
    let needed =
        (wrap_words(&whole_text(live), width, usize::MAX).len() + message + lost) as u16 + 1;
    let [head, list, whole] = Layout::vertical([
        Constraint::Length(HEAD),
        Constraint::Min(1),
        Constraint::Length(needed.clamp(2, most)),
    ])
    .areas(inner);
    (head, list, whole)
}

/// How many rows the list shows in `area`.
pub fn list_rows(area: Rect, live: &LivePane) -> usize {
    usize::from(areas(area, live).1.height).max(1)
}

/// `HH:MM:SS` (UTC) of a time in Unix milliseconds.
pub fn clock(at: Option<u64>) -> String {
    match at {
        Some(ms) => {
            let s = (ms / 1000) % 86_400;
            format!("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
        }
        None => "--:--:--".into(),
    }
}

fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0} ms")
    } else {
        format!("{v:.1} ms")
    }
}

/// Tool names as a list (escaped), or `no tool`.
fn tool_list(tools: &[String]) -> String {
    if tools.is_empty() {
        return "no tool".to_string();
    }
    tools
        .iter()
        .map(|t| escape(t).into_owned())
        .collect::<Vec<_>>()
        .join(", ")
}

/// An event as one line of text (escaped), without time and session.
pub fn event_text(event: &Event) -> String {
    match event {
        Event::Search(s) => {
            let tools = tool_list(&s.tools);
            let fits = if s.nothing_fits {
                " · nothing fits"
            } else {
                ""
            };
            // An older writer names no ranker: no empty part.
            let ranker = if s.ranker.is_empty() {
                String::new()
            } else {
                format!(" · {}", escape(&s.ranker))
            };
            format!(
                "search “{}” → {tools}{fits}{ranker} · {}",
                escape(&s.query),
                ms(s.ms)
            )
        }
        Event::Call(c) => {
            let server = c
                .server
                .as_deref()
                .map(|s| format!(" ({})", escape(s)))
                .unwrap_or_default();
            let row = c
                .in_a_row
                .map(|n| format!(" · {n} in a row"))
                .unwrap_or_default();
            format!(
                "call {}{server} {} · {}{row}",
                escape(&c.name),
                c.outcome.label(),
                ms(c.ms)
            )
        }
        Event::Dropped { count: n } => format!("{n} events dropped"),
    }
}

/// A miss as one line of text (escaped).
pub fn miss_text(miss: &Miss) -> String {
    let wanted = miss
        .wanted
        .as_deref()
        .map(|w| format!(" · wanted {}", escape(w)))
        .unwrap_or_default();
    format!("{}: “{}”{wanted}", miss.kind.phrase(), escape(&miss.query))
}

fn link_text(link: &Link) -> (String, bool) {
    match link {
        Link::Connecting => ("connecting".into(), false),
        Link::Connected => ("following".into(), false),
        // Why, whole, below the list (a title cuts it).
        Link::Lost(_) => ("lost (trying again; why below)".into(), true),
    }
}

/// The live screen: its frame, the counts and the columns' heading, the
/// list, and the highlighted row whole below.
pub fn draw(f: &mut Frame, area: Rect, live: &LivePane, theme: &Theme) {
    f.render_widget(Clear, area);
    draw_frame(f, area, live, theme);
    let (head_area, list_area, whole_area) = areas(area, live);
    let width = usize::from(list_area.width);
    f.render_widget(Paragraph::new(head_lines(live, width, theme)), head_area);
    let height = usize::from(list_area.height);
    f.render_widget(
        Paragraph::new(list_lines(live, width, height, theme)),
        list_area,
    );
    let room = usize::from(whole_area.height.saturating_sub(1));
    f.render_widget(
        Paragraph::new(whole_lines(live, width, room, theme)),
        whole_area,
    );
}

/// The screen's border: its title (what is followed, cut in the middle,
/// and whether it is reached) and, under the list, the highlighted row's
/// place among the rows.
fn draw_frame(f: &mut Frame, area: Rect, live: &LivePane, theme: &Theme) {
    let room = usize::from(area.width.saturating_sub(4));
    let (link, lost) = link_text(live.link());
    let head = " Live · ";
    let source = cut_middle(
        &escape(&live.source().shown()),
        room.saturating_sub(head.len() + 14).max(8),
    );
    let mut title = vec![
        Span::styled(head, theme.title),
        Span::styled(format!("{source} · "), theme.title),
    ];
    let link_room = room.saturating_sub(crate::tui::text::width(&format!("{head}{source} · ")));
    title.push(Span::styled(
        format!("{} ", fit_words(&link, link_room.saturating_sub(1))),
        if lost { theme.error } else { theme.title },
    ));
    let rows = live.rows();
    let list = live.list();
    let mut block = pane(Line::from(title), true, theme);
    if !rows.is_empty() {
        block = block.title_bottom(
            Line::from(format!(
                " {}/{} ",
                list.selected.min(rows.len() - 1) + 1,
                rows.len()
            ))
            .right_aligned(),
        );
    }
    f.render_widget(block, area);
}

/// The counts, what narrows or holds the view first (it must not give
/// way): paused, the filter, then the searches, calls and misses, and
/// what was dropped, unread or restarted.
fn counts(live: &LivePane) -> Vec<String> {
    let searches = live
        .events()
        .iter()
        .filter(|e| matches!(e, Event::Search(_)))
        .count();
    let calls = live.events().len() - searches;
    let mut counts = Vec::new();
    if let Some(unseen) = live.paused() {
        counts.push(format!("paused, {} new", thousands(unseen)));
    }
    if let Some((words, _)) = live.filter().filter(|(w, _)| !w.trim().is_empty()) {
        counts.push(format!(
            "filter \"{}\": {} of {}",
            escape(words.trim()),
            live.rows().len(),
            if live.misses_only() {
                live.misses().len()
            } else {
                live.events().len()
            }
        ));
    }
    counts.extend([
        count(searches as u64, "search", "searches"),
        count(calls as u64, "call", "calls"),
        count(live.misses().len() as u64, "miss", "misses"),
    ]);
    if live.dropped() > 0 {
        counts.push(format!("{} dropped", thousands(live.dropped())));
    }
    let (bad, _) = live.bad_lines();
    if bad > 0 {
        counts.push(count(bad, "bad line", "bad lines"));
    }
    if live.restarts() > 0 {
        counts.push(count(u64::from(live.restarts()), "restart", "restarts"));
    }
    counts
}

/// The two rows above the list: the counts with what is shown and what
/// the misses are judged by (as much of that as fits), then the columns'
/// heading.
fn head_lines<'a>(live: &LivePane, width: usize, theme: &Theme) -> Vec<Line<'a>> {
    let view = if live.misses_only() {
        "misses"
    } else {
        "all events"
    };
    // Longest first: what the misses are judged by goes before what is
    // shown (the columns' heading says that too).
    let counts = counts(live).join(" · ");
    let judged = escape(live.judged_by());
    let counts_line = [
        format!("{counts} · showing {view} · judged by {judged}"),
        format!("{counts} · judged by {judged}"),
        format!("{counts} · showing {view}"),
    ]
    .into_iter()
    .find(|l| crate::tui::text::width(l) <= width)
    .unwrap_or_else(|| fit_words(&counts, width));
    let columns = if live.misses_only() {
        "time (UTC) session    miss"
    } else {
        "time (UTC) session    event"
    };
    vec![
        Line::from(counts_line),
        Line::from(Span::styled(cut(columns, width), theme.dim)),
    ]
}

/// The list's lines: the rows in view with the highlighted one among
/// them, or, with no row, why there is none yet.
fn list_lines<'a>(live: &LivePane, width: usize, height: usize, theme: &Theme) -> Vec<Line<'a>> {
    let rows = live.rows();
    let list = live.list();
    if rows.is_empty() {
        let why = if live.misses_only() {
            "no misses yet: a miss is a search that failed the agent (a tool called that no search returned, the same need searched again, nothing fits then a call, tools found and none called)".to_string()
        } else {
            match live.link() {
                Link::Lost(_) => "nothing heard: the far side is not reached yet; tried again every few seconds".into(),
                _ => "nothing heard yet: searches and calls show here as the gateway or service makes them".into(),
            }
        };
        return wrap_words(&why, width, height)
            .into_iter()
            .map(|l| Line::from(Span::styled(l, theme.dim)))
            .collect();
    }
    // Drawn at this height: the rows fill the list (no blank below its
    // last row while earlier ones are out of view) and the highlighted
    // one shows.
    let mut offset = list.offset.min(rows.len().saturating_sub(height));
    if list.selected >= offset + height {
        offset = list.selected + 1 - height;
    }
    rows.iter()
        .enumerate()
        .skip(offset)
        .take(height)
        .map(|(place, r)| row_line(live, *r, place == list.selected, width, theme))
        .collect()
}

/// The box below the list, in `room` rows under its rule: the filter
/// being typed, the screen's message, why the far side is not reached,
/// then the highlighted row whole with what its keys do.
fn whole_lines<'a>(live: &LivePane, width: usize, room: usize, theme: &Theme) -> Vec<Line<'a>> {
    let whole = whole_text(live);
    let mut whole_lines: Vec<Line> =
        vec![Line::from(Span::styled("─".repeat(width), theme.border))];
    if let Some((words, true)) = live.filter() {
        let text = format!("/{}▏ Enter keeps the filter, Esc drops it", escape(words));
        whole_lines.push(Line::from(Span::styled(
            crate::tui::text::fit_words(&text, width),
            theme.selected,
        )));
    }
    if let Some(message) = &live.message {
        for l in wrap_words(&escape(message), width, room) {
            whole_lines.push(Line::from(Span::styled(l, theme.selected)));
        }
    }
    if let Link::Lost(why) = live.link() {
        let text = format!(
            "not reached: {} (tried again every few seconds)",
            escape(why)
        );
        for l in wrap_words(&text, width, room.saturating_sub(whole_lines.len() - 1)) {
            whole_lines.push(Line::from(Span::styled(l, theme.error)));
        }
    }
    let room = room.saturating_sub(whole_lines.len() - 1);
    for l in wrap_words(&whole, width, room) {
        whole_lines.push(Line::from(l));
    }
    whole_lines
}

/// The session column: its id cut in the middle to eight columns.
fn session(id: &str) -> String {
    crate::tui::text::pad(&cut_middle(&escape(id), 8), 8)
}

fn row_line<'a>(
    live: &LivePane,
    r: Row,
    highlighted: bool,
    width: usize,
    theme: &Theme,
) -> Line<'a> {
    let (at, sess, text, marked, failed) = match r {
        Row::Event(i) => {
            let event = &live.events()[i];
            let (at, sess) = match event {
                Event::Search(s) => (s.at, s.session.as_str()),
                Event::Call(c) => (c.at, c.session.as_str()),
                Event::Dropped { .. } => (None, ""),
            };
            let failed = matches!(event, Event::Call(c) if !matches!(c.outcome, Outcome::Ok));
            (
                at,
                sess.to_string(),
                event_text(event),
                !live.misses_of(i).is_empty(),
                failed,
            )
        }
        Row::Miss(m) => {
            let miss = &live.misses()[m];
            let at = match live.events().get(miss.shown_by) {
                Some(Event::Search(s)) => s.at,
                Some(Event::Call(c)) => c.at,
                _ => None,
            };
            (at, miss.session.clone(), miss_text(miss), true, false)
        }
    };
    let lead = format!("{}   {} ", clock(at), session(&sess));
    let mark = if marked { "! " } else { "  " };
    let rest = width.saturating_sub(crate::tui::text::width(&lead) + 2);
    let style = if failed {
        theme.error
    } else {
        ratatui::style::Style::default()
    };
    row(
        vec![
            Span::styled(lead, theme.dim),
            Span::styled(mark, theme.error),
            Span::styled(fit_words(&text, rest), style),
        ],
        highlighted,
        theme,
    )
}

/// The highlighted row whole: the event, and every miss it is or shows,
/// with what Enter and `e` do there.
pub fn whole_text(live: &LivePane) -> String {
    let Some(r) = live.current() else {
        return format!(
            "misses are judged by {}; e adds a miss, with the tool the agent wanted as its answer, to {}",
            escape(live.judged_by()),
            escape(live.requests_file())
        );
    };
    let (event, misses) = match r {
        Row::Event(i) => (Some(i), live.misses_of(i)),
        Row::Miss(m) => (Some(live.misses()[m].shown_by), vec![m]),
    };
    let mut parts = Vec::new();
    if let (Row::Event(_), Some(i)) = (r, event) {
        let e = &live.events()[i];
        let sess = e
            .session()
            .map(|s| format!(" (session {})", escape(s)))
            .unwrap_or_default();
        parts.push(format!("{}{sess}", event_text(e)));
    }
    for m in &misses {
        let miss = &live.misses()[*m];
        let returned = tool_list(&miss.returned);
        // The search shown above is not told twice.
        if r == Row::Event(miss.search) {
            parts.push(format!("! {}", miss.kind.phrase()));
        } else {
            parts.push(format!(
                "! {} (session {}): the search “{}” returned {returned}",
                miss.kind.phrase(),
                escape(&miss.session),
                escape(&miss.query)
            ));
        }
        match &miss.wanted {
            Some(w) if miss.kind == crate::traffic::misses::MissKind::UnknownTool => {
                parts.push(format!(
                    "the agent guessed {}, which the catalog in view lacks: no search could have given it",
                    escape(w)
                ))
            }
            Some(w) => parts.push(format!(
                "the agent wanted {}: Enter shows why search did not find it; e adds it to {}",
                escape(w),
                escape(live.requests_file())
            )),
            None => parts.push("Enter searches the request again".into()),
        }
    }
    if !misses.is_empty() {
        parts.push(format!("judged by {}", escape(live.judged_by())));
    }
    if misses.is_empty() {
        if let Some(Event::Search(_)) = event.map(|i| &live.events()[i]) {
            parts.push("Enter searches the request again".into());
        } else if let Some(Event::Call(_)) = event.map(|i| &live.events()[i]) {
            parts.push("Enter shows the tool in the catalog".into());
        }
    }
    parts.join(" · ")
}
