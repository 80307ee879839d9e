//! `ranker: "regex"` through `toolsift serve`: the tools a pattern matches,
//! a bad pattern a 400 that says where and what, a hostile one answered.

use crate::common::Server;
use crate::common::answer_names;
use crate::serve::{catalog, search};

use serde_json::json;

#[test]
fn a_regex_search_over_http() {
    let server = Server::start(&[], &[]);
    let url = server.url.as_str();
    let body = |query: &str| json!({"tools": catalog(), "query": query, "ranker": "regex"});
    let (status, r) = search(url, None, &body("(?i)^(lookup|send)_"));
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        answer_names(&r),
        ["page_oncall", "lookup_status", "send_invoice"]
    );
    assert_eq!(r["method"], "regex");
    assert_eq!(r["tools"][1]["matched"][0]["term"], "lookup_");

    let (status, r) = search(url, None, &body("(abc"));
    assert_eq!(status, 400, "{r}");
    assert_eq!(
        r,
        json!({"error": {"code": "invalid_regex",
            "message": "regex: unclosed group at column 1 of \"(abc\""}})
    );
    let (status, r) = search(url, None, &body(&"x".repeat(201)));
    assert_eq!(
        (status, &r["error"]["code"]),
        (400, &json!("invalid_regex"))
    );
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 200"),
        "{r}"
    );

    // A pattern that backtracks for ever elsewhere, on a 100 kB description.
    let mut tools = catalog();
    tools.as_array_mut().unwrap().push(json!({
        "name": "long_one", "description": format!("{}!", "a".repeat(100_000)),
    }));
    tools.as_array_mut().unwrap().push(json!({
        "name": "all_a", "description": "a".repeat(100_000),
    }));
    let (status, r) = search(
        url,
        None,
        &json!({"tools": tools, "query": "(a+)+$", "ranker": "regex"}),
    );
    assert_eq!(status, 200, "{r}");
    assert_eq!(answer_names(&r), ["page_oncall", "all_a"]);
}

#[test]
fn serve_can_make_regex_the_default_ranker() {
    let server = Server::start(&["--default-ranker", "regex"], &[]);
    let (status, r) = search(
        &server.url,
        None,
        &json!({"tools": catalog(), "query": "^send_"}),
    );
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["method"], "regex");
    assert_eq!(answer_names(&r), ["page_oncall", "send_invoice"]);
}
