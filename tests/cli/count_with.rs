//! `check --count-with`: exact counts from a provider's counting endpoint,
//! against a fake provider that records the exact requests. Failures name
//! the provider and leave the estimates in place; a second run asks nothing.

use crate::common;

use std::process::Output;
use std::time::Duration;

use common::fake_counter::{FakeCounter, Scripted, count_of};
use serde_json::Value;

fn check(fake: &FakeCounter, provider: &str, cache: &std::path::Path, extra: &[&str]) -> Output {
    let mut cmd = common::bin();
    cmd.args([
        "check",
        "@demo",
        "--strategy",
        "deferred",
        "--json",
        "--count-with",
        provider,
    ])
    .args(["--count-url", &fake.url])
    .args(extra)
    .env("XDG_CACHE_HOME", cache)
    .env("OPENAI_API_KEY", "sk-test")
    .env("ANTHROPIC_API_KEY", "ak-test");
    cmd.output().unwrap()
}

fn exact_row(out: &Output) -> Option<Value> {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["bases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["counted"] == "exact")
        .cloned()
}

#[test]
fn openai_counts_are_asked_with_the_tools_in_its_shape_then_kept() {
    let fake = FakeCounter::start(Vec::new());
    let cache = tempfile::tempdir().unwrap();
    let out = check(&fake, "openai", cache.path(), &[]);
    assert!(out.status.success(), "{out:?}");
    let row = exact_row(&out).expect("an exact row");
    assert_eq!(row["basis"], "openai:gpt-4o (exact)");
    let seen = fake.seen();
    // Without tools, with all 64, with the 12 of the initial set.
    assert_eq!(seen.len(), 3, "{seen:?}");
    for s in &seen {
        assert_eq!(s.path, "/v1/responses/input_tokens");
        assert_eq!(s.header("authorization"), Some("Bearer sk-test"));
        assert_eq!(s.body["model"], "gpt-4o");
    }
    let all = seen
        .iter()
        .find(|s| s.body["tools"].as_array().is_some_and(|t| t.len() == 64))
        .unwrap();
    assert_eq!(all.body["tools"][0]["type"], "function");
    assert!(all.body["tools"][0]["parameters"].is_object());
    let none = seen.iter().find(|s| s.body.get("tools").is_none()).unwrap();
    assert_eq!(
        row["full_tokens"].as_u64().unwrap(),
        count_of(&all.body) - count_of(&none.body)
    );
    // A second run asks nothing: the counts were kept on disk.
    let again = check(&fake, "openai", cache.path(), &[]);
    assert_eq!(exact_row(&again), Some(row));
    assert_eq!(fake.seen().len(), 3, "the second run asked again");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("0 counted by the provider now, 3 kept")
    );
}

