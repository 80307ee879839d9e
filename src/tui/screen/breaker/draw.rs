//! The breaker simulator's screen: the call being made, the streak against
//! the threshold, the call log, and a trace being replayed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Gauge, Paragraph};

use super::BreakerPane;
use super::layout::BreakerLayout;
pub use super::seen::Seen;
use super::seen::hint;
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::paint::{Theme, pane, popup};
use crate::tui::text::{cut, width as text_width, wrap};

/// The label before the arguments (and the indent of the lines under it).
const LABEL_WIDTH: usize = 7;

pub fn draw(f: &mut Frame, l: &BreakerLayout, app: &Seen, theme: &Theme) {
    let Some(p) = app.breaker() else { return };
    f.render_widget(Clear, l.body);
    draw_call(f, l, app, p, theme);
    if let Some(trace) = l.trace {
        draw_trace(f, trace, p, theme);
    }
    super::call_log::draw(f, l.log, app, p, theme);
    if let Some(c) = &p.confirm {
        super::confirm::draw(f, l.confirm, app.keymap(), c, theme);
        return;
    }
    if let Some(row) = p.viewing() {
        draw_view(f, l.body, p, row, theme);
        return;
    }
    if let Some(path) = &p.path {
        draw_path(f, l.confirm, app, p, path, theme);
        return;
    }
    // The terminal cursor in the arguments being typed (row and column
    // follow the wrapping of the arguments' line, the first of `args`).
    if p.editing && p.path.is_none() {
        let width = usize::from(l.args.width.max(1));
        let col = LABEL_WIDTH + p.args.text.chars().take(p.args.cursor).count();
        let x = l.args.x as usize + col % width;
        let y = l.args.y as usize + col / width;
        if y < usize::from(l.args.bottom()) {
            f.set_cursor_position((x as u16, y as u16));
        }
    }
}

/// The call being made: the frame, the tool and the knobs above, the
/// streak against the threshold, then the arguments and what they make.
fn draw_call(f: &mut Frame, l: &BreakerLayout, app: &Seen, p: &BreakerPane, theme: &Theme) {
    let block = pane(
        Line::from(Span::styled(
            format!(" Breaker simulator · threshold {} ", p.breaker.threshold()),
            theme.title,
        )),
        true,
        theme,
    );
    f.render_widget(block, l.call);
    f.render_widget(
        Paragraph::new(call_head(l.call_head, app, p, theme)),
        l.call_head,
    );
    draw_streak(f, l.gauge, p, theme);
    let lines = wrap_labelled(call_lines(app, p, theme), usize::from(l.args.width));
    f.render_widget(Paragraph::new(lines), l.args);
}

/// The two lines at the top: the tool (its name first, the hint to change
/// it only where it fits whole), then the threshold and the loop's count
/// with the keys that change them.
fn call_head(area: Rect, app: &Seen, p: &BreakerPane, theme: &Theme) -> Vec<Line<'static>> {
    let tool = &app.catalog().tools()[p.tool];
    let name_room = usize::from(area.width).saturating_sub(7);
    let name = cut(&escape(&tool.name), name_room);
    let tool_hint = format!(
        "  ({} another tool)",
        hint(app, &[Action::BreakerNextTool, Action::BreakerPrevTool])
    );
    let tool_hint = if text_width(&name) + text_width(&tool_hint) <= name_room {
        tool_hint
    } else {
        String::new()
    };
    vec![
        Line::from(vec![
            Span::styled("tool   ", theme.key),
            Span::raw(name),
            Span::styled(tool_hint, theme.dim),
        ]),
        Line::from(vec![
            Span::styled("threshold ", theme.key),
            Span::raw(format!(
                "{} ({})",
                p.breaker.threshold(),
                hint(
                    app,
                    &[Action::BreakerThresholdUp, Action::BreakerThresholdDown]
                )
            )),
            Span::styled("   loop ", theme.key),
            Span::raw(format!(
                "×{} ({})",
                p.loop_count,
                hint(app, &[Action::BreakerLoopLess, Action::BreakerLoopMore])
            )),
        ]),
    ]
}

