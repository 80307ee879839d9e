//! Where everything goes: one pure function of the terminal's size, computed
//! on resize and kept in the app. `update` reads it (page sizes, whether the
//! detail is a popup) and so does drawing; no layout number is written twice.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Block;

/// The smallest terminal the explorer draws in.
pub const MIN_SIZE: (u16, u16) = (80, 24);
/// Below this width the detail pane is a popup.
pub const DETAIL_PANE_MIN_WIDTH: u16 = 100;

/// The areas of the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScreenLayout {
    pub area: Rect,
    /// Below [`MIN_SIZE`]: only a message is drawn.
    pub too_small: bool,
    pub header: Rect,
    /// The MCP servers' line under the header, when the catalog came from
    /// MCP servers.
    pub servers: Option<Rect>,
    pub query: Rect,
    /// The query box's text line (inside its border).
    pub query_text: Rect,
    pub catalog: Rect,
    pub results: Rect,
    /// The detail pane; `None` below [`DETAIL_PANE_MIN_WIDTH`] columns,
    /// where the detail is a popup.
    pub detail: Option<Rect>,
    pub gauges: Rect,
    /// The bottom line: status message or key line.
    pub status: Rect,
    /// A demo's caption (above the bottom line), while one is shown.
    pub caption: Option<Rect>,
    pub detail_popup: Rect,
    pub help_popup: Rect,
    pub settings_popup: Rect,
    /// The full screens' body (under the header, over the bottom line);
    /// each screen lays itself out inside it.
    pub body: Rect,
    pub export_popup: Rect,
}

/// The inside of a bordered pane.
pub fn inner(r: Rect) -> Rect {
    Block::bordered().inner(r)
}

/// Rows the catalog keeps for tools under its column headers: a shorter
/// pane gives the headers' row to a tool (the border's legend stays).
const MIN_ROWS_UNDER_HEADER: u16 = 5;

/// Whether a catalog pane `inner_height` rows high shows column headers.
pub fn catalog_header(inner_height: u16) -> bool {
    inner_height > MIN_ROWS_UNDER_HEADER
}

/// A centred rectangle of at most `w` x `h` inside `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// Lays out a screen of `area`; `servers_line` gives the MCP servers a line under the
/// header; `caption` gives a demo's caption of that many lines (0: none)
/// its box above the bottom line.
pub fn layout(area: Rect, servers_line: bool, caption: u16) -> ScreenLayout {
    let [top, query, middle, gauges, caption_area, status] = Layout::vertical([
        Constraint::Length(if servers_line { 2 } else { 1 }),
        Constraint::Length(3),
        Constraint::Min(5),
        Constraint::Length(4),
        Constraint::Length(if caption > 0 { caption + 2 } else { 0 }),
        Constraint::Length(1),
    ])
    .areas(area);
    let [header, servers] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(top.height.saturating_sub(1)),
    ])
    .areas(top);
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
    // Popups leave the header (and the servers' line) and the bottom line
    // visible.
    let below_header = Rect {
        y: area.y + top.height,
        height: area
            .height
            .saturating_sub(top.height + caption_area.height + status.height),
        ..area
    };
    // A demo's caption stays in view over every popup.
    let above_caption = Rect {
        height: area.height.saturating_sub(caption_area.height),
        ..area
    };
    ScreenLayout {
        area,
        too_small: area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1,
        header,
        servers: servers_line.then_some(servers),
        query,
        query_text: inner(query),
        catalog,
        results,
        detail,
        gauges,
        status,
        caption: (caption > 0).then_some(caption_area),
        detail_popup: centered(
            above_caption,
            area.width.saturating_sub(6),
            above_caption.height.saturating_sub(4),
        ),
        help_popup: centered(
            below_header,
            below_header.width.saturating_sub(4).min(110),
            below_header.height,
        ),
        settings_popup: centered(above_caption, 70, 16),
        body: below_header,
        export_popup: centered(above_caption, 76, 7),
    }
}

/// A pane of the main screen, for the zoom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Catalog,
    Results,
    Detail,
}

