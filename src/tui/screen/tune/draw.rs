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
use crate::tools_handle::{InitialToolCount, MaxTools, ToolsHandle};
use crate::tui::action::Action;
use crate::tui::keymap::Keymap;
use crate::tui::paint::{Theme, pane};
use crate::tui::text::{fit_segments, wrap};
use crate::tune::{Point, TuneReport};

/// The marks, as the chart, the table and the legend draw them.
const CURRENT: &str = "█";
const RECOMMENDED: &str = "•";

/// What the Tune screen's drawing reads beyond its pane.
pub struct Seen<'a> {
    pub tune: &'a super::TunePane,
    pub keymap: &'a Keymap,
    pub settings: &'a Settings,
    pub handle: &'a ToolsHandle,
    /// The search cap and initial count the screen marks.
    pub current: Option<(MaxTools, InitialToolCount)>,
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

    fn tune_current(&self) -> Option<(MaxTools, InitialToolCount)> {
        self.current
    }

    fn always_load_count(&self) -> usize {
        self.always_load
    }
}

/// The Tune screen: its frame (naming the requests measured), then, once
/// measured, the chart, the table where there is room, and the legend.
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

/// The measured point of a cap, if it was measured.
fn point_at(report: &TuneReport, cap: MaxTools) -> Option<&Point> {
    report.points.iter().find(|p| p.max_tools == cap)
}

/// The chart: all loaded (and the lenient share) against the tokens
/// sent, a point per cap, the current and recommended caps marked.
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

/// Which caps the table shows: all of them, or a window around the
/// current one with a line above and below saying which are out of view.
struct CapWindow {
    /// The first cap's row in view.
    start: usize,
    /// One past the last cap's row in view.
    end: usize,
    /// The rows the caps take.
    height: usize,
    /// Not all caps fit: the lines above and below show.
    windowed: bool,
}

impl CapWindow {
    /// The window over `len` caps in `rows` rows, centred on the current
    /// cap (or the nearest cap measured above it).
    fn around(report: &TuneReport, current: Option<MaxTools>, rows: usize) -> Self {
        let len = report.points.len();
        let windowed = len > rows;
        let height = if windowed {
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
        CapWindow {
            start,
            end,
            height,
            windowed,
        }
    }
}

/// The caps as a table beside the chart: a heading, then a row a cap
/// (the current and recommended marked), a window of them when they do
/// not all fit; a line says which caps are above or below it (the cap
/// keys move the window).
fn draw_table(f: &mut Frame, area: Rect, app: &Seen, report: &TuneReport, theme: &Theme) {
    let current = app.tune_current().map(|c| c.0);
    let len = report.points.len();
    let rows = usize::from(area.height).saturating_sub(1).max(1);
    let w = CapWindow::around(report, current, rows);
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
    if w.windowed {
        lines.push(Line::from(Span::styled(
            if w.start > 0 {
                format!(
                    "   ↑ caps {}-{} above ({keys} move the cap)",
                    report.points[0].max_tools,
                    report.points[w.start - 1].max_tools
                )
            } else {
                String::new()
            },
            theme.dim,
        )));
    }
    for p in report.points.iter().skip(w.start).take(w.height) {
        lines.push(cap_row(p, current, report.recommended.max_tools, theme));
    }
    if w.windowed && w.end < len {
        lines.push(Line::from(Span::styled(
            format!(
                "   ↓ caps {}-{} below ({keys} move the cap)",
                report.points[w.end].max_tools,
                report.points[len - 1].max_tools
            ),
            theme.dim,
        )));
    }
    f.render_widget(Paragraph::new(lines), area);
}

/// One cap's row of the table: its mark (current or recommended), the
/// shares loaded, the tokens sent and what it saves, highlighted when it
/// is the current cap.
fn cap_row(
    p: &Point,
    current: Option<MaxTools>,
    recommended: MaxTools,
    theme: &Theme,
) -> Line<'static> {
    let is_current = current == Some(p.max_tools);
    let is_rec = recommended == p.max_tools;
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
    Line::from(Span::styled(text, style))
}

/// A cap's point as the legend's segments, most telling first.
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