#[test]
fn anthropic_gets_its_headers_and_its_shape() {
    let fake = FakeCounter::start(Vec::new());
    let cache = tempfile::tempdir().unwrap();
    let out = check(
        &fake,
        "anthropic",
        cache.path(),
        &["--count-model", "claude-haiku-4-5"],
    );
    let row = exact_row(&out).expect("an exact row");
    assert_eq!(row["basis"], "anthropic:claude-haiku-4-5 (exact)");
    let seen = fake.seen();
    let s = &seen[0];
    assert_eq!(s.path, "/v1/messages/count_tokens");
    assert_eq!(s.header("x-api-key"), Some("ak-test"));
    assert_eq!(s.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(s.body["messages"][0]["role"], "user");
    let with = seen.iter().find(|s| s.body.get("tools").is_some()).unwrap();
    assert!(with.body["tools"][0]["input_schema"].is_object());
}

#[test]
fn failures_name_the_provider_and_leave_the_estimates() {
    let cases: Vec<(Vec<Scripted>, &[&str], &str)> = vec![
        (
            vec![Scripted {
                status: 401,
                body: r#"{"error":{"message":"bad key"}}"#.into(),
                delay: Duration::ZERO,
            }],
            &[],
            "401 Unauthorized: bad key",
        ),
        (
            vec![Scripted {
                status: 200,
                body: "<html>nope</html>".into(),
                delay: Duration::ZERO,
            }],
            &[],
            "the answer is not JSON",
        ),
        (
            vec![Scripted {
                status: 200,
                body: "{}".into(),
                delay: Duration::from_secs(3),
            }],
            &["--count-timeout-ms", "500"],
            "no answer within 0.5 s",
        ),
    ];
    for (script, extra, says) in cases {
        let fake = FakeCounter::start(script);
        let cache = tempfile::tempdir().unwrap();
        let out = check(&fake, "openai", cache.path(), extra);
        assert!(out.status.success(), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("openai token counting"), "{stderr}");
        assert!(stderr.contains(says), "{says}: {stderr}");
        assert!(stderr.contains("the estimates stand"), "{stderr}");
        assert_eq!(exact_row(&out), None);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            v["bases"].as_array().unwrap().len(),
            6,
            "the estimates are all there"
        );
    }
    // A 429 is waited out once, then the count comes.
    let fake = FakeCounter::start(vec![Scripted {
        status: 429,
        body: "{}".into(),
        delay: Duration::ZERO,
    }]);
    let cache = tempfile::tempdir().unwrap();
    let out = check(&fake, "openai", cache.path(), &[]);
    assert!(
        exact_row(&out).is_some(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fake.seen().len(), 4);
    // No key: a usage error naming the variable.
    let mut cmd = common::bin();
    let out = cmd
        .args(["check", "--count-with", "anthropic"])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    common::assert_usage_error(&out, "$ANTHROPIC_API_KEY");
}

#[test]
fn each_tool_is_counted_once_and_a_changed_tool_again() {
    let fake = FakeCounter::start(Vec::new());
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.json");
    let write = |description: &str| {
        let tools = serde_json::json!([
            {"name": "alpha", "description": "First tool"},
            {"name": "beta_tool", "description": "Second tool"},
            {"name": "gamma", "description": description},
        ]);
        std::fs::write(&file, tools.to_string()).unwrap();
    };
    write("Third tool");
    let run = || {
        let mut cmd = common::bin();
        cmd.args([
            "check",
            file.to_str().unwrap(),
            "--json",
            "--count-with",
            "openai",
        ])
        .args(["--count-url", &fake.url, "--count-tools"])
        .env("XDG_CACHE_HOME", cache.path())
        .env("OPENAI_API_KEY", "sk-test");
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let v = run();
    // The fake counts 100 a tool and its name's bytes, with no overhead:
    // each share is exactly that.
    let shares: Vec<u64> = v["tool_costs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["exact_tokens"].as_u64().unwrap())
        .collect();
    assert_eq!(shares, [105, 109, 105]);
    let first = fake.seen().len();
    // Without tools; all (the initial set is the same request, kept);
    // the first two together; each alone.
    assert_eq!(first, 1 + 1 + 1 + 3);
    // One tool changed: it is counted again, and the whole set, not the others.
    write("Third tool, changed");
    run();
    let again: Vec<_> = fake.seen()[first..].to_vec();
    let counted: Vec<usize> = again
        .iter()
        .map(|s| s.body["tools"].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(counted, [3, 1], "{again:?}");
    assert_eq!(again[1].body["tools"][0]["name"], "gamma");
    // In the text: a column of the exact shares.
    let mut cmd = common::bin();
    cmd.args(["check", file.to_str().unwrap(), "--count-with", "openai"])
        .args(["--count-url", &fake.url, "--count-tools"])
        .env("XDG_CACHE_HOME", cache.path())
        .env("OPENAI_API_KEY", "sk-test");
    let text = String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned();
    assert!(text.contains("  exact  "), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("gamma") && l.contains("105")),
        "{text}"
    );
}
