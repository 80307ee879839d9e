//! Drawing: the main screen's frame as pure functions of `&App` (the
//! header, the gauges, the status line, a demo's caption) and the panes'
//! places in it, each pane drawn by its own folder ([`super::pane`]), and
//! the screen in front over it, handed its state ([`super::screen`]); the
//! kit they share is [`super::paint`].

pub mod caching;
mod gauges;
pub(crate) mod header;
pub use header::short_id;
mod search_state;
pub(crate) mod servers;
mod status;

use ratatui::Frame;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap};

use super::action::Action;
use super::app::{App, Focus, Popup};
use super::layout::{MIN_SIZE, layout};
pub(crate) use super::paint::{Theme, key_line, pane};
use super::pane::{catalog, detail, query, results};

/// A demo's caption: one short sentence, bold in a box across the screen,
/// with the demo's keys in its border.
fn draw_caption(f: &mut Frame, area: ratatui::layout::Rect, app: &App, theme: &Theme) {
    let Some(text) = app.caption() else { return };
    let keys = if app.demo() == Some(true) {
        " paused · Space resumes · → step · ? help · q quit "
    } else {
        " Space pause · → step · ? help · q quit "
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
    // A caption too long for the line wraps between words onto a second;
    // a longer one ends in "…".
    let shown: Vec<Line> =
        crate::tui::text::wrap_words(&text, width.max(1), usize::from(inner.height).max(1))
            .into_iter()
            .map(|l| Line::from(Span::styled(l, theme.title.add_modifier(Modifier::BOLD))))
            .collect();
    f.render_widget(
        Paragraph::new(shown).alignment(ratatui::layout::Alignment::Center),
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
        let whole = layout(
            area,
            app.servers_line(),
            super::layout::caption_lines(app.caption(), area.width),
        );
        fresh = match app.zoomed_pane() {
            Some(pane) => whole.zoom(super::app::pane_of(pane)),
            None => whole,
        };
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
        servers::draw_servers(f, servers, app, &theme);
    }
    let panes = app.pane_view();
    query::draw::draw(f, l.query, &panes, &theme);
    // A zoom hides the other panes (they have no columns).
    if l.catalog.width > 0 {
        catalog::draw::draw(f, l.catalog, &panes, &theme);
    }
    if l.results.width > 0 {
        results::draw::draw(f, l.results, &panes, &theme);
    }
    if let Some(d) = l.detail.filter(|d| d.width > 0) {
        detail::draw::draw_pane(f, d, &panes, &theme);
    }
    gauges::draw(f, l.gauges, app, &theme);
    // Under a demo's caption, a message of several lines stands over the
    // box: drawn last, over any popup, so it reads whole.
    if app.cmdline().is_open() {
        super::cmdline::draw::draw(f, l.status, app.cmdline(), &theme);
    } else if l.caption.is_none() {
        status::draw(f, l.status, app, &theme, None);
    }
    match app.popup() {
        Some(Popup::Detail) => {
            f.render_widget(Clear, l.detail_popup);
            detail::draw::draw_pane(f, l.detail_popup, &panes, &theme);
        }
        // The screen in front draws itself over the main screen.
        Some(_) => {
            if let Some(screen) = app.screens().front_screen() {
                screen.draw(f, &app.on(l), &theme);
            }
        }
        None => {
            if app.focus() == Focus::Query && !app.cmdline().is_open() {
                query::draw::place_cursor(f, l.query_text, &panes);
            }
        }
    }
    if let Some(area) = l.caption {
        if !app.cmdline().is_open() {
            status::draw(f, l.status, app, &theme, Some(area));
        }
        draw_caption(f, area, app, &theme);
    }
}
