//! The command line drawn: `:` and the text on the bottom line, the
//! candidates for the word typed on the line above it (Tab's pick
//! highlighted), as many as fit.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::CommandLine;
use crate::terminal_text::escape;
use crate::tui::paint::Theme;
use crate::tui::text;

/// Draws the line over `area` (the bottom line) and its candidates over
/// the row above it.
pub fn draw(f: &mut Frame, area: Rect, line: &CommandLine, theme: &Theme) {
    let width = usize::from(area.width);
    let typed = escape(&line.input.text);
    // The end of a long line stays in view, with the cursor.
    let room = width.saturating_sub(3).max(1);
    let before: String = line.input.text.chars().take(line.input.cursor).collect();
    let cursor = text::width(&escape(&before));
    let skip = cursor.saturating_sub(room);
    let shown = text::cut(&skip_columns(&typed, skip), room + 1);
    f.render_widget(Clear, area);
    let prompt = Line::from(vec![Span::styled(":", theme.key), Span::raw(shown)]);
    f.render_widget(Paragraph::new(prompt), area);
    let x = area.x + 1 + u16::try_from(cursor - skip).unwrap_or(0);
    f.set_cursor_position(Position::new(x.min(area.right().saturating_sub(1)), area.y));
    let (found, picked) = line.candidates();
    if found.is_empty() || area.y == 0 {
        return;
    }
    let above = Rect {
        y: area.y - 1,
        height: 1,
        ..area
    };
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    for (i, word) in found.iter().enumerate() {
        let word = escape(word);
        let w = text::width(&word) + 2;
        let more = found.len() - i;
        if used + w > width.saturating_sub(if more > 1 { 8 } else { 0 }) {
            spans.push(Span::styled(format!("+{more} more"), theme.dim));
            break;
        }
        let style = if picked == Some(i) {
            theme.key.add_modifier(ratatui::style::Modifier::REVERSED)
        } else {
            theme.dim
        };
        spans.push(Span::styled(word.into_owned(), style));
        spans.push(Span::raw("  "));
        used += w;
    }
    f.render_widget(Clear, above);
    f.render_widget(Paragraph::new(Line::from(spans)), above);
}

/// `text` without its first `columns` columns.
fn skip_columns(text: &str, columns: usize) -> String {
    let mut skipped = 0;
    text.chars()
        .skip_while(|c| {
            let w = text::width(c.encode_utf8(&mut [0; 4]));
            let skip = skipped < columns;
            skipped += w;
            skip
        })
        .collect()
}
