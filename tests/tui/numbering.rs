//! One ranking behind every number of a search, in the real binary at
//! 80x24 and 200x60: the results pane numbers the loaded tools 1..n and
//! those below the cap on from n+1, the detail's "ranked Nth" is the row's
//! number, and `toolsift search` numbers the same tools the same way.

use crate::common;
use crate::tty::Tty;

const REQUEST: &str = "a customer got charged twice, give them their money back";

/// The screen's rows, as characters (one a cell).
fn rows(tty: &Tty) -> Vec<Vec<char>> {
    tty.contents()
        .lines()
        .map(|l| l.chars().collect())
        .collect()
}

/// Where `needle` starts in `row`, in cells.
fn find(row: &[char], needle: &str) -> Option<usize> {
    let needle: Vec<char> = needle.chars().collect();
    row.windows(needle.len())
        .position(|w| w == needle.as_slice())
}

/// The text of `row` from cell `from` to the next pane border.
fn inside(row: &[char], from: usize) -> String {
    row.iter()
        .skip(from)
        .take_while(|c| !matches!(c, '│' | '┃'))
        .collect()
}

/// The results pane's numbered rows: (number, name) above the cap's line
/// and below it, and the name the highlight is on.
struct Results {
    loaded: Vec<(usize, String)>,
    below: Vec<(usize, String)>,
    selected: Option<String>,
}

fn results(tty: &Tty) -> Results {
    let rows = rows(tty);
    let (top, col) = rows
        .iter()
        .enumerate()
        .find_map(|(i, r)| find(r, "[2] Results").map(|c| (i, c - 2)))
        .unwrap_or_else(|| panic!("no results pane:\n{}", tty.contents()));
    let mut out = Results {
        loaded: Vec::new(),
        below: Vec::new(),
        selected: None,
    };
    let mut past_cap = false;
    for row in &rows[top + 1..] {
        if matches!(row.get(col), Some('╰' | '┗') | None) {
            break;
        }
        let text = inside(row, col + 1);
        let text = text.trim();
        if text.is_empty() && !(out.loaded.is_empty() && out.below.is_empty()) {
            // The rows end; what follows is the matching count.
            break;
        }
        if text.starts_with("below the cap") {
            past_cap = true;
            continue;
        }
        let (selected, text) = match text.strip_prefix('›') {
            Some(rest) => (true, rest.trim_start()),
            None => (false, text),
        };
        let mut words = text.split_whitespace();
        let (Some(first), Some(name)) = (words.next(), words.next()) else {
            continue;
        };
        if selected {
            out.selected = Some(name.to_string());
        }
        if let Ok(n) = first.parse::<usize>() {
            let list = if past_cap {
                &mut out.below
            } else {
                &mut out.loaded
            };
            list.push((n, name.to_string()));
        }
    }
    out
}

/// The number after "ranked " in the detail's standing, read across the
/// lines it wraps to.
fn ranked(tty: &Tty) -> usize {
    let rows = rows(tty);
    let (at, col) = rows
        .iter()
        .enumerate()
        .find_map(|(i, r)| find(r, "standing:").map(|c| (i, c)))
        .unwrap_or_else(|| panic!("no standing:\n{}", tty.contents()));
    let text: Vec<String> = rows[at..(at + 3).min(rows.len())]
        .iter()
        .map(|r| inside(r, col))
        .collect();
    let text = text.join(" ");
    let after = text
        .split("ranked ")
        .nth(1)
        .unwrap_or_else(|| panic!("no 'ranked' in {text:?}"));
    after
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or_else(|_| panic!("no number after 'ranked' in {text:?}"))
}

/// Tools by their numbers: (number, name).
type Numbered = Vec<(usize, String)>;

