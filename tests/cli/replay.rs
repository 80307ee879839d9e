//! `toolsift replay` as a user runs it on a trace.

use crate::common;

use common::{TempFile, assert_usage_error, json, run};

fn trace(lines: &[&str]) -> TempFile {
    TempFile::new(&(lines.join("\n") + "\n"))
}

#[test]
fn sdk_case_threshold_2_three_identical_calls() {
    for second in [
        r#"{"name": "fetch_order", "arguments": {"id": 42, "full": true}}"#,
        // The keys in another order are the same call.
        r#"{"name": "fetch_order", "arguments": {"full": true, "id": 42}}"#,
    ] {
        let t = trace(&[
            r#"{"name": "fetch_order", "arguments": {"id": 42, "full": true}}"#,
            second,
            r#"{"name": "fetch_order", "arguments": {"id": 42, "full": true}}"#,
        ]);
        let v = json(&run(&["replay", t.path(), "--threshold", "2", "--json"]));
        assert_eq!(v["fired_at_call"], 2);
        assert_eq!(v["repeats"], 3);
        assert_eq!(v["threshold"], 2);
        let calls = v["calls"].as_array().unwrap();
        assert_eq!(calls.len(), 3);
        for (i, c) in calls.iter().enumerate() {
            assert_eq!(c["index"], i);
            assert_eq!(c["name"], "fetch_order");
            assert_eq!(c["signature"], r#"fetch_order({"full":true,"id":42})"#);
            assert_eq!(c["repeats"], i + 1);
            assert_eq!(c["ran"], i < 2);
        }
    }
}

#[test]
fn a_different_call_resets_the_streak() {
    let t = trace(&[
        r#"{"name": "a", "arguments": {"x": 1}}"#,
        r#"{"name": "a", "arguments": {"x": 1}}"#,
        r#"{"name": "a", "arguments": {"x": 2}}"#,
        r#"{"name": "a", "arguments": {"x": 2}}"#,
        r#"{"name": "b", "arguments": {"x": 2}}"#,
        r#"{"name": "b", "arguments": {"x": 2}}"#,
    ]);
    let v = json(&run(&["replay", t.path(), "--threshold", "2", "--json"]));
    assert_eq!(v["fired_at_call"], -1);
    assert_eq!(v["repeats"], 0);
    let text = run(&["replay", t.path(), "--threshold", "2"]);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("never fires on these 6 calls"), "{text}");
}

#[test]
fn default_threshold_is_3_and_the_example_ships() {
    let v = json(&run(&["replay", "@example", "--json"]));
    assert_eq!(v["threshold"], 3);
    assert_eq!(v["fired_at_call"], 9);
    assert_eq!(v["repeats"], 4);
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/traces/stuck-agent.jsonl");
    let from_file = json(&run(&["replay", example.to_str().unwrap(), "--json"]));
    assert_eq!(from_file, v);
    let text = String::from_utf8(run(&["replay", "@example"]).stdout).unwrap();
    assert!(text.contains("  10  BLOCKED  repeats  4"), "{text}");
    assert!(
        text.contains("trips at call 10 of 11 (trace line 10): retry loop interrupted"),
        "{text}"
    );
}

#[test]
fn malformed_traces_exit_2_naming_the_line() {
    let t = trace(&[
        r#"{"name": "a", "arguments": {}}"#,
        r#"{"name": "a", "arguments": {}"#,
    ]);
    assert_usage_error(
        &run(&["replay", t.path()]),
        &format!("{}:2: invalid JSON", t.path()),
    );
    assert_usage_error(&run(&["replay", t.path(), "--json"]), ":2: invalid JSON");
    let t = trace(&[r#"{"arguments": {}}"#]);
    assert_usage_error(&run(&["replay", t.path()]), ":1: missing `name`");
    assert_usage_error(
        &run(&["replay", "/no/such.jsonl"]),
        "/no/such.jsonl: cannot read",
    );
    for bad in ["-1", "2.5", "x", "4294967296"] {
        assert_usage_error(
            &run(&["replay", "@example", "--threshold", bad]),
            &format!(
                "--threshold must be a whole number from 0 to 4,294,967,295 (0 blocks every call), not \"{bad}\""
            ),
        );
    }
}

#[test]
fn threshold_0_is_the_sdks_and_blocks_the_first_call() {
    let v = json(&run(&["replay", "@example", "--threshold", "0", "--json"]));
    assert_eq!(v["threshold"], 0);
    assert_eq!(v["fired_at_call"], 0);
    assert_eq!(v["repeats"], 1);
    let calls = v["calls"].as_array().unwrap();
    assert!(calls.iter().all(|c| c["ran"] == false), "{v}");
}
