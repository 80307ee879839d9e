//! The query history drawn: a popup of the queries, newest first, the
//! picked one highlighted, where it is in the bottom border.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::HistoryList;
use crate::terminal_text::escape;
use crate::tui::paint::{Theme, pane, row};
use crate::tui::text::cut;

/// The popup's place in `area`: as wide as the longest query allows, as
/// tall as the list (a row each, within the screen).
pub fn area_for(area: Rect, history: &HistoryList) -> Rect {
    let longest = history
        .entries()
        .iter()
        .map(|q| crate::tui::text::width(&escape(q)))
        .max()
        .unwrap_or(0);
    let w = (longest + 10).clamp(44, 100) as u16;
    let h = (history.entries().len() + 2).min(20) as u16;
    crate::tui::layout::centered(area, w, h)
}

/// How many rows the list shows in the popup at `area`.
pub fn list_rows(area: Rect) -> usize {
    usize::from(area.height.saturating_sub(2))
}

pub fn draw(f: &mut Frame, area: Rect, history: &HistoryList, theme: &Theme) {
    f.render_widget(Clear, area);
    let len = history.entries().len();
    let list = history.list();
    let mut block = pane(
        Line::from(Span::styled(" Query history · newest first ", theme.title)),
        true,
        theme,
    );
    block = block.title_bottom(
        Line::from(format!(
            " {}/{len} ",
            list.selected.min(len.saturating_sub(1)) + 1
        ))
        .right_aligned(),
    );
    let inner = block.inner(area);
    let width = usize::from(inner.width);
    let height = usize::from(inner.height);
    let lines: Vec<Line> = history
        .entries()
        .iter()
        .enumerate()
        .skip(list.offset)
        .take(height)
        .map(|(i, q)| {
            let number = format!("{:>3}  ", len - i);
            let text = cut(&escape(q), width.saturating_sub(number.len()));
            row(
                vec![Span::styled(number, theme.dim), Span::raw(text)],
                i == list.selected,
                theme,
            )
        })
        .collect();
    f.render_widget(Paragraph::new(lines).block(block), area);
}
