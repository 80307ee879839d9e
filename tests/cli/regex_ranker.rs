//! `--ranker regex` on the command line: `search` and `eval` take a pattern
//! for a query; the explorer's `--ranker` is a ranker of words.

use crate::common;

use common::{TempFile, json, run};

#[test]
fn search_with_a_pattern() {
    let v = json(&run(&[
        "search",
        "@demo",
        "^(send|refund)_",
        "--ranker",
        "regex",
        "--json",
    ]));
    assert_eq!(v["method"], "regex");
    let ranked: Vec<(&str, f64, &str)> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["reason"] == "ranked")
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                t["score"].as_f64().unwrap(),
                t["matched"][0]["term"].as_str().unwrap(),
            )
        })
        .collect();
    // Name matches first, in catalog order, then a parameter name's.
    assert_eq!(
        ranked,
        [
            ("send_chat_message", 41.0, "send_"),
            ("send_email", 41.0, "send_"),
            ("refund_payment", 41.0, "refund_"),
            ("create_invoice", 21.0, "send_"),
        ]
    );
    let out = run(&["search", "@demo", "^refund_", "--ranker", "regex"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("refund_ (name)"), "{text}");
    assert!(text.contains("method regex"), "{text}");
}

#[test]
fn a_bad_pattern_says_where_and_what() {
    let out = run(&["search", "@demo", "(abc", "--ranker", "regex"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("regex: unclosed group at column 1 of \"(abc\" (invalid_regex)"),
        "{stderr}"
    );
}

#[test]
fn eval_with_patterns() {
    let q = TempFile::new(concat!(
        "{\"query\":\"^refund_\",\"expected\":[\"refund_payment\"]}\n",
        "{\"query\":\"(?i)^send_e-?mail$\",\"expected\":[\"send_email\"]}\n",
    ));
    let v = json(&run(&[
        "eval",
        "@demo",
        q.path(),
        "--ranker",
        "regex",
        "--json",
        "--time-budget-ms",
        "0",
    ]));
    assert_eq!(v["strict"]["all@1"], 100.0);
    let bad = TempFile::new("{\"query\":\"(bad\",\"expected\":[\"send_email\"]}\n");
    let out = run(&[
        "eval",
        "@demo",
        bad.path(),
        "--ranker",
        "regex",
        "--time-budget-ms",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("regex: unclosed group at column 1"),
        "{out:?}"
    );
}

#[test]
fn the_explorer_ranker_is_one_of_words() {
    common::assert_usage_error(
        &run(&["explore", "--ranker", "regex"]),
        "regex is not a ranker setting of the explorer",
    );
}
