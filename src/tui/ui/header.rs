//! The header line: what is loaded and how it is searched.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Theme;
use crate::sources::mcp::{ServerState, ServerStatus};
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::pane::results::Results;
use crate::tui::text::{count, pad};

/// A session id as the header shows it: ids longer than 12 characters as
/// their first and last 4 characters. Counted in chars (a remote service
/// may send any text); control characters are shown as `?`.
pub fn short_id(id: &str) -> String {
    let chars: Vec<char> = id
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if chars.len() > 12 {
        let head: String = chars[..4].iter().collect();
        let tail: String = chars[chars.len() - 4..].iter().collect();
        format!("{head}…{tail}")
    } else {
        chars.into_iter().collect()
    }
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let c = app.catalog();
    let always = c.tools().iter().filter(|t| t.always_load).count();
    let (session, session_short) = match &app.search().session {
        Some(id) => {
            let short = format!("session {}", short_id(id));
            (
                format!("{short} ({} loaded)", app.search().session_tools),
                short,
            )
        }
        None => (
            format!(
                "no session yet ({} commits a query)",
                app.keymap().label(Action::InputSubmit)
            ),
            "no session".to_string(),
        ),
    };
    let remote = app.searcher().remote_host();
    let searcher = if remote.is_some() {
        None
    } else {
        Some(app.searcher().describe())
    };
    // While a dense ranker's vectors are computed, BM25F answers: said here.
    let (ranker, ranker_short) = if app.vectors_pending() {
        (
            format!("{} (embedding; bm25 until ready)", app.query_ranker()),
            format!("{} (bm25 until ready)", app.query_ranker()),
        )
    } else if let Some((done, total)) = app.fetching() {
        // The first run: the model comes while BM25F ranks.
        let pct = (done * 100).checked_div(total).unwrap_or(0);
        (
            format!("bm25 (fetching search model {pct}%)"),
            format!("bm25 (model {pct}%)"),
        )
    } else if app.query_ranker() == crate::engine::Ranker::Bm25
        && app.searcher().plain_because().is_some()
    {
        // No search model could be had: BM25F alone, said so.
        ("bm25 (no search model)".to_string(), "bm25".to_string())
    } else {
        let r = app.query_ranker().to_string();
        (r.clone(), r)
    };
    let parts = HeaderParts {
        sources: escape(app.sources()).into_owned(),
        tools: count(c.len() as u64, "tool", "tools"),
        always: format!("{always} always-load"),
        lints: match (app.tools_with_lints(), app.tools_hard_to_find()) {
            (0, 0) => None,
            (n, 0) => Some(format!(
                "⚠ {}",
                count(n as u64, "tool warned", "tools warned")
            )),
            (0, h) => Some(format!("{h} hard to find")),
            (n, h) => Some(format!(
                "⚠ {}, {h} hard to find",
                count(n as u64, "tool warned", "tools warned")
            )),
        },
        strategy: app.settings().strategy.to_string(),
        searcher,
        ranker,
        ranker_short,
        session,
        session_short,
    };
    let help = format!(" {} help ", app.keymap().label(Action::Help));
    // The help key always shows, and the remote service with it: the rest
    // is cut to make room for them.
    let title = " toolsift";
    let mut room =
        usize::from(area.width).saturating_sub(title.chars().count() + help.chars().count());
    let remote = remote.map(|host| {
        let (latency, failed) = remote_latency(app);
        let text = remote_part(&host, &latency, room.saturating_sub(MIN_LEFT));
        room = room.saturating_sub(text.chars().count());
        (text, failed)
    });
    let left = parts.fit(room);
    let mut spans = vec![Span::styled(title, theme.title), Span::raw(left)];
    if let Some((text, failed)) = remote {
        spans.push(Span::styled(
            text,
            if failed { theme.error } else { theme.title },
        ));
    }
    spans.push(Span::styled(help, theme.key));
    let line = Line::from(spans);
    f.render_widget(Paragraph::new(line), area);
}

/// What the header's left part says, in long and short forms.
struct HeaderParts {
    sources: String,
    tools: String,
    always: String,
    strategy: String,
    /// Tools `toolsift check` warns about, when any.
    lints: Option<String>,
    /// The embedded service's kind (`embedded`), absent for a remote one.
    searcher: Option<String>,
    ranker: String,
    ranker_short: String,
    session: String,
    session_short: String,
}

