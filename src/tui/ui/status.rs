//! The bottom line: the last message, else the keys of the screen.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::{Theme, key_line};
use crate::terminal_text::escape;
use crate::tui::app::{App, Focus, Popup};
use crate::tui::help::{KeyLine, key_line as keys_of};
use crate::tui::paint::KeyHint;
use crate::tui::text;

/// `caption`: a demo's caption box, right above the line: a message's
/// first lines go above it, never under it.
pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme, caption: Option<Rect>) {
    // While a demo plays, the viewer's keys steer the player, not the
    // explorer: the line gives those.
    let screen = app.screens().front_screen().filter(|_| !app.finding());
    let hints = match (app.demo(), screen) {
        (Some(paused), _) => demo_keys(paused),
        (None, Some(screen)) => crate::tui::help::screen_line(
            app.keymap(),
            screen.keys(),
            screen.context() == crate::tui::action::Context::Input,
            !screen.over(),
        ),
        (None, None) => {
            let line = which_line(app);
            let mut hints = keys_of(app.keymap(), line);
            // The live screen's key, only when something is followed.
            if line == KeyLine::Main && !app.following() {
                let live = app.keymap().first(crate::tui::action::Action::Live);
                hints.retain(|h| live.as_ref().is_none_or(|k| h.keys != k.to_string()));
            }
            hints
        }
    };
    if let Some(message) = app.status() {
        // The message, whole words, then the keys that are always shown
        // (help, quit) on the right. Messages quote tool names: escaped
        // here, whoever wrote them.
        let essential: Vec<_> = hints.iter().filter(|h| h.drop == 0).cloned().collect();
        let keys = key_line(essential, usize::from(area.width), theme);
        let keys_width = keys.width() as u16;
        let [left, right] =
            Layout::horizontal([Constraint::Min(1), Constraint::Length(keys_width)]).areas(area);
        let room = usize::from(left.width).saturating_sub(1);
        let message = escape(message);
        // A message longer than the line is read whole: its first lines
        // over the rows above (as many as it takes, up to half the screen).
        let mut lines = text::wrap(vec![Line::raw(message.into_owned())], room.max(1));
        let base = caption.map_or(area.y, |c| c.y);
        let most = usize::from(base / 2).max(1);
        if lines.len() > most {
            lines.truncate(most);
            let end = text::fit_words(&format!("{} …", lines[most - 1]), room);
            lines[most - 1] = Line::raw(end);
        }
        // Under a demo's caption a message of several lines goes whole
        // above the box, in one piece, and the bottom line keeps the keys:
        // split around the box it read as two messages.
        let whole_above = caption.is_some() && lines.len() > 1;
        let last = if whole_above {
            None
        } else {
            Some(lines.pop().unwrap_or_default())
        };
        let above = lines;
        if !above.is_empty() {
            let rows = u16::try_from(above.len()).unwrap_or(u16::MAX);
            let over = Rect {
                y: base.saturating_sub(rows + 1),
                height: rows + 1,
                ..area
            };
            let block = Block::new().borders(Borders::TOP).border_style(theme.dim);
            let text: Vec<Line> = above.iter().map(|l| Line::raw(format!(" {l}"))).collect();
            f.render_widget(Clear, over);
            f.render_widget(Paragraph::new(text).block(block), over);
        }
        if let Some(last) = last {
            f.render_widget(Paragraph::new(Span::raw(format!(" {last}"))), left);
            f.render_widget(Paragraph::new(keys), right);
            return;
        }
    }
    let line = key_line(hints, usize::from(area.width), theme);
    f.render_widget(Paragraph::new(line), area);
}

/// The key line of the main screen or the detail popup (a screen gives
/// its own).
pub fn which_line(app: &App) -> KeyLine {
    if app.finding() {
        return KeyLine::Find;
    }
    match app.popup() {
        Some(Popup::Detail) => KeyLine::Detail,
        Some(_) => KeyLine::Main,
        None if app.catalog_view().typing => KeyLine::NameFilter,
        None if app.focus() == Focus::Query => KeyLine::Query,
        None if app.focus() == Focus::Detail => KeyLine::DetailPane,
        None => KeyLine::Main,
    }
}

/// The keys of a demo as it plays (`paused`: Space resumes).
fn demo_keys(paused: bool) -> Vec<KeyHint> {
    let hint = |keys: &str, what: &'static str, drop| KeyHint {
        keys: keys.to_string(),
        what,
        short: what,
        drop,
    };
    vec![
        hint("Space", if paused { "resume" } else { "pause" }, 1),
        hint("→", "step", 2),
        hint("?", "help", 0),
        hint("q", "quit", 0),
    ]
}
