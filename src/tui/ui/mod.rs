//! Drawing: pure functions of `&App`, one file per pane.

mod breaker;
mod catalog;
mod detail;
mod export;
mod gauges;
mod header;
pub use header::short_id;
mod help;
mod query;
pub(crate) mod results;
mod settings;
mod status;
pub mod tune;

use ratatui::Frame;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap};

use super::action::Action;
use super::app::{App, Focus, Popup};
use super::help::KeyHint;
use super::layout::{MIN_SIZE, layout};
use super::text;

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
/// Where a scrolled text is, for its pane's bottom border: ` 12-40 of 96 `
/// (lines shown, from 1), when it does not fit; `None` when it does.
pub(crate) fn position(scroll: usize, height: usize, lines: usize) -> Option<Line<'static>> {
    (lines > height && height > 0).then(|| {
        let last = (scroll + height).min(lines);
        Line::from(format!(" {}-{last} of {lines} ", scroll + 1)).right_aligned()
    })
}

/// [`position`] drawn on the bottom border of `area` (a popup whose block
/// is drawn already), right-aligned.
pub(crate) fn draw_position(f: &mut Frame, area: ratatui::layout::Rect, at: Option<Line<'static>>) {
    let Some(at) = at else { return };
    if area.height < 2 || area.width < 4 {
        return;
    }
    let row = ratatui::layout::Rect::new(area.x + 1, area.bottom() - 1, area.width - 2, 1);
    f.render_widget(Paragraph::new(at), row);
}

/// The find box of a scrolled text (`/words  2 of 5`) on the bottom
/// border of `area`, at the left, with the cursor while it is typed in;
/// nothing when no words are looked for. `reserve` columns at the right
/// stay free (the scroll position).
pub(crate) fn draw_find(
    f: &mut Frame,
    area: ratatui::layout::Rect,
    find: &crate::tui::find::Find,
    reserve: usize,
    theme: &Theme,
) {
    if !find.typing() && find.words().is_empty() || area.height < 2 || area.width < 8 {
        return;
    }
    let words = crate::terminal_text::escape(find.words()).into_owned();
    let (at, of) = find.count();
    let counted = match (of, words.is_empty()) {
        (_, true) => String::new(),
        (0, false) => "  not found".to_string(),
        (n, false) if at == 0 => format!("  {n} lines"),
        (n, false) => format!("  {at} of {n}"),
    };
    // The words whole, over the scroll position if need be (the box is
    // what the keys act on).
    let needed = 4 + 2 + text::width(&words) + text::width(&counted);
    let reserve = if needed + reserve > usize::from(area.width) {
        0
    } else {
        reserve
    };
    let room = usize::from(area.width).saturating_sub(4 + 2 + reserve + text::width(&counted));
    let shown = text::cut(&words, room);
    let row = ratatui::layout::Rect::new(area.x + 1, area.bottom() - 1, area.width - 2, 1);
    let style = if of == 0 && !words.is_empty() {
        theme.error
    } else {
        theme.key
    };
    let line = Line::from(vec![
        Span::styled(format!(" /{shown}"), theme.key),
        Span::styled(format!("{counted} "), style),
    ]);
    // With no room kept, the box takes the whole row.
    let width = if reserve == 0 {
        row.width
    } else {
        (line.width() as u16).min(row.width)
    };
    f.render_widget(Paragraph::new(line), ratatui::layout::Rect { width, ..row });
    if find.typing() {
        let before: String = find.words().chars().take(find.cursor()).collect();
        let x = row.x + 2 + text::width(&crate::terminal_text::escape(&before)).min(room) as u16;
        f.set_cursor_position((x.min(row.right().saturating_sub(1)), row.y));
    }
}

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

/// A popup's bordered box over what is under it, titled: its inside.
pub(crate) fn popup(
    f: &mut Frame,
    area: ratatui::layout::Rect,
    title: String,
    theme: &Theme,
) -> ratatui::layout::Rect {
    f.render_widget(Clear, area);
    let block = pane(Line::from(Span::styled(title, theme.title)), true, theme);
    let inner = block.inner(area);
    f.render_widget(block, area);
    inner
}

