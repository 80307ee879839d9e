//! The servers' line under the header, when the catalog came from MCP
//! servers: each server's state, shortened to fit.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Theme;
use crate::sources::mcp::{ServerState, ServerStatus};
use crate::terminal_text::escape;
use crate::tui::app::App;
use crate::tui::text::pad;

fn tools(n: usize) -> String {
    if n == 1 {
        "1 tool".into()
    } else {
        format!("{n} tools")
    }
}

/// One server's state as a part of the servers' line, and whether it is
/// in the error style: in `full` with its reasons and counts (`slow
/// failed: did not answer within 20 s`), else short (`slow failed`).
fn server_state(s: &ServerStatus, full: bool, login_key: Option<&str>) -> (String, bool) {
    match &s.state {
        ServerState::Loaded {
            tools: n,
            prefixed,
            hidden_text,
            skipped,
        } => {
            let mut t = format!("{} {}", escape(&s.name), tools(*n));
            if full && *prefixed > 0 {
                t.push_str(&format!(" ({prefixed} prefixed)"));
            }
            // Hidden text in its tools, and tools it listed that could not
            // be read, show as a warning, in the error style.
            if full && !hidden_text.is_empty() {
                t.push_str(&format!(" (hidden text: {})", hidden_text.len()));
            }
            if full && !skipped.is_empty() {
                t.push_str(&format!(" ({} skipped)", skipped.len()));
            }
            (t, !hidden_text.is_empty() || !skipped.is_empty())
        }
        ServerState::Starting { .. } => (format!("{} starting", escape(&s.name)), false),
        ServerState::WaitingForLogin { .. } => {
            let mut t = format!("{} waiting for login", escape(&s.name));
            if let (true, Some(key)) = (full, login_key) {
                t.push_str(&format!(" ({key} logs in)"));
            }
            (t, true)
        }
        ServerState::Failed { why, .. } => {
            let mut t = format!("{} failed", escape(&s.name));
            if full {
                let first = why.lines().next().unwrap_or("").trim();
                t.push_str(&format!(": {}", escape(first)));
            }
            (t, true)
        }
    }
}

/// The columns `parts` take.
fn parts_width(parts: &[(String, bool)]) -> usize {
    parts.iter().map(|(t, _)| t.chars().count()).sum()
}

/// The servers' line as `(text, failed)` parts that fit `width` columns
/// (each part after the first starts with its separator): each server's
/// state in full (`time 2 tools`, `slow failed: did not answer within
/// 20 s`), else without the reasons (`slow failed`), else counted (`3
/// servers, 1 failed`). Server names and reasons are escaped.
pub fn server_parts(
    servers: &[ServerStatus],
    width: usize,
    login_key: Option<&str>,
) -> Vec<(String, bool)> {
    for full in [true, false] {
        let parts: Vec<_> = servers
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let (t, failed) = server_state(s, full, login_key);
                (if i == 0 { t } else { format!("{SEPARATOR}{t}") }, failed)
            })
            .collect();
        if parts_width(&parts) <= width {
            if !full {
                return with_reasons(servers, parts, width);
            }
            return parts;
        }
    }
    counted(servers, width)
}

/// The servers counted, with those starting, and those failed named while
/// the names fit `width` (`3 servers, 1 failed (slow)`).
fn counted(servers: &[ServerStatus], width: usize) -> Vec<(String, bool)> {
    let failed: Vec<String> = servers
        .iter()
        .filter(|s| matches!(s.state, ServerState::Failed { .. }))
        .map(|s| escape(&s.name).into_owned())
        .collect();
    let mut parts = vec![(crate::numbers::counted(servers.len(), "server"), false)];
    let starting = servers
        .iter()
        .filter(|s| matches!(s.state, ServerState::Starting { .. }));
    if let n @ 1.. = starting.count() {
        parts[0].0.push_str(&format!(", {n} starting"));
    }
    if !failed.is_empty() {
        parts.push((
            format!(", {} failed ({})", failed.len(), failed.join(", ")),
            true,
        ));
        if parts_width(&parts) > width {
            parts[1].0 = format!(", {} failed", failed.len());
        }
    }
    parts
}

