//! The breaker simulator's screen: the call being made, the streak against
//! the threshold, the call log, and a trace being replayed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Gauge, Paragraph};

use super::layout::BreakerLayout;
use super::{BreakerPane, LiveState};
use crate::catalog::Catalog;
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::keymap::Keymap;
use crate::tui::paint::{Theme, pane, popup};
use crate::tui::text::{count, cut, width as text_width, wrap};

/// The label before the arguments (and the indent of the lines under it).
const LABEL_WIDTH: usize = 7;

/// What the simulator's drawing reads beyond its pane.
pub struct Seen<'a> {
    pub pane: &'a BreakerPane,
    pub catalog: &'a Catalog,
    pub keymap: &'a Keymap,
    /// Calls go to live MCP servers.
    pub mcp_live: bool,
}

impl Seen<'_> {
    fn keymap(&self) -> &Keymap {
        self.keymap
    }

    fn catalog(&self) -> &Catalog {
        self.catalog
    }

    fn mcp_live(&self) -> bool {
        self.mcp_live
    }

    fn breaker(&self) -> Option<&BreakerPane> {
        Some(self.pane)
    }
}

/// The keys of two actions as a hint: `"+ -"`.
fn hint(app: &Seen, actions: &[Action]) -> String {
    actions
        .iter()
        .filter_map(|&a| app.keymap().first(a))
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn draw(f: &mut Frame, l: &BreakerLayout, app: &Seen, theme: &Theme) {
    let Some(p) = app.breaker() else { return };
    f.render_widget(Clear, l.body);
    draw_call(f, l, app, p, theme);
    if let Some(trace) = l.trace {
        draw_trace(f, trace, p, theme);
    }
    draw_log(f, l.log, app, p, theme);
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

fn draw_call(f: &mut Frame, l: &BreakerLayout, app: &Seen, p: &BreakerPane, theme: &Theme) {
    let tool = &app.catalog().tools()[p.tool];
    let block = pane(
        Line::from(Span::styled(
            format!(" Breaker simulator · threshold {} ", p.breaker.threshold()),
            theme.title,
        )),
        true,
        theme,
    );
    f.render_widget(block, l.call);
    // The tool's name first; the hint only where it fits whole.
    let name_room = usize::from(l.call_head.width).saturating_sub(7);
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
    let head = vec![
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
    ];
    f.render_widget(Paragraph::new(head), l.call_head);
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
        l.gauge,
    );
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
    // Wrapped at words, each line's rest under its text; a labelled value
    // (args, call) continues under the value, not under its label.
    let width = usize::from(l.args.width);
    let lines: Vec<Line> = lines
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
        .collect();
    f.render_widget(Paragraph::new(lines), l.args);
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

fn draw_log(f: &mut Frame, area: Rect, app: &Seen, p: &BreakerPane, theme: &Theme) {
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
        // Wrapped at words: the whole hint, in the pane.
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
        return;
    }
    // Newest at the bottom; two lines per call, except the newest answer of
    // a real call, shown whole (wrapped to the pane).
    let width = usize::from(inner.width).max(8);
    let height = usize::from(inner.height);
    let whole = p.log.iter().rposition(|e| {
        e.live
            .as_ref()
            .is_some_and(|l| !matches!(l.state, LiveState::Calling(_)))
    });
    // The calls that fit, newest at the bottom, from call `bottom` up.
    let window = |bottom: usize| -> Vec<(usize, Vec<Line>)> {
        let mut groups: Vec<(usize, Vec<Line>)> = Vec::new();
        let mut used = 0;
        for (i, e) in p.log.iter().enumerate().take(bottom + 1).rev() {
            let sig = escape(&e.signature);
            let (mark, style, outcome_style) = match e.live.as_ref().map(|l| l.state) {
                _ if !e.ran => ("BLOCKED ", theme.error, theme.error),
                Some(LiveState::Calling(_)) => ("calling ", theme.key, theme.key),
                Some(LiveState::ToolError) => ("ERROR   ", theme.error, theme.error),
                Some(LiveState::Failed) => ("FAILED  ", theme.error, theme.error),
                Some(LiveState::Answered) => ("ran     ", theme.selected, Default::default()),
                None => ("ran     ", theme.selected, theme.dim),
            };
            // The server of a call made, or of the tool a blocked call named
            // (never sent, it has no answer to say where it went).
            let server = match e.live.as_ref() {
                Some(l) => format!("[{}] ", escape(&l.server)),
                None => app
                    .catalog()
                    .index_of(&e.tool)
                    .and_then(|i| app.catalog().tools()[i].mcp.as_ref())
                    .filter(|_| p.log.iter().any(|o| o.live.is_some()))
                    .map_or(String::new(), |o| format!("[{}] ", escape(&o.server))),
            };
            // The picked row is marked; a cut line ends in an ellipsis (the
            // open-call key shows it whole).
            let picked = p.picked_row() == Some(i);
            let head = format!("{}{:>3} ", if picked { "›" } else { " " }, i + 1);
            let counts = format!("{}/{} ", e.repeats, e.threshold);
            let fixed = width
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
            let mut group = vec![Line::from(vec![
                Span::styled(
                    head,
                    if picked {
                        theme.key
                    } else {
                        Default::default()
                    },
                ),
                Span::styled(mark, style),
                Span::raw(counts),
                Span::styled(server, theme.always),
                Span::raw(cut(&sig, room.max(8))),
                Span::styled(from, theme.dim),
            ])];
            if whole == Some(i) {
                let room = width.saturating_sub(4).max(4);
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
                            Span::styled(chunk.iter().collect::<String>(), outcome_style),
                        ]));
                    }
                }
                if group.len() == 1 {
                    group.push(Line::from("  → "));
                }
                // Room for at least the entry before it.
                let max = height.saturating_sub(2).max(2);
                if group.len() > max {
                    group.truncate(max - 1);
                    group.push(Line::from(Span::styled("    …", theme.dim)));
                }
            } else {
                // One line of the outcome.
                let mut outcome_lines = e.outcome.lines();
                let first = escape(outcome_lines.next().unwrap_or("")).into_owned();
                let outcome = if outcome_lines.next().is_some() {
                    format!("{} …", cut(&first, width.saturating_sub(8)))
                } else {
                    cut(&first, width.saturating_sub(6))
                };
                group.push(Line::from(vec![
                    Span::raw("    → "),
                    Span::styled(outcome, outcome_style),
                ]));
            }
            if used + group.len() > height && !groups.is_empty() {
                break;
            }
            used += group.len();
            groups.push((i, group));
        }
        groups
    };
    // The newest calls, unless the picked one is older than they reach:
    // then the window ends at it.
    let mut groups = window(len - 1);
    let oldest = groups.last().map_or(0, |(i, _)| *i);
    if let Some(picked) = p.picked_row().filter(|&r| r < oldest) {
        groups = window(picked);
    }
    // The picked call of all, in the bottom border.
    if let Some(r) = p.picked_row() {
        let at = Line::from(format!(" {}/{len} ", r + 1)).right_aligned();
        crate::tui::paint::draw_position(f, area, Some(at));
    }
    let lines: Vec<Line> = groups.into_iter().rev().flat_map(|(_, g)| g).collect();
    f.render_widget(Paragraph::new(lines), inner);
}
