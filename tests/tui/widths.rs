//! Every screen at every width from 80 to 200 columns: no word is cut but
//! the one before an ellipsis, and no number is cut. A word on a narrow
//! screen must be a word the same screen shows when nothing is short of
//! room (drawn 400 columns wide), or a word of the catalog, or a shortened
//! number (`10.4k`, `1.48M`); the start of a word is allowed only before
//! `…`, and a word split by wrapping must join up with the next row.

use std::collections::HashSet;

use crossterm::event::KeyCode;

use toolsift::catalog::{CatalogSource, load};
use toolsift::tui::app::App;
use toolsift::tui::effect::Msg;
use toolsift::tui::help::{KeyLine, key_line, screen_line};

use crate::common::explorer::{demo_with, drawn, press, type_text};

/// The recorded gateway session, as a follower tells it.
pub(crate) fn feed_recorded(app: &mut App) {
    let text = include_str!("../../assets/traces/gateway-session.jsonl");
    let events = toolsift::traffic::parse(text, "recorded").unwrap();
    app.update(Msg::Followed(toolsift::follow::Note::Connected));
    app.update(Msg::Followed(toolsift::follow::Note::Events {
        events,
        dropped: 0,
    }));
}

/// Keys that reach a screen from a fresh explorer.
type Reach = Box<dyn Fn(&mut App)>;

/// The screens: a name and the keys that reach it.
fn screens() -> Vec<(&'static str, Reach)> {
    vec![
        ("start", Box::new(|_: &mut App| {})),
        (
            "query",
            Box::new(|a: &mut App| {
                press(a, KeyCode::Char('/'));
                type_text(a, "schedule a meeting with the on-call engineer");
                press(a, KeyCode::Enter);
            }),
        ),
        ("detail", Box::new(|a: &mut App| press(a, KeyCode::Enter))),
        ("help", Box::new(|a: &mut App| press(a, KeyCode::Char('?')))),
        (
            "settings",
            Box::new(|a: &mut App| press(a, KeyCode::Char('s'))),
        ),
        (
            "breaker",
            Box::new(|a: &mut App| {
                press(a, KeyCode::Char('b'));
                press(a, KeyCode::Char('L'));
            }),
        ),
        (
            "tune",
            Box::new(|a: &mut App| {
                press(a, KeyCode::Char('t'));
                a.update(Msg::Type("@demo".into()));
                press(a, KeyCode::Enter);
            }),
        ),
        (
            "export",
            Box::new(|a: &mut App| press(a, KeyCode::Char('x'))),
        ),
        (
            "compare",
            Box::new(|a: &mut App| {
                press(a, KeyCode::Char('/'));
                type_text(a, "schedule a meeting with the on-call engineer");
                press(a, KeyCode::Esc);
                press(a, KeyCode::Char('v'));
            }),
        ),
        (
            "history",
            Box::new(|a: &mut App| {
                press(a, KeyCode::Char('/'));
                type_text(a, "schedule a meeting with the on-call engineer");
                press(a, KeyCode::Enter);
                press(a, KeyCode::Char('H'));
            }),
        ),
        ("live", Box::new(|a: &mut App| feed_recorded(a))),
        (
            "live misses",
            Box::new(|a: &mut App| {
                feed_recorded(a);
                press(a, KeyCode::Char('m'));
                press(a, KeyCode::Char('g'));
            }),
        ),
        (
            "caching",
            Box::new(|a: &mut App| {
                press(a, KeyCode::Char('/'));
                type_text(a, "who is on call for payments");
                press(a, KeyCode::Enter);
                press(a, KeyCode::Char('$'));
            }),
        ),
        (
            "compare gate",
            Box::new(|a: &mut App| {
                press(a, KeyCode::Char('/'));
                type_text(a, "show the weather in Paris");
                press(a, KeyCode::Esc);
                press(a, KeyCode::Char('v'));
                press(a, KeyCode::Char('l'));
            }),
        ),
    ]
}

/// The explorer at `width` x `height` after `to`; a screen whose name
/// starts with `live` follows a trace (it opens on the live screen).
fn app(name: &str, width: u16, height: u16, to: &dyn Fn(&mut App)) -> App {
    let follow = name.starts_with("live").then(|| toolsift::tui::Follow {
        source: toolsift::follow::Source::File("gateway-session.jsonl".into()),
        requests_file: "misses.jsonl".into(),
        open_first: true,
        blind: None,
    });
    let mut app = demo_with(width, height, |s| s.follow = follow);
    to(&mut app);
    app
}

