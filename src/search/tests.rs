use super::*;
use crate::catalog::Tool;
use crate::wire::{WireSelectedTool, WireTool};
use serde_json::Value;

fn catalog() -> Catalog {
    let mut tools = vec![
        Tool::new("lookup_status", "Look up the current service status"),
        Tool::new("send_invoice", "Send an invoice to a customer"),
        Tool::new("page_oncall", "Page the on-call engineer"),
    ];
    tools[2].always_load = true;
    Catalog::new("t", tools).unwrap()
}

#[test]
fn reattach_rejects_unknown_and_duplicates() {
    let c = catalog();
    assert_eq!(
        reattach(&c, ["send_invoice", "lookup_status"]),
        Ok(vec![1, 0])
    );
    assert_eq!(
        reattach(&c, ["nope"]),
        Err(SearchError::Response(ResponseError::UnknownOrDuplicate))
    );
    assert_eq!(
        reattach(&c, ["send_invoice", "send_invoice"]),
        Err(SearchError::Response(ResponseError::UnknownOrDuplicate))
    );
    assert_eq!(
        SearchError::Response(ResponseError::UnknownOrDuplicate).to_string(),
        "tool search response contained an unknown or duplicate tool"
    );
}

#[test]
fn embedded_search_applies_client_rules() {
    let c = catalog();
    let searcher = Searcher::embedded();
    let r = searcher
        .search(
            &c,
            &SearchRequest {
                query: "check service status".into(),
                ..Default::default()
            },
        )
        .unwrap();
    let names: Vec<&str> = r
        .tools
        .iter()
        .map(|h| c.tools()[h.index].name.as_str())
        .collect();
    assert_eq!(names, ["page_oncall", "lookup_status"]);
    assert_eq!(r.method, "bm25");
    assert_eq!(r.basis, "inferred");
    assert_eq!(r.token_basis, "o200k_base");
    assert_eq!(r.deferred_count, 1);
    let costs = r.tool_tokens.clone().unwrap();
    assert_eq!(r.savings.full_schema_tokens, costs.iter().sum::<u64>());
    assert_eq!(r.savings.sent_schema_tokens, costs[2] + costs[0]);
    assert_eq!(
        r.savings.saved_tokens,
        r.savings.full_schema_tokens - r.savings.sent_schema_tokens
    );
    assert!(r.session_id.as_deref().is_some_and(|s| s.len() == 32));
    let err = searcher
        .search(
            &c,
            &SearchRequest {
                query: "x".into(),
                ranker: Some(crate::engine::Ranker::Embeddings),
                ..Default::default()
            },
        )
        .unwrap_err();
    assert!(matches!(&err, SearchError::Service(e) if e.code == "ranker_unavailable"));
}

fn response(names: &[&str], sent: u64, full: u64) -> ToolSearchResponse {
    let c = catalog();
    ToolSearchResponse {
        tools: names
            .iter()
            .map(|n| WireSelectedTool {
                tool: WireTool::from(c.get(n).unwrap()),
                score: None,
                reason: None,
                matched: Vec::new(),
                dense: None,
                usage: None,
            })
            .collect(),
        sent_schema_tokens: sent,
        full_schema_tokens: full,
        deferred_count: 1,
        method: String::new(),
        token_basis: " ".into(),
        session_id: String::new(),
        note: None,
        session_note: None,
        embedding: None,
        session_tools: Vec::new(),
        held_back: Vec::new(),
        matching: None,
    }
}

#[test]
fn accept_applies_the_count_and_name_rules() {
    let c = catalog();
    let r = accept(&c, response(&["send_invoice"], 120, 840)).unwrap();
    assert_eq!(r.tools[0].index, 1);
    assert_eq!(
        (r.savings.saved_tokens, r.savings.reduction_pct),
        (720, 85.7)
    );
    assert_eq!(r.method, "unknown");
    assert_eq!(r.token_basis, "unavailable");
    assert_eq!(r.basis, "inferred");
    assert_eq!(r.session_id, None);
    // sent > full: both become 0.
    let r = accept(&c, response(&[], 200, 100)).unwrap();
    assert_eq!(
        (
            r.savings.full_schema_tokens,
            r.savings.sent_schema_tokens,
            r.savings.saved_tokens,
            r.savings.reduction_pct
        ),
        (0, 0, 0, 0.0)
    );
    assert_eq!(
        accept(&c, response(&["send_invoice", "send_invoice"], 0, 0)).unwrap_err(),
        SearchError::Response(ResponseError::UnknownOrDuplicate)
    );
}

