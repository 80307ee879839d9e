//! `toolsift search` and `toolsift eval` as a user runs them.

use crate::common;

use common::{TempFile, assert_usage_error, bin, fixture, json, run};

#[test]
fn search_json_has_the_documented_keys() {
    let v = json(&run(&["search", "@demo", "check service status", "--json"]));
    for key in [
        "tools",
        "session_id",
        "method",
        "deferred_count",
        "full_schema_tokens",
        "sent_schema_tokens",
        "saved_tokens",
        "reduction_pct",
        "token_basis",
        "basis",
    ] {
        assert!(v.get(key).is_some(), "{key} missing in {v}");
    }
    assert_eq!(v["method"], "bm25");
    assert_eq!(v["basis"], "inferred");
    assert_eq!(v["token_basis"], "o200k_base");
    let tools = v["tools"].as_array().unwrap();
    assert!(tools.len() <= 8);
    assert!(
        tools
            .iter()
            .all(|t| t["name"].is_string() && t["score"].is_number())
    );
    // Always-load tools first, then the ranked ones, best first.
    let ranked: Vec<f64> = tools
        .iter()
        .filter(|t| t["reason"] == "ranked")
        .map(|t| t["score"].as_f64().unwrap())
        .collect();
    assert!(ranked.windows(2).all(|w| w[0] >= w[1]), "{ranked:?}");
    assert!(tools.iter().any(|t| t["name"] == "lookup_service_status"));
    let full = v["full_schema_tokens"].as_u64().unwrap();
    let sent = v["sent_schema_tokens"].as_u64().unwrap();
    assert_eq!(v["saved_tokens"].as_u64().unwrap(), full - sent);
    assert!(v.get("note").is_none());
}

