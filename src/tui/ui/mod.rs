//! Drawing: pure functions of `&App`, one file per pane.

mod breaker;
mod catalog;
mod detail;
mod gauges;
mod header;
mod help;
mod query;
mod results;
mod settings;
mod status;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap};

use super::app::{App, Focus, Popup};

/// The smallest terminal the explorer draws in.
pub const MIN_SIZE: (u16, u16) = (80, 24);
/// Below this width the detail pane is a popup.
pub const DETAIL_PANE_MIN_WIDTH: u16 = 100;

/// Styles; with `NO_COLOR` only bold, reverse and underline carry meaning.
pub struct Theme {
    pub title: Style,
    pub border: Style,
    pub border_focused: Style,
    pub highlight: Style,
    pub always: Style,
    pub selected: Style,
    pub initial: Style,
    pub dim: Style,
    pub matched: Style,
    pub error: Style,
    pub key: Style,
    pub json_key: Style,
    pub json_string: Style,
    pub json_number: Style,
    pub json_literal: Style,
    pub gauge: Style,
}

impl Theme {
    pub fn new(no_color: bool) -> Theme {
        let plain = Style::default();
        let bold = plain.add_modifier(Modifier::BOLD);
        if no_color {
            return Theme {
                title: bold,
                border: plain,
                border_focused: bold,
                highlight: plain.add_modifier(Modifier::REVERSED),
                always: bold,
                selected: bold,
                initial: plain,
                dim: plain,
                matched: plain.add_modifier(Modifier::UNDERLINED),
                error: bold,
                key: bold,
                json_key: plain,
                json_string: plain,
                json_number: plain,
                json_literal: plain,
                gauge: plain,
            };
        }
        Theme {
            title: bold.fg(Color::Cyan),
            border: plain.fg(Color::DarkGray),
            border_focused: plain.fg(Color::Cyan),
            highlight: plain
                .bg(Color::Rgb(40, 60, 90))
                .add_modifier(Modifier::BOLD),
            always: plain.fg(Color::Yellow),
            selected: bold.fg(Color::Green),
            initial: plain.fg(Color::Blue),
            dim: plain.fg(Color::DarkGray),
            matched: bold.fg(Color::Green),
            error: bold.fg(Color::Red),
            key: bold.fg(Color::Cyan),
            json_key: plain.fg(Color::Cyan),
            json_string: plain.fg(Color::Green),
            json_number: plain.fg(Color::Yellow),
            json_literal: plain.fg(Color::Magenta),
            gauge: plain.fg(Color::Green).bg(Color::DarkGray),
        }
    }
}

/// The areas of the screen.
struct Areas {
    header: Rect,
    query: Rect,
    catalog: Rect,
    results: Rect,
    detail: Option<Rect>,
    gauges: Rect,
    status: Rect,
}

fn areas(area: Rect) -> Areas {
    let [header, query, middle, gauges, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(3),
        Constraint::Min(5),
        Constraint::Length(4),
        Constraint::Length(1),
    ])
    .areas(area);
    let (catalog, results, detail) = if area.width >= DETAIL_PANE_MIN_WIDTH {
        let [c, r, d] = Layout::horizontal([
            Constraint::Percentage(36),
            Constraint::Percentage(36),
            Constraint::Percentage(28),
        ])
        .areas(middle);
        (c, r, Some(d))
    } else {
        let [c, r] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(middle);
        (c, r, None)
    };
    Areas {
        header,
        query,
        catalog,
        results,
        detail,
        gauges,
        status,
    }
}

/// Rows a list pane shows in a terminal of `size`.
pub fn list_rows(size: (u16, u16)) -> usize {
    let middle = size.1.saturating_sub(1 + 3 + 4 + 1);
    usize::from(middle.saturating_sub(2)).max(1)
}

/// Whether the detail is a popup (narrow terminals) rather than a pane.
pub fn detail_is_popup(size: (u16, u16)) -> bool {
    size.0 < DETAIL_PANE_MIN_WIDTH
}

/// `text` padded or cut (with an ellipsis) to exactly `width` characters.
pub(crate) fn fit(text: &str, width: usize) -> String {
    if text.chars().count() > width {
        let cut: String = text.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        format!("{text:<width$}")
    }
}

/// A list row, highlighted as the current row of the focused pane.
pub(crate) fn row<'a>(
    spans: Vec<ratatui::text::Span<'a>>,
    highlighted: bool,
    theme: &Theme,
) -> Line<'a> {
    if highlighted {
        Line::from(
            spans
                .into_iter()
                .map(|s| s.patch_style(theme.highlight))
                .collect::<Vec<_>>(),
        )
    } else {
        Line::from(spans)
    }
}

/// A bordered block, highlighted when its pane has the focus.
pub(crate) fn pane<'a>(title: Line<'a>, focused: bool, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(if focused {
            theme.border_focused
        } else {
            theme.border
        })
        .title(title)
}

/// A centred rectangle of at most `w` x `h` inside `area`.
pub(crate) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// Draws the whole screen.
pub fn draw(f: &mut Frame, app: &App) {
    let theme = Theme::new(app.no_color);
    let area = f.area();
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        let text = format!(
            "toolsift needs at least {}x{} (this terminal is {}x{}). Enlarge it, or press q to quit.",
            MIN_SIZE.0, MIN_SIZE.1, area.width, area.height
        );
        f.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let a = areas(area);
    header::draw(f, a.header, app, &theme);
    query::draw(f, a.query, app, &theme);
    catalog::draw(f, a.catalog, app, &theme);
    results::draw(f, a.results, app, &theme);
    if let Some(d) = a.detail {
        detail::draw_pane(f, d, app, &theme);
    }
    gauges::draw(f, a.gauges, app, &theme);
    status::draw(f, a.status, app, &theme);
    match app.popup {
        Some(Popup::Help) => help::draw(f, area, app, &theme),
        Some(Popup::Settings) => settings::draw(f, area, app, &theme),
        Some(Popup::Breaker) => breaker::draw(f, area, app, &theme),
        Some(Popup::Detail) => {
            let r = centered(
                area,
                area.width.saturating_sub(6),
                area.height.saturating_sub(4),
            );
            f.render_widget(Clear, r);
            detail::draw_pane(f, r, app, &theme);
        }
        None => {
            if app.focus == Focus::Query {
                query::place_cursor(f, a.query, app);
            }
        }
    }
}
