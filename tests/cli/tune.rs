//! `toolsift tune` as a user runs it.

use crate::common;

use common::{TempFile, assert_usage_error, json, run};

fn queries() -> TempFile {
    TempFile::new(concat!(
        "{\"id\":\"a\",\"query\":\"open a new ticket for a bug\",\"expected\":[\"create_ticket\"]}\n",
        "{\"id\":\"b\",\"query\":\"look up ticket 42\",\"expected\":[\"get_ticket\"],\"equivalents\":[[\"get_ticket\",\"search_tickets\"]]}\n",
        "{\"id\":\"c\",\"query\":\"find tickets about login and comment on one\",\"expected\":[\"search_tickets\",\"add_ticket_comment\"]}\n",
        "{\"id\":\"d\",\"query\":\"change the priority of a ticket\",\"expected\":[\"update_ticket\"]}\n",
    ))
}

#[test]
fn tune_json_has_points_initial_and_recommendation() {
    let q = queries();
    let out = run(&["tune", "@demo", q.path(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    let points = v["points"].as_array().unwrap();
    let always = v["always_load"].as_u64().unwrap();
    assert!(always >= 1);
    // One point per cap, from the always-load count up to 32.
    let caps: Vec<u64> = points
        .iter()
        .map(|p| p["max_tools"].as_u64().unwrap())
        .collect();
    assert_eq!(caps, (always..=32).collect::<Vec<_>>());
    for p in points {
        for key in [
            "all_loaded_pct",
            "lenient_all_loaded_pct",
            "mean_sent_tokens",
            "p95_sent_tokens",
            "saved_pct",
        ] {
            let x = p[key].as_f64().unwrap_or_else(|| panic!("{key} in {p}"));
            assert!(x >= 0.0, "{key} in {p}");
        }
        assert!(p["all_loaded_pct"].as_f64().unwrap() <= 100.0);
        assert!(p["saved_pct"].as_f64().unwrap() <= 100.0);
        assert!(p["lenient_all_loaded_pct"].as_f64() >= p["all_loaded_pct"].as_f64());
    }
    let initial = v["initial"].as_array().unwrap();
    assert_eq!(initial.len(), 33);
    for (m, p) in initial.iter().enumerate() {
        assert_eq!(p["initial_tool_count"], m as u64);
        assert!(p["covered_pct"].is_number() && p["tokens"].is_u64());
    }
    let r = &v["recommended"];
    let cap = r["max_tools"].as_u64().unwrap();
    assert!((always..=32).contains(&cap));
    assert!(r["initial_tool_count"].as_u64().unwrap() <= cap - always);
}

#[test]
fn tune_text_has_tables_and_snippet() {
    let q = queries();
    let out = run(&["tune", "@demo", q.path(), "--strategy", "deferred"]);
    let text = common::stdout_text(&out);
    for needle in [
        "max_tools  all loaded  lenient  mean tokens  p95 tokens  saved",
        "initial_tool_count  covered  tokens",
        "<- current",
        "recommended: max_loaded_tools ",
        "[explorer]\nstrategy = \"deferred\"\nmax_loaded_tools = ",
        "cave.tools(catalog, strategy=\"deferred\", initial_tool_count=",
    ] {
        assert!(text.contains(needle), "{needle:?} in {text}");
    }
}

/// On the demo catalog and its requests, the initial count is held by the
/// cap (7 less the 4 always-load tools), not chosen by coverage; the report
/// says so, and prints its numbers as every other report does.
#[test]
fn tune_says_why_the_initial_count_and_groups_thousands() {
    let out = run(&["tune", "@demo", "@demo"]);
    let text = common::stdout_text(&out);
    assert!(
        text.contains(
            "initial_tool_count 3: all that max_loaded_tools 7 leaves beside the 4 always-load tools"
        ),
        "{text}"
    );
    assert!(
        !text.contains("near the initial set's best coverage"),
        "{text}"
    );
    assert!(text.contains("strategy all sends 10,445 tokens"), "{text}");
    assert!(!text.contains("10445"), "{text}");
    // The initial table's tokens, and the cap table's p95, grouped.
    assert!(text.contains("   1,742"), "{text}");
    let v = json(&run(&["tune", "@demo", "@demo", "--json"]));
    assert_eq!(v["full_tokens"], 10445);
    assert_eq!(v["recommended"]["initial_tool_count"], 3);
}

#[test]
fn tune_unknown_expected_tool_is_a_usage_error() {
    let q = TempFile::new("{\"id\":\"zz\",\"query\":\"x\",\"expected\":[\"no_such_tool\"]}\n");
    let out = run(&["tune", "@demo", q.path()]);
    assert_usage_error(
        &out,
        "query \"zz\": expected tool \"no_such_tool\" is not in the catalog",
    );
}

#[test]
fn tune_bad_target_is_a_usage_error() {
    let q = queries();
    assert_usage_error(
        &run(&["tune", "@demo", q.path(), "--target", "0"]),
        "--target",
    );
}

#[test]
fn tune_through_a_remote_service_measures_what_the_embedded_one_does() {
    let server = common::Server::start(&[], &[]);
    let embedded = run(&["tune", "@demo", "@demo", "--json"]);
    assert!(embedded.status.success());
    let remote = run(&["tune", "@demo", "@demo", "--json", "--service", &server.url]);
    assert!(
        remote.status.success(),
        "{}",
        String::from_utf8_lossy(&remote.stderr)
    );
    // The same engine behind HTTP: the same figures, request for request.
    assert_eq!(json(&embedded)["points"], json(&remote)["points"]);
    assert_eq!(json(&embedded)["recommended"], json(&remote)["recommended"]);
    // The service saw the searches (one per request).
    let log = server.log.lock().unwrap().clone();
    assert!(log.matches("tool-search").count() >= 42, "{log}");
    // A service that is gone is a failed search (exit 1), naming it.
    drop(server);
    let gone = run(&["tune", "@demo", "@demo", "--service", &remote_url_of_dead()]);
    assert_eq!(gone.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&gone.stderr).contains("127.0.0.1"));
}

/// A loopback URL nothing listens on.
fn remote_url_of_dead() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    format!("http://127.0.0.1:{port}")
}
