//! Where the Tune screen's parts go inside the full screens' body: the
//! chart, the table beside it on wide terminals, the legend, the prompt.

use ratatui::layout::{Constraint, Layout, Rect};

use crate::tui::layout::{centered, inner};

/// Below this width the Tune screen has no table beside the chart.
pub const TUNE_TABLE_MIN_WIDTH: u16 = 110;

/// The Tune screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TuneLayout {
    /// Everything it covers (all but the header and the bottom line).
    pub body: Rect,
    /// The bordered panel around the chart, table and legend.
    pub panel: Rect,
    /// The chart: loaded share against tokens sent, one point per cap.
    pub chart: Rect,
    /// The caps as a table, on wide terminals.
    pub table: Option<Rect>,
    /// Current setting, recommendation, initial set, message.
    pub legend: Rect,
    /// Its key line.
    pub keys: Rect,
    /// The request-file prompt.
    pub prompt: Rect,
}

/// Lays the Tune screen out in `body`.
pub fn layout(body: Rect) -> TuneLayout {
    // The bottom line carries the screen's keys.
    let [panel, keys] = Layout::vertical([Constraint::Min(8), Constraint::Length(0)]).areas(body);
    let [top, legend] =
        Layout::vertical([Constraint::Min(4), Constraint::Length(4)]).areas(inner(panel));
    let (chart, table) = if body.width >= TUNE_TABLE_MIN_WIDTH {
        let [c, t] = Layout::horizontal([Constraint::Min(40), Constraint::Length(50)]).areas(top);
        (c, Some(t))
    } else {
        (top, None)
    };
    TuneLayout {
        body,
        panel,
        chart,
        table,
        legend,
        keys,
        prompt: centered(body, 76, 5),
    }
}