impl ScreenLayout {
    /// The layout with `pane` over the whole width of the panes' row, the
    /// others hidden (no columns: nothing draws them, no click lands on
    /// them). The detail zooms only where it is a pane.
    pub fn zoom(mut self, pane: Pane) -> ScreenLayout {
        let row = match self.detail {
            Some(d) => self.catalog.union(d),
            None => self.catalog.union(self.results),
        };
        let hidden = Rect { width: 0, ..row };
        let pane = if pane == Pane::Detail && self.detail.is_none() {
            Pane::Catalog
        } else {
            pane
        };
        self.catalog = if pane == Pane::Catalog { row } else { hidden };
        self.results = if pane == Pane::Results { row } else { hidden };
        if self.detail.is_some() {
            self.detail = Some(if pane == Pane::Detail { row } else { hidden });
        }
        self
    }

    /// Rows a list pane shows (the catalog's, under its column headers).
    pub fn list_rows(&self) -> usize {
        let h = inner(self.catalog).height;
        usize::from(h - u16::from(catalog_header(h))).max(1)
    }

    /// Whether the detail is a popup (narrow terminals) rather than a pane.
    pub fn detail_is_popup(&self) -> bool {
        self.detail.is_none()
    }

    /// Rows the detail shows (its pane, or its popup on narrow terminals).
    pub fn detail_rows(&self) -> usize {
        usize::from(inner(self.detail.unwrap_or(self.detail_popup)).height).max(1)
    }

    /// Rows the help popup shows.
    pub fn help_rows(&self) -> usize {
        usize::from(inner(self.help_popup).height).max(1)
    }
}

/// The most lines a demo's caption takes: a longer one ends in "…".
pub const CAPTION_MAX_LINES: usize = 2;

/// The lines a demo's caption takes on a screen `width` wide (inside its
/// box), words kept whole: 0 when there is none.
pub fn caption_lines(caption: Option<&str>, width: u16) -> u16 {
    match caption {
        None => 0,
        Some(text) => {
            let room = usize::from(width.saturating_sub(2)).max(1);
            let text = crate::terminal_text::escape(text);
            crate::tui::text::wrap_words(&text, room, CAPTION_MAX_LINES)
                .len()
                .max(1) as u16
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panes_and_popups_follow_the_size() {
        let l = layout(Rect::new(0, 0, 120, 35), false, 0);
        assert!(!l.too_small);
        assert!(l.servers.is_none());
        // The catalog's column headers take a row.
        assert_eq!(l.list_rows(), 35 - 1 - 3 - 4 - 1 - 2 - 1);
        assert!(!l.detail_is_popup());
        let l = layout(Rect::new(0, 0, 90, 30), false, 0);
        assert!(l.detail_is_popup());
        assert!(layout(Rect::new(0, 0, 70, 20), false, 0).too_small);
        // The MCP servers' line takes one row from the lists, none from the
        // bottom line.
        let l = layout(Rect::new(0, 0, 80, 24), true, 0);
        assert_eq!(l.servers, Some(Rect::new(0, 1, 80, 1)));
        assert_eq!(l.query.y, 2);
        assert_eq!(l.status, Rect::new(0, 23, 80, 1));
        assert_eq!(l.list_rows(), 24 - 2 - 3 - 4 - 1 - 2 - 1);
        assert_eq!(l.body.y, 2);
    }

    #[test]
    fn a_zoomed_pane_takes_the_row_and_the_lists_keep_their_height() {
        let l = layout(Rect::new(0, 0, 120, 35), false, 0);
        let z = l.zoom(Pane::Results);
        assert_eq!(z.results.width, 120);
        assert_eq!(z.results.x, 0);
        assert_eq!(z.catalog.width, 0);
        assert_eq!(z.detail.map(|d| d.width), Some(0));
        assert_eq!(z.list_rows(), l.list_rows());
        assert!(!z.detail_is_popup());
        // At 80 columns the detail is a popup: the zoom shows the catalog.
        let z = layout(Rect::new(0, 0, 80, 24), false, 0).zoom(Pane::Detail);
        assert_eq!(z.catalog.width, 80);
        assert!(z.detail_is_popup());
    }
}