/// `toolsift search` on the demo catalog with BM25F: the table's numbered
/// rows, and what `--why TOOL` says of each of `names`.
fn cli_numbers(names: &[String]) -> (Numbered, Vec<(String, usize)>) {
    let out = common::bin()
        .args(["search", "@demo", REQUEST])
        .output()
        .unwrap();
    assert!(out.status.success());
    let table: Vec<(usize, String)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with(' '))
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let n = words.next()?.parse().ok()?;
            Some((n, words.next()?.to_string()))
        })
        .collect();
    let why = names
        .iter()
        .map(|name| {
            let out = common::bin()
                .args(["search", "@demo", REQUEST, "--why", name])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let line = text
                .lines()
                .find(|l| l.starts_with(&format!("why {name}:")))
                .unwrap_or_else(|| panic!("no why line for {name}:\n{text}"))
                .to_string();
            let n = line
                .split("ranked ")
                .nth(1)
                .and_then(|r| {
                    r.chars()
                        .take_while(char::is_ascii_digit)
                        .collect::<String>()
                        .parse()
                        .ok()
                })
                .unwrap_or_else(|| panic!("no rank in {line:?}"));
            (name.clone(), n)
        })
        .collect();
    (table, why)
}

fn numbering_at(cols: u16, rows: u16) {
    let mut tty = Tty::spawn_sized(&[], &[], cols, rows);
    tty.wait_for("Results 4 of 64");
    tty.send(b"/");
    tty.send(REQUEST.as_bytes());
    tty.wait_for(&format!("> {REQUEST}"));
    tty.send(b"\r");
    tty.wait_for("below the cap of 8");
    tty.send(b"\x1b");
    tty.wait_for("? help");
    tty.send(b"2");
    let seen = results(&tty);
    let screen = tty.contents();
    // Loaded: 1..n in order; below the cap: n+1 on.
    let numbers: Vec<usize> = seen.loaded.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        numbers,
        (1..=seen.loaded.len()).collect::<Vec<_>>(),
        "{screen}"
    );
    assert!(!seen.below.is_empty(), "{screen}");
    let numbers: Vec<usize> = seen.below.iter().map(|(n, _)| *n).collect();
    let first = seen.loaded.len() + 1;
    assert_eq!(
        numbers,
        (first..first + seen.below.len()).collect::<Vec<_>>(),
        "{screen}"
    );
    // The detail's place of each numbered row is its number.
    let numbered: Vec<(usize, String)> = seen.loaded.iter().chain(&seen.below).cloned().collect();
    for (n, name) in &numbered {
        let mut moves = 0;
        while results(&tty).selected.as_deref() != Some(name) {
            assert!(moves < 20, "j never reached {name}:\n{}", tty.contents());
            tty.send(b"j");
            moves += 1;
            std::thread::sleep(std::time::Duration::from_millis(30));
        }
        let pane = format!("[3] {name} ");
        if tty.contents().contains(&pane) {
            tty.wait_for("standing:");
            assert_eq!(ranked(&tty), *n, "{name}:\n{}", tty.contents());
        } else {
            // Two panes only: the detail opens over them.
            tty.send(b"\r");
            tty.wait_for(&format!("┏ {name} "));
            tty.wait_for("standing:");
            assert_eq!(ranked(&tty), *n, "{name}:\n{}", tty.contents());
            tty.send(b"\x1b");
            tty.wait_gone(&format!("┏ {name} "));
        }
    }
    tty.send(b"q");
    assert!(tty.wait_exit().success());
    // toolsift search: the same loaded tools under the same numbers, and
    // each numbered tool's place the same.
    let names: Vec<String> = numbered.iter().map(|(_, name)| name.clone()).collect();
    let (table, why) = cli_numbers(&names);
    assert_eq!(table, seen.loaded, "{cols}x{rows}");
    for ((n, name), (why_name, why_n)) in numbered.iter().zip(&why) {
        assert_eq!((name, n), (why_name, why_n), "{cols}x{rows}");
    }
}

#[test]
fn a_search_is_numbered_one_way_at_80x24() {
    numbering_at(80, 24);
}

#[test]
fn a_search_is_numbered_one_way_at_200x60() {
    numbering_at(200, 60);
}
