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

/// With no strategy chosen the report shows both: what `all` (the SDK's
/// default) sends, and what `deferred` (the explorer's) would send and save.
#[test]
fn no_strategy_shows_all_and_deferred() {
    let text = String::from_utf8(run(&["check"]).stdout).unwrap();
    for needle in [
        "strategy all (the SDK's default; the explorer opens on deferred)",
        "tokens    full catalog 10,445\n",
        "  all       sends all 64 tools up front: 10,445 tokens, saves 0 (0.0 %)\n",
        "  deferred  sends 12 tools first: 1,742 tokens, saves 8,703 (83.3 %)\n",
        "initial   deferred: search_knowledge_base, get_current_user, lookup_service_status, page_oncall, ",
        "(all: every tool)",
    ] {
        assert!(text.contains(needle), "{needle:?} in {text}");
    }
    // The table marks deferred's initial set, not every tool.
    let yes = text.lines().filter(|l| l.ends_with("  yes")).count();
    assert_eq!(yes, 12, "{text}");
    assert!(text.contains("tokens  deferred\n"), "{text}");

    // JSON: the SDK default's fields as they were, both strategies beside.
    let v = json(&run(&["check", "--json"]));
    assert_eq!(v["strategy"], "all");
    assert_eq!(v["strategy_chosen"], false);
    assert_eq!(v["initial"].as_array().unwrap().len(), 64);
    assert_eq!(v["initial_saved_tokens"], 0);
    let s = &v["strategies"];
    assert_eq!(s["all"]["initial_schema_tokens"], v["full_schema_tokens"]);
    assert_eq!(s["deferred"]["initial"].as_array().unwrap().len(), 12);
    assert_eq!(s["deferred"]["initial_saved_tokens"], 8703);
    let deferred = json(&run(&["check", "--strategy", "deferred", "--json"]));
    assert_eq!(deferred["strategy_chosen"], true);
    assert_eq!(s["deferred"]["initial"], deferred["initial"]);
    assert_eq!(
        s["deferred"]["initial_schema_tokens"],
        deferred["initial_schema_tokens"]
    );
}

/// A chosen strategy is reported alone; under `all`, a line says why
/// nothing is saved and what deferred would save.
#[test]
fn a_chosen_strategy_and_why_all_saves_nothing() {
    let all = String::from_utf8(run(&["check", "--strategy", "all"]).stdout).unwrap();
    assert!(
        all.contains("tokens    full catalog 10,445, initial set 10,445 (64 tools): saves 0 (0.0 %)\n          nothing is saved: strategy all sends every tool up front; deferred sends 12 tools first: 1,742 tokens, saves 8,703 (83.3 %)\n"),
        "{all}"
    );
    assert!(!all.contains("the SDK's default"), "{all}");
    let deferred = String::from_utf8(run(&["check", "--strategy", "deferred"]).stdout).unwrap();
    assert!(!deferred.contains("nothing is saved"), "{deferred}");
    assert!(
        deferred.contains("initial set 1,742 (12 tools): saves 8,703 (83.3 %)"),
        "{deferred}"
    );
    // Caps that deferred cannot take are said, not an error, under all.
    let capped = String::from_utf8(run(&["check", "--max-loaded-tools", "3"]).stdout).unwrap();
    assert!(
        capped.contains("deferred  not possible with these caps: max_loaded_tools must be at least the always_load tool count"),
        "{capped}"
    );
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

#[test]
fn every_basis_side_by_side() {
    let v = json(&run(&[
        "check",
        "@github-mcp",
        "--strategy",
        "deferred",
        "--bases",
        "all",
        "--json",
    ]));
    let rows = v["bases"].as_array().unwrap();
    let basis = |name: &str| rows.iter().find(|r| r["basis"] == name).unwrap().clone();
    // The JSON bases are the report's own figures.
    assert_eq!(basis("o200k_base")["full_tokens"], v["full_schema_tokens"]);
    assert_eq!(
        basis("o200k_base")["initial_tokens"],
        v["initial_schema_tokens"]
    );
    // OpenAI's rendering costs much less than the JSON under the same
    // encoding (18,825 against 24,340 under cl100k_base on this catalog).
    let json_cl100k = basis("cl100k_base")["full_tokens"].as_u64().unwrap();
    let rendered = basis("openai:gpt-4")["full_tokens"].as_u64().unwrap();
    assert_eq!(basis("openai:gpt-4")["counted"], "rendered");
    assert!(
        rendered * 100 < json_cl100k * 80,
        "{rendered} vs {json_cl100k}"
    );
    for r in rows {
        let (full, initial) = (
            r["full_tokens"].as_u64().unwrap(),
            r["initial_tokens"].as_u64().unwrap(),
        );
        assert_eq!(r["saved_tokens"].as_u64().unwrap(), full - initial, "{r}");
    }
    let text = String::from_utf8_lossy(&run(&["check", "@github-mcp", "--bases", "all"]).stdout)
        .into_owned();
    for name in [
        "o200k_base",
        "cl100k_base",
        "estimated_bytes_div_4",
        "openai ",
        "openai:gpt-4",
    ] {
        assert!(
            text.contains(&format!("          {name}")),
            "{name}: {text}"
        );
    }
    assert!(text.contains("OpenAI's rendering, one block, +9"), "{text}");
    assert!(text.contains("          anthropic (estimate)"), "{text}");
    let claude = basis("anthropic (estimate)");
    assert_eq!(claude["counted"], "anthropic_estimate");
    // The tool-use prompt alone is 346 tokens, so a Claude request with
    // tools costs more than the JSON under cl100k_base.
    assert!(claude["full_tokens"].as_u64().unwrap() > json_cl100k + 346);
    // Without the flag, no table and no key.
    let plain = json(&run(&["check", "--json"]));
    assert!(plain.get("bases").is_none());
    assert_usage_error(&run(&["check", "--bases", "some"]), "--bases");
}

/// The tools' own figures in a `check --json` report, summed.
fn shares_of(v: &serde_json::Value) -> u64 {
    v["tool_costs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tokens"].as_u64().unwrap())
        .sum()
}

