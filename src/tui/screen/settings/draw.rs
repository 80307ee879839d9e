//! The settings popup: every tunable, changed with the arrow keys. An invalid
//! combination shows the SDK's message; the last valid settings stay in force.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::SETTINGS_ROWS;
use super::SettingsEditor;
use crate::settings::{Setting, Settings};
use crate::tools_handle::MaxTools;
use crate::tui::paint::{Theme, pane};

fn value(s: &Settings, setting: Setting) -> String {
    let cap =
        |v: Option<MaxTools>, none: &str| v.map_or_else(|| none.to_string(), |v| v.to_string());
    match setting {
        Setting::Strategy => s.strategy.to_string(),
        Setting::InitialToolCount => s.initial_tool_count.to_string(),
        Setting::MaxLoadedTools => cap(s.max_loaded_tools, "none"),
        // Not set, a search's cap is max_loaded_tools when that is set.
        Setting::MaxTools => match (s.max_tools, s.max_loaded_tools) {
            (Some(v), _) => v.to_string(),
            (None, Some(m)) => format!("not set: max_loaded_tools ({m})"),
            (None, None) => format!("service default ({})", crate::service::DEFAULT_MAX_TOOLS),
        },
        Setting::Ranker => s.ranker.to_string(),
        Setting::Gate => if s.gate {
            "on: no tool when none fits"
        } else {
            "off: always up to the cap"
        }
        .to_string(),
        Setting::TokenBasis => s.basis().label().to_string(),
    }
}

/// Draws the popup in `r` (from the layout).
/// The editor over `in_force`, the settings in force.
/// `sent_initial`: how many tools of the initial set the settings in force
/// send besides the always-load ones (fewer than `initial_tool_count`
/// when `max_loaded_tools` leaves less room).
pub fn draw(
    f: &mut Frame,
    r: Rect,
    editor: &SettingsEditor,
    in_force: &Settings,
    sent_initial: usize,
    theme: &Theme,
) {
    f.render_widget(Clear, r);
    let block = pane(
        Line::from(Span::styled(" Settings ", theme.title)),
        true,
        theme,
    );
    let mut lines = Vec::new();
    for (i, &setting) in SETTINGS_ROWS.iter().enumerate() {
        let current = i == editor.row;
        let name = setting.name();
        let edited = value(&editor.edited, setting);
        let in_force = value(in_force, setting);
        let mut spans = vec![
            Span::raw(if current { " › " } else { "   " }),
            Span::raw(format!("{name:<20}")),
            Span::styled("◀ ", theme.dim),
            Span::styled(
                edited.clone(),
                if current {
                    theme.highlight
                } else {
                    Default::default()
                },
            ),
            Span::styled(" ▶", theme.dim),
        ];
        if edited != in_force {
            spans.push(Span::styled(
                format!("   (in force: {in_force})"),
                theme.dim,
            ));
        } else if setting == Setting::InitialToolCount
            && (sent_initial as u64) < editor.edited.initial_tool_count.get()
        {
            spans.push(Span::styled(
                format!("   ({sent_initial} sent: max_loaded_tools leaves no more room)"),
                theme.dim,
            ));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::from(""));
    if let Some(note) = &editor.note {
        lines.push(Line::from(Span::styled(format!(" {note}"), theme.key)));
    }
    match &editor.error {
        Some(e) => {
            // A long message wraps under its text, not under the mark.
            let width = usize::from(r.width.saturating_sub(2));
            lines.extend(crate::tui::text::wrap_hanging(
                Line::from(Span::styled(format!(" ✗ {e}"), theme.error)),
                width,
                3,
            ));
            lines.push(Line::from(Span::styled(
                " the last valid settings stay in force",
                theme.dim,
            )));
        }
        None => lines.push(Line::from(Span::styled(
            " ✓ valid, in force",
            theme.selected,
        ))),
    }
    f.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        r,
    );
}
