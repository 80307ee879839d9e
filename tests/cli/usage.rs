//! Learning from use, replayed split in time: the pairs of a team's first
//! days (`eval/usage/earlier.jsonl`, as `gateway --learn` records them)
//! rank the requests of the days after (`eval/usage/later.jsonl`).

use crate::common::{TempFile, json, run};

fn strict(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert!(out.status.success(), "{out:?}");
    json(&out)["strict"].clone()
}

#[test]
fn the_earlier_days_pairs_find_the_later_days_tools_first() {
    let base = [
        "eval",
        "eval/mcp-short/catalog.json",
        "eval/usage/later.jsonl",
        "--json",
        "--time-budget-ms",
        "0",
    ];
    let plain = strict(&base);
    let mut with = base.to_vec();
    with.extend(["--usage", "eval/usage/earlier.jsonl"]);
    let learned = strict(&with);
    let at = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap();
    assert!(
        at(&learned, "all@1") >= at(&plain, "all@1") + 20.0,
        "all@1 {} with the pairs, {} without",
        learned["all@1"],
        plain["all@1"]
    );
    assert!(at(&learned, "all@3") > at(&plain, "all@3"));
}

#[test]
fn search_says_when_usage_lifted_a_tool() {
    let out = run(&[
        "search",
        "eval/mcp-short/catalog.json",
        "what did I change today",
        "--usage",
        "eval/usage/earlier.jsonl",
        "--json",
    ]);
    assert!(out.status.success(), "{out:?}");
    let v = json(&out);
    assert_eq!(v["tools"][0]["name"], "git_diff_unstaged", "{v}");
    assert_eq!(v["tools"][0]["usage"]["uses"], 2, "{v}");
    let out = run(&[
        "search",
        "eval/mcp-short/catalog.json",
        "what did I change today",
        "--usage",
        "eval/usage/earlier.jsonl",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("called after 2 like requests before"),
        "{text}"
    );
}

#[test]
fn a_bad_line_of_a_usage_file_is_named_with_its_line_and_skipped() {
    let bad = TempFile::new("{\"query\": \"a\", \"tool\": \"git_log\"}\n{\"query\": 3}\n");
    let out = run(&[
        "search",
        "eval/mcp-short/catalog.json",
        "anything",
        "--usage",
        bad.path(),
    ]);
    // The bad line is named and skipped; the pairs that read are used.
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("warning: --usage {}: line 2: skipped", bad.path())),
        "{err}"
    );
}
