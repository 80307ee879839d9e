use super::*;
use crate::catalog::{self, SourceKind, Tool};
use crate::engine::Index;
use serde_json::json;

fn tool(name: &str, description: &str, always: bool) -> Tool {
    let mut t = Tool::new(name, description);
    t.always_load = always;
    t
}

fn catalog() -> Catalog {
    Catalog::new(
        "t",
        vec![
            tool(
                "send_invoice",
                "Send an invoice to a customer by email",
                false,
            ),
            tool("page_oncall", "Page the on-call engineer", true),
            tool("lookup_status", "Look up the current service status", false),
            tool("list_incidents", "List open incidents of a service", false),
            tool("get_weather", "Weather forecast for a city", false),
            tool("get_current_user", "Who is signed in", true),
        ],
    )
    .unwrap()
}

pub(super) fn params(query: &str) -> SearchRequest {
    SearchRequest {
        query: query.into(),
        ..Default::default()
    }
}

pub(super) fn names<'a>(c: &'a Catalog, o: &SearchOutcome) -> Vec<&'a str> {
    o.tools
        .iter()
        .map(|s| c.tools()[s.index].name.as_str())
        .collect()
}

#[test]
fn loaded_set_is_always_load_then_ranked_without_padding() {
    let c = catalog();
    let s = Service::default();
    let o = s.tool_search(&c, &params("service status"), "").unwrap();
    assert_eq!(
        names(&c, &o),
        [
            "page_oncall",
            "get_current_user",
            "lookup_status",
            "list_incidents"
        ]
    );
    assert_eq!(o.tools[0].reason, Reason::AlwaysLoad);
    assert_eq!(o.tools[2].reason, Reason::Ranked);
    assert!(o.tools[2].score > o.tools[3].score);
    assert!(o.note.is_none());
    assert_eq!(o.deferred_count, 2);
    assert_eq!(o.method, Ranker::Bm25);
    assert_eq!(o.token_basis, TokenBasis::O200kBase);
    let costs = &o.tool_tokens;
    assert_eq!(o.full_schema_tokens, costs.iter().sum::<u64>());
    assert_eq!(
        o.sent_schema_tokens,
        o.tools.iter().map(|t| costs[t.index]).sum::<u64>()
    );
    // Explanations say which words hit which fields.
    let why = &o.tools[2].explanation.matches;
    assert!(why.iter().any(|m| m.term == "status"));
}

#[test]
fn caps_count_always_load_tools() {
    let c = catalog();
    let s = Service::default();
    let mut p = params("service status invoice weather");
    p.max_tools = crate::tools_handle::MaxTools::new(3);
    let o = s.tool_search(&c, &p, "").unwrap();
    assert_eq!(o.tools.len(), 3);
    assert_eq!(names(&c, &o)[..2], ["page_oncall", "get_current_user"]);
    p.max_tools = crate::tools_handle::MaxTools::new(2);
    let o = s.tool_search(&c, &p, "").unwrap();
    assert_eq!(names(&c, &o), ["page_oncall", "get_current_user"]);
    assert!(o.note.as_deref().is_some_and(|n| n.contains("no room")));
    p.max_tools = crate::tools_handle::MaxTools::new(1);
    let e = s.tool_search(&c, &p, "").unwrap_err();
    assert_eq!((e.status, e.code), (400, "max_tools_below_always_load"));
}

#[test]
fn default_cap_never_drops_always_load() {
    let tools: Vec<Tool> = (0..12)
        .map(|i| tool(&format!("always_{i}"), "mandatory", true))
        .chain((0..5).map(|i| tool(&format!("lazy_{i}"), "mandatory too", false)))
        .collect();
    let c = Catalog::new("t", tools).unwrap();
    let o = Service::default()
        .tool_search(&c, &params("mandatory"), "")
        .unwrap();
    assert_eq!(o.tools.len(), 12);
    assert!(o.tools.iter().all(|t| t.reason == Reason::AlwaysLoad));
}

#[test]
fn nothing_matches_gives_a_note_not_padding() {
    let c = catalog();
    let s = Service::default();
    let o = s.tool_search(&c, &params("zebra xylophone"), "").unwrap();
    assert_eq!(names(&c, &o), ["page_oncall", "get_current_user"]);
    let note = o.note.unwrap();
    assert!(note.starts_with("no tool matches the query"), "{note}");
    let o = s.tool_search(&c, &params("   "), "").unwrap();
    assert!(o.note.unwrap().starts_with("empty query"));
}

