//! The explorer's answer is `toolsift search`'s: the real binary in a
//! pseudo-terminal, on GitHub's MCP catalog, loads the tools search sends,
//! in its order, with the same tokens sent and the same count of what
//! matched beyond the cap. (The other front ends are held to `search` in
//! the external tests' same-answer test.)

use crate::common;
use crate::tty::Tty;

const REQUESTS: &[&str] = &[
    "list the issues of a repository",
    "open a pull request",
    "who am I logged in as",
    "search code for a function name",
];
const CAP: &str = "5";

fn catalog() -> String {
    common::github_catalog()
}

/// The loaded rows of the Results pane, as drawn: its numbered rows above
/// "below the cap" (a name cut to the pane's width ends in "…").
fn loaded_rows(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let top = lines
        .iter()
        .position(|l| l.contains("] Results") || l.contains("╭ Results") || l.contains("┏ Results"))
        .unwrap_or_else(|| panic!("no Results pane:\n{screen}"));
    // The pane's columns: from its corner (the last before its title) to
    // the next corner.
    let header: Vec<char> = lines[top].chars().collect();
    let title = (0..header.len())
        .find(|&i| header[i..].starts_with(&['R', 'e', 's', 'u', 'l', 't', 's']))
        .unwrap();
    let at = (0..title)
        .rev()
        .find(|&i| "╭┏".contains(header[i]))
        .unwrap();
    let end = (at + 1..header.len())
        .find(|&i| "╮┓".contains(header[i]))
        .unwrap();
    let mut rows = Vec::new();
    for line in &lines[top + 1..] {
        let cells: String = line.chars().skip(at + 1).take(end - at - 1).collect();
        let text = cells.trim_start_matches(['›', ' ']);
        if text.starts_with("below the cap") || line.contains('╰') || line.contains('┗') {
            break;
        }
        let mut words = text.split_whitespace();
        if let (Some(n), Some(name)) = (words.next(), words.next())
            && n.parse::<usize>() == Ok(rows.len() + 1)
        {
            rows.push(name.to_string());
        }
    }
    rows
}

#[test]
fn the_explorer_loads_what_search_sends() {
    let catalog = catalog();
    let mut tty = Tty::spawn_with(&["explore", &catalog, "--max-tools", CAP], &[]);
    tty.wait_for("117 tools");
    for q in REQUESTS {
        let out = common::run(&["search", &catalog, q, "--max-tools", CAP, "--json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let cli = common::json(&out);
        let names: Vec<String> = cli["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        assert!(!names.is_empty(), "{q}: {cli}");

        // A new query: clear the box, type, and commit it.
        tty.send(b"/");
        tty.send(b"\x15");
        for c in q.bytes() {
            tty.send(&[c]);
        }
        tty.send(b"\r");
        tty.wait_for(&format!("Results {} of 117", names.len()));
        let (sent, total) = (
            cli["matching"]["sent"].as_u64().unwrap(),
            cli["matching"]["total"].as_u64().unwrap(),
        );
        if total > sent {
            // What the cap left out, as search counts it.
            tty.wait_for(&format!("{sent} of {total} matching"));
        }
        let sent = cli["sent_schema_tokens"].as_u64().unwrap();
        tty.wait_for(&format!("this search sends {} of", thousands(sent)));
        let screen = tty.contents();
        let rows = loaded_rows(&screen);
        assert_eq!(rows.len(), names.len(), "{q}: {names:?}\n{screen}");
        for (row, name) in rows.iter().zip(&names) {
            let shown = row.strip_suffix('…').unwrap_or(row);
            assert!(
                name.starts_with(shown) && (shown == name || row.ends_with('…')),
                "{q}: the explorer shows {row:?} where search sends {name:?}\n{screen}"
            );
        }
        tty.send(b"\x1b");
    }
    tty.send(b"q");
    assert!(tty.wait_exit().success());
}

/// 1698 as the explorer writes it: 1,698.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn loaded_rows_are_read_off_the_results_pane() {
    let screen = "\
╭ Catalog ╮╭ Results 2 of 9 ──────╮
│› R  a   ││› 1 first_tool    8.1 ││
│  R  b   ││  2 second_too…   7.3 ││
│         ││below the cap of 2    ││
│         ││  3 third         5.7 ││
╰─────────╯╰──────────────────────╯";
    assert_eq!(loaded_rows(screen), ["first_tool", "second_too…"]);
}
