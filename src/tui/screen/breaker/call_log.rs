//! The breaker's call log drawn: each call made or blocked, newest at the
//! bottom, two lines a call (its mark, streak, server and signature, then
//! its outcome), the newest answer of a real call whole, and the picked
//! call kept in view.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::seen::{Seen, hint};
use super::{BreakerPane, CallEntry, LiveState};
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::paint::{Theme, pane};
use crate::tui::text::{count, cut, width as text_width};

/// The call log in `area`: its counts in the title, the calls in view (or
/// the keys that make one), the picked call's place in the bottom border.
pub(super) fn draw(f: &mut Frame, area: Rect, app: &Seen, p: &BreakerPane, theme: &Theme) {
    let ran = p.log.iter().filter(|e| e.ran).count();
    let block = pane(
        Line::from(Span::styled(
            format!(
                " Call log · {}, {} ran, {} blocked ",
                count(p.log.len() as u64, "call", "calls"),
                ran,
                p.log.len() - ran
            ),
            theme.title,
        )),
        false,
        theme,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    let len = p.log.len();
    if len == 0 {
        draw_empty(f, inner, app, theme);
        return;
    }
    // Newest at the bottom; two lines per call, except the newest answer of
    // a real call, shown whole (wrapped to the pane).
    let log = Window {
        app,
        p,
        theme,
        width: usize::from(inner.width).max(8),
        height: usize::from(inner.height),
        whole: p.log.iter().rposition(|e| {
            e.live
                .as_ref()
                .is_some_and(|l| !matches!(l.state, LiveState::Calling(_)))
        }),
    };
    // The newest calls, unless the picked one is older than they reach:
    // then the window ends at it.
    let mut groups = log.up_from(len - 1);
    let oldest = groups.last().map_or(0, |(i, _)| *i);
    if let Some(picked) = p.picked_row().filter(|&r| r < oldest) {
        groups = log.up_from(picked);
    }
    // The picked call of all, in the bottom border.
    if let Some(r) = p.picked_row() {
        let at = Line::from(format!(" {}/{len} ", r + 1)).right_aligned();
        crate::tui::paint::draw_position(f, area, Some(at));
    }
    let lines: Vec<Line> = groups.into_iter().rev().flat_map(|(_, g)| g).collect();
    f.render_widget(Paragraph::new(lines), inner);
}

/// No call yet: the keys that make one, wrapped at words in the pane.
fn draw_empty(f: &mut Frame, inner: Rect, app: &Seen, theme: &Theme) {
    let text = format!(
        "no calls yet: {} calls the tool, {} calls it in a loop",
        hint(app, &[Action::BreakerCall]),
        hint(app, &[Action::BreakerLoop])
    );
    let lines: Vec<Line> = crate::tui::text::wrap_words(
        &text,
        usize::from(inner.width).max(1),
        usize::from(inner.height).max(1),
    )
    .into_iter()
    .map(|l| Line::from(Span::styled(l, theme.dim)))
    .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

/// What drawing the log's calls shares: the pane's room and the call whose
/// answer shows whole.
struct Window<'a> {
    app: &'a Seen<'a>,
    p: &'a BreakerPane,
    theme: &'a Theme,
    width: usize,
    height: usize,
    /// The newest answered real call, its answer shown whole.
    whole: Option<usize>,
}

impl Window<'_> {
    /// The calls that fit, newest at the bottom, from call `bottom` up:
    /// each call's index and its lines, the newest first.
    fn up_from(&self, bottom: usize) -> Vec<(usize, Vec<Line<'static>>)> {
        let mut groups: Vec<(usize, Vec<Line>)> = Vec::new();
        let mut used = 0;
        for (i, e) in self.p.log.iter().enumerate().take(bottom + 1).rev() {
            let (head, outcome_style) = self.call_line(i, e);
            let mut group = vec![head];
            if self.whole == Some(i) {
                self.push_whole(&mut group, e, outcome_style);
            } else {
                group.push(self.outcome_line(e, outcome_style));
            }
            if used + group.len() > self.height && !groups.is_empty() {
                break;
            }
            used += group.len();
            groups.push((i, group));
        }
        groups
    }

    /// A call's first line: picked or not, its number, what became of it,
    /// its streak, its server and its signature (cut; where it came from in
    /// the trace when that fits), with the style its outcome takes.
    fn call_line(&self, i: usize, e: &CallEntry) -> (Line<'static>, Style) {
        let theme = self.theme;
        let sig = escape(&e.signature);
        let (mark, style, outcome_style) = match e.live.as_ref().map(|l| l.state) {
            _ if !e.ran => ("BLOCKED ", theme.error, theme.error),
            Some(LiveState::Calling(_)) => ("calling ", theme.key, theme.key),
            Some(LiveState::ToolError) => ("ERROR   ", theme.error, theme.error),
            Some(LiveState::Failed) => ("FAILED  ", theme.error, theme.error),
            Some(LiveState::Answered) => ("ran     ", theme.selected, Style::default()),
            None => ("ran     ", theme.selected, theme.dim),
        };
        let server = self.server(e);
        // The picked row is marked; a cut line ends in an ellipsis (the
        // open-call key shows it whole).
        let picked = self.p.picked_row() == Some(i);
        let head = format!("{}{:>3} ", if picked { "›" } else { " " }, i + 1);
        let counts = format!("{}/{} ", e.repeats, e.threshold);
        let fixed = self
            .width
            .saturating_sub(text_width(&head) + 8 + text_width(&counts) + text_width(&server));
        // The call gets the room first: where the trace line would cut
        // it, it is said shorter, or not at all.
        let from = e.trace_line.map_or(String::new(), |l| {
            [format!(" (trace line {l})"), format!(" (line {l})")]
                .into_iter()
                .find(|f| text_width(&sig) + text_width(f) <= fixed)
                .unwrap_or_default()
        });
        let room = fixed.saturating_sub(text_width(&from));
        let line = Line::from(vec![
            Span::styled(head, if picked { theme.key } else { Style::default() }),
            Span::styled(mark, style),
            Span::raw(counts),
            Span::styled(server, theme.always),
            Span::raw(cut(&sig, room.max(8))),
            Span::styled(from, theme.dim),
        ]);
        (line, outcome_style)
    }

    /// `[server] ` of a call made, or of the tool a blocked call named
    /// (never sent, it has no answer to say where it went), when the log
    /// holds real calls.
    fn server(&self, e: &CallEntry) -> String {
        let catalog = self.app.catalog();
        match e.live.as_ref() {
            Some(l) => format!("[{}] ", escape(&l.server)),
            None => catalog
                .index_of(&e.tool)
                .and_then(|i| catalog.tools()[i].mcp.as_ref())
                .filter(|_| self.p.log.iter().any(|o| o.live.is_some()))
                .map_or(String::new(), |o| format!("[{}] ", escape(&o.server))),
        }
    }

    /// The answer whole under its call, cut into the pane's width, leaving
    /// room for at least the call before it.
    fn push_whole(&self, group: &mut Vec<Line<'static>>, e: &CallEntry, style: Style) {
        let room = self.width.saturating_sub(4).max(4);
        for line in e.outcome.lines() {
            let chars: Vec<char> = line.chars().collect();
            for (k, chunk) in chars.chunks(room).enumerate() {
                let lead = if k == 0 && group.len() == 1 {
                    "  → "
                } else {
                    "    "
                };
                group.push(Line::from(vec![
                    Span::raw(lead),
                    Span::styled(chunk.iter().collect::<String>(), style),
                ]));
            }
        }
        if group.len() == 1 {
            group.push(Line::from("  → "));
        }
        let max = self.height.saturating_sub(2).max(2);
        if group.len() > max {
            group.truncate(max - 1);
            group.push(Line::from(Span::styled("    …", self.theme.dim)));
        }
    }

    /// One line of the outcome, `…` after it when there is more.
    fn outcome_line(&self, e: &CallEntry, style: Style) -> Line<'static> {
        let mut outcome_lines = e.outcome.lines();
        let first = escape(outcome_lines.next().unwrap_or("")).into_owned();
        let outcome = if outcome_lines.next().is_some() {
            format!("{} …", cut(&first, self.width.saturating_sub(8)))
        } else {
            cut(&first, self.width.saturating_sub(6))
        };
        Line::from(vec![Span::raw("    → "), Span::styled(outcome, style)])
    }
}