impl HeaderParts {
    /// The longest form that fits `room` columns, padded to it: detail
    /// goes first (the session's hint, the searcher's kind, the ranker's
    /// long note, the always-load count, the session), then what is left
    /// is shortened between words.
    fn fit(&self, room: usize) -> String {
        // Each form: (always-load count, searcher's kind, the ranker's long
        // note, the session: full, short or none, the tool count).
        let forms: Vec<String> = [
            (true, true, true, Some(&self.session), true),
            (true, true, true, Some(&self.session_short), true),
            (true, false, true, Some(&self.session_short), true),
            (true, false, false, Some(&self.session_short), true),
            (false, false, false, Some(&self.session_short), true),
            (false, false, false, None, true),
            (false, false, false, None, false),
        ]
        .into_iter()
        .map(|(always, searcher, long, session, tools)| {
            let ranker = if long {
                &self.ranker
            } else {
                &self.ranker_short
            };
            let ranker = match (&self.searcher, searcher) {
                (Some(s), true) => format!("{s} {ranker}"),
                _ => ranker.clone(),
            };
            let mut parts = vec![self.sources.as_str()];
            parts.extend(tools.then_some(self.tools.as_str()));
            parts.extend(always.then_some(self.always.as_str()));
            parts.extend(tools.then_some(self.lints.as_deref()).flatten());
            parts.push(&self.strategy);
            parts.push(&ranker);
            parts.extend(session.map(String::as_str));
            format!(" {}", parts.join(" · "))
        })
        .collect();
        for f in &forms {
            if f.chars().count() <= room {
                return format!("{f:<room$}");
            }
        }
        let last = &forms[forms.len() - 1];
        let mut cut = crate::tui::text::wrap_words(last, room.saturating_sub(1), 1)
            .into_iter()
            .next()
            .unwrap_or_default();
        // No separator left hanging before the ellipsis.
        if let Some(head) = cut.strip_suffix(" ·…") {
            cut = format!("{head}…");
        }
        format!(" {:<width$}", cut, width = room.saturating_sub(1))
            .chars()
            .take(room)
            .collect()
    }
}

/// Columns the header keeps for what is loaded when a remote service shows.
const MIN_LEFT: usize = 24;

/// The last search's latency as the header shows it (`3.1 ms`, `—` before
/// any answer) and whether it failed.
fn remote_latency(app: &App) -> (String, bool) {
    let failed = matches!(app.search().results, Results::Failed(_));
    let latency = match app.search().latency {
        Some(l) => format!("{:.1} ms", l.as_secs_f64() * 1000.0),
        None => "—".to_string(),
    };
    (
        if failed {
            format!("{latency} failed")
        } else {
            latency
        },
        failed,
    )
}

/// ` remote HOST · LATENCY ` in at most `width` columns: the host is
/// shortened first (escaped: it came from a flag, a file or the
/// environment).
pub fn remote_part(host: &str, latency: &str, width: usize) -> String {
    let host = escape(host);
    // Whole forms first: the word "remote", then the latency give way.
    for text in [
        format!(" remote {host} · {latency} "),
        format!(" {host} · {latency} "),
        format!(" {host} "),
    ] {
        if crate::tui::text::width(&text) <= width {
            return text;
        }
    }
    // The host shortens, its port kept (two services on one host differ
    // by it).
    let (name, port) = match host.rsplit_once(':') {
        Some((n, p)) if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) => {
            (n.to_string(), format!(":{p}"))
        }
        _ => (host.to_string(), String::new()),
    };
    let room = width.saturating_sub(2 + port.chars().count());
    format!(" {}{port} ", crate::tui::text::cut(&name, room))
}

