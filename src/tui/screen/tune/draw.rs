//! The Tune screen: for every search cap, the share of requests whose
//! expected tools are all loaded against the tokens sent, as a chart (one
//! point per cap) with the setting in force and the recommendation marked;
//! on wide terminals the caps as a table beside it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Clear, Dataset, GraphType, Paragraph};

use super::TuneState;
use super::layout::TuneLayout;
use crate::numbers::thousands;
use crate::settings::Settings;
use crate::terminal_text::escape;
use crate::tools_handle::ToolsHandle;
use crate::tui::action::Action;
use crate::tui::keymap::Keymap;
use crate::tui::paint::{Theme, pane};
use crate::tui::text::wrap;
use crate::tune::{Point, TuneReport};

/// The marks, as the chart, the table and the legend draw them.
const CURRENT: &str = "█";
const RECOMMENDED: &str = "•";

/// Segments joined with " · ", leaving out whole segments from the end
/// until the line fits `width` (a line shortens, never cut mid-word).
pub fn fit_segments(segments: &[String], width: usize) -> String {
    let mut n = segments.len();
    loop {
        let line = segments[..n].join(" · ");
        if line.chars().count() <= width {
            return line;
        }
        if n <= 1 {
            // One segment wider than the line: cut at a word, with "…".
            return crate::tui::text::fit_words(&line, width);
        }
        n -= 1;
    }
}

/// What the Tune screen's drawing reads beyond its pane.
pub struct Seen<'a> {
    pub tune: &'a super::TunePane,
    pub keymap: &'a Keymap,
    pub settings: &'a Settings,
    pub handle: &'a ToolsHandle,
    /// The search cap and initial count the screen marks.
    pub current: Option<(usize, usize)>,
    pub always_load: usize,
}

impl Seen<'_> {
    fn tune(&self) -> &super::TunePane {
        self.tune
    }

    fn keymap(&self) -> &Keymap {
        self.keymap
    }

    fn settings(&self) -> &Settings {
        self.settings
    }

    fn handle(&self) -> &ToolsHandle {
        self.handle
    }

    fn tune_current(&self) -> Option<(usize, usize)> {
        self.current
    }

    fn always_load_count(&self) -> usize {
        self.always_load
    }
}

pub fn draw(f: &mut Frame, l: &TuneLayout, app: &Seen, theme: &Theme) {
    f.render_widget(Clear, l.body);
    let file = app.tune().queries.as_deref().map(escape);
    let title = match &file {
        Some(file) => format!(" Tune · requests from {file} "),
        None => " Tune ".to_string(),
    };
    f.render_widget(
        pane(Line::from(Span::styled(title, theme.title)), true, theme),
        l.panel,
    );
    if let TuneState::Ready(report) = &app.tune().state {
        draw_chart(f, l.chart, app, report, theme);
        if let Some(t) = l.table {
            draw_table(f, t, app, report, theme);
        }
        draw_legend(f, l.legend, app, report, theme);
    }
    let message = match &app.tune().state {
        TuneState::NoQueries => Some((
            format!(
                "No request file. {} picks one: JSON lines with \"query\" and \"expected\" (the eval format), or @demo on the demo catalog.",
                app.keymap().label(crate::tui::action::Action::TuneOpen)
            ),
            theme.dim,
        )),
        TuneState::Measuring => Some((
            format!(
                "measuring every cap on {}…",
                file.as_deref().unwrap_or("the requests")
            ),
            theme.dim,
        )),
        TuneState::Failed(e) => Some((
            format!(
                "could not measure: {}\n\n{} picks another file, {} measures again",
                escape(e),
                app.keymap().label(crate::tui::action::Action::TuneOpen),
                app.keymap().label(crate::tui::action::Action::TuneRerun)
            ),
            theme.error,
        )),
        TuneState::Ready(_) => None,
    };
    if let Some((text, style)) = message {
        let area = ratatui::layout::Rect {
            height: l.chart.height + l.legend.height,
            ..l.chart
        };
        // Line by line (a span would run them together), wrapped at words.
        let lines: Vec<Line> = text
            .lines()
            .map(|l| Line::from(Span::styled(l.to_string(), style)))
            .collect();
        f.render_widget(Paragraph::new(wrap(lines, usize::from(area.width))), area);
    }
    if let Some(input) = &app.tune().path {
        f.render_widget(Clear, l.prompt);
        let block = pane(
            Line::from(Span::styled(
                " Request file: JSONL (query, expected) or @demo ",
                theme.title,
            )),
            true,
            theme,
        );
        let inner = block.inner(l.prompt);
        f.render_widget(block, l.prompt);
        let width = usize::from(inner.width.max(1));
        // The end of a long path stays in view.
        let chars: Vec<char> = escape(&input.text).chars().collect();
        let skip = input.cursor.saturating_sub(width - 1);
        let shown: String = chars.iter().skip(skip).take(width).collect();
        f.render_widget(Paragraph::new(shown), inner);
        let x = inner.x + (input.cursor - skip).min(width - 1) as u16;
        f.set_cursor_position((x, inner.y));
    }
}

