//! `ranker: "regex"`: the query a pattern, a bad one refused before ranking.

use super::*;
use crate::catalog::Tool;
use serde_json::{Value, json};

fn catalog() -> Catalog {
    let mut always = Tool::new("page_oncall", "Page the on-call engineer");
    always.always_load = true;
    let mut nested = Tool::new("create_event", "Put a meeting in the calendar");
    nested.input_schema = json!({"type": "object", "properties": {
        "attendees": {"type": "array", "items": {"type": "object", "properties": {
            "email": {"type": "string", "description": "Invitee address"}}}}}});
    Catalog::new(
        "t",
        vec![
            Tool::new("send_invoice", "Send an invoice by email"),
            always,
            nested,
            Tool::new("send_email", "Send an email message"),
            Tool::new("get_weather", "Weather for a city"),
        ],
    )
    .unwrap()
}

fn regex(query: &str) -> SearchRequest {
    SearchRequest {
        query: query.into(),
        ranker: Some(Ranker::Regex),
        ..Default::default()
    }
}

#[test]
fn the_loaded_set_is_the_tools_the_pattern_matches() {
    let c = catalog();
    let s = Service::default();
    let o = s.tool_search(&c, &regex("(?i)email"), "").unwrap();
    let names: Vec<&str> = o
        .tools
        .iter()
        .map(|t| c.tools()[t.index].name.as_str())
        .collect();
    // Always-load first; the name match, the description match, then the
    // nested parameter's name and description; no padding.
    assert_eq!(
        names,
        ["page_oncall", "send_email", "send_invoice", "create_event"]
    );
    assert_eq!(o.method, Ranker::Regex);
    assert_eq!(o.tools[1].reason, Reason::Ranked);
    assert_eq!(o.tools[1].score, 42.0);
    let why = &o.tools[3].explanation.matches;
    assert_eq!(why[0].term, "email");
    assert_eq!(why[0].fields, [crate::engine::Field::ParamName]);
    assert!(o.note.is_none());

    let o = s.tool_search(&c, &regex("^zebra$"), "").unwrap();
    assert_eq!(o.tools.len(), 1);
    let note = o.note.unwrap();
    assert!(
        note.starts_with("no tool matches the query: the pattern matches no tool's name"),
        "{note}"
    );
}

#[test]
fn a_bad_pattern_is_a_400_saying_where_and_what() {
    let c = catalog();
    let s = Service::default();
    let e = s.tool_search(&c, &regex("(abc"), "").unwrap_err();
    assert_eq!((e.status, e.code), (400, "invalid_regex"));
    assert_eq!(e.message, "regex: unclosed group at column 1 of \"(abc\"");
    let e = s.tool_search(&c, &regex(&"a".repeat(201)), "").unwrap_err();
    assert_eq!((e.status, e.code), (400, "invalid_regex"));
    assert!(e.message.contains("at most 200"), "{}", e.message);
    // Refused in the validate step: nothing was built or ranked.
    assert_eq!(s.stats().index_builds, 0);
    // The same words as a BM25F query are only words.
    let mut words = regex("(abc");
    words.ranker = None;
    assert!(s.tool_search(&c, &words, "").is_ok());
}

#[test]
fn regex_on_the_wire() {
    let s = Service::default();
    let body = |query: &str| {
        json!({
            "tools": [
                {"name": "send_invoice", "description": "Send an invoice"},
                {"name": "get_weather", "description": "Weather for a city"},
            ],
            "query": query,
            "ranker": "regex",
        })
        .to_string()
    };
    let r = s.tool_search_json(body("^get_").as_bytes(), None).unwrap();
    let v: Value = serde_json::to_value(&r).unwrap();
    assert_eq!(v["method"], "regex");
    assert_eq!(v["tools"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["tools"][0]["name"], "get_weather");
    assert_eq!(v["tools"][0]["matched"][0]["term"], "get_");
    assert_eq!(v["tools"][0]["matched"][0]["fields"], json!(["name"]));
    let e = s
        .tool_search_json(body("a{2,1}").as_bytes(), None)
        .unwrap_err();
    assert_eq!((e.status, e.code), (400, "invalid_regex"));
    assert_eq!(
        serde_json::to_value(e.body()).unwrap()["error"]["message"],
        "regex: invalid repetition count range, the start must be <= the end at column 2 of \"a{2,1}\""
    );
}
