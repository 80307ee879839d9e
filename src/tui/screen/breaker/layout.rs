//! Where the breaker's parts go inside the full screens' body: the call
//! panel, the trace panel (when a trace is loaded), the call log.

use ratatui::layout::{Constraint, Layout, Rect};

use crate::tui::layout::{centered, inner};

/// The breaker simulator's screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BreakerLayout {
    /// Everything it covers (all but the header and the bottom line).
    pub body: Rect,
    /// The call panel (bordered) and, inside it, its parts.
    pub call: Rect,
    /// Tool and threshold lines.
    pub call_head: Rect,
    /// The streak gauge.
    pub gauge: Rect,
    /// Arguments (first row), their check, the call's signature, messages.
    pub args: Rect,
    /// The trace panel, when a trace is loaded.
    pub trace: Option<Rect>,
    /// The call log panel.
    pub log: Rect,
    /// Its key line.
    pub keys: Rect,
    /// The question before a real call to an MCP server.
    pub confirm: Rect,
}

/// Lays the breaker out in `body`; `trace_loaded` gives the trace panel
/// its rows.
pub fn layout(body: Rect, trace_loaded: bool) -> BreakerLayout {
    let [main, keys] = Layout::vertical([Constraint::Min(5), Constraint::Length(0)]).areas(body);
    let [left, log] =
        Layout::horizontal([Constraint::Percentage(46), Constraint::Percentage(54)]).areas(main);
    // The call panel keeps about 16 rows; the trace gets what is left, at most half.
    let trace_height = if trace_loaded {
        (left.height / 2).min(left.height.saturating_sub(16)).max(4)
    } else {
        0
    };
    let [call, trace] =
        Layout::vertical([Constraint::Min(12), Constraint::Length(trace_height)]).areas(left);
    // Short lines and the gauge first, at fixed rows; the arguments and the
    // signature, which can be long, wrap below them.
    let [call_head, gauge, _, args] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(inner(call));
    BreakerLayout {
        body,
        call,
        call_head,
        gauge,
        args,
        trace: trace_loaded.then_some(trace),
        log,
        keys,
        confirm: centered(main, 72, 9),
    }
}

impl super::BreakerPane {
    /// The breaker laid out in `body`, with its trace panel when a trace
    /// is loaded.
    pub fn layout(&self, body: Rect) -> BreakerLayout {
        layout(body, self.trace.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_panel_takes_rows_only_when_a_trace_is_loaded() {
        let body = Rect::new(0, 1, 90, 25);
        assert!(layout(body, false).trace.is_none());
        let l = layout(body, true);
        assert!(l.trace.is_some());
        assert_eq!(l.args.y, l.call.y + 1 + 2 + 1 + 1);
        assert_eq!(l.body, body);
    }
}