fn tools(n: usize) -> String {
    if n == 1 {
        "1 tool".into()
    } else {
        format!("{n} tools")
    }
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
    let state = |s: &ServerStatus, full: bool| match &s.state {
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
    };
    let len =
        |parts: &[(String, bool)]| parts.iter().map(|(t, _)| t.chars().count()).sum::<usize>();
    for full in [true, false] {
        let parts: Vec<_> = servers
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let (t, failed) = state(s, full);
                (if i == 0 { t } else { format!("{SEPARATOR}{t}") }, failed)
            })
            .collect();
        if len(&parts) <= width {
            if !full {
                return with_reasons(servers, parts, width);
            }
            return parts;
        }
    }
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
        if len(&parts) > width {
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
    use crate::sources::mcp::{ServerState, ServerStatus};

    fn servers() -> Vec<ServerStatus> {
        vec![
            ServerStatus {
                name: "time".into(),
                state: ServerState::Loaded {
                    tools: 2,
                    prefixed: 0,
                    hidden_text: Vec::new(),
                    skipped: Vec::new(),
                },
            },
            ServerStatus {
                name: "git".into(),
                state: ServerState::Loaded {
                    tools: 12,
                    prefixed: 1,
                    hidden_text: Vec::new(),
                    skipped: Vec::new(),
                },
            },
            ServerStatus {
                name: "slow".into(),
                state: ServerState::Failed {
                    why: "did not answer within 20 s".into(),
                    stderr_tail: "booting\x1b[2J".into(),
                },
            },
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
        let evil = vec![ServerStatus {
            name: "e\x1b]52;c;AA\x07".into(),
            state: ServerState::Failed {
                why: "bad\u{202e}x\nsecond line".into(),
                stderr_tail: String::new(),
            },
        }];
        let line = text(&server_parts(&evil, 200, None));
        assert!(!line.chars().any(crate::terminal_text::is_unsafe), "{line}");
        assert!(!line.contains("second line"));
    }

    #[test]
    fn a_server_hiding_text_is_marked() {
        let s = vec![ServerStatus {
            name: "sneaky".into(),
            state: ServerState::Loaded {
                tools: 2,
                prefixed: 0,
                hidden_text: vec!["tool \"a\": hidden text in name: ...".into(); 2],
                skipped: Vec::new(),
            },
        }];
        let parts = server_parts(&s, 200, None);
        assert_eq!(text(&parts), "sneaky 2 tools (hidden text: 2)");
        assert!(parts[0].1, "in the error style");
    }

    #[test]
    fn the_remote_part_keeps_the_port() {
        assert_eq!(
            remote_part("127.0.0.1:8787", "3.1 ms", 80),
            " remote 127.0.0.1:8787 · 3.1 ms "
        );
        // The word, then the latency, give way before the host is cut.
        assert_eq!(
            remote_part("127.0.0.1:8787", "3.1 ms", 26),
            " 127.0.0.1:8787 · 3.1 ms "
        );
        assert_eq!(
            remote_part("127.0.0.1:8787", "3.1 ms", 18),
            " 127.0.0.1:8787 "
        );
        let host = "tool-search.internal.example.com:8443";
        let short = remote_part(host, "12.4 ms", 24);
        assert!(short.chars().count() <= 24, "{short}");
        assert!(short.starts_with(" tool-search"), "{short}");
        assert!(short.contains('…') && short.ends_with(":8443 "), "{short}");
        let evil = remote_part("e\x1b]52;c;AA\x07:1", "1.0 ms", 80);
        assert!(!evil.chars().any(crate::terminal_text::is_unsafe), "{evil}");
    }

    #[test]
    fn session_ids_are_shortened_by_chars() {
        assert_eq!(short_id("7f3a0c1d2e3f4a5b6c7de21c"), "7f3a…e21c");
        assert_eq!(short_id("x"), "x");
        assert_eq!(short_id(""), "");
        assert_eq!(short_id("exactly12chr"), "exactly12chr");
        // Multi-byte characters: never cut inside one.
        assert_eq!(
            short_id("セッション識別子はとても長いです"),
            "セッショ…長いです"
        );
        assert_eq!(short_id("é"), "é");
        assert_eq!(short_id("ab\ncd"), "ab?cd");
        assert_eq!(short_id("🦀🦀🦀🦀🦀🦀🦀🦀🦀🦀🦀🦀🦀"), "🦀🦀🦀🦀…🦀🦀🦀🦀");
    }

    #[test]
    fn the_header_fits_every_width_and_keeps_the_help_key() {
        let parts = HeaderParts {
            lints: None,
            sources: escape("evil\x1b[2Jname, git, time").into_owned(),
            tools: "117 tools".into(),
            always: "4 always-load".into(),
            strategy: "deferred".into(),
            searcher: Some("embedded".into()),
            ranker: "hybrid (embedding; bm25 until ready)".into(),
            ranker_short: "hybrid (bm25 until ready)".into(),
            session: "no session yet (Enter commits a query)".into(),
            session_short: "no session".into(),
        };
        let all = [
            &parts.sources,
            &parts.tools,
            &parts.always,
            &parts.strategy,
            "embedded",
            &parts.ranker,
            &parts.ranker_short,
            &parts.session,
            &parts.session_short,
            "·",
        ]
        .join(" ");
        let words: Vec<&str> = all.split_whitespace().collect();
        let mut seen = Vec::new();
        for room in 0..=200 {
            let left = parts.fit(room);
            assert_eq!(left.chars().count(), room, "{room}: {left:?}");
            assert!(
                !left.chars().any(crate::terminal_text::is_unsafe),
                "{left:?}"
            );
            // Never a word cut in two: every word shown is a whole word of
            // the longest form, save one that ends with the ellipsis.
            for word in left.split_whitespace().filter(|w| !w.ends_with('…')) {
                assert!(words.contains(&word), "{room}: {word:?} in {left:?}");
            }
            seen.push(left.trim_end().to_string());
        }
        assert!(seen[200].contains("no session yet (Enter commits a query)"));
        // Detail goes before substance: at 80 columns (62 for this part)
        // the ranker and its state stay whole.
        let github = HeaderParts {
            sources: "github-mcp".into(),
            ..parts
        };
        assert_eq!(
            github.fit(62).trim_end(),
            " github-mcp · 117 tools · deferred · hybrid (bm25 until ready)"
        );
    }
}