#[test]
fn words_that_match_only_always_load_tools_are_not_called_no_match() {
    let c = Catalog::new(
        "t",
        vec![
            tool("lookup_status", "Look up the current service status", true),
            tool("send_invoice", "Send an invoice to a customer", false),
        ],
    )
    .unwrap();
    let o = Service::default()
        .tool_search(&c, &params("status of the service"), "")
        .unwrap();
    assert_eq!(names(&c, &o), ["lookup_status"]);
    assert!(!o.tools[0].explanation.matches.is_empty());
    let note = o.note.unwrap();
    assert_eq!(
        note,
        "no tool beyond the always-load ones matches the query; only the always-load tools are loaded"
    );
}

fn with_embeddings() -> Service {
    let provider = Arc::new(crate::embed::HashEmbedder::default());
    let cache = Arc::new(crate::embed::VectorCache::new(100, None));
    Service::new(ServiceConfig {
        embeddings: Some(Embeddings::new(provider, cache)),
        ..ServiceConfig::default()
    })
}

#[test]
fn dense_rankers_need_a_provider_and_explain_their_hits() {
    let c = catalog();
    let mut p = params("weather forecast for a city");
    p.ranker = Some(Ranker::Hybrid);
    let e = Service::default().tool_search(&c, &p, "").unwrap_err();
    assert_eq!((e.status, e.code), (400, "ranker_unavailable"));
    assert!(e.message.contains("\"hybrid\""), "{}", e.message);
    let s = with_embeddings();
    for ranker in [Ranker::Embeddings, Ranker::Hybrid] {
        p.ranker = Some(ranker);
        let o = s.tool_search(&c, &p, "").unwrap();
        assert_eq!(o.method, ranker);
        let first = o
            .tools
            .iter()
            .find(|t| t.reason != Reason::AlwaysLoad)
            .unwrap();
        assert_eq!(c.tools()[first.index].name, "get_weather");
        let d = first.explanation.dense.expect("dense explanation");
        assert_eq!(d.dense_rank, 1);
        assert!(d.cosine > 0.5);
        let wire = to_wire(&c, &o);
        assert_eq!(wire.method, ranker.as_str());
    }
    // Exact names still come first.
    p.query = "call lookup_status and then the weather forecast for a city".into();
    let o = s.tool_search(&c, &p, "").unwrap();
    let ranked: Vec<&Selected> = o
        .tools
        .iter()
        .filter(|t| t.reason != Reason::AlwaysLoad)
        .collect();
    assert_eq!(c.tools()[ranked[0].index].name, "lookup_status");
    assert_eq!(ranked[0].reason, Reason::ExactName);
}