#[test]
fn search_text_and_caps() {
    let out = run(&["search", "@demo", "refund a payment", "--max-tools", "5"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("refund_payment"), "{text}");
    assert!(
        text.contains("method bm25, token basis o200k_base (inferred)"),
        "{text}"
    );
    let v = json(&run(&[
        "search",
        "@demo",
        "refund a payment",
        "--max-tools",
        "5",
        "--json",
    ]));
    assert_eq!(v["tools"].as_array().unwrap().len(), 5);
    // max_loaded_tools is the default cap.
    let v = json(&run(&[
        "search",
        "@demo",
        "refund a payment",
        "--max-loaded-tools",
        "6",
        "--json",
    ]));
    assert_eq!(v["tools"].as_array().unwrap().len(), 6);
}

#[test]
fn search_nothing_matches_says_why() {
    let v = json(&run(&["search", "@demo", "zebra xylophone", "--json"]));
    assert!(
        v["note"]
            .as_str()
            .unwrap()
            .starts_with("no tool matches the query")
    );
    assert!(
        v["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["reason"] == "always_load")
    );
}

#[test]
fn why_a_tool_was_left_out_or_loaded() {
    let query = "refund the duplicate payment of a customer";
    let out = run(&[
        "search",
        "@demo",
        query,
        "--max-tools",
        "5",
        "--why",
        "get_payment",
    ]);
    let text = common::stdout_text(&out);
    assert!(
        text.contains(
            "\nwhy get_payment: not loaded: ranked 2nd, below the cap of 5 (4 always-load + 1 searched)\n  rank         2\n"
        ),
        "{text}"
    );
    assert!(text.contains("  matched      refund, payment\n"), "{text}");
    assert!(
        text.contains("  not matched  duplicate, customer\n"),
        "{text}"
    );

    let v = json(&run(&[
        "search",
        "@demo",
        query,
        "--max-tools",
        "5",
        "--why",
        "rerun_ci_job",
        "--json",
    ]));
    let why = &v["why"];
    assert_eq!(why["tool"], "rerun_ci_job");
    assert_eq!(why["verdict"], "matched_nothing");
    assert_eq!(why["loaded"], false);
    assert_eq!(why["rank"], serde_json::Value::Null);
    assert_eq!(why["cap"], 5);
    assert_eq!(
        why["sentence"],
        "not loaded: matched none of the request's words (refund, duplicate, payment, customer)"
    );
    // The search's own keys are still there.
    assert!(v["tools"].is_array() && v["method"] == "bm25");

    let v = json(&run(&[
        "search",
        "@demo",
        query,
        "--why",
        "refund_payment",
        "--json",
    ]));
    assert_eq!(v["why"]["verdict"], "loaded");
    // Numbered as the table numbers it: the first searched tool is 1.
    assert_eq!(v["why"]["rank"], 1);
    assert_eq!(v["why"]["always_load"], 4);
    assert_eq!(
        v["why"]["sentence"],
        "loaded: ranked 1st, within the cap of 8 (4 always-load + 4 searched)"
    );
    let v = json(&run(&[
        "search",
        "@demo",
        query,
        "--why",
        "page_oncall",
        "--json",
    ]));
    assert_eq!(v["why"]["verdict"], "always_load");
    let v = json(&run(&[
        "search",
        "@demo",
        "the",
        "--why",
        "get_invoice",
        "--json",
    ]));
    assert_eq!(v["why"]["verdict"], "empty_query");

    // A name the catalog lacks is bad input, with the close names.
    assert_usage_error(
        &run(&["search", "@demo", query, "--why", "refund_paymnt"]),
        "--why: the catalog has no tool named \"refund_paymnt\"; did you mean \"refund_payment\"?",
    );
    assert_usage_error(
        &run(&["search", "@demo", query, "--why", "nothing_like_it_at_all"]),
        "--why: the catalog has no tool named \"nothing_like_it_at_all\"",
    );
}

#[test]
fn search_errors() {
    assert_usage_error(
        &run(&["search", "@demo", "x", "--max-tools", "0"]),
        "max_tools must be a positive integer",
    );
    assert_usage_error(
        &run(&["search", "@demo", "x", "--strategy", "nope"]),
        "strategy must be all or deferred",
    );
    assert_usage_error(
        &run(&["search", &fixture("duplicate.json").to_string_lossy(), "x"]),
        "duplicate tool name",
    );
    let out = run(&["search", "@demo", "x", "--ranker", "embeddings"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ranker_unavailable"));
    let out = run(&["search", "@demo", "x", "--max-tools", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("max_tools_below_always_load"));
}

/// A tool-search service that answers every request with one tool of the
/// demo catalog and hands each request's body to the test.
fn recording_service() -> (String, std::sync::mpsc::Receiver<serde_json::Value>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let line = line.trim_end().to_ascii_lowercase();
                if line.is_empty() {
                    break;
                }
                if let Some(n) = line.strip_prefix("content-length:") {
                    length = n.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let _ = tx.send(serde_json::from_slice(&body).unwrap());
            let answer = serde_json::json!({"tools": [{"name": "get_ticket"}],
                "sent_schema_tokens": 10, "full_schema_tokens": 40, "deferred_count": 0,
                "method": "bm25", "token_basis": "o200k_base", "session_id": null})
            .to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    (url, rx)
}

#[test]
fn a_remote_search_names_a_token_basis_only_when_one_is_given() {
    let (url, bodies) = recording_service();
    let search = |extra: &[&str]| {
        let out = bin()
            .args([
                "search",
                "@demo",
                "open ticket",
                "--service",
                &url,
                "--json",
            ])
            .args(extra)
            .env_remove("CAVE_API_KEY")
            .env_remove("CAVE_BASE_URL")
            .output()
            .unwrap();
        json(&out);
        bodies.recv().unwrap()
    };
    // As the SDKs send it: no toolsift extension unless asked for.
    let body = search(&[]);
    assert_eq!(body["query"], "open ticket");
    assert!(body.get("token_basis").is_none(), "{body}");
    assert!(body.get("preview").is_none(), "{body}");
    let body = search(&["--token-basis", "cl100k_base"]);
    assert_eq!(body["token_basis"], "cl100k_base");
}

#[test]
fn search_session_continues() {
    let first = json(&run(&["search", "@demo", "send an email", "--json"]));
    let id = first["session_id"].as_str().unwrap();
    let v = json(&run(&[
        "search",
        "@demo",
        "x",
        "--session-id",
        "abc-1",
        "--json",
    ]));
    assert_eq!(v["session_id"], "abc-1");
    assert_eq!(id.len(), 32);
}

fn queries_file(lines: &str) -> TempFile {
    TempFile::new(lines)
}

#[test]
fn eval_reports_metrics_and_misses() {
    let q = queries_file(concat!(
        "{\"id\":\"a\",\"category\":\"x\",\"query\":\"refund a payment\",\"expected\":[\"refund_payment\"]}\n",
        "{\"id\":\"b\",\"category\":\"y\",\"query\":\"zebra\",\"expected\":[\"send_email\"]}\n",
    ));
    let v = json(&run(&[
        "eval",
        "@demo",
        q.0.to_str().unwrap(),
        "--json",
        "--k",
        "5",
        "--time-budget-ms",
        "0",
    ]));
    assert_eq!(v["queries"], 2);
    for mode in ["strict", "lenient"] {
        for key in [
            "all@1", "all@3", "all@5", "all@10", "any@1", "any@3", "any@5", "any@10", "mrr@10",
        ] {
            assert!(v[mode][key].is_number(), "{mode}.{key}");
        }
    }
    assert_eq!(v["strict"]["all@10"], 50.0);
    assert_eq!(v["misses"].as_array().unwrap().len(), 1);
    assert_eq!(v["misses"][0]["id"], "b");
    assert!(v["misses"][0]["top"].is_array());
    assert!(v["queries_per_second"].as_f64().unwrap() > 0.0);
    assert!(v["per_category"]["x"]["strict"]["all@1"].is_number());
    let text = run(&[
        "eval",
        "@demo",
        q.0.to_str().unwrap(),
        "--time-budget-ms",
        "0",
    ]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("[b] zebra"));
    // Every ranker goes through the same interface: one the service cannot
    // run fails the eval (exit 1), never an empty report.
    let out = run(&[
        "eval",
        "@demo",
        q.0.to_str().unwrap(),
        "--ranker",
        "embeddings",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ranker_unavailable"));
}

#[test]
fn eval_errors_name_the_line() {
    let q = queries_file("{\"query\":\"x\",\"expected\":[\"send_email\"]}\nnot json\n");
    assert_usage_error(&run(&["eval", "@demo", q.0.to_str().unwrap()]), ":2: ");
    let q = queries_file("{\"id\":\"q1\",\"query\":\"x\",\"expected\":[\"nope\"]}\n");
    assert_usage_error(
        &run(&["eval", "@demo", q.0.to_str().unwrap()]),
        "expected tool \"nope\" is not in the catalog",
    );
}

#[test]
fn eval_on_bfcl_with_distractors() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/bfcl-dev");
    let mut small = String::new();
    for line in std::fs::read_to_string(dir.join("queries-dev.jsonl"))
        .unwrap()
        .lines()
        .take(40)
    {
        small.push_str(line);
        small.push('\n');
    }
    let q = queries_file(&small);
    let v = json(&run(&[
        "eval",
        dir.join("catalog.json").to_str().unwrap(),
        q.0.to_str().unwrap(),
        "--extra-catalog",
        dir.join("distractors.json").to_str().unwrap(),
        "--json",
        "--time-budget-ms",
        "0",
    ]));
    assert_eq!(v["catalog_tools"], 2730);
    assert_eq!(v["queries"], 40);
}

#[test]
fn search_exports_the_loaded_tools_as_a_provider_payload() {
    let out = run(&[
        "search",
        "@demo",
        "check service status",
        "--max-tools",
        "6",
        "--export",
        "openai-responses",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tools = v.as_array().unwrap();
    assert_eq!(tools.len(), 6);
    assert!(
        tools
            .iter()
            .all(|t| t["type"] == "function" && t["parameters"]["type"] == "object")
    );
    assert!(tools.iter().any(|t| t["name"] == "lookup_service_status"));
    let out = run(&[
        "search",
        "@demo",
        "check service status",
        "--export",
        "anthropic",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v[0]["input_schema"].is_object() && v[0].get("parameters").is_none());
    let out = run(&["search", "@demo", "x", "--export", "anthropic", "--json"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A request of two intents: `--why` gives each loaded tool the number the
/// table gives it (they read 5, 7, 6 and 13 against the table's 1 to 4),
/// and the best tool left out is below the cap (it read "ranked 8th, within
/// the cap of 8, but the service did not return it").
#[test]
fn why_numbers_a_request_of_several_intents_as_the_table_does() {
    let query = "a customer got charged twice, give them their money back";
    let v = json(&run(&[
        "search", "@demo", query, "--ranker", "bm25", "--json",
    ]));
    let searched: Vec<String> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["reason"] != "always_load")
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(searched.len(), 4, "{v}");
    for (at, name) in searched.iter().enumerate() {
        let w = json(&run(&[
            "search", "@demo", query, "--ranker", "bm25", "--why", name, "--json",
        ]));
        assert_eq!(w["why"]["rank"], at + 1, "{name}: {}", w["why"]);
        assert_eq!(w["why"]["verdict"], "loaded", "{name}");
    }
    let w = json(&run(&[
        "search",
        "@demo",
        query,
        "--ranker",
        "bm25",
        "--why",
        "get_customer",
        "--json",
    ]));
    assert_eq!(w["why"]["verdict"], "below_cap", "{}", w["why"]);
    assert!(w["why"]["rank"].as_u64().unwrap() > 4, "{}", w["why"]);
}
