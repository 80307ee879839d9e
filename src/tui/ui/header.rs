//! The header line: what is loaded and how it is searched.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Theme;
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::pane::results::Results;
use crate::tui::text::count;

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
    // The search's state: always on screen, in the form that fits.
    let state = super::search_state::describe(&super::search_state::StateOf::of(app));
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
        state,
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
    let mut spans = vec![Span::styled(title, theme.title)];
    spans.extend(parts.spans(left, theme));
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
    /// The search's state: never left out.
    state: super::search_state::SearchStateText,
    session: String,
    session_short: String,
}

impl HeaderParts {
    /// The longest form that fits `room` columns, padded to it: detail
    /// goes first (the session's hint, the searcher's kind, the state's
    /// long note, the always-load count, the session, the tool count),
    /// then the sources are shortened, then the strategy goes; the
    /// search's state stays, in its tiny form at the least.
    fn fit(&self, room: usize) -> String {
        let width = crate::tui::text::width;
        // Each form: (always-load count, searcher's kind, the state's long
        // note, the session: full, short or none, the tool count).
        let forms = [
            (true, true, true, Some(&self.session), true),
            (true, true, true, Some(&self.session_short), true),
            (true, false, true, Some(&self.session_short), true),
            (true, false, false, Some(&self.session_short), true),
            (false, false, false, Some(&self.session_short), true),
            (false, false, false, None, true),
            (false, false, false, None, false),
        ];
        for (always, searcher, long, session, tools) in forms {
            let state = if long {
                &self.state.long
            } else {
                &self.state.short
            };
            let state = match (&self.searcher, searcher) {
                (Some(s), true) => format!("{s} {state}"),
                _ => state.clone(),
            };
            let mut parts = vec![self.sources.as_str()];
            parts.extend(tools.then_some(self.tools.as_str()));
            parts.extend(always.then_some(self.always.as_str()));
            parts.extend(tools.then_some(self.lints.as_deref()).flatten());
            parts.push(&self.strategy);
            parts.push(&state);
            parts.extend(session.map(String::as_str));
            let form = format!(" {}", parts.join(" · "));
            if width(&form) <= room {
                return crate::tui::text::pad(&form, room);
            }
        }
        // The sources shortened (at a word, then anywhere) before the
        // state: the strategy goes, then the state's short form gives way
        // to its tiny one.
        let tails = [
            format!(" · {} · {}", self.strategy, self.state.short),
            format!(" · {}", self.state.short),
            format!(" · {}", self.state.tiny),
        ];
        for tail in &tails {
            let left = room.saturating_sub(width(tail) + 1);
            // A source cut to less than a few columns says nothing.
            if left >= 6 {
                let mut sources = crate::tui::text::fit_words(&self.sources, left);
                if sources.trim_end_matches('…').trim().is_empty() {
                    sources = crate::tui::text::cut(&self.sources, left);
                }
                return crate::tui::text::pad(&format!(" {sources}{tail}"), room);
            }
        }
        for state in [&self.state.short, &self.state.tiny] {
            if width(state) < room {
                return crate::tui::text::pad(&format!(" {state}"), room);
            }
        }
        crate::tui::text::pad(&format!(" {}", self.state.tiny), room)
    }

    /// The fitted `left` as spans: the search's state in the error style
    /// when it failed or stalled.
    fn spans(&self, left: String, theme: &Theme) -> Vec<Span<'static>> {
        if self.state.alarm {
            for form in [&self.state.long, &self.state.short, &self.state.tiny] {
                if let Some(at) = left.rfind(form.as_str()) {
                    let (head, rest) = left.split_at(at);
                    let (state, tail) = rest.split_at(form.len());
                    return vec![
                        Span::raw(head.to_string()),
                        Span::styled(state.to_string(), theme.error),
                        Span::raw(tail.to_string()),
                    ];
                }
            }
        }
        vec![Span::raw(left)]
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

#[cfg(test)]
mod tests {
    use super::*;

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
            state: super::super::search_state::SearchStateText {
                long: "hybrid (embedding; bm25 until ready)".into(),
                short: "hybrid (bm25 until ready)".into(),
                tiny: "bm25 for now".into(),
                alarm: false,
            },
            session: "no session yet (Enter commits a query)".into(),
            session_short: "no session".into(),
        };
        let all = [
            &parts.sources,
            &parts.tools,
            &parts.always,
            &parts.strategy,
            "embedded",
            &parts.state.long,
            &parts.state.short,
            &parts.state.tiny,
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
            // The search's state, whole, wherever it fits at all.
            if room > parts.state.tiny.len() {
                let s = &parts.state;
                assert!(
                    [&s.long, &s.short, &s.tiny]
                        .iter()
                        .any(|f| left.contains(f.as_str())),
                    "{room}: {left:?}"
                );
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
        // Many servers' names give way to the strategy and the state.
        let many = HeaderParts {
            sources: "time, git, fetch, memory, filesystem, everything".into(),
            ..github
        };
        assert_eq!(
            many.fit(62).trim_end(),
            " time, git, fetch… · deferred · hybrid (bm25 until ready)"
        );
    }
}
