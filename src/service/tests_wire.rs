//! A wire request body in, a wire response or a typed error out.

use super::*;
use serde_json::json;

#[test]
fn json_requests_and_errors() {
    let s = Service::default();
    let body = json!({
        "tools": [
            {"name": "lookup_status", "description": "Look up the current service status",
             "input_schema": {"type": "object", "properties": {}}, "read_only": true,
             "idempotent": true, "always_load": false},
            {"name": "send_invoice", "description": "Send an invoice",
             "input_schema": {"type": "object"}, "read_only": false, "idempotent": false,
             "always_load": true}
        ],
        "query": "check service status",
        "max_tools": 5
    });
    let r = s
        .tool_search_json(body.to_string().as_bytes(), Some("k"))
        .unwrap();
    // The same catalog text again is not parsed again.
    s.tool_search_json(body.to_string().as_bytes(), Some("k"))
        .unwrap();
    assert_eq!(s.stats().catalog_parses, 1);
    assert_eq!(s.stats().index_builds, 1);
    let v = serde_json::to_value(&r).unwrap();
    for key in [
        "tools",
        "sent_schema_tokens",
        "full_schema_tokens",
        "deferred_count",
        "method",
        "token_basis",
        "session_id",
    ] {
        assert!(v.get(key).is_some(), "{key} missing: {v}");
    }
    assert_eq!(v["tools"][0]["name"], "send_invoice");
    assert_eq!(v["tools"][0]["reason"], "always_load");
    assert_eq!(v["tools"][1]["name"], "lookup_status");
    assert_eq!(v["tools"][1]["read_only"], true);
    assert!(v["tools"][1]["score"].as_f64().unwrap() > 0.0);
    assert_eq!(v["tools"][1]["matched"][0]["term"], "service");
    assert_eq!(v["deferred_count"], 0);
    assert!(v.get("note").is_none());

    let err = |body: &str| s.tool_search_json(body.as_bytes(), None).unwrap_err();
    let e = err("{");
    assert_eq!((e.status, e.code), (400, "invalid_request"));
    let e = err(r#"{"tools": [], "query": "x"}"#);
    assert_eq!(e.code, "invalid_catalog");
    let e = err(r#"{"tools": [{"name": "a", "input_schema": 3}], "query": "x"}"#);
    assert!(
        e.message.contains("tool #1") && e.message.contains("input_schema"),
        "{}",
        e.message
    );
    let e = err(r#"{"tools": [{"name": "a"}, {"name": "a"}], "query": "x"}"#);
    assert!(e.message.contains("duplicate tool name"), "{}", e.message);
    let e = err(r#"{"tools": [{"name": "a"}], "query": 3}"#);
    assert_eq!(e.message, "query must be a string");
    for bad in ["0", "-1", "1.5", "\"3\""] {
        let e = err(&format!(
            r#"{{"tools": [{{"name": "a"}}], "query": "x", "max_tools": {bad}}}"#
        ));
        assert_eq!(e.message, "max_tools must be a positive integer", "{bad}");
    }
    let e = err(r#"{"tools": [{"name": "a"}], "query": "x", "ranker": "embeddings"}"#);
    assert_eq!(e.code, "ranker_unavailable");
    let e = err(r#"{"tools": [{"name": "a"}], "query": "x", "token_basis": "gpt2"}"#);
    assert!(e.message.contains("unknown token basis"));
    assert_eq!(
        serde_json::to_value(e.body()).unwrap(),
        json!({"error": {"code": "invalid_request", "message": e.message}})
    );
}