#[test]
fn embedding_progress_travels_and_nonsense_is_dropped() {
    let c = catalog();
    let body = |e: &str| {
        format!(
            r#"{{"tools":[],"sent_schema_tokens":0,"full_schema_tokens":9,"method":"bm25","token_basis":"o200k_base","session_id":"","embedding":{e}}}"#
        )
    };
    let progress = |e: &str| {
        accept(&c, parse_response(body(e).as_bytes()).unwrap())
            .unwrap()
            .embedding
    };
    assert_eq!(progress(r#"{"done":64,"total":117}"#), Some((64, 117)));
    // More done than there is, no total, a wrong shape: no gauge, the
    // answer itself still taken.
    assert_eq!(progress(r#"{"done":118,"total":117}"#), None);
    assert_eq!(progress(r#"{"done":0,"total":0}"#), None);
    assert_eq!(progress(r#"{"done":-1,"total":117}"#), None);
    assert_eq!(progress(r#""half""#), None);
    assert_eq!(progress("null"), None);
}

#[test]
fn parse_response_is_lenient_where_the_sdk_is() {
    let c = catalog();
    let body = br#"{"tools":[{"name":"lookup_status","score":2.5,"reason":"ranked",
        "matched":[{"term":"status","fields":["name","param_description","future_field"],"score":1.25}]}],
        "sent_schema_tokens":"12","full_schema_tokens":100,"deferred_count":-1,
        "session_id":"abc"}"#;
    let r = accept(&c, parse_response(body).unwrap()).unwrap();
    assert_eq!(r.savings.full_schema_tokens, 0, "a bad count zeroes both");
    assert_eq!(r.deferred_count, 0);
    assert_eq!(r.method, "unknown");
    assert_eq!(r.session_id.as_deref(), Some("abc"));
    let hit = &r.tools[0];
    assert_eq!(
        (hit.index, hit.score, hit.reason),
        (0, Some(2.5), Some(Reason::Ranked))
    );
    assert_eq!(
        hit.explanation.matches[0].fields,
        [
            crate::engine::Field::Name,
            crate::engine::Field::ParamDescription
        ]
    );
    let r = accept(
        &c,
        parse_response(br#"{"tools":[],"sent_schema_tokens":3.0,"full_schema_tokens":9,"method":"bm25","token_basis":"o200k_base"}"#).unwrap(),
    )
    .unwrap();
    assert_eq!(
        (r.savings.sent_schema_tokens, r.savings.full_schema_tokens),
        (3, 9)
    );
    assert_eq!(
        parse_response(br#"{"tools":{}}"#).unwrap_err(),
        ResponseError::NotAnArray
    );
    assert_eq!(
        parse_response(br#"{"tools":[{"title":"x"}]}"#).unwrap_err(),
        ResponseError::UnknownOrDuplicate
    );
    assert!(matches!(
        parse_response(b"<html>"),
        Err(ResponseError::InvalidBody(_))
    ));
    assert!(matches!(
        parse_response(b"[]"),
        Err(ResponseError::InvalidBody(_))
    ));
}

#[test]
fn request_body_keys_in_sdk_order_and_omitted_when_absent() {
    let c = catalog();
    let mut request = SearchRequest {
        query: "q".into(),
        ..Default::default()
    };
    let body = serde_json::to_string(&request.body(&c)).unwrap();
    assert!(
        body.starts_with(r#"{"tools":[{"name":"lookup_status","description":"#),
        "{body}"
    );
    assert!(body.ends_with(r#""query":"q"}"#), "{body}");
    request.max_tools = crate::tools_handle::MaxTools::new(3);
    request.session_id = Some("s1".into());
    request.ranker = Some(crate::engine::Ranker::Bm25);
    request.context = Some("ctx".into());
    request.preview = true;
    let text = serde_json::to_string(&request.body(&c)).unwrap();
    // Top-level keys in order of appearance (the catalog's own keys are
    // inside `tools`, which comes first and is skipped).
    let after_tools = &text[text.find(r#"],"query""#).unwrap()..];
    let positions: Vec<usize> = [
        "query",
        "context",
        "max_tools",
        "session_id",
        "ranker",
        "preview",
    ]
    .iter()
    .map(|k| after_tools.find(&format!("\"{k}\":")).unwrap())
    .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{after_tools}");
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body.as_object().unwrap().len(), 7);
    assert_eq!(body["ranker"], "bm25");
    assert_eq!(body["tools"][2]["always_load"], true);
}

#[test]
fn explanations_survive_the_wire_form() {
    let c = catalog();
    let service = Arc::new(Service::default());
    let request = SearchRequest {
        query: "look up the service status".into(),
        preview: true,
        ..Default::default()
    };
    let outcome = service.tool_search(&c, &request, "").unwrap();
    let r = Searcher::Embedded(service).search(&c, &request).unwrap();
    assert_eq!(r.tools.len(), outcome.tools.len());
    for (hit, selected) in r.tools.iter().zip(&outcome.tools) {
        assert_eq!(hit.index, selected.index);
        assert_eq!(hit.reason, Some(selected.reason));
        assert_eq!(hit.score, Some(selected.score));
        // The wire form carries no name coverage (the service judged it).
        let mut expected = selected.explanation.clone();
        expected.name_covered = false;
        assert_eq!(hit.explanation, expected);
    }
    assert!(!r.tools[1].explanation.matches.is_empty());
    // A preview recorded no session.
    assert_eq!(r.session_id, None);
}

#[test]
fn the_in_process_answer_is_what_the_wire_gives() {
    // Embedded searches skip the wire; the result must be the one the
    // client rules make of the wire form, field for field.
    let mut tools: Vec<Tool> = (0..12)
        .map(|i| {
            let mut t = Tool::new(
                format!("list_issues_{i}"),
                "List the issues of a repository",
            );
            t.mcp = Some(crate::catalog::McpOrigin::new("github", "x"));
            t
        })
        .collect();
    tools.push(Tool::new("delete_file", "Remove a file from disk"));
    tools.push(Tool::new("send_email", "Send an email message"));
    tools[3].always_load = true;
    let c = Catalog::new("t", tools).unwrap();
    let service = Service::default();
    let requests = [
        ("list the issues", None, None),
        ("erase that document", None, Some(true)),
        ("book a flight to Paris", None, Some(true)),
        ("select:send_email,nope", None, None),
        ("", None, None),
        (
            "mail Bob the issues",
            crate::tools_handle::MaxTools::new(4),
            None,
        ),
    ];
    for (query, max_tools, gate) in requests {
        let request = SearchRequest {
            query: query.into(),
            max_tools,
            gate,
            ..SearchRequest::default()
        };
        let outcome = service.tool_search(&c, &request, "").unwrap();
        let wire = crate::service::to_wire(&c, &outcome);
        let over_wire = accept(&c, wire).unwrap();
        let in_process = embedded::accept_outcome(outcome);
        assert_eq!(in_process, over_wire, "{query:?}");
    }
}

#[test]
fn a_dense_search_says_when_its_query_vector_was_held() {
    let c = catalog();
    let provider = Arc::new(crate::embed::HashEmbedder::default());
    let cache = Arc::new(crate::embed::VectorCache::new(100, None));
    let searcher = Searcher::Embedded(Arc::new(Service::new(crate::service::ServiceConfig {
        embeddings: Some(crate::embed::Embeddings::new(provider, cache)),
        ..Default::default()
    })));
    let mut request = SearchRequest {
        query: "check service status".into(),
        ranker: Some(crate::engine::Ranker::Hybrid),
        ..Default::default()
    };
    // The first search embeds the query; the same query again finds it.
    assert!(!searcher.query_vector_held(&request));
    searcher.search(&c, &request).unwrap();
    assert!(searcher.query_vector_held(&request));
    // Another query, or a lexical ranker, has no vector to hold.
    request.query = "send an invoice".into();
    assert!(!searcher.query_vector_held(&request));
    request.query = "check service status".into();
    request.ranker = Some(crate::engine::Ranker::Bm25);
    assert!(!searcher.query_vector_held(&request));
}

#[test]
fn an_answer_stands_in_for_a_dense_ranker_it_was_not_answered_by() {
    use crate::engine::Ranker;
    let c = catalog();
    let mut r = accept(&c, response(&["send_invoice"], 120, 840)).unwrap();
    r.method = "bm25".into();
    // BM25F answering for a dense ranker: asked again.
    assert!(r.stands_in_for(Ranker::Embeddings));
    assert!(r.stands_in_for(Ranker::Hybrid));
    // Answered by the ranker asked for, or one that needs no vectors.
    assert!(!r.stands_in_for(Ranker::Bm25));
    assert!(!r.stands_in_for(Ranker::Regex));
    r.method = "hybrid".into();
    assert!(!r.stands_in_for(Ranker::Hybrid));
    assert!(r.stands_in_for(Ranker::Embeddings));
}
