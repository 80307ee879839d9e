//! A body read as it arrives: a catalog already parsed is recognised
//! whatever the chunks, and any other body comes out byte for byte as it
//! was sent.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::wire::ToolSearchResponse;

fn catalog(description: &str) -> String {
    json!([
        {"name": "lookup_status", "description": description,
         "input_schema": {"type": "object", "properties": {}}, "read_only": true},
        {"name": "send_invoice", "description": "Send an invoice",
         "input_schema": {"type": "object"}, "always_load": true},
    ])
    .to_string()
}

/// A service that has parsed `texts`.
fn service_with(texts: &[&str]) -> Service {
    let s = Service::default();
    for text in texts {
        let body = format!(r#"{{"tools": {text}, "query": "status"}}"#);
        s.tool_search_json(body.as_bytes(), None).unwrap();
    }
    s
}

/// `body` read by `s` in chunks cut at `cuts`.
fn read(s: &Service, body: &[u8], cuts: &[usize]) -> ReadBody {
    let mut reader = s.body_reader(body.len());
    let mut at = 0;
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
    cuts.sort_unstable();
    for cut in cuts.into_iter().chain([body.len()]) {
        reader.push(&body[at..cut.max(at)]);
        at = cut.max(at);
    }
    assert_eq!(reader.seen(), body.len());
    reader.finish()
}

#[test]
fn a_held_catalog_is_recognised_in_any_chunks() {
    let a = catalog("Look up the current service status");
    let b = catalog("Look up the current service status of one region");
    let s = service_with(&[&a, &b]);
    let body = format!(r#"{{ "query": "send an invoice", "tools" : {a} , "max_tools": 2}}"#);
    for cut in 0..=body.len() {
        let read = read(&s, body.as_bytes(), &[cut, cut / 2]);
        let ReadBody::Recognised(r) = read else {
            panic!("not recognised, cut at {cut}");
        };
        assert_eq!(r.parsed.text(), a.as_bytes());
        let rest: Value = serde_json::from_slice(&r.rest).unwrap();
        assert_eq!(rest["tools"], json!([]));
        assert_eq!(rest["max_tools"], 2);
        assert_eq!(r.into_whole(), body.as_bytes());
    }
}

#[test]
fn anything_else_comes_out_whole() {
    let a = catalog("Look up the current service status");
    let s = service_with(&[&a]);
    let other = catalog("Look up the current service");
    let bodies = [
        // Another catalog sharing the held one's first bytes.
        format!(r#"{{"tools": {other}, "query": "x"}}"#),
        // The held catalog with one tool more.
        format!(
            r#"{{"tools": {}, {{"name": "x"}}], "query": "x"}}"#,
            &a[..a.len() - 1]
        ),
        // Ended inside the catalog.
        format!(r#"{{"tools": {}"#, &a[..a.len() / 2]),
        // No tools, tools not first-level, not an object.
        r#"{"query": "x"}"#.to_string(),
        format!(r#"{{"x": {{"tools": {a}}}}}"#),
        format!("[{a}]"),
        String::new(),
    ];
    for body in &bodies {
        for cut in [0, 1, 9, body.len() / 2, body.len()] {
            match read(&s, body.as_bytes(), &[cut]) {
                ReadBody::Whole(bytes) => assert_eq!(bytes, body.as_bytes(), "{body}"),
                ReadBody::Recognised(_) => panic!("recognised: {body}"),
            }
        }
    }
    // A service that holds no catalog keeps every body whole.
    let body = format!(r#"{{"tools": {a}}}"#);
    assert!(matches!(
        read(&Service::default(), body.as_bytes(), &[3]),
        ReadBody::Whole(b) if b == body.as_bytes()
    ));
}

#[test]
fn a_long_start_before_the_tools_is_kept_whole() {
    let a = catalog("Look up the current service status");
    let s = service_with(&[&a]);
    let query = "x".repeat(70 << 10);
    let body = format!(r#"{{"query": "{query}", "tools": {a}}}"#);
    match read(&s, body.as_bytes(), &[100, 40 << 10]) {
        ReadBody::Whole(bytes) => assert_eq!(bytes, body.as_bytes()),
        ReadBody::Recognised(_) => panic!("recognised past the head's limit"),
    }
}

/// A catalog longer than the head's limit, as a connection kept alive
/// delivers it once its read buffer has grown: in chunks of hundreds of
/// kilobytes, the first holding the whole start.
#[test]
fn a_large_catalog_in_large_chunks_is_recognised() {
    let tools: Vec<Value> = (0..2000)
        .map(|i| {
            json!({"name": format!("tool_{i}"), "description": format!("Does thing {i} well"),
                        "input_schema": {"type": "object"}})
        })
        .collect();
    let a = serde_json::to_string(&tools).unwrap();
    assert!(a.len() > 2 * (64 << 10));
    let s = service_with(&[&a]);
    let body = format!(r#"{{"tools":{a},"query":"thing 7","max_tools":3}}"#);
    for cuts in [vec![], vec![100 << 10], vec![400 << 10], vec![9, 300 << 10]] {
        match read(&s, body.as_bytes(), &cuts) {
            ReadBody::Recognised(r) => assert_eq!(r.into_whole(), body.as_bytes()),
            ReadBody::Whole(_) => panic!("not recognised, cut at {cuts:?}"),
        }
    }
    // A long start in one large chunk is still kept whole.
    let query = "x".repeat(70 << 10);
    let body = format!(r#"{{"query":"{query}","tools":{a}}}"#);
    match read(&s, body.as_bytes(), &[]) {
        ReadBody::Whole(bytes) => assert_eq!(bytes, body.as_bytes()),
        ReadBody::Recognised(_) => panic!("recognised past the head's limit"),
    }
}

#[test]
fn a_body_sent_a_byte_at_a_time_is_looked_through_a_few_times_only() {
    let a = catalog("Look up the current service status");
    let s = service_with(&[&a]);
    let every_byte = |body: &str| read(&s, body.as_bytes(), &(0..body.len()).collect::<Vec<_>>());
    // `{"tools":[` within the first looks: recognised.
    let body = format!(r#"{{"tools":{a}}}"#);
    assert!(matches!(every_byte(&body), ReadBody::Recognised(_)));
    // A longer start: the looks run out, and the body comes out whole.
    let body = format!(r#"{{"query": "look up the status", "tools": {a}}}"#);
    match every_byte(&body) {
        ReadBody::Whole(bytes) => assert_eq!(bytes, body.as_bytes()),
        ReadBody::Recognised(_) => panic!("looked through more than a few times"),
    }
}

#[test]
fn a_read_body_is_answered_as_the_whole_body_is() {
    let a = catalog("Look up the current service status");
    let s = service_with(&[&a]);
    let bodies = [
        format!(r#"{{"tools": {a}, "query": "look up status", "max_tools": 2}}"#),
        // The rest of the body is bad: the whole body's error.
        format!(r#"{{"tools": {a}, "query": 7}}"#),
        format!(r#"{{"tools": {a}, "query": "x", }}"#),
    ];
    for body in &bodies {
        let strip = |r: Result<ToolSearchResponse, ServiceError>| {
            r.map(|r| {
                let mut v = serde_json::to_value(r).unwrap();
                v["session_id"] = Value::Null;
                v
            })
            .map_err(|e| (e.status, e.code, e.message))
        };
        let read = read(&s, body.as_bytes(), &[7]);
        let streamed = strip(
            s.tool_search_read(read, None, true)
                .map(|(a, _)| a.into_wire()),
        );
        let whole = strip(Service::default().tool_search_json(body.as_bytes(), None));
        assert_eq!(streamed, whole, "{body}");
    }
    assert_eq!(s.stats().catalog_parses, 1);
}

#[test]
fn only_a_recognised_small_built_bm25_body_is_ready() {
    let a = catalog("Look up the current service status");
    let s = service_with(&[&a]);
    let ready = |body: String| s.ready(read(&s, body.as_bytes(), &[5])).is_ok();
    assert!(ready(format!(r#"{{"tools": {a}, "query": "status"}}"#)));
    // Not recognised, a bad rest, a ranker not built, a basis not counted.
    assert!(!ready(format!(
        r#"{{"tools": {}, "query": "s"}}"#,
        catalog("x")
    )));
    assert!(!ready(format!(r#"{{"tools": {a}, "query": 1}}"#)));
    assert!(!ready(format!(
        r#"{{"tools": {a}, "query": "s", "ranker": "regex"}}"#
    )));
    assert!(!ready(format!(
        r#"{{"tools": {a}, "query": "s", "token_basis": "cl100k_base"}}"#
    )));
    assert!(!ready(format!(
        r#"{{"tools": {a}, "query": "s", "ranker": "embeddings"}}"#
    )));
    let long = "x ".repeat(10_000);
    assert!(!ready(format!(r#"{{"tools": {a}, "query": "{long}"}}"#)));
    let before = s.stats();
    let Ok(ready) = s.ready(read(
        &s,
        format!(r#"{{"tools": {a}, "query": "look up status"}}"#).as_bytes(),
        &[],
    )) else {
        panic!("not ready");
    };
    let answer = s
        .tool_search_ready(ready, None, true)
        .unwrap()
        .0
        .into_wire();
    assert_eq!(answer.tools[1].tool.name, "lookup_status");
    // The borrowed form writes the same JSON.
    let again = s.ready(read(
        &s,
        format!(r#"{{"tools": {a}, "query": "look up status", "session_id": "x"}}"#).as_bytes(),
        &[9],
    ));
    let Ok(again) = again else {
        panic!("not ready")
    };
    let (answer, pending) = s.tool_search_ready(again, None, false).unwrap();
    assert_eq!(pending.map(|p| p.id), Some("x".to_string()));
    assert_eq!(
        serde_json::to_value(answer.wire()).unwrap(),
        serde_json::to_value(answer.into_wire()).unwrap()
    );
    assert_eq!(
        s.stats().catalogs_recognised,
        before.catalogs_recognised + 2
    );
    assert_eq!(
        s.stats().catalogs_recognised_arriving,
        before.catalogs_recognised_arriving + 2
    );
    assert_eq!(s.stats().catalog_parses, 1);
}

proptest! {
    /// Whatever the body and its chunks: recognised exactly when its
    /// `tools` value is a held catalog's text, and whole otherwise, byte
    /// for byte.
    #[test]
    fn recognised_exactly_when_the_value_is_held(
        held in proptest::collection::vec("[a-c\"\\\\ ]{0,6}", 1..4),
        sent in "[a-c\"\\\\ ]{0,6}",
        before in "[a-z]{0,3}",
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
    ) {
        let texts: Vec<String> = held.iter().map(|d| catalog(d)).collect();
        let s = service_with(&texts.iter().map(String::as_str).collect::<Vec<_>>());
        let value = catalog(&sent);
        let body = format!(r#"{{"q": "{before}", "tools": {value}, "z": 1}}"#);
        match read(&s, body.as_bytes(), &cuts) {
            ReadBody::Recognised(r) => {
                prop_assert!(texts.contains(&value));
                prop_assert_eq!(r.parsed.text(), value.as_bytes());
                prop_assert_eq!(r.into_whole(), body.as_bytes());
            }
            ReadBody::Whole(bytes) => {
                prop_assert!(!texts.contains(&value));
                prop_assert_eq!(bytes, body.as_bytes());
            }
        }
    }
}