fn point_at(report: &TuneReport, cap: usize) -> Option<&Point> {
    report.points.iter().find(|p| p.max_tools == cap)
}

fn draw_chart(f: &mut Frame, area: Rect, app: &Seen, report: &TuneReport, theme: &Theme) {
    let strict: Vec<(f64, f64)> = report
        .points
        .iter()
        .map(|p| (p.mean_sent_tokens, p.all_loaded_pct))
        .collect();
    let lenient: Vec<(f64, f64)> = report
        .points
        .iter()
        .map(|p| (p.mean_sent_tokens, p.lenient_all_loaded_pct))
        .collect();
    let current: Vec<(f64, f64)> = app
        .tune_current()
        .and_then(|(cap, _)| point_at(report, cap))
        .map(|p| vec![(p.mean_sent_tokens, p.all_loaded_pct)])
        .unwrap_or_default();
    let recommended: Vec<(f64, f64)> = point_at(report, report.recommended.max_tools)
        .map(|p| vec![(p.mean_sent_tokens, p.all_loaded_pct)])
        .unwrap_or_default();
    let max_x = strict.iter().map(|p| p.0).fold(1.0_f64, f64::max) * 1.05;
    let datasets = vec![
        Dataset::default()
            .name("lenient")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.dim)
            .data(&lenient),
        Dataset::default()
            .name("all loaded")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.selected)
            .data(&strict),
        Dataset::default()
            .marker(Marker::Dot)
            .graph_type(GraphType::Scatter)
            .style(theme.matched)
            .data(&recommended),
        Dataset::default()
            .marker(Marker::Block)
            .graph_type(GraphType::Scatter)
            .style(theme.always)
            .data(&current),
    ];
    let x_labels = vec![
        Span::raw("0"),
        Span::raw(thousands((max_x / 2.0) as u64)),
        Span::raw(thousands(max_x as u64)),
    ];
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .title(Span::styled("mean tokens sent", theme.dim))
                .bounds([0.0, max_x])
                .labels(x_labels),
        )
        .y_axis(
            Axis::default()
                .title(Span::styled("all loaded %", theme.dim))
                .bounds([0.0, 100.0])
                .labels(vec![Span::raw("0"), Span::raw("50"), Span::raw("100")]),
        )
        // Which curve is which, where the curves leave room.
        .legend_position(Some(ratatui::widgets::LegendPosition::BottomRight))
        .hidden_legend_constraints((Constraint::Percentage(50), Constraint::Percentage(50)));
    f.render_widget(chart, area);
}