/// The legend under the chart, a line each: the cap in force, the one
/// recommended, the initial set, and the screen's message or what was
/// measured.
fn draw_legend(f: &mut Frame, area: Rect, app: &Seen, report: &TuneReport, theme: &Theme) {
    let width = usize::from(area.width);
    let lines = vec![
        now_line(app, report, width, theme),
        recommended_line(report, width, theme),
        initial_line(app, report, width, theme),
        last_line(app, report, width, theme),
    ];
    f.render_widget(Paragraph::new(lines), area);
}

/// `█ now`: the cap in force described, or why there is none to mark.
fn now_line(app: &Seen, report: &TuneReport, width: usize, theme: &Theme) -> Line<'static> {
    let first = match app.tune_current() {
        None => vec!["strategy all: every tool is sent, no cap to mark".to_string()],
        Some((cap, _)) => match point_at(report, cap) {
            Some(p) => describe(p),
            None => vec![format!(
                "cap {cap} is outside the measured caps ({}–{})",
                report.points.first().map_or(0, |p| p.max_tools.get()),
                report.points.last().map_or(0, |p| p.max_tools.get())
            )],
        },
    };
    Line::from(vec![
        Span::styled(format!("{CURRENT} now  "), theme.always),
        Span::raw(fit_segments(&first, width.saturating_sub(7))),
    ])
}

/// `• recommended`: the cap recommended described, with its initial count.
fn recommended_line(report: &TuneReport, width: usize, theme: &Theme) -> Line<'static> {
    let rec = report.recommended;
    let mut second = point_at(report, rec.max_tools)
        .map(describe)
        .unwrap_or_default();
    second.insert(1, format!("initial {}", rec.initial_tool_count));
    let label = format!("{RECOMMENDED} recommended ");
    let room = width.saturating_sub(label.chars().count());
    Line::from(vec![
        Span::styled(label, theme.matched),
        Span::raw(fit_segments(&second, room)),
    ])
}

/// The initial set: the count in force (and why it is not the one asked
/// for), the share of requests it answers with no search, its tokens, and
/// the count recommended.
fn initial_line(app: &Seen, report: &TuneReport, width: usize, theme: &Theme) -> Line<'static> {
    let rec = report.recommended;
    let initial_now = app.tune_current().map(|c| c.1);
    let in_force = initial_in_force(app, initial_now, width);
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
    Line::from(Span::styled(fit_segments(&initial, width), theme.dim))
}

/// The count asked for and the count in force: a cap on loaded tools can
/// leave fewer beside the always-load ones, and says so, the arithmetic
/// in the room there is (the cap on loaded tools holds the always-load
/// ones first).
fn initial_in_force(app: &Seen, initial_now: Option<InitialToolCount>, width: usize) -> String {
    let asked = app.settings().initial_tool_count;
    match initial_now {
        Some(n) if n != asked => {
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
    }
}

/// The last line: the screen's message, or what was measured (the
/// requests, the target and whether it was reached, strategy all's
/// tokens, how tokens were counted).
fn last_line(app: &Seen, report: &TuneReport, width: usize, theme: &Theme) -> Line<'static> {
    match &app.tune().message {
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
    }
}

#[cfg(test)]
mod tests {
    use super::CapWindow;

    #[test]
    fn the_caps_window_centres_on_the_current_cap_when_they_do_not_all_fit() {
        // Caps 1 to 4.
        let report = crate::tune::tests_support::small_report();
        let all = CapWindow::around(&report, crate::tools_handle::MaxTools::new(2), 10);
        assert!(!all.windowed);
        assert_eq!((all.start, all.end, all.height), (0, 4, 10));
        // Three rows: one cap between the lines above and below it.
        let one = CapWindow::around(&report, crate::tools_handle::MaxTools::new(3), 3);
        assert!(one.windowed);
        assert_eq!((one.start, one.end, one.height), (2, 3, 1));
        // A cap beyond the measured ones shows the last; none, the first.
        let beyond = CapWindow::around(&report, crate::tools_handle::MaxTools::new(9), 3);
        assert_eq!((beyond.start, beyond.end), (3, 4));
        let none = CapWindow::around(&report, None, 3);
        assert_eq!((none.start, none.end), (0, 1));
    }
}
