//! The breaker simulator's screen: the call being made, the streak against
//! the threshold, the call log, and a trace being replayed.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Gauge, Paragraph, Wrap};

use super::{Theme, pane};
use crate::tui::app::App;
use crate::tui::breaker::BreakerPane;

const KEYS: &str = " Enter call · e edit args · L loop · +/- threshold · [ ] loop count · r reset · t/T tool · o open trace · n step · R run · Esc back";

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some(p) = &app.breaker else { return };
    let body = Rect {
        y: area.y + 1,
        height: area.height.saturating_sub(2),
        ..area
    };
    f.render_widget(Clear, body);
    let [main, keys] = Layout::vertical([Constraint::Min(5), Constraint::Length(1)]).areas(body);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(46), Constraint::Percentage(54)]).areas(main);
    // The call panel keeps about 16 rows; the trace gets what is left, at most half.
    let trace_height = if p.trace.is_some() {
        (left.height / 2).min(left.height.saturating_sub(16)).max(4)
    } else {
        0
    };
    let [call, trace] =
        Layout::vertical([Constraint::Min(12), Constraint::Length(trace_height)]).areas(left);
    draw_call(f, call, app, p, theme);
    if p.trace.is_some() {
        draw_trace(f, trace, p, theme);
    }
    draw_log(f, right, p, theme);
    f.render_widget(Paragraph::new(Span::styled(KEYS, theme.dim)), keys);
    // The terminal cursor in the arguments being typed (row and column
    // follow the wrapping of the `args` line).
    if p.editing && p.path.is_none() {
        let width = usize::from(call.width.saturating_sub(2).max(1));
        let col = 7 + p.args.text.chars().take(p.args.cursor).count();
        let x = call.x + 1 + (col % width) as u16;
        let y = call.y + 5 + (col / width) as u16;
        if y < call.bottom().saturating_sub(1) {
            f.set_cursor_position((x, y));
        }
    }
}

fn draw_call(f: &mut Frame, area: Rect, app: &App, p: &BreakerPane, theme: &Theme) {
    let tool = app.tool(p.tool);
    let block = pane(
        Line::from(Span::styled(
            format!(" Breaker simulator · threshold {} ", p.breaker.threshold()),
            theme.title,
        )),
        true,
        theme,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    // Short lines and the gauge first, at fixed rows; the arguments and the
    // signature, which can be long, wrap below them.
    let [top, gauge, _, rest] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(inner);
    let head = vec![
        Line::from(vec![
            Span::styled("tool   ", theme.key),
            Span::raw(tool.name.clone()),
            Span::styled("  (t/T another tool)", theme.dim),
        ]),
        Line::from(vec![
            Span::styled("threshold ", theme.key),
            Span::raw(format!("{} (+/-)", p.breaker.threshold())),
            Span::styled("   loop ", theme.key),
            Span::raw(format!("×{} ([ ])", p.loop_count)),
        ]),
    ];
    f.render_widget(Paragraph::new(head), top);
    let repeats = p.breaker.repeats();
    let threshold = u64::from(p.breaker.threshold());
    let tripped = repeats > threshold;
    let label = if tripped {
        format!("streak {repeats} > {threshold}: BLOCKED")
    } else {
        format!("streak {repeats} of {threshold}")
    };
    f.render_widget(
        Gauge::default()
            .gauge_style(if tripped { theme.error } else { theme.gauge })
            .ratio((repeats as f64 / threshold.max(1) as f64).clamp(0.0, 1.0))
            .label(label),
        gauge,
    );
    let mut lines = vec![Line::from(vec![
        Span::styled("args   ", theme.key),
        Span::styled(
            p.args.text.clone(),
            if p.editing {
                theme.highlight
            } else {
                Default::default()
            },
        ),
    ])];
    lines.push(Line::from(match p.parsed_args() {
        Ok(_) => Span::styled("       ✓ valid JSON object", theme.selected),
        Err(e) => Span::styled(format!("       ✗ {e}: cannot be sent"), theme.error),
    }));
    match p.current_signature(&app.catalog) {
        Some(sig) => {
            let same = p.breaker.last_signature() == Some(sig.as_str());
            lines.push(Line::from(vec![
                Span::styled("call   ", theme.key),
                Span::raw(sig),
            ]));
            lines.push(Line::from(Span::styled(
                if same {
                    "       the same call as the last one: the streak goes on"
                } else if p.breaker.last_signature().is_some() {
                    "       a different call from the last one: a new streak starts"
                } else {
                    "       no streak yet"
                },
                theme.dim,
            )));
        }
        None => lines.push(Line::from(Span::styled("call   -", theme.dim))),
    }
    if let Some(path) = &p.path {
        lines.push(Line::from(""));
        lines.push(Line::from(vec![
            Span::styled("trace  ", theme.key),
            Span::styled(path.text.clone(), theme.highlight),
        ]));
        lines.push(Line::from(Span::styled(
            "       a JSONL file of {\"name\", \"arguments\"}, or @example; Enter loads",
            theme.dim,
        )));
    } else if let Some(m) = &p.message {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::raw(m.clone())));
    }
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), rest);
}