/// The streak against the threshold as a gauge, red and `BLOCKED` past it.
fn draw_streak(f: &mut Frame, area: Rect, p: &BreakerPane, theme: &Theme) {
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
        area,
    );
}

/// The arguments and whether they fit the schema, then the call they make
/// (and whether it goes on the streak), unwrapped.
fn call_lines(app: &Seen, p: &BreakerPane, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{:<LABEL_WIDTH$}", "args"), theme.key),
        Span::styled(
            p.args.text.clone(),
            if p.editing {
                theme.highlight
            } else {
                Default::default()
            },
        ),
    ])];
    // The starting arguments are made from the schema; one it still
    // refuses is said to be a guess to edit, never passed off as valid.
    let guessed = app.catalog().tools().get(p.tool).is_some_and(|t| {
        serde_json::from_str::<serde_json::Value>(&p.args.text).ok()
            == Some(crate::catalog::schema::example_arguments(&t.input_schema))
    });
    lines.push(Line::from(match p.parsed_args(app.catalog()) {
        Ok(_) => Span::styled("       ✓ fits the tool's schema", theme.selected),
        Err(e) if guessed => Span::styled(
            format!(
                "       ✗ no valid arguments could be made from the schema ({e}): {} edits them",
                app.keymap().label(Action::BreakerEdit)
            ),
            theme.error,
        ),
        Err(e) => Span::styled(format!("       ✗ {e}: cannot be sent"), theme.error),
    }));
    match p.current_signature(app.catalog()) {
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
    lines.extend(call_status(app, p, theme));
    lines
}

/// Below the call: where a real call goes (and whether it asks first),
/// the calls under way, and the simulator's message.
fn call_status(app: &Seen, p: &BreakerPane, theme: &Theme) -> Vec<Line<'static>> {
    let tool = &app.catalog().tools()[p.tool];
    let mut lines = Vec::new();
    if let Some(o) = p.live_origin(app.catalog(), app.mcp_live()) {
        lines.push(Line::from(Span::styled(
            format!(
                "       a real call to server {} ({})",
                escape(&o.server),
                if tool.read_only {
                    "read-only: sent at once"
                } else {
                    "may write: asks first"
                }
            ),
            theme.always,
        )));
    }
    let calling = p.in_flight();
    if calling > 0 {
        lines.push(Line::from(Span::styled(
            if calling == 1 {
                "       calling…".to_string()
            } else {
                format!("       calling… ({calling} calls under way)")
            },
            theme.key,
        )));
    }
    if let Some(m) = p.message.as_ref().filter(|_| p.path.is_none()) {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::raw(escape(m).into_owned())));
    }
    lines
}

/// Lines wrapped at words, each line's rest under its text; a labelled
/// value (args, call) continues under the value, not under its label.
fn wrap_labelled(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .flat_map(|line| {
            let labelled = line.spans.first().is_some_and(|s| {
                s.content == format!("{:<LABEL_WIDTH$}", "args") || s.content == "call   "
            });
            if labelled {
                crate::tui::text::wrap_hanging(line, width, LABEL_WIDTH)
            } else {
                wrap(vec![line], width)
            }
        })
        .collect()
}

/// The trace-path prompt, over the simulator: the path being typed, what it
/// takes, and why the last one did not load.
fn draw_path(
    f: &mut Frame,
    area: Rect,
    app: &Seen,
    p: &BreakerPane,
    path: &crate::tui::line_input::LineInput,
    theme: &Theme,
) {
    let inner = popup(f, area, " Open a trace ".into(), theme);
    let mut lines = vec![
        Line::from(vec![
            Span::styled("path ", theme.key),
            // A suggestion shows dim: typing replaces it.
            Span::styled(
                path.text.clone(),
                if path.offered {
                    theme.dim
                } else {
                    theme.highlight
                },
            ),
        ]),
        Line::from(Span::styled(
            format!(
                "a JSONL file of {{\"name\", \"arguments\"}}, or @example (typing replaces it); {} loads, {} cancels",
                app.keymap().label(Action::InputSubmit),
                app.keymap().label(Action::InputCancel)
            ),
            theme.dim,
        )),
    ];
    if let Some(m) = &p.trace_error {
        lines.push(Line::from(Span::styled(
            format!("not loaded: {}", escape(m)),
            theme.error,
        )));
    }
    let lines = wrap(lines, usize::from(inner.width));
    f.render_widget(Paragraph::new(lines), inner);
    // The cursor in the path (the line scrolls with it when long).
    let col = 5 + path.text.chars().take(path.cursor).count();
    let width = usize::from(inner.width.max(1));
    if col / width < usize::from(inner.height) {
        f.set_cursor_position((
            inner.x + (col % width) as u16,
            inner.y + (col / width) as u16,
        ));
    }
}

