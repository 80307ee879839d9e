//! A repeated catalog recognised from the body's bytes: the same answer
//! as a full parse, and anything that is not byte for byte a catalog
//! already parsed is read whole, with the same errors.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

fn tools() -> Value {
    json!([
        {"name": "lookup_status", "description": "Look up the current service status",
         "input_schema": {"type": "object", "properties": {}}, "read_only": true},
        {"name": "send_invoice", "description": "Send an invoice to a customer",
         "input_schema": {"type": "object"}, "always_load": true},
        {"name": "page_oncall", "description": "Page the on-call \"engineer\""}
    ])
}

/// The answer, with its minted session id left out, or the error.
fn answer(s: &Service, body: &[u8]) -> Result<Value, (u16, String, String)> {
    s.tool_search_json(body, Some("k"))
        .map(|r| {
            let mut v = serde_json::to_value(r).unwrap();
            v["session_id"] = Value::Null;
            v
        })
        .map_err(|e| (e.status, e.code.to_string(), e.message))
}

#[test]
fn a_repeated_catalog_is_recognised_and_answered_alike() {
    let s = Service::default();
    let text = tools().to_string();
    let first = format!(r#"{{"tools": {text}, "query": "check service status"}}"#);
    answer(&s, first.as_bytes()).unwrap();
    // Another request with the same catalog text: members in another
    // order, other spacing, another query.
    let again = format!(r#"{{ "query":"send an invoice","max_tools":2 ,"tools" :{text}  }}"#);
    let fast = answer(&s, again.as_bytes()).unwrap();
    assert_eq!(s.stats().catalog_parses, 1);
    assert_eq!(s.stats().catalogs_recognised, 1);
    assert_eq!(fast, answer(&Service::default(), again.as_bytes()).unwrap());
    // One byte changed in the catalog: parsed, not recognised.
    let changed = again.replace("Page the on-call", "Page the on-cal");
    answer(&s, changed.as_bytes()).unwrap();
    assert_eq!(
        (s.stats().catalog_parses, s.stats().catalogs_recognised),
        (2, 1)
    );
}

#[test]
fn a_bad_rest_of_the_body_gets_the_full_parses_error() {
    let s = Service::default();
    let text = tools().to_string();
    answer(
        &s,
        format!(r#"{{"tools": {text}, "query": "x"}}"#).as_bytes(),
    )
    .unwrap();
    for bad in [
        format!(r#"{{"tools": {text}, "query": "x", "max_tools": "two"}}"#),
        format!(r#"{{"tools": {text}, "query": "x"}} trailing"#),
        format!(r#"{{"tools": {text}, "query": "x", "tools": []}}"#),
        format!(r#"{{"tools": {text}]], "query": "x"}}"#),
        format!(r#"{{"tools": {text}, "query": 7}}"#),
    ] {
        let fresh = answer(&Service::default(), bad.as_bytes());
        assert!(fresh.is_err(), "{bad}");
        assert_eq!(answer(&s, bad.as_bytes()), fresh, "{bad}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Whatever surrounds a catalog seen before, the answer is the full
    /// parse's, error or not.
    #[test]
    fn recognising_never_changes_the_answer(
        query in "[a-z \"\\\\]{0,12}",
        before in proptest::option::of("[a-z]{1,4}"),
        after in proptest::option::of(0u8..4),
        tail in "[ \n}\\]x]{0,2}",
    ) {
        let s = Service::default();
        let text = tools().to_string();
        answer(&s, format!(r#"{{"tools":{text},"query":"seen"}}"#).as_bytes()).unwrap();
        let q = serde_json::to_string(&query).unwrap();
        let mut body = String::from("{");
        if let Some(k) = &before {
            body.push_str(&format!(r#""{k}": [1, {{"a": "]"}}], "#));
        }
        body.push_str(&format!(r#""tools": {text}, "query": {q}"#));
        if let Some(n) = after {
            body.push_str(&format!(r#", "max_tools": {n}"#));
        }
        body.push('}');
        body.push_str(&tail);
        let fresh = answer(&Service::default(), body.as_bytes());
        prop_assert_eq!(answer(&s, body.as_bytes()), fresh);
    }
}

#[test]
fn a_text_whose_hash_collides_is_parsed_as_the_catalog_it_is() {
    let s = Service::default();
    let other = r#"[{"name":"other_tool","description":"Something else"}]"#;
    let text = tools().to_string();
    // A catalog held under the hash of `text`, as a crafted collision
    // would leave it.
    let held = Arc::new(
        crate::catalog::parse(
            other,
            "request",
            "request",
            crate::catalog::SourceKind::Json,
        )
        .unwrap(),
    );
    let key = xxhash_rust::xxh3::xxh3_128(text.as_bytes());
    lock(&s.parsed).get_or_insert(key, 1, || super::parsed::Parsed::new(other, held));
    let body = format!(r#"{{"tools": {text}, "query": "check service status"}}"#);
    let r = answer(&s, body.as_bytes()).unwrap();
    assert_eq!(r["tools"][0]["name"], "send_invoice", "{r}");
    assert_eq!(s.stats().catalog_parses, 1);
}