/// A key line in `width` columns: every hint with its words and two
/// spaces between hints if they fit; else the shorter words, one space
/// between hints and `↵` for Enter; else hints give way (highest `drop`
/// first, the later of equals first), so that help and quit always show.
pub(crate) fn key_line<'a>(hints: Vec<KeyHint>, width: usize, theme: &Theme) -> Line<'a> {
    let shown = |h: &KeyHint, short: bool| -> (String, &'static str) {
        if short {
            (h.keys.replace("Enter", "↵"), h.short)
        } else {
            (h.keys.clone(), h.what)
        }
    };
    let line_width = |hints: &[KeyHint], short: bool| -> usize {
        let gap = if short { 1 } else { 2 };
        hints
            .iter()
            .map(|h| {
                let (keys, what) = shown(h, short);
                text::width(&keys) + text::width(what) + 1 + gap
            })
            .sum()
    };
    let mut hints = hints;
    let short = line_width(&hints, false) > width;
    if short {
        while line_width(&hints, true) > width {
            let Some(i) = hints
                .iter()
                .enumerate()
                .filter(|(_, h)| h.drop > 0)
                .max_by_key(|(i, h)| (h.drop, *i))
                .map(|(i, _)| i)
            else {
                break;
            };
            hints.remove(i);
        }
    }
    let gap = if short { " " } else { "  " };
    let mut spans = Vec::new();
    for (i, h) in hints.iter().enumerate() {
        let (keys, what) = shown(h, short);
        let lead = if i == 0 { " " } else { gap };
        spans.push(Span::raw(lead));
        spans.push(Span::styled(keys, theme.key));
        spans.push(Span::raw(format!(" {what}")));
    }
    Line::from(spans)
}

/// A demo's caption: one short sentence, bold in a box across the screen,
/// with the demo's keys in its border.
fn draw_caption(f: &mut Frame, area: ratatui::layout::Rect, app: &App, theme: &Theme) {
    let Some(text) = app.caption() else { return };
    let keys = if app.demo() == Some(true) {
        " paused · Space resumes · → step · q quit "
    } else {
        " Space pause · → step · q quit "
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Double)
        .border_style(theme.border_focused)
        .title_bottom(Line::from(Span::styled(keys, theme.dim)).right_aligned());
    let inner = block.inner(area);
    f.render_widget(Clear, area);
    f.render_widget(block, area);
    let width = usize::from(inner.width);
    let text = crate::terminal_text::escape(text);
    // A caption too long for the line shortens by whole words.
    let shown = if text.chars().count() <= width {
        text.into_owned()
    } else {
        let mut out = String::new();
        for word in text.split(' ') {
            if out.chars().count() + word.chars().count() + 2 > width {
                break;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
        out.push('…');
        out
    };
    f.render_widget(
        Paragraph::new(Span::styled(
            shown,
            theme.title.add_modifier(Modifier::BOLD),
        ))
        .alignment(ratatui::layout::Alignment::Center),
        inner,
    );
}

/// Draws the whole screen, laid out as the app's layout says (or, for a
/// frame of another size, as the same layout function says for it).
pub fn draw(f: &mut Frame, app: &App) {
    let theme = Theme::new(app.no_color());
    let area = f.area();
    let fresh;
    let l = if area == app.layout().area {
        app.layout()
    } else {
        fresh = layout(
            area,
            app.layout().breaker.trace.is_some(),
            app.servers_line(),
            app.caption().is_some(),
        );
        &fresh
    };
    if l.too_small {
        let text = format!(
            "toolsift needs at least {}x{} (this terminal is {}x{}). Enlarge it, or press {} to quit.",
            MIN_SIZE.0,
            MIN_SIZE.1,
            area.width,
            area.height,
            app.keymap().label(Action::Quit)
        );
        f.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    header::draw(f, l.header, app, &theme);
    if let Some(servers) = l.servers {
        header::draw_servers(f, servers, app, &theme);
    }
    query::draw(f, l.query, app, &theme);
    catalog::draw(f, l.catalog, app, &theme);
    results::draw(f, l.results, app, &theme);
    if let Some(d) = l.detail {
        detail::draw_pane(f, d, app, &theme);
    }
    gauges::draw(f, l.gauges, app, &theme);
    status::draw(f, l.status, app, &theme);
    if let Some(area) = l.caption {
        draw_caption(f, area, app, &theme);
    }
    match app.popup() {
        Some(Popup::Help) => help::draw(f, l.help_popup, app, &theme),
        Some(Popup::Settings) => settings::draw(f, l.settings_popup, app, &theme),
        Some(Popup::Breaker) => breaker::draw(f, &l.breaker, app, &theme),
        Some(Popup::Tune) => tune::draw(f, &l.tune, app, &theme),
        Some(Popup::History) => {
            if let Some(list) = app.history_list() {
                let area = crate::tui::screen::history::draw::area_for(l.area, list);
                crate::tui::screen::history::draw::draw(f, area, list, &theme);
            }
        }
        Some(Popup::Compare) => {
            if let Some(pane) = app.compare() {
                crate::tui::screen::compare::draw::draw(f, l.compare, pane, app.catalog(), &theme);
            }
        }
        Some(Popup::Export) => export::draw(f, l.export_popup, app, &theme),
        Some(Popup::Detail) => {
            f.render_widget(Clear, l.detail_popup);
            detail::draw_pane(f, l.detail_popup, app, &theme);
        }
        None => {
            if app.focus() == Focus::Query {
                query::place_cursor(f, l.query_text, app);
            }
        }
    }
}
