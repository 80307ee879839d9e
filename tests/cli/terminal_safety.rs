//! A catalog, a trace or a queries file is untrusted: escape sequences in it
//! must reach the terminal as visible text, never as commands (OSC 52 writes
//! the clipboard, CSI 2J clears the screen, a newline fakes a table row).
//! JSON output stays exact.

use crate::common;

use std::process::Output;

use common::{TempFile, json, run};
use serde_json::json;

/// OSC 52 (clipboard write), CSI clear screen, BEL, a C1 CSI, a newline
/// faking a row, and a bidi override.
const EVIL_NAME: &str = "evil\u{1b}]52;c;aGk=\u{7}\u{1b}[2J\u{9b}2J\n   2  fake_row\u{202e}";
const EVIL_TEXT: &str =
    "Weather forecast \u{1b}]52;c;aGk=\u{7} for a city\u{1b}[2J\u{9b}31m\nfake line";

fn catalog() -> TempFile {
    let tools = json!([
        {
            "name": EVIL_NAME,
            "description": EVIL_TEXT,
            "input_schema": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": EVIL_TEXT}}
            }
        },
        {
            "name": "send_invoice",
            "description": "Send an invoice to a customer",
            "input_schema": {"type": "object", "properties": {}}
        }
    ]);
    TempFile::new(&tools.to_string())
}

/// No byte a terminal acts on: ESC, BEL, C1 CSI (UTF-8 C2 9B), and no other
/// control character but the layout's newlines.
fn assert_terminal_safe(bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    assert!(!bytes.contains(&0x1b), "ESC in {what}: {text}");
    assert!(!bytes.contains(&0x07), "BEL in {what}: {text}");
    assert!(!text.contains('\u{9b}'), "C1 CSI in {what}: {text}");
    assert!(
        !text.contains(|c: char| c != '\n' && toolsift::terminal_text::is_unsafe(c)),
        "control character in {what}: {text:?}"
    );
}

fn stdout_text(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_terminal_safe(&out.stdout, "stdout");
    assert_terminal_safe(&out.stderr, "stderr");
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The visible forms of the attack in EVIL_NAME.
fn assert_visible_name(text: &str) {
    assert!(
        text.contains("evil\\u{1b}]52;c;aGk=\\u{7}\\u{1b}[2J\\u{9b}2J\\n   2  fake_row\\u{202e}"),
        "{text}"
    );
    assert!(
        !text
            .lines()
            .any(|l| l.trim_start().starts_with("2  fake_row")),
        "a newline in a name made a row: {text}"
    );
}

#[test]
fn check_text_escapes_names_and_warnings() {
    let c = catalog();
    let text = stdout_text(&run(&["check", c.path(), "--strategy", "deferred"]));
    assert_visible_name(&text);
    // The name's lint warning quotes it, escaped.
    assert!(text.contains("warnings ("), "{text}");
    // The table still lines up: the escaped name sets the column width.
    let header = text
        .lines()
        .find(|l| l.trim_start().starts_with("#  name"))
        .unwrap();
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("2  send_invoice"))
        .unwrap();
    assert_eq!(header.find("flags"), row.find("--"), "{text}");
}

#[test]
fn check_json_keeps_the_exact_name() {
    let c = catalog();
    let out = run(&["check", c.path(), "--json"]);
    assert_terminal_safe(&out.stdout, "JSON");
    let v = json(&out);
    assert_eq!(v["tool_costs"][0]["name"], EVIL_NAME);
    assert_eq!(v["always_load"], json!([]));
    assert_eq!(v["initial"][0], EVIL_NAME);
}

#[test]
fn search_text_escapes_names() {
    let c = catalog();
    let text = stdout_text(&run(&["search", c.path(), "weather forecast for a city"]));
    assert_visible_name(&text);
    // (A session id is checked by the service: it cannot carry escapes.)
    assert!(text.contains("; session "), "{text}");
}