fn draw_table(f: &mut Frame, area: Rect, app: &Seen, report: &TuneReport, theme: &Theme) {
    let current = app.tune_current().map(|c| c.0);
    let len = report.points.len();
    let rows = usize::from(area.height).saturating_sub(1).max(1);
    // A window of the caps around the current one when they do not all
    // fit; a line says which caps are above or below it (the cap keys
    // move the window).
    let height = if len > rows {
        rows.saturating_sub(2).max(1)
    } else {
        rows
    };
    // The row of the current cap, or of the nearest cap measured.
    let at = current
        .map(|c| {
            report
                .points
                .iter()
                .position(|p| p.max_tools >= c)
                .unwrap_or(len.saturating_sub(1))
        })
        .unwrap_or(0);
    let start = at
        .saturating_sub(height / 2)
        .min(len.saturating_sub(height));
    let end = (start + height).min(len);
    let key = |a: Action| {
        app.keymap()
            .first(a)
            .map(|k| k.to_string())
            .unwrap_or_default()
    };
    let keys = format!("{} {}", key(Action::TuneCapDown), key(Action::TuneCapUp));
    let mut lines = vec![Line::from(Span::styled(
        "   cap  loaded  lenient  mean tk  p95 tk  saved",
        theme.key,
    ))];
    if len > rows {
        lines.push(Line::from(Span::styled(
            if start > 0 {
                format!(
                    "   ↑ caps {}-{} above ({keys} move the cap)",
                    report.points[0].max_tools,
                    report.points[start - 1].max_tools
                )
            } else {
                String::new()
            },
            theme.dim,
        )));
    }
    for p in report.points.iter().skip(start).take(height) {
        let is_current = current == Some(p.max_tools);
        let is_rec = report.recommended.max_tools == p.max_tools;
        let mark = match (is_current, is_rec) {
            (true, _) => CURRENT,
            (false, true) => RECOMMENDED,
            _ => " ",
        };
        let text = format!(
            "{mark} {:>4}  {:>5.1}%  {:>6.1}%  {:>7}  {:>6}  {:>4.1}%",
            p.max_tools,
            p.all_loaded_pct,
            p.lenient_all_loaded_pct,
            thousands(p.mean_sent_tokens.round() as u64),
            thousands(p.p95_sent_tokens),
            p.saved_pct
        );
        let style = if is_current {
            theme.highlight
        } else if is_rec {
            theme.matched
        } else {
            Style::default()
        };
        lines.push(Line::from(Span::styled(text, style)));
    }
    if len > rows && end < len {
        lines.push(Line::from(Span::styled(
            format!(
                "   ↓ caps {}-{} below ({keys} move the cap)",
                report.points[end].max_tools,
                report.points[len - 1].max_tools
            ),
            theme.dim,
        )));
    }
    f.render_widget(Paragraph::new(lines), area);
}

fn describe(p: &Point) -> Vec<String> {
    vec![
        format!("cap {}", p.max_tools),
        format!("{:.1}% all loaded", p.all_loaded_pct),
        format!("lenient {:.1}%", p.lenient_all_loaded_pct),
        format!(
            "{} tokens sent",
            thousands(p.mean_sent_tokens.round() as u64)
        ),
        format!("saves {:.1}%", p.saved_pct),
    ]
}