#[test]
fn a_provider_basis_counts_its_shares_and_the_request_overhead_once() {
    let v = json(&run(&[
        "check",
        "--strategy",
        "deferred",
        "--token-basis",
        "anthropic",
        "--json",
    ]));
    assert_eq!(v["token_basis"], "anthropic");
    let shares = shares_of(&v);
    // The tool-use prompt, once, on top of the tools' shares.
    assert_eq!(v["full_schema_tokens"].as_u64().unwrap(), shares + 346);
    let initial: u64 = v["tool_costs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["initial"] == true)
        .map(|t| t["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(v["initial_schema_tokens"].as_u64().unwrap(), initial + 346);
    let text =
        String::from_utf8_lossy(&run(&["check", "--token-basis", "openai"]).stdout).into_owned();
    assert!(
        text.contains("openai: a request with tools costs"),
        "{text}"
    );
    // The JSON bases are unchanged: no overhead.
    let plain = json(&run(&["check", "--json"]));
    let sum = shares_of(&plain);
    assert_eq!(plain["full_schema_tokens"].as_u64().unwrap(), sum);
}

#[test]
fn a_model_basis_takes_its_familys_prompt_and_choice() {
    let full = |basis: &str| {
        let v = json(&run(&["check", "--token-basis", basis, "--json"]));
        let shares = shares_of(&v);
        (
            v["token_basis"].as_str().unwrap().to_string(),
            v["full_schema_tokens"].as_u64().unwrap() - shares,
        )
    };
    assert_eq!(
        full("anthropic:claude-3-opus-20240229"),
        ("anthropic:claude-3-opus".into(), 530)
    );
    assert_eq!(
        full("anthropic:claude-sonnet-4-5:any"),
        ("anthropic:any".into(), 313)
    );
    assert_eq!(full("openai:gpt-3.5-turbo").0, "openai:gpt-4");
    let out = run(&["check", "--token-basis", "openai:nonsense"]);
    assert_usage_error(&out, "unknown token basis \"openai:nonsense\"");
}

#[test]
fn a_name_of_seventy_thousand_characters_is_reported_not_a_panic() {
    // The formatter's width stops at 65,535: a name that long made the
    // table's padding panic (exit 101).
    let long = "n".repeat(70_000);
    let catalog = serde_json::json!({"tools": [
        {"name": long, "description": "A tool with a very long name", "inputSchema": {"type": "object"}},
        {"name": "short", "description": "A tool", "inputSchema": {"type": "object"}}
    ]});
    let out = run_stdin(&["check", "-"], &catalog.to_string());
    let code = out.status.code();
    assert_ne!(
        code,
        Some(101),
        "panicked: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    if code == Some(0) {
        let text = String::from_utf8_lossy(&out.stdout);
        // The rows are not padded to the long name's width.
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with("2  short"))
            .unwrap_or_default();
        assert!(!row.is_empty() && row.len() < 200, "{}", row.len());
    }
}
