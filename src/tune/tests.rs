use super::*;
use crate::catalog::{CatalogSource, Tool};
use crate::eval::parse_queries;

/// A cap and an initial count, as the reports hold them.
fn cap(n: u64) -> MaxTools {
    MaxTools::of(n)
}

fn count(n: u64) -> InitialToolCount {
    InitialToolCount::new(n)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// always (5 tokens, always-load), b (10), c (20), d (40): 75 in all.
fn small() -> (Catalog, Vec<u64>) {
    let mut always = Tool::new("always", "always there");
    always.always_load = true;
    let tools = vec![
        always,
        Tool::new("b", "bee"),
        Tool::new("c", "sea"),
        Tool::new("d", "dee"),
    ];
    (Catalog::new("small", tools).unwrap(), vec![5, 10, 20, 40])
}

fn small_queries() -> Vec<EvalQuery> {
    parse_queries(
        concat!(
            "{\"id\":\"r0\",\"query\":\"x\",\"expected\":[\"b\"]}\n",
            "{\"id\":\"r1\",\"query\":\"x\",\"expected\":[\"c\",\"d\"]}\n",
            "{\"id\":\"r2\",\"query\":\"x\",\"expected\":[\"b\"],\"equivalents\":[[\"b\",\"c\",\"nope\"]]}\n",
        ),
        "q",
    )
    .unwrap()
}

#[test]
fn sweep_matches_hand_computed_figures() {
    let (catalog, costs) = small();
    let expected = resolve(&catalog, &small_queries()).unwrap();
    assert_eq!(expected[2].lenient, vec![vec![1, 2]]);
    // Ranked others per request, best first.
    let rankings = vec![vec![1, 2, 3], vec![3, 1, 2], vec![2, 1, 3]];
    assert_eq!(caps(4, 1), cap(1)..=cap(4));
    let points = sweep(&costs, &[0], &rankings, &expected, caps(4, 1));
    assert_eq!(
        points.iter().map(|p| p.max_tools.get()).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    // Cap 1: only the always-load tool (5 tokens) for everyone.
    let p = &points[0];
    assert_eq!((p.all_loaded_pct, p.lenient_all_loaded_pct), (0.0, 0.0));
    assert_eq!((p.mean_sent_tokens, p.p95_sent_tokens), (5.0, 5));
    assert!(close(p.saved_pct, 100.0 * (1.0 - 5.0 / 75.0)));
    // Cap 2: {always,b}=15 hit, {always,d}=45 miss, {always,c}=25 lenient hit.
    let p = &points[1];
    assert!(close(p.all_loaded_pct, 100.0 / 3.0));
    assert!(close(p.lenient_all_loaded_pct, 200.0 / 3.0));
    assert!(close(p.mean_sent_tokens, 85.0 / 3.0));
    assert_eq!(p.p95_sent_tokens, 45);
    assert!(close(p.saved_pct, 100.0 * (1.0 - 85.0 / 3.0 / 75.0)));
    // Cap 3: 35 hit, {always,d,b}=55 miss (c is missing), 35 hit.
    let p = &points[2];
    assert!(close(p.all_loaded_pct, 200.0 / 3.0));
    assert!(close(p.lenient_all_loaded_pct, 200.0 / 3.0));
    assert!(close(p.mean_sent_tokens, 125.0 / 3.0));
    assert_eq!(p.p95_sent_tokens, 55);
    // Cap 4: the whole catalog, nothing saved.
    let p = &points[3];
    assert_eq!((p.all_loaded_pct, p.lenient_all_loaded_pct), (100.0, 100.0));
    assert_eq!(
        (p.mean_sent_tokens, p.p95_sent_tokens, p.saved_pct),
        (75.0, 75, 0.0)
    );

    // The initial sets: always, then b, c, d in catalog order.
    let sets = vec![vec![0], vec![0, 1], vec![0, 1, 2], vec![0, 1, 2, 3]];
    let initial = initial_points(&costs, &sets, &expected);
    let covered: Vec<f64> = initial.iter().map(|p| p.covered_pct).collect();
    assert!(close(covered[0], 0.0) && close(covered[1], 200.0 / 3.0));
    assert!(close(covered[2], 200.0 / 3.0) && close(covered[3], 100.0));
    assert_eq!(
        initial.iter().map(|p| p.tokens).collect::<Vec<_>>(),
        [5, 15, 35, 75]
    );

    // Default target: 95 % of the best (100 %) -> cap 4; initial 3.
    let (r, target, reached) = recommend(&points, &initial, 1, None);
    assert_eq!((r.max_tools, r.initial_tool_count), (cap(4), count(3)));
    assert!(close(target, 95.0) && reached);
    // 60 %: cap 3, and the initial count is held to 3 - 1 always-load.
    let (r, _, reached) = recommend(&points, &initial, 1, Some(60.0));
    assert_eq!((r.max_tools, r.initial_tool_count), (cap(3), count(2)));
    assert!(reached);
    // Out of reach: the smallest cap with the best share.
    let (r, _, reached) = recommend(&points, &initial, 1, Some(101.0));
    assert_eq!(r.max_tools, cap(4));
    assert!(!reached);
    // Coverage that stays ~0 recommends no initial tools.
    let none: Vec<InitialPoint> = initial
        .iter()
        .map(|p| InitialPoint {
            covered_pct: 1.0,
            ..p.clone()
        })
        .collect();
    assert_eq!(
        recommend(&points, &none, 1, None).0.initial_tool_count,
        count(0)
    );

    // Why: chosen by coverage at cap 4, held by the cap at cap 3, and not
    // worth it when coverage stays ~0.
    assert_eq!(
        initial_choice(&initial, cap(4), 1),
        (count(3), InitialReason::NearBest { best_pct: 100.0 })
    );
    assert_eq!(
        initial_choice(&initial, cap(3), 1),
        (
            count(2),
            InitialReason::Capped {
                wanted: count(3),
                room: count(2),
                best_pct: 100.0
            }
        )
    );
    assert_eq!(
        initial_choice(&none, cap(4), 1),
        (count(0), InitialReason::Useless { best_pct: 1.0 })
    );
}

#[test]
fn p95_is_nearest_rank() {
    assert_eq!(p95(&[]), 0);
    assert_eq!(p95(&[7]), 7);
    let v: Vec<u64> = (1..=20).rev().collect();
    assert_eq!(p95(&v), 19);
    let v: Vec<u64> = (1..=100).collect();
    assert_eq!(p95(&v), 95);
}

#[test]
fn caps_start_at_the_always_load_count() {
    assert_eq!(caps(100, 0), cap(1)..=cap(32));
    assert_eq!(caps(100, 4), cap(4)..=cap(32));
    assert_eq!(caps(10, 2), cap(2)..=cap(10));
    assert_eq!(caps(40, 40), cap(40)..=cap(40));
    assert_eq!(caps(0, 0), cap(1)..=cap(1));
}

#[test]
fn unknown_expected_tool_names_query_and_tool() {
    let (catalog, _) = small();
    let q = parse_queries(
        "{\"id\":\"z\",\"query\":\"x\",\"expected\":[\"nope\"]}",
        "q",
    )
    .unwrap();
    let err = resolve(&catalog, &q).unwrap_err();
    assert_eq!(
        err.to_string(),
        "query \"z\": expected tool \"nope\" is not in the catalog"
    );
}

fn demo() -> Arc<Catalog> {
    Arc::new(crate::catalog::load(&CatalogSource::demo()).unwrap())
}

/// One request per tool (its description), and a few asking for two.
fn demo_queries(catalog: &Catalog) -> Vec<EvalQuery> {
    let tools = catalog.tools();
    let mut lines = String::new();
    for (i, t) in tools.iter().enumerate() {
        let line = serde_json::json!({"id": format!("q{i}"), "query": t.description, "expected": [t.name]});
        lines.push_str(&format!("{line}\n"));
    }
    for i in (0..tools.len().saturating_sub(1)).step_by(7) {
        let (a, b) = (&tools[i], &tools[i + 1]);
        let line = serde_json::json!({
            "id": format!("pair{i}"),
            "query": format!("{} and {}", a.name, b.description),
            "expected": [a.name, b.name],
        });
        lines.push_str(&format!("{line}\n"));
    }
    parse_queries(&lines, "demo").unwrap()
}

#[test]
fn one_deep_search_equals_real_searches_at_each_cap() {
    let catalog = demo();
    let always: Vec<usize> = (0..catalog.len())
        .filter(|&i| catalog.tools()[i].always_load)
        .collect();
    assert!(!always.is_empty(), "@demo has always-load tools");
    let searcher = Searcher::embedded();
    let deepest = *caps(catalog.len(), always.len()).end();
    let search = |query: &str, at: MaxTools| {
        let request = SearchRequest {
            query: query.to_string(),
            max_tools: Some(at),
            preview: true,
            ..SearchRequest::default()
        };
        let r = searcher.search(&catalog, &request).unwrap();
        r.tools.iter().map(|h| h.index).collect::<Vec<_>>()
    };
    for q in demo_queries(&catalog).iter().step_by(3) {
        let ranked: Vec<usize> = search(&q.query, deepest)
            .into_iter()
            .filter(|&i| !catalog.tools()[i].always_load)
            .collect();
        let fewest = MaxTools::covering(always.len());
        for at in [fewest, fewest.stepped(1), cap(8), cap(13), deepest] {
            assert_eq!(
                loaded_at(&always, &ranked, at),
                search(&q.query, at),
                "{:?} at cap {at}",
                q.query
            );
        }
    }
}

#[test]
fn all_loaded_at_k_is_evals_strict_all_at_k() {
    let demo = demo();
    let mut catalog = (*demo).clone();
    for i in 0..catalog.len() {
        catalog = catalog.with_always_load(i, false);
    }
    let catalog = Arc::new(catalog);
    let queries = demo_queries(&catalog);
    let searcher = Searcher::embedded();
    let options = TuneOptions {
        ranker: None,
        token_basis: TokenBasis::EstimatedBytesDiv4,
        target_pct: None,
    };
    let report = tune(&searcher, &catalog, &queries, &options).unwrap();
    assert_eq!(report.always_load, 0);
    assert_eq!(report.points[0].max_tools, MaxTools::MIN);
    let ranker = searcher.ranker_for(&catalog, Ranker::Bm25).unwrap();
    let eval = crate::eval::evaluate(&catalog, &queries, 10, ranker.as_ref(), None).unwrap();
    for (i, k) in crate::eval::KS.iter().enumerate() {
        let p = &report.points[k - 1];
        assert_eq!(p.max_tools.to_usize(), *k);
        assert!(
            close(p.all_loaded_pct, eval.strict.all[i]),
            "all@{k}: tune {} eval {}",
            p.all_loaded_pct,
            eval.strict.all[i]
        );
        assert!(close(p.lenient_all_loaded_pct, eval.lenient.all[i]));
    }
    // Tokens: the full catalog is every tool's cost; the initial set at 0
    // is empty (no always-load tools).
    let costs = searcher.tool_costs(&catalog, TokenBasis::EstimatedBytesDiv4);
    assert_eq!(report.full_tokens, costs.iter().sum::<u64>());
    assert_eq!(report.initial.len(), MAX_INITIAL.to_usize() + 1);
    assert_eq!(report.initial[0].tokens, 0);
    assert_eq!(report.initial[1].tokens, costs[0]);
    // Strictly more tools never lose a request.
    for w in report.points.windows(2) {
        assert!(w[1].all_loaded_pct + 1e-9 >= w[0].all_loaded_pct);
    }
}

/// Three sessions that each search and call list_chat_channels, one that
/// also sends an email.
fn traffic_of_sessions() -> String {
    let mut lines = Vec::new();
    for s in ["a", "b", "c"] {
        lines.push(format!(
            r#"{{"kind":"search","session":"{s}","query":"which chat channels are there","tools":["list_chat_channels"]}}"#
        ));
        lines.push(format!(
            r#"{{"kind":"call","session":"{s}","name":"list_chat_channels","outcome":"ok"}}"#
        ));
    }
    lines.push(
        r#"{"kind":"search","session":"a","query":"email sam","tools":["send_email"]}"#.into(),
    );
    lines.push(r#"{"kind":"call","session":"a","name":"send_email","outcome":"ok"}"#.into());
    lines.join("\n")
}

#[test]
fn a_trace_tunes_and_suggests_the_tools_most_sessions_called() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    std::fs::write(&path, traffic_of_sessions()).unwrap();
    let catalog = std::sync::Arc::new(crate::catalog::load(&CatalogSource::demo()).unwrap());
    let searcher = crate::search::Searcher::embedded();
    let options = TuneOptions {
        ranker: None,
        token_basis: crate::tokens::TokenBasis::default(),
        target_pct: None,
    };
    let report = tune_source(&searcher, &catalog, path.to_str().unwrap(), &options).unwrap();
    assert!(report.from_traffic);
    assert_eq!(report.queries, 4, "each search answered by its call");
    assert_eq!(
        report.always_load_suggested.len(),
        1,
        "{:?}",
        report.always_load_suggested
    );
    let s = &report.always_load_suggested[0];
    assert_eq!(
        (s.name.as_str(), s.sessions, s.of_sessions, s.searches_saved),
        ("list_chat_channels", 3, 3, 3)
    );
    let index = catalog.index_of("list_chat_channels").unwrap();
    let costs = searcher.tool_costs(&catalog, options.token_basis);
    assert_eq!(s.tokens, costs[index]);
    assert!(s.tokens > 0);
    let text = report.render_text(None);
    assert!(
        text.contains("list_chat_channels  called in 3 of 3 sessions"),
        "{text}"
    );
    assert!(
        text.contains("always_load = [\"list_chat_channels\"]"),
        "{text}"
    );
    // A file of requests suggests nothing.
    let report = tune_source(&searcher, &catalog, "@demo", &options).unwrap();
    assert!(!report.from_traffic && report.always_load_suggested.is_empty());
}