/// One call of the log, whole: its signature, streak and result or error,
/// wrapped and scrolled.
fn draw_view(f: &mut Frame, area: Rect, p: &BreakerPane, row: usize, theme: &Theme) {
    let Some(e) = p.log.get(row) else { return };
    let inner = popup(
        f,
        area,
        format!(" Call {} of {} ", row + 1, p.log.len()),
        theme,
    );
    let mut lines = vec![
        Line::from(vec![
            Span::styled("call     ", theme.key),
            Span::raw(escape(&e.signature).into_owned()),
        ]),
        Line::from(vec![
            Span::styled("streak   ", theme.key),
            Span::raw(format!(
                "{} of threshold {}: {}",
                e.repeats,
                e.threshold,
                if e.ran { "ran" } else { "BLOCKED" }
            )),
        ]),
    ];
    if let Some(l) = &e.trace_line {
        lines.push(Line::from(vec![
            Span::styled("trace    ", theme.key),
            Span::raw(format!("line {l}")),
        ]));
    }
    lines.push(Line::from(Span::styled(
        if e.ran { "result" } else { "error" },
        theme.key,
    )));
    let outcome = escape(&e.outcome).into_owned();
    // A result is JSON: shown pretty when it is.
    match serde_json::from_str::<serde_json::Value>(&e.outcome) {
        Ok(v @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) => {
            lines.extend(crate::tui::paint::json_lines(&v, theme));
        }
        _ => lines.extend(outcome.lines().map(|l| Line::from(format!("  {l}")))),
    }
    let lines = wrap(lines, usize::from(inner.width));
    let scroll = p.view.as_ref().map_or(0, |(_, s)| {
        s.set_limit(lines.len(), usize::from(inner.height))
    });
    let at = crate::tui::paint::position(scroll, usize::from(inner.height), lines.len());
    f.render_widget(
        Paragraph::new(lines).scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
        inner,
    );
    crate::tui::paint::draw_position(f, area, at);
}

/// The trace being replayed: each call, what became of it, and the next
/// one, scrolled to keep the next in view.
fn draw_trace(f: &mut Frame, area: Rect, p: &BreakerPane, theme: &Theme) {
    let Some(trace) = &p.trace else { return };
    let t = &trace.replay;
    let (next, tripped_at) = (t.next(), t.tripped_at());
    let title = match tripped_at {
        Some(i) => format!(
            " Trace {} · trips at call {} ",
            escape(&trace.origin),
            i + 1
        ),
        None => format!(
            " Trace {} · call {} of {} ",
            escape(&trace.origin),
            next.min(t.calls.len()),
            t.calls.len()
        ),
    };
    let block = pane(Line::from(Span::styled(title, theme.title)), false, theme);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let height = usize::from(inner.height);
    let start = next
        .saturating_sub(height.saturating_sub(2).max(1))
        .min(t.calls.len());
    let lines: Vec<Line> = t
        .calls
        .iter()
        .enumerate()
        .skip(start)
        .take(height)
        .map(|(i, c)| {
            let (mark, style) = match t.ran(i) {
                Some(true) => ("ran    ", Default::default()),
                Some(false) if tripped_at == Some(i) => ("TRIPS  ", theme.error),
                Some(false) => ("blocked", theme.error),
                None if i == next => ("next › ", theme.key),
                None => ("       ", theme.dim),
            };
            let call = escape(&format!("{} {}", c.name, c.arguments)).into_owned();
            Line::from(vec![
                Span::styled(format!("{:>3} {mark} ", i + 1), style),
                Span::raw(cut(&call, usize::from(inner.width).saturating_sub(12))),
            ])
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}