#[test]
fn search_why_escapes_the_name_and_the_request_words() {
    let c = catalog();
    let query = "send an invoice \u{1b}]52;c;aGk=\u{7}ofx";
    let text = stdout_text(&run(&[
        "search",
        c.path(),
        query,
        "--max-tools",
        "1",
        "--why",
        EVIL_NAME,
    ]));
    assert_visible_name(&text);
    assert!(text.contains("not loaded: "), "{text}");
    // A close name in the error is escaped too.
    let out = run(&["search", c.path(), "x", "--why", "evil"]);
    assert_eq!(out.status.code(), Some(2));
    assert_terminal_safe(&out.stderr, "stderr");
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean"));
}

#[test]
fn search_json_keeps_the_exact_name() {
    let c = catalog();
    let out = run(&["search", c.path(), "weather forecast for a city", "--json"]);
    assert_terminal_safe(&out.stdout, "JSON");
    let v = json(&out);
    assert_eq!(v["tools"][0]["name"], EVIL_NAME);
}

#[test]
fn eval_text_escapes_queries_ids_categories_and_names() {
    let c = catalog();
    let lines = [
        json!({
            "id": "id\u{1b}[2J",
            "category": "cat\u{9b}31m",
            "query": "weather forecast \u{1b}]52;c;aGk=\u{7}\nfake",
            "expected": ["send_invoice"],
        }),
        json!({"id": "b", "category": "other", "query": "send an invoice", "expected": ["send_invoice"]}),
    ];
    let q = TempFile::new(&format!("{}\n{}\n", lines[0], lines[1]));
    let text = stdout_text(&run(&["eval", c.path(), q.path(), "--k", "1"]));
    assert!(
        text.contains("[id\\u{1b}[2J] weather forecast \\u{1b}]52;c;aGk=\\u{7}\\nfake"),
        "{text}"
    );
    assert!(text.contains("cat\\u{9b}31m"), "{text}");
    assert!(text.contains("top: evil\\u{1b}]52;c;aGk=\\u{7}"), "{text}");
}

#[test]
fn replay_text_escapes_names_and_arguments() {
    let call =
        json!({"name": "evil\u{1b}]52;c;aGk=\u{7}", "arguments": {"x": "\u{9b}2J\u{1b}[2J\u{7f}"}});
    let t = TempFile::new(&format!("{call}\n{call}\n{call}\n"));
    let text = stdout_text(&run(&["replay", t.path(), "--threshold", "2"]));
    assert!(text.contains("evil\\u{1b}]52;c;aGk=\\u{7}("), "{text}");
    assert!(text.contains("\\u{9b}2J"), "{text}");
    assert!(text.contains("BLOCKED"), "{text}");
    assert!(
        text.contains("verdict: the breaker (threshold 2) trips at call 3 of 3 (trace line 3)"),
        "{text}"
    );
    let out = run(&["replay", t.path(), "--json"]);
    assert_terminal_safe(&out.stdout, "JSON");
    assert_eq!(json(&out)["calls"][0]["name"], "evil\u{1b}]52;c;aGk=\u{7}");
}

#[test]
fn errors_escape_what_they_quote() {
    let tools = json!([
        {"name": EVIL_NAME, "description": "a"},
        {"name": EVIL_NAME, "description": "b"},
    ]);
    let c = TempFile::new(&tools.to_string());
    for args in [vec!["check", c.path()], vec!["search", c.path(), "x"]] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        assert_terminal_safe(&out.stderr, "stderr");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.contains("duplicate tool name \"evil\\u{1b}]52;c;aGk="),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }

    let good = catalog();
    let q = TempFile::new(&format!(
        "{}\n",
        json!({"id": "q\u{1b}[2J", "query": "x", "expected": ["nope\u{9b}2J\u{7}"]})
    ));
    let out = run(&["eval", good.path(), q.path()]);
    assert_eq!(out.status.code(), Some(2));
    assert_terminal_safe(&out.stderr, "stderr");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("is not in the catalog"), "{stderr}");
    assert!(stderr.contains("q\\u{1b}[2J"), "{stderr}");

    // A message quoting raw text is escaped at the final print.
    let missing = "/no/such\u{1b}]52;c;aGk=\u{7}.json";
    let out = run(&["check", missing]);
    assert_eq!(out.status.code(), Some(2));
    assert_terminal_safe(&out.stderr, "stderr");
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("/no/such\\u{1b}]52;c;aGk=\\u{7}.json: cannot read")
    );
}
