//! The relevance gate on the command line: `search` says "no tool fits" and
//! names the nearest, `--gate off` loads them; `eval --abstain` measures it;
//! the query syntax (`select:`, `+term`).

use crate::common;

use common::{TempFile, assert_usage_error, json, run};

const NO_FIT: &str = "show the weather in Paris";

#[test]
fn search_answers_no_tool_fits_and_names_the_nearest() {
    let out = run(&["search", "@demo", NO_FIT]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("note: no tool fits this request; the nearest, get_billing_account, has evidence 0.5 of the 1.5 asked"), "{text}");
    assert!(
        text.contains("held back (no tool fits; --gate off loads them):"),
        "{text}"
    );
    let v = json(&run(&["search", "@demo", NO_FIT, "--json"]));
    let ranked = |v: &serde_json::Value| {
        v["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["reason"] != "always_load")
            .count()
    };
    assert_eq!(ranked(&v), 0);
    assert_eq!(v["held_back"][0]["name"], "get_billing_account");
    assert_eq!(v["held_back"][0]["evidence"], 0.5);
    // Off: the tools that share a word are loaded, as before.
    let off = json(&run(&[
        "search", "@demo", NO_FIT, "--gate", "off", "--json",
    ]));
    assert!(ranked(&off) > 0);
    assert!(off.get("held_back").is_none());
    // A request that fits is not touched.
    let fits = json(&run(&["search", "@demo", "refund a payment", "--json"]));
    assert!(ranked(&fits) > 0);
}

/// The searched tools of `catalog` for `query` (always-load tools left out).
fn searched(catalog: &str, query: &str) -> Vec<String> {
    let v = json(&run(&["search", catalog, query, "--json"]));
    v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["reason"] != "always_load")
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn everyday_and_server_name_words_make_no_match() {
    let root = env!("CARGO_MANIFEST_DIR");
    // Six real MCP servers' tools, one of them a server named "everything".
    let servers = format!("{root}/eval/mcp-short/catalog.json");
    for query in [
        "send an email",
        "forget everything about Bob",
        "what do you know about Alice",
    ] {
        let tools = searched(&servers, query);
        assert!(
            !tools
                .iter()
                .any(|t| t == "get-annotated-message" || t == "echo"),
            "{query}: {tools:?}"
        );
    }
    // A request that names the server's own words still finds its tools.
    let tools = searched(&servers, "echo a message back");
    assert_eq!(tools.first().map(String::as_str), Some("echo"), "{tools:?}");
    // The thinking tool's "next thought" is not a flight "next Friday";
    // among the six servers' tools, "next" is a word only it has.
    let read = |path: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let mut seven = read(&servers);
    let thinking = read(&format!(
        "{root}/tests/fixtures/catalogs/sequential-thinking.json"
    ));
    let all = seven["tools"].as_array_mut().unwrap();
    all.extend(thinking["tools"].as_array().unwrap().iter().cloned());
    let seven = TempFile::new(&seven.to_string());
    assert_eq!(
        searched(seven.path(), "book a flight next Friday"),
        Vec::<String>::new()
    );
    let tools = searched(seven.path(), "think through this problem step by step");
    assert_eq!(
        tools.first().map(String::as_str),
        Some("sequentialthinking"),
        "{tools:?}"
    );
}

#[test]
fn select_and_plus_terms_from_the_command_line() {
    let v = json(&run(&[
        "search",
        "@demo",
        "select:refund_payment,mcp__billing__get_payment,nope",
        "--json",
    ]));
    let names: Vec<&str> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["reason"] == "exact_name")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["refund_payment", "get_payment"]);
    assert_eq!(v["note"], "select: no tool is named \"nope\"");
    let v = json(&run(&["search", "@demo", "payment +refund", "--json"]));
    let ranked: Vec<&str> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["reason"] == "ranked")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    // Without +refund, get_oncall_schedule and get_invoice come too.
    assert_eq!(ranked, ["refund_payment", "get_payment"]);
}

#[test]
fn eval_abstain_reports_the_gate_and_its_curve() {
    let tools = r#"[{"name": "get_weather", "description": "Weather forecast for a city", "input_schema": {"type": "object"}}]"#;
    let file = TempFile::new(&format!(
        "{{\"kind\": \"relevant\", \"query\": \"the weather forecast in Rome\", \"tools\": {tools}, \"expected\": [\"get_weather\"]}}\n\
         {{\"kind\": \"irrelevant\", \"query\": \"get me a taxi\", \"tools\": {tools}, \"expected\": []}}\n"
    ));
    let v = json(&run(&["eval", "--abstain", file.path(), "--json"]));
    assert_eq!(v["irrelevant"], 1);
    assert_eq!(v["on"]["nothing_on_irrelevant"], 100.0);
    assert_eq!(v["on"]["all_on_relevant"], 100.0);
    assert_eq!(v["off"]["nothing_on_irrelevant"], 0.0);
    assert_eq!(v["curve"].as_array().unwrap().len(), 13);
    let text = String::from_utf8(run(&["eval", "--abstain", file.path()]).stdout).unwrap();
    assert!(text.contains("gate on (evidence 1.5)"), "{text}");
    // A bad line is named.
    let bad = TempFile::new("{\"kind\": \"relevant\", \"query\": \"x\", \"tools\": []}\n");
    let out = run(&["eval", "--abstain", bad.path()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(":1: a relevant question's `expected` is empty"),
        "{stderr}"
    );
    // --max-tools belongs to --abstain.
    assert_usage_error(
        &run(&["eval", "@demo", "@demo", "--max-tools", "3"]),
        "--abstain",
    );
}