fn draw_trace(f: &mut Frame, area: Rect, p: &BreakerPane, theme: &Theme) {
    let Some(t) = &p.trace else { return };
    let title = match t.tripped_at {
        Some(i) => format!(" Trace {} · trips at call {i} ", t.origin),
        None => format!(
            " Trace {} · call {} of {} ",
            t.origin,
            t.next.min(t.calls.len()),
            t.calls.len()
        ),
    };
    let block = pane(Line::from(Span::styled(title, theme.title)), false, theme);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let height = usize::from(inner.height);
    let start = t
        .next
        .saturating_sub(height.saturating_sub(2).max(1))
        .min(t.calls.len());
    let lines: Vec<Line> = t
        .calls
        .iter()
        .enumerate()
        .skip(start)
        .take(height)
        .map(|(i, c)| {
            let (mark, style) = match t.outcomes.get(i) {
                Some(true) => ("ran    ", Default::default()),
                Some(false) if t.tripped_at == Some(i) => ("TRIPS  ", theme.error),
                Some(false) => ("blocked", theme.error),
                None if i == t.next => ("next › ", theme.key),
                None => ("       ", theme.dim),
            };
            Line::from(vec![
                Span::styled(format!("{i:>3} {mark} "), style),
                Span::raw(format!("{} {}", c.name, c.arguments)),
            ])
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

fn draw_log(f: &mut Frame, area: Rect, p: &BreakerPane, theme: &Theme) {
    let ran = p.log.iter().filter(|e| e.ran).count();
    let block = pane(
        Line::from(Span::styled(
            format!(
                " Call log · {} calls, {} ran, {} blocked ",
                p.log.len(),
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
    if p.log.is_empty() {
        f.render_widget(
            Paragraph::new(Span::styled(
                "no calls yet: Enter calls the tool, L calls it in a loop",
                theme.dim,
            )),
            inner,
        );
        return;
    }
    // Newest at the bottom; two lines per call.
    let per = 2usize;
    let fit = (usize::from(inner.height) / per).max(1);
    let start = p.log.len().saturating_sub(fit);
    let mut lines = Vec::new();
    for (i, e) in p.log.iter().enumerate().skip(start) {
        let from = e
            .trace_line
            .map_or(String::new(), |l| format!(" (trace line {l})"));
        lines.push(Line::from(vec![
            Span::raw(format!("{:>3} ", i + 1)),
            Span::styled(
                if e.ran { "ran     " } else { "BLOCKED " },
                if e.ran { theme.selected } else { theme.error },
            ),
            Span::raw(format!("{}/{} ", e.repeats, e.threshold)),
            Span::raw(e.signature.clone()),
            Span::styled(from, theme.dim),
        ]));
        lines.push(Line::from(vec![
            Span::raw("    → "),
            Span::styled(
                e.outcome.clone(),
                if e.ran { theme.dim } else { theme.error },
            ),
        ]));
    }
    f.render_widget(Paragraph::new(lines), inner);
}