fn draw_legend(f: &mut Frame, area: Rect, app: &Seen, report: &TuneReport, theme: &Theme) {
    let width = usize::from(area.width);
    let mut lines = Vec::new();
    let current = app.tune_current();
    let first = match current {
        None => vec!["strategy all: every tool is sent, no cap to mark".to_string()],
        Some((cap, _)) => match point_at(report, cap) {
            Some(p) => describe(p),
            None => vec![format!(
                "cap {cap} is outside the measured caps ({}–{})",
                report.points.first().map_or(0, |p| p.max_tools),
                report.points.last().map_or(0, |p| p.max_tools)
            )],
        },
    };
    lines.push(Line::from(vec![
        Span::styled(format!("{CURRENT} now  "), theme.always),
        Span::raw(fit_segments(&first, width.saturating_sub(7))),
    ]));
    let rec = report.recommended;
    let mut second = point_at(report, rec.max_tools)
        .map(describe)
        .unwrap_or_default();
    second.insert(1, format!("initial {}", rec.initial_tool_count));
    let label = format!("{RECOMMENDED} recommended ");
    let room = width.saturating_sub(label.chars().count());
    lines.push(Line::from(vec![
        Span::styled(label, theme.matched),
        Span::raw(fit_segments(&second, room)),
    ]));
    // The count asked for and the count in force: a cap on loaded tools
    // can leave fewer beside the always-load ones, and says so.
    let asked = app.settings().initial_tool_count.to_usize();
    let initial_now = current.map(|c| c.1);
    let in_force = match initial_now {
        Some(n) if n != asked => {
            // The arithmetic, in the room there is: the cap on loaded
            // tools holds the always-load ones first.
            let always = app.always_load_count();
            let whys = match app.handle().max_loaded_tools() {
                Some(m) => vec![
                    format!(
                        "initial set: asked {asked}, in force {n} (max_loaded_tools {m} leaves {} beside the {always} always-load)",
                        m.to_usize().saturating_sub(always)
                    ),
                    format!(
                        "initial set: asked {asked}, in force {n} (max_loaded {m} − {always} always-load)"
                    ),
                    format!("initial {asked} → {n} (max_loaded {m} − {always} always-load)"),
                ],
                None => vec![
                    format!(
                        "initial set: asked {asked}, in force {n} (the catalog has {n} tools beside the always-load ones)"
                    ),
                    format!("initial {asked} → {n} (only {n} beside always-load)"),
                ],
            };
            let last = whys.last().cloned().unwrap_or_default();
            whys.into_iter()
                .find(|w| w.chars().count() <= width)
                .unwrap_or(last)
        }
        Some(n) => format!("initial set {n}"),
        None => "initial set: strategy all sends every tool".to_string(),
    };
    let initial: Vec<String> = match initial_now.and_then(|n| {
        report
            .initial
            .iter()
            .find(|p| p.initial_tool_count == n)
            .map(|p| (n, p))
    }) {
        Some((_, p)) => vec![
            in_force,
            format!("{:.1}% of requests need no search", p.covered_pct),
            format!("{} tokens", thousands(p.tokens)),
            format!("recommended {}", rec.initial_tool_count),
        ],
        None => vec![in_force, format!("recommended {}", rec.initial_tool_count)],
    };
    lines.push(Line::from(Span::styled(
        fit_segments(&initial, width),
        theme.dim,
    )));
    let last = match &app.tune().message {
        Some(m) => Line::from(Span::styled(
            crate::tui::text::fit_words(&escape(m), width),
            theme.key,
        )),
        None => Line::from(Span::styled(
            fit_segments(
                &[
                    crate::tui::text::count(report.queries as u64, "request", "requests"),
                    format!(
                        "target {:.1}% all loaded{}",
                        report.target_pct,
                        if report.target_reached {
                            ""
                        } else {
                            " (not reached)"
                        }
                    ),
                    format!("strategy all: {} tokens", thousands(report.full_tokens)),
                    format!("{}", report.token_basis),
                ],
                width,
            ),
            theme.dim,
        )),
    };
    lines.push(last);
    f.render_widget(Paragraph::new(lines), area);
}

#[cfg(test)]
mod tests {
    use super::fit_segments;

    #[test]
    fn lines_shorten_by_whole_segments() {
        let s: Vec<String> = ["cap 8", "83.3% all loaded", "saves 71.2%"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            fit_segments(&s, 80),
            "cap 8 · 83.3% all loaded · saves 71.2%"
        );
        assert_eq!(fit_segments(&s, 30), "cap 8 · 83.3% all loaded");
        assert_eq!(fit_segments(&s, 30), "cap 8 · 83.3% all loaded");
        // One segment too wide is cut at a word, never mid-word unmarked.
        let one = vec!["initial set: asked 8, in force 2".to_string()];
        assert_eq!(fit_segments(&one, 24), "initial set: asked 8…");
    }
}