#[test]
fn a_preview_does_not_wait_for_the_vectors() {
    let c = catalog();
    let s = with_embeddings();
    let mut p = params("weather forecast");
    p.ranker = Some(Ranker::Hybrid);
    p.preview = true;
    let first = s.tool_search(&c, &p, "").unwrap();
    assert_eq!(first.method, Ranker::Bm25);
    assert!(
        first
            .note
            .as_deref()
            .unwrap()
            .contains("embedding the catalog")
    );
    let (done, total) = first
        .embedding
        .expect("the progress travels with the answer");
    assert!(
        done <= total && total == c.len() as u64,
        "{done} of {total}"
    );
    let wire = super::to_wire(&c, &first);
    assert_eq!(
        wire.embedding,
        Some(crate::wire::EmbeddingProgress { done, total })
    );
    // Once built (the background thread fills the slot), previews are fused.
    let mut answer = None;
    for _ in 0..2000 {
        let o = s.tool_search(&c, &p, "").unwrap();
        if o.method == Ranker::Hybrid {
            answer = Some(o);
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let o = answer.expect("the background build finished");
    assert_eq!(o.note, None);
    assert_eq!(o.embedding, None);
    assert!(
        !serde_json::to_string(&super::to_wire(&c, &o))
            .unwrap()
            .contains("\"embedding\""),
        "absent from the wire when done"
    );
    // A search that is not a preview never answers with BM25F instead.
    p.preview = false;
    assert_eq!(s.tool_search(&c, &p, "").unwrap().method, Ranker::Hybrid);
}

#[test]
fn rankers() {
    let c = catalog();
    let s = Service::default();
    let mut p = params("status");
    p.ranker = Some(Ranker::Bm25);
    assert!(s.tool_search(&c, &p, "").is_ok());
    p.ranker = Some(Ranker::Embeddings);
    let e = s.tool_search(&c, &p, "").unwrap_err();
    assert_eq!((e.status, e.code), (400, "ranker_unavailable"));
    let e = s
        .tool_search_json(
            br#"{"tools": [{"name": "a"}], "query": "x", "ranker": "tfidf"}"#,
            None,
        )
        .unwrap_err();
    assert_eq!((e.status, e.code), (400, "unknown_ranker"));
}

#[test]
fn repeated_catalog_is_not_reindexed_or_retokenized() {
    let s = Service::default();
    let text = r#"[{"name":"a_tool","description":"alpha","input_schema":{}},{"name":"b_tool","description":"beta","input_schema":{}}]"#;
    for _ in 0..3 {
        // A fresh parse each time, as an HTTP request would be.
        let c = catalog::parse(text, "request", "request", SourceKind::Json).unwrap();
        s.tool_search(&c, &params("alpha"), "").unwrap();
    }
    let stats = s.stats();
    assert_eq!(stats.searches, 3);
    assert_eq!(stats.index_builds, 1);
    assert_eq!(stats.index_cache_hits, 2);
    assert_eq!(stats.cost_vectors, 1);
    assert_eq!(stats.tokenized, 2);
    // Another basis is counted once more; another catalog is indexed once more.
    let c = catalog::parse(text, "request", "request", SourceKind::Json).unwrap();
    let mut p = params("alpha");
    p.token_basis = Some(TokenBasis::Cl100kBase);
    s.tool_search(&c, &p, "").unwrap();
    assert_eq!(s.stats().tokenized, 4);
    s.tool_search(&catalog(), &params("alpha"), "").unwrap();
    assert_eq!(s.stats().index_builds, 2);
}

/// Catalog `r` of a stream: `n` tools no other catalog of it has.
fn fresh_catalog(r: usize, n: usize) -> Catalog {
    let tools = (0..n)
        .map(|i| {
            tool(
                &format!("t{r}_{i}"),
                &format!("Looks up record {i} of {r}"),
                false,
            )
        })
        .collect();
    Catalog::new("t", tools).unwrap()
}

#[test]
fn token_counts_stay_bounded_under_new_catalogs_and_are_counted() {
    let budget = 256 << 10;
    let s = Service::new(ServiceConfig {
        token_cache_bytes: budget,
        token_basis: TokenBasis::EstimatedBytesDiv4,
        ..ServiceConfig::default()
    });
    let mut p = params("record");
    p.preview = true;
    let mut most = 0;
    for r in 0..60 {
        s.tool_search(&fresh_catalog(r, 500), &p, "").unwrap();
        let stats = s.stats();
        let held = s.counter.cache_bytes();
        assert!(held <= budget, "{held} after catalog {r}");
        assert!(stats.cache_bytes >= held && held > 0);
        assert_eq!(stats.token_counts, s.counter.cached_count());
        most = most.max(stats.token_counts);
    }
    assert_eq!(s.stats().tokenized, 30_000);
    assert!(most < 30_000 && most > 5_000, "{most}");
    // The last catalog's counts are still there, the first's are not.
    let basis = TokenBasis::EstimatedBytesDiv4;
    s.counter
        .tools_tokens(fresh_catalog(59, 500).tools(), basis);
    assert_eq!(s.stats().tokenized, 30_000);
    s.counter.tools_tokens(fresh_catalog(0, 500).tools(), basis);
    assert_eq!(s.stats().tokenized, 30_500);
}

#[test]
fn the_caches_bytes_are_what_they_hold_each_catalog_once() {
    let s = Service::default();
    let text = r#"[{"name":"a_tool","description":"alpha","input_schema":{"type":"object","properties":{"x":{"type":"string"}}}},{"name":"b_tool","description":"beta","input_schema":{}}]"#;
    let body = |tools: &str| format!(r#"{{"tools": {tools}, "query": "alpha"}}"#);
    s.tool_search_json(body(text).as_bytes(), None).unwrap();
    let c = catalog::parse(text, "request", "request", SourceKind::Json).unwrap();
    let stats = s.stats();
    let caches = stats.caches;
    // The parsed catalog and its text, by which a repeat is recognised.
    assert_eq!(caches.catalogs, crate::heap_size::catalog(&c) + text.len());
    assert_eq!(caches.rankers, Index::build(c.tools()).heap_bytes());
    assert_eq!(caches.token_costs, 2 * 8);
    assert_eq!(caches.token_counts, s.counter.cache_bytes());
    assert_eq!(caches.vectors, 0);
    assert!(caches.catalogs > text.len() && caches.rankers > 0 && caches.token_counts > 0);
    assert_eq!(stats.cache_bytes, caches.total());
    assert_eq!(stats.token_counts, 2);
    // The same tools in another text: parsed again (a second catalog held
    // by text), but the same content (the fingerprint cache keeps the
    // first), the same index and costs.
    let spaced = text.replace(',', ", ");
    s.tool_search_json(body(&spaced).as_bytes(), None).unwrap();
    let again = s.stats().caches;
    assert_eq!(
        again.catalogs,
        2 * crate::heap_size::catalog(&c) + text.len() + spaced.len()
    );
    assert_eq!(
        (again.rankers, again.token_costs),
        (caches.rankers, caches.token_costs)
    );
    // A dense ranker is weighed with its vectors, and the provider's cache
    // with its own.
    let dense = with_embeddings();
    let mut p = params("weather");
    p.ranker = Some(Ranker::Hybrid);
    dense.tool_search(&c, &p, "").unwrap();
    let caches = dense.stats().caches;
    let index = Index::build(c.tools()).heap_bytes();
    assert!(caches.rankers >= index + 2 * 64 * 4, "{caches:?}");
    assert!(
        caches.vectors >= 3 * 64 * 4,
        "two tools and a query: {caches:?}"
    );
}

#[test]
fn sessions_append_in_first_load_order_and_are_scoped() {
    let c = catalog();
    let s = Service::default();
    let first = s.tool_search(&c, &params("weather"), "key-a").unwrap();
    assert_eq!(first.session_id.len(), 32);
    assert!(first.session_id.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(
        first.session_tools,
        ["page_oncall", "get_current_user", "get_weather"]
    );
    let mut p = params("service status");
    p.session_id = Some(first.session_id.clone());
    let second = s.tool_search(&c, &p, "key-a").unwrap();
    assert_eq!(second.session_id, first.session_id);
    // A session continued, or minted, needs no word about it.
    assert_eq!(first.session_note, None);
    assert_eq!(second.session_note, None);
    assert_eq!(
        second.session_tools,
        [
            "page_oncall",
            "get_current_user",
            "get_weather",
            "lookup_status",
            "list_incidents"
        ]
    );
    // The same id under another key is another session, and the answer
    // says the id named none it held.
    let other = s.tool_search(&c, &p, "key-b").unwrap();
    assert_eq!(other.session_id, first.session_id);
    assert_eq!(
        other.session_note.as_deref(),
        Some(super::SESSION_NOT_FOUND)
    );
    let again = s.tool_search(&c, &p, "key-b").unwrap();
    assert_eq!(again.session_note, None, "held from the search before");
    assert_eq!(
        other.session_tools,
        [
            "page_oncall",
            "get_current_user",
            "lookup_status",
            "list_incidents"
        ]
    );
    // A new id is created when unknown; a bad one is refused.
    p.session_id = Some("my-session.1".into());
    assert_eq!(
        s.tool_search(&c, &p, "").unwrap().session_id,
        "my-session.1"
    );
    p.session_id = Some("no spaces".into());
    assert_eq!(
        s.tool_search(&c, &p, "").unwrap_err().code,
        "invalid_session_id"
    );
    assert_ne!(
        s.tool_search(&c, &params("x"), "").unwrap().session_id,
        first.session_id,
        "minted ids differ"
    );
}

#[test]
fn sessions_expire_and_are_bounded() {
    let c = catalog();
    let config = ServiceConfig {
        session_idle: Duration::from_secs(60),
        max_sessions: 3,
        ..Default::default()
    };
    let s = Service::new(config);
    let t0 = Instant::now();
    let mut p = params("weather");
    p.session_id = Some("s1".into());
    s.tool_search_at(&c, &p, "", t0).unwrap();
    p.query = "invoice".into();
    let later = s
        .tool_search_at(&c, &p, "", t0 + Duration::from_secs(61))
        .unwrap();
    assert!(
        !later.session_tools.iter().any(|n| n == "get_weather"),
        "an idle session starts again: {:?}",
        later.session_tools
    );
    for i in 0..5 {
        p.session_id = Some(format!("n{i}"));
        s.tool_search_at(&c, &p, "", t0 + Duration::from_secs(62 + i))
            .unwrap();
    }
    assert_eq!(s.stats().sessions, 3);
}

#[test]
fn session_survives_a_changed_catalog() {
    let c = catalog();
    let s = Service::default();
    let mut p = params("weather invoice");
    p.session_id = Some("s".into());
    s.tool_search(&c, &p, "").unwrap();
    let smaller = Catalog::new(
        "t",
        c.tools()
            .iter()
            .filter(|t| t.name != "get_weather")
            .cloned()
            .collect(),
    )
    .unwrap();
    p.query = "status".into();
    let o = s.tool_search(&smaller, &p, "").unwrap();
    assert_eq!(
        o.session_tools,
        [
            "page_oncall",
            "get_current_user",
            "send_invoice",
            "lookup_status"
        ]
    );
}

#[test]
fn too_many_tools() {
    let s = Service::new(ServiceConfig {
        max_catalog_tools: 5,
        ..Default::default()
    });
    let e = s.tool_search(&catalog(), &params("x"), "").unwrap_err();
    assert_eq!((e.status, e.code), (400, "too_many_tools"));
}

#[test]
fn previews_touch_no_session() {
    let c = catalog();
    let s = Service::default();
    let mut p = params("weather");
    p.preview = true;
    let o = s.tool_search(&c, &p, "").unwrap();
    assert_eq!(o.session_id, "");
    assert!(o.session_tools.is_empty());
    assert_eq!(s.stats().sessions, 0);
    p.session_id = Some("keep".into());
    assert_eq!(s.tool_search(&c, &p, "").unwrap().session_id, "keep");
    assert_eq!(s.stats().sessions, 0);
}

#[test]
fn preview_travels_on_the_wire_and_records_nothing() {
    let s = Service::default();
    let body = json!({"tools": [{"name": "lookup_status", "description": "status"}], "query": "status", "preview": true});
    let r = s
        .tool_search_json(body.to_string().as_bytes(), None)
        .unwrap();
    assert_eq!(r.session_id, "");
    assert_eq!(s.stats().sessions, 0);
    let body = json!({"tools": [{"name": "a"}], "query": "x", "preview": "yes"});
    let e = s
        .tool_search_json(body.to_string().as_bytes(), None)
        .unwrap_err();
    assert_eq!((e.status, e.code), (400, "invalid_request"));
}

#[test]
fn always_load_scores_share_the_ranked_scale() {
    // Many tools match "status"; the always-load one ranks below the cut.
    let mut tools: Vec<Tool> = (0..6)
        .map(|i| {
            tool(
                &format!("status_tool_{i}"),
                "Check service status now",
                false,
            )
        })
        .collect();
    tools.push(tool(
        "audit_status",
        "Write an audit log entry with a status",
        true,
    ));
    let c = Catalog::new("t", tools).unwrap();
    let s = Service::default();
    let mut p = params("service status");
    p.max_tools = crate::tools_handle::MaxTools::new(2);
    let o = s.tool_search(&c, &p, "").unwrap();
    assert_eq!(o.tools[0].reason, Reason::AlwaysLoad);
    let full = s
        .ranker_for(&c, Ranker::Bm25)
        .unwrap()
        .rank("service status", None, c.len())
        .unwrap();
    let expected = full.iter().find(|h| h.doc == 6).unwrap().score;
    assert_eq!(o.tools[0].score, expected);
    // The index scores it directly to the same number.
    let direct = s
        .ranker_for(&c, Ranker::Bm25)
        .unwrap()
        .score("service status", None, &[6, 0])
        .unwrap();
    assert_eq!(direct[0], expected);
    assert_eq!(direct[1], full.iter().find(|h| h.doc == 0).unwrap().score);
    assert!(o.tools[0].score < o.tools[1].score);
}

#[test]
fn a_provider_basis_adds_its_request_overhead_to_full_and_sent() {
    let s = Service::default();
    let mut p = params("alpha");
    p.token_basis = Some(TokenBasis::OpenAiGpt4);
    let o = s.tool_search(&catalog(), &p, "").unwrap();
    assert_eq!(o.token_basis, TokenBasis::OpenAiGpt4);
    let overhead = TokenBasis::OpenAiGpt4.request_overhead();
    assert!(overhead > 9);
    assert_eq!(
        o.full_schema_tokens,
        o.tool_tokens.iter().sum::<u64>() + overhead
    );
    let sent: u64 = o.tools.iter().map(|t| o.tool_tokens[t.index]).sum();
    assert_eq!(o.sent_schema_tokens, sent + overhead);
}
