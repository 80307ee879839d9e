//! The export popup: which provider's shape, how many tools, which file.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::ExportBox;
use super::format_name;
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::keymap::Keymap;
use crate::tui::paint::{Theme, pane};

/// The label before each value (and the indent of the path).
const LABEL: usize = 8;

/// What the export writes: the tools picked by hand, the full catalog
/// (after a failed search), or the search's loaded set.
pub use crate::tui::screen::ToolsFrom as Source;

pub fn draw(
    f: &mut Frame,
    area: Rect,
    b: &ExportBox,
    source: Source,
    keymap: &Keymap,
    theme: &Theme,
) {
    f.render_widget(Clear, area);
    let block = pane(
        Line::from(Span::styled(
            " Export tools as a provider payload ",
            theme.title,
        )),
        true,
        theme,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    let width = usize::from(inner.width.max(1));
    let room = width.saturating_sub(LABEL).max(1);
    let chars: Vec<char> = escape(&b.path.text).chars().collect();
    let skip = b.path.cursor.saturating_sub(room - 1);
    let shown: String = chars.iter().skip(skip).take(room).collect();
    let source = if source == Source::Picked {
        "the tools you picked"
    } else if source == Source::FullCatalog {
        "the full catalog"
    } else {
        "the current search's loaded set"
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("{:<LABEL$}", "format"), theme.key),
            Span::styled(format_name(b.format).to_string(), theme.selected),
            Span::styled(
                format!(
                    "  {} {} change it",
                    keymap.label(Action::InputHistoryPrev),
                    keymap.label(Action::InputHistoryNext)
                ),
                theme.dim,
            ),
        ]),
        Line::from(vec![
            Span::styled(format!("{:<LABEL$}", "tools"), theme.key),
            Span::raw(format!("{} ({source})", b.tools)),
        ]),
        Line::from(vec![
            Span::styled(format!("{:<LABEL$}", "file"), theme.key),
            // A suggestion shows dim: typing replaces it.
            Span::styled(
                shown,
                if b.path.offered {
                    theme.dim
                } else {
                    Default::default()
                },
            ),
        ]),
    ];
    // What Enter or the write said, whole on the rows left.
    if let Some(m) = &b.message {
        let left = usize::from(inner.height).saturating_sub(lines.len());
        for l in crate::tui::text::wrap_words(&escape(m), width, left) {
            lines.push(Line::from(Span::styled(l, theme.error)));
        }
    }
    f.render_widget(Paragraph::new(lines), inner);
    let x = inner.x + (LABEL + (b.path.cursor - skip).min(room - 1)) as u16;
    f.set_cursor_position((x, inner.y + 2));
}