/// The screen's rows; under a popup, only the popup, the header and the
/// bottom line (the panes peek out around a popup, cut by it).
fn front_rows(app: &App) -> Vec<String> {
    let (w, h) = app.size();
    let buffer = drawn(app);
    let front = app.front_area();
    (0..h)
        .map(|y| {
            (0..w)
                .map(|x| {
                    let shown = y == 0
                        || y + 1 == h
                        || front.is_none_or(|r| r.contains(ratatui::layout::Position { x, y }));
                    if shown { buffer[(x, y)].symbol() } else { " " }
                })
                .collect::<String>()
        })
        .collect()
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The words of a row, with the character that follows each (a word
/// right after an ellipsis is the kept end of a shortened id: its `…`
/// is glued in front).
fn words_with_next(row: &str) -> Vec<(String, Option<char>)> {
    let chars: Vec<char> = row.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !is_word_char(chars[i]) {
            i += 1;
            continue;
        }
        let start = i;
        // A number keeps its separators: 10,445 and 95.6 are one word.
        while i < chars.len()
            && (is_word_char(chars[i])
                || (matches!(chars[i], ',' | '.')
                    && chars[i - 1].is_ascii_digit()
                    && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit())))
        {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        if start > 0 && chars[start - 1] == '…' {
            continue;
        }
        out.push((word, chars.get(i).copied()));
    }
    out
}

/// A row cut at the panes' borders (trailing spaces of each kept off, but
/// on a border's own row: the space there ends a whole word, a title's or a
/// position's, `1-13 of 139 `).
fn segments(row: &str) -> Vec<String> {
    row.split(|c: char| "│┃╭╮╰╯┏┓┗┛".contains(c))
        .map(|s| {
            if s.contains(['─', '━']) {
                s.to_string()
            } else {
                s.trim_end().to_string()
            }
        })
        .collect()
}

fn short_number(w: &str) -> bool {
    let Some(body) = w.strip_suffix(['k', 'M', 'G', 'T']) else {
        return false;
    };
    !body.is_empty() && body.chars().all(|c| c.is_ascii_digit() || c == '.')
}

fn universe(catalog_words: &HashSet<String>, wide: &[String]) -> HashSet<String> {
    let mut all = catalog_words.clone();
    for row in wide {
        for (w, _) in words_with_next(row) {
            all.insert(w);
        }
    }
    all
}

/// The words `name` cuts at every width from 80 to 200 (at 24 rows; every
/// seventh width at 35 rows too). A fresh explorer opens at every sixth
/// size; between them the open one is resized, as a user drags the window.
fn cut_words(name: &str, to: &dyn Fn(&mut App), catalog_words: &HashSet<String>) -> Vec<String> {
    let mut failures = Vec::new();
    let mut known = universe(catalog_words, &front_rows(&app(name, 400, 60, to)));
    known.extend(universe(
        &HashSet::new(),
        &front_rows(&app(name, 400, 24, to)),
    ));
    for height in [24u16, 35] {
        let step = if height == 24 { 1 } else { 7 };
        let mut open: Option<App> = None;
        for (i, width) in (80..=200u16).step_by(step).enumerate() {
            let explorer = match open.as_mut() {
                Some(explorer) if i % 6 != 0 => {
                    explorer.update(Msg::Resize(width, height));
                    explorer
                }
                _ => open.insert(app(name, width, height, to)),
            };
            let shown = front_rows(explorer);
            // Each row is cut into the panes' segments (between
            // borders): wrapping joins a segment with the same one of
            // the next row.
            let segs: Vec<Vec<String>> = shown.iter().map(|r| segments(r)).collect();
            for (y, row_segs) in segs.iter().enumerate() {
                for (si, seg) in row_segs.iter().enumerate() {
                    let ws = words_with_next(seg);
                    for (k, (w, next)) in ws.iter().enumerate() {
                        if known.contains(w) || short_number(w) || *next == Some('…') {
                            continue;
                        }
                        // A number (latencies change from run to run) is
                        // cut when its segment ends right after it.
                        if w.starts_with(|c: char| c.is_ascii_digit()) && next.is_some() {
                            continue;
                        }
                        let joins = |a: &str, b: &str| {
                            let joined = format!("{a}{b}");
                            known.iter().any(|kw| kw.contains(&joined))
                        };
                        let wrapped = k + 1 == ws.len()
                            && next.is_none()
                            && segs.get(y + 1).and_then(|r| r.get(si)).is_some_and(|n| {
                                words_with_next(n).first().is_some_and(|(f, _)| joins(w, f))
                            });
                        let rest = k == 0
                            && y > 0
                            && segs[y - 1].get(si).is_some_and(|p| {
                                words_with_next(p).last().is_some_and(|(p, _)| joins(p, w))
                            });
                        if !wrapped && !rest {
                            failures.push(format!(
                                "{name} {width}x{height} row {y}: {w:?} in {:?}",
                                shown[y]
                            ));
                        }
                    }
                }
            }
        }
    }
    failures
}

#[test]
fn no_word_or_number_is_cut_at_any_width() {
    let catalog = load(&CatalogSource::demo()).unwrap();
    let mut catalog_words: HashSet<String> = HashSet::new();
    for t in catalog.tools() {
        let schema = t.input_schema.to_string();
        for s in [t.name.as_str(), t.description.as_str(), schema.as_str()] {
            for (w, _) in words_with_next(s) {
                catalog_words.insert(w);
            }
        }
    }
    // The catalog pane's short flags.
    for w in ["R", "I", "RI"] {
        catalog_words.insert(w.into());
    }
    // The key lines' short words.
    let keymap = toolsift::tui::keymap::Keymap::defaults();
    use toolsift::tui::screen::{breaker, help, tune};
    let lines = [
        key_line(&keymap, KeyLine::Main),
        key_line(&keymap, KeyLine::Query),
        screen_line(&keymap, breaker::KEYS, false, true),
        screen_line(&keymap, tune::KEYS, false, true),
        screen_line(&keymap, help::KEYS, false, false),
    ];
    for line in lines {
        for h in line {
            for (w, _) in words_with_next(&format!("{} {}", h.keys, h.short)) {
                catalog_words.insert(w);
            }
        }
    }
    // The screens are checked on as many threads as there are cores.
    let count = screens().len();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let catalog_words = &catalog_words;
    let mut failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let all = screens();
                    (t..count)
                        .step_by(threads)
                        .flat_map(|i| cut_words(all[i].0, &*all[i].1, catalog_words))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    failures.dedup_by(|a, b| a.split(" row ").nth(1) == b.split(" row ").nth(1));
    assert!(
        failures.is_empty(),
        "{} cut words or numbers, the first:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