/// The short parts, each failed server's reason added in the room left
/// (shared among them, cut at a word before `…`; help has it whole).
fn with_reasons(
    servers: &[ServerStatus],
    mut parts: Vec<(String, bool)>,
    width: usize,
) -> Vec<(String, bool)> {
    let used: usize = parts.iter().map(|(t, _)| t.chars().count()).sum();
    let failed = servers
        .iter()
        .filter(|s| matches!(s.state, ServerState::Failed { .. }))
        .count();
    if failed == 0 {
        return parts;
    }
    let share = width.saturating_sub(used) / failed;
    // ": " and a word or two, or nothing.
    if share < 12 {
        return parts;
    }
    for (part, s) in parts.iter_mut().zip(servers) {
        if let ServerState::Failed { why, .. } = &s.state {
            let first = why.lines().next().unwrap_or("").trim();
            let reason = crate::tui::text::fit_words(&escape(first), share - 2);
            part.0.push_str(&format!(": {reason}"));
        }
    }
    parts
}

/// What goes between two servers on the servers' line.
const SEPARATOR: &str = " · ";

/// The line under the header when the catalog came from MCP servers.
pub fn draw_servers(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let label = " MCP ";
    let room = usize::from(area.width).saturating_sub(label.chars().count() + 1);
    let mut spans = vec![Span::styled(label, theme.title)];
    let mut used = 0;
    let login_key = app.keymap().first(crate::tui::action::Action::LogIn);
    let login_key = login_key.map(|k| k.to_string());
    for (text, failed) in server_parts(app.mcp_servers(), room, login_key.as_deref()) {
        if used >= room {
            break;
        }
        let text = pad(&text, room - used).trim_end().to_string();
        used += text.chars().count();
        let (sep, body) = match text.strip_prefix(SEPARATOR) {
            Some(body) => (SEPARATOR, body),
            None => match text.strip_prefix(", ") {
                Some(body) => (", ", body),
                None => ("", text.as_str()),
            },
        };
        spans.push(Span::styled(sep.to_string(), theme.dim));
        spans.push(Span::styled(
            body.to_string(),
            if failed {
                theme.error
            } else {
                Default::default()
            },
        ));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::mcp::fixtures::{failed, hiding, loaded, loaded_prefixed};

    fn servers() -> Vec<ServerStatus> {
        vec![
            loaded("time", 2),
            loaded_prefixed("git", 12, 1),
            failed("slow", "did not answer within 20 s", "booting\x1b[2J"),
        ]
    }

    fn text(parts: &[(String, bool)]) -> String {
        parts.iter().map(|(t, _)| t.as_str()).collect()
    }

    #[test]
    fn the_servers_line_shortens_to_fit() {
        let s = servers();
        assert_eq!(
            text(&server_parts(&s, 200, None)),
            "time 2 tools · git 12 tools (1 prefixed) · slow failed: did not answer within 20 s"
        );
        // Short, and the failure's reason in the room left, cut at a word.
        assert_eq!(
            text(&server_parts(&s, 60, None)),
            "time 2 tools · git 12 tools · slow failed: did not answer…"
        );
        assert_eq!(
            text(&server_parts(&s, 45, None)),
            "time 2 tools · git 12 tools · slow failed"
        );
        let narrow = server_parts(&s, 30, None);
        assert_eq!(text(&narrow), "3 servers, 1 failed (slow)");
        assert!(narrow[1].1, "the failure in the error style");
        assert_eq!(text(&server_parts(&s, 20, None)), "3 servers, 1 failed");
        let evil = vec![failed("e\x1b]52;c;AA\x07", "bad\u{202e}x\nsecond line", "")];
        let line = text(&server_parts(&evil, 200, None));
        assert!(!line.chars().any(crate::terminal_text::is_unsafe), "{line}");
        assert!(!line.contains("second line"));
    }

    #[test]
    fn a_server_hiding_text_is_marked() {
        let s = vec![hiding(
            "sneaky",
            2,
            vec!["tool \"a\": hidden text in name: ...".into(); 2],
        )];
        let parts = server_parts(&s, 200, None);
        assert_eq!(text(&parts), "sneaky 2 tools (hidden text: 2)");
        assert!(parts[0].1, "in the error style");
    }
}
