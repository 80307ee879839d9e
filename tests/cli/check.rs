//! `toolsift check` as a user runs it: the real binary, real files.

use crate::common;

use std::path::PathBuf;

use common::{assert_usage_error, fixture, json, run, run_stdin};

#[test]
fn demo_catalog_is_the_default() {
    let out = run(&["check", "--strategy", "deferred", "--json"]);
    let v = json(&out);
    assert_eq!(v["catalog"], "demo");
    let tools = v["tools"].as_u64().unwrap();
    assert!((50..=80).contains(&tools));
    let always: Vec<&str> = v["always_load"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    let initial: Vec<&str> = v["initial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert!(!always.is_empty());
    assert_eq!(
        &initial[..always.len()],
        &always[..],
        "always-load tools lead the initial set"
    );
    assert_eq!(initial.len(), always.len() + 8);
    let full = v["full_schema_tokens"].as_u64().unwrap();
    let sent = v["initial_schema_tokens"].as_u64().unwrap();
    assert!(sent > 0 && sent < full, "{sent} / {full}");
    assert_eq!(v["token_basis"], "o200k_base");
    assert!(v["warnings"].as_array().unwrap().is_empty());
    let costs = v["tool_costs"].as_array().unwrap();
    assert_eq!(costs.len() as u64, tools);
    assert_eq!(
        costs
            .iter()
            .map(|c| c["tokens"].as_u64().unwrap())
            .sum::<u64>(),
        full
    );

    let explicit = json(&run(&[
        "check",
        "@demo",
        "--strategy",
        "deferred",
        "--json",
    ]));
    assert_eq!(explicit, v);

    let text = run(&["check"]);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("catalog   demo (toolsift TOML)"), "{text}");
    assert!(text.contains("strategy all"), "{text}");
}

#[test]
fn strategy_all_sends_everything() {
    let v = json(&run(&["check", "--json"]));
    assert_eq!(
        v["initial"].as_array().unwrap().len() as u64,
        v["tools"].as_u64().unwrap()
    );
    assert_eq!(v["initial_schema_tokens"], v["full_schema_tokens"]);
    assert_eq!(v["initial_reduction_pct"], 0.0);
}

#[test]
fn caps_and_bases_change_the_figures() {
    let capped = json(&run(&[
        "check",
        "--strategy",
        "deferred",
        "--max-loaded-tools",
        "5",
        "--json",
    ]));
    assert_eq!(capped["initial"].as_array().unwrap().len(), 5);
    assert_eq!(capped["max_loaded_tools"], 5);
    let zero = json(&run(&[
        "check",
        "--strategy",
        "deferred",
        "--initial-tool-count",
        "0",
        "--json",
    ]));
    assert_eq!(zero["initial"], zero["always_load"]);
    let o200k = json(&run(&["check", "--json"]))["full_schema_tokens"]
        .as_u64()
        .unwrap();
    let cl100k =
        json(&run(&["check", "--token-basis", "cl100k_base", "--json"]))["full_schema_tokens"]
            .as_u64()
            .unwrap();
    let bytes = json(&run(&[
        "check",
        "--token-basis",
        "estimated_bytes_div_4",
        "--json",
    ]));
    assert_eq!(bytes["token_basis"], "estimated_bytes_div_4");
    let bytes = bytes["full_schema_tokens"].as_u64().unwrap();
    assert!(
        o200k != bytes && cl100k != bytes,
        "{o200k} {cl100k} {bytes}"
    );
}

#[test]
fn a_file_of_each_format() {
    for (file, format) in [
        ("caveman.json", "Caveman wire JSON"),
        ("camel.json", "TypeScript camelCase JSON"),
        ("mcp.json", "MCP tools/list"),
        ("openai-chat.json", "OpenAI Chat function tools"),
        ("openai-responses.json", "OpenAI Responses function tools"),
        ("anthropic.json", "Anthropic tools"),
        ("native.toml", "toolsift TOML"),
    ] {
        let path = fixture(file);
        let v = json(&run(&[
            "check",
            path.to_str().unwrap(),
            "--strategy",
            "deferred",
            "--json",
        ]));
        assert_eq!(v["tools"], 2, "{file}");
        assert_eq!(v["formats"], serde_json::json!([format]), "{file}");
        assert!(v["full_schema_tokens"].as_u64().unwrap() > 20, "{file}");
        let text = run(&["check", path.to_str().unwrap()]);
        assert!(text.status.success(), "{file}");
        assert!(
            String::from_utf8_lossy(&text.stdout).contains("send_invoice"),
            "{file}"
        );
    }
    let github = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets/catalogs/github-mcp-server.tools.json");
    let v = json(&run(&["check", github.to_str().unwrap(), "--json"]));
    assert_eq!(v["tools"], 117);
}

#[test]
fn stdin_detects_the_format_from_content() {
    let toml = std::fs::read_to_string(fixture("native.toml")).unwrap();
    let v = json(&run_stdin(&["check", "-", "--json"], &toml));
    assert_eq!(v["catalog"], "fixture");
    assert_eq!(v["formats"], serde_json::json!(["toolsift TOML"]));
    let mcp = std::fs::read_to_string(fixture("mcp.json")).unwrap();
    let v = json(&run_stdin(&["check", "-", "--json"], &mcp));
    assert_eq!(v["formats"], serde_json::json!(["MCP tools/list"]));
    assert_usage_error(&run_stdin(&["check", "-"], "{\"tools\": [}"), "<stdin>:1:");
}

#[test]
fn bad_catalogs_exit_2_naming_the_problem() {
    let cases = [
        ("duplicate.json", "duplicate tool name \"a\": defined at"),
        ("syntax-error.json", "syntax-error.json:4:1: invalid JSON"),
        (
            "bad-schema.toml",
            "tool #1 (line 1) \"a\": field `input_schema` must be a JSON object",
        ),
        ("empty-name.json", "tool #2 (line 1): tool name is empty"),
        ("no-such-file.json", "no-such-file.json: cannot read"),
    ];
    for (file, needle) in cases {
        assert_usage_error(&run(&["check", fixture(file).to_str().unwrap()]), needle);
        assert_usage_error(
            &run(&["check", fixture(file).to_str().unwrap(), "--json"]),
            needle,
        );
    }
    assert_usage_error(
        &run(&["check", "@nope"]),
        "unknown built-in catalog \"@nope\"",
    );
}

#[test]
fn bad_options_exit_2_with_the_sdk_message() {
    let cases: &[(&[&str], &str)] = &[
        (&["--strategy", "lazy"], "strategy must be all or deferred"),
        (
            &["--initial-tool-count", "-1"],
            "initial_tool_count must be a non-negative integer",
        ),
        (
            &["--initial-tool-count", "2.5"],
            "initial_tool_count must be a non-negative integer",
        ),
        (
            &["--max-loaded-tools", "0"],
            "max_loaded_tools must be a positive integer",
        ),
        (
            &["--max-loaded-tools", "x"],
            "max_loaded_tools must be a positive integer",
        ),
        (
            &["--strategy", "deferred", "--max-loaded-tools", "3"],
            "max_loaded_tools must be at least the always_load tool count",
        ),
        (&["--token-basis", "gpt2"], "unknown token basis \"gpt2\""),
        // The SDK's order: strategy is checked before the counts.
        (
            &["--strategy", "x", "--initial-tool-count", "-1"],
            "strategy must be all or deferred",
        ),
    ];
    for (args, needle) in cases {
        let mut all = vec!["check"];
        all.extend_from_slice(args);
        assert_usage_error(&run(&all), needle);
        all.push("--json");
        assert_usage_error(&run(&all), needle);
    }
    // With strategy all the cap is not compared with the always-load count.
    assert!(run(&["check", "--max-loaded-tools", "3"]).status.success());
    assert_eq!(run(&["check", "--no-such-flag"]).status.code(), Some(2));
}
