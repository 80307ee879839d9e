use std::sync::Arc;

use super::*;
use crate::catalog::{CatalogSource, Tool};

fn demo() -> Arc<Catalog> {
    Arc::new(crate::catalog::load(&CatalogSource::demo()).unwrap())
}

fn request(query: &str, max_tools: Option<u64>) -> SearchRequest {
    let max_tools = max_tools.and_then(crate::tools_handle::MaxTools::new);
    SearchRequest {
        query: query.to_string(),
        max_tools,
        preview: true,
        ..SearchRequest::default()
    }
}

/// The search, its standing, and the standing of `tool`.
fn why_of(catalog: &Arc<Catalog>, request: &SearchRequest, tool: &str) -> (Standing, Why) {
    let searcher = Searcher::embedded();
    let result = searcher.search(catalog, request).unwrap();
    let standing = searcher.standing(catalog, request, &result).unwrap();
    let why = standing.why(catalog.index_of(tool).unwrap());
    (standing, why)
}

#[test]
fn ordinals() {
    let cases = [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (22, "22nd"),
        (111, "111th"),
        (102, "102nd"),
    ];
    for (n, text) in cases {
        assert_eq!(ordinal(n), text);
    }
}

#[test]
fn the_request_words_are_the_users_not_stems_and_skip_filler() {
    let words: Vec<String> =
        request_words("Please list the open Invoices and invoice reports", None)
            .into_iter()
            .map(|w| w.text)
            .collect();
    // "invoice" has the stem of "invoices": kept once, as first written.
    assert_eq!(words, ["list", "open", "invoices", "reports"]);
}

/// One table over the demo catalog: each verdict, with the sentence the CLI
/// prints.
#[test]
fn every_verdict_on_the_demo_catalog() {
    let catalog = demo();
    let refund = request("refund the duplicate payment of a customer", Some(5));
    let (standing, loaded) = why_of(&catalog, &refund, "refund_payment");
    assert_eq!(standing.cap(), 5);
    assert_eq!(loaded.verdict, Verdict::Loaded);
    // Places count the searched tools, as `toolsift search` numbers them;
    // the four always-load tools take four of the cap's five places.
    assert_eq!(loaded.rank, Some(1));
    assert!(loaded.matched.contains(&"refund".to_string()), "{loaded:?}");
    assert!(loaded.score.is_some_and(|s| s > 0.0));
    assert_eq!(
        loaded.sentence(),
        "loaded: ranked 1st, within the cap of 5 (4 always-load + 1 searched)"
    );

    // The best tool left out is placed just beyond the cap.
    let (first_out, _) = standing.runners_up(1)[0];
    let below = standing.why(first_out);
    assert_eq!(
        below.verdict,
        Verdict::BelowCap { rank: 2, cap: 5 },
        "{below:?}"
    );
    assert!(!below.matched.is_empty(), "it ranked, so it matched a word");
    assert_eq!(
        below.sentence(),
        "not loaded: ranked 2nd, below the cap of 5 (4 always-load + 1 searched)"
    );

    let (_, nothing) = why_of(&catalog, &refund, "rerun_ci_job");
    assert_eq!(nothing.verdict, Verdict::MatchedNothing);
    assert_eq!(nothing.rank, None);
    assert!(nothing.matched.is_empty());
    assert_eq!(
        nothing.unmatched,
        ["refund", "duplicate", "payment", "customer"]
    );
    assert_eq!(
        nothing.sentence(),
        "not loaded: matched none of the request's words (refund, duplicate, payment, customer)"
    );

    let (_, always) = why_of(&catalog, &refund, "get_current_user");
    assert_eq!(always.verdict, Verdict::AlwaysLoad);
    assert!(always.verdict.loaded());
    assert_eq!(always.rank, None, "an always-load tool takes no number");

    let (standing, empty) = why_of(&catalog, &request("the of", None), "refund_payment");
    assert!(standing.words().is_empty());
    assert_eq!(empty.verdict, Verdict::EmptyQuery);
    assert_eq!(empty.rank, None);
    let (_, blank) = why_of(&catalog, &request("", None), "send_email");
    assert_eq!(blank.verdict, Verdict::EmptyQuery);
}

#[test]
fn places_agree_with_the_loaded_set_at_every_cap() {
    let catalog = demo();
    let always = catalog.always_load_names().len();
    for query in [
        "refund the duplicate payment of a customer",
        "open a PR for the fix",
        "schedule a meeting with the team tomorrow",
    ] {
        for cap in always as u64..=12 {
            let req = request(query, Some(cap));
            let searcher = Searcher::embedded();
            let result = searcher.search(&catalog, &req).unwrap();
            let standing = searcher.standing(&catalog, &req, &result).unwrap();
            for tool in 0..catalog.len() {
                let why = standing.why(tool);
                let in_result = result.tools.iter().any(|h| h.index == tool);
                assert_eq!(
                    why.verdict.loaded(),
                    in_result,
                    "{query} cap {cap}: {why:?}"
                );
                if let Verdict::BelowCap { rank, .. } = why.verdict {
                    assert!(rank > cap as usize - always);
                }
                assert!(
                    !matches!(why.verdict, Verdict::NotReturned { .. }),
                    "the embedded service returns what it ranks: {why:?}"
                );
                // Every word is either matched or not, once.
                assert_eq!(
                    why.matched.len() + why.unmatched.len(),
                    standing.words().len()
                );
            }
            for (doc, _) in standing.runners_up(5) {
                assert!(!result.tools.iter().any(|h| h.index == doc));
            }
        }
    }
}

#[test]
fn matched_words_are_shown_as_written_not_as_stems() {
    let catalog = demo();
    let (_, why) = why_of(
        &catalog,
        &request("refunding payments", None),
        "refund_payment",
    );
    assert_eq!(why.verdict, Verdict::Loaded);
    assert_eq!(why.matched, ["refunding", "payments"]);
    assert!(why.unmatched.is_empty());
}

#[test]
fn runners_up_are_the_best_left_out_in_order() {
    let catalog = demo();
    let req = request("search", Some(5));
    let searcher = Searcher::embedded();
    let result = searcher.search(&catalog, &req).unwrap();
    let standing = searcher.standing(&catalog, &req, &result).unwrap();
    let runners = standing.runners_up(4);
    assert_eq!(runners.len(), 4);
    assert!(runners.windows(2).all(|w| w[0].1 >= w[1].1), "{runners:?}");
    let places: Vec<Option<usize>> = runners.iter().map(|(d, _)| standing.why(*d).rank).collect();
    assert_eq!(places, [Some(2), Some(3), Some(4), Some(5)]);
    // The standing is shared with other threads as it is.
    let moved = standing.clone();
    let rank = std::thread::spawn(move || moved.why(runners[0].0).rank)
        .join()
        .unwrap();
    assert_eq!(rank, Some(2));
}

/// The searched tools of an answer, numbered as `toolsift search` numbers
/// its rows: 1, 2, 3... in the answer's order.
fn answer_places(standing: &Standing, result: &SearchResult) -> Vec<Option<usize>> {
    result
        .tools
        .iter()
        .filter(|h| h.reason != Some(crate::service::Reason::AlwaysLoad))
        .map(|h| standing.place(h.index))
        .collect()
}

/// A request of two intents ("..., give them their money back") is
/// answered from the intents' rankings merged: the places, the runners-up
/// and every verdict come from that one ranking, not from the whole
/// request's alone (which placed the loaded tools 5th, 7th, 6th and 13th,
/// and a tool left out 8th, "within the cap").
#[test]
fn a_request_of_several_intents_is_told_from_the_ranking_that_answered() {
    let catalog = demo();
    let query = "a customer got charged twice, give them their money back";
    assert!(crate::engine::intents::split(query).is_some());
    let searcher = Searcher::embedded();
    for keep_ranking in [false, true] {
        let req = SearchRequest {
            keep_ranking,
            ..request(query, None)
        };
        let result = searcher.search(&catalog, &req).unwrap();
        assert_eq!(result.ranking.is_some(), keep_ranking);
        let standing = searcher.standing(&catalog, &req, &result).unwrap();
        let searched = result.tools.len() - standing.always_load();
        assert_eq!(searched, 4, "{:?}", result.tools);
        let expected: Vec<Option<usize>> = (1..=searched).map(Some).collect();
        assert_eq!(answer_places(&standing, &result), expected);
        let runners: Vec<Option<usize>> = standing
            .runners_up(3)
            .iter()
            .map(|(d, _)| standing.place(*d))
            .collect();
        assert_eq!(runners, [Some(5), Some(6), Some(7)]);
        for hit in &result.tools {
            let why = standing.why(hit.index);
            assert!(why.verdict.loaded(), "{why:?}");
        }
        let refund = standing.why(catalog.index_of("refund_payment").unwrap());
        assert_eq!(
            refund.sentence(),
            format!(
                "loaded: ranked {}, within the cap of 8 (4 always-load + 4 searched)",
                ordinal(refund.rank.unwrap())
            )
        );
        for (doc, _) in standing.runners_up(3) {
            let why = standing.why(doc);
            assert!(
                matches!(why.verdict, Verdict::BelowCap { rank, cap: 8 } if rank > 4),
                "{why:?}"
            );
        }
    }
}

#[test]
fn an_exact_name_and_a_remote_ranking_without_words() {
    let catalog = demo();
    let (_, exact) = why_of(
        &catalog,
        &request("run get_billing_account", None),
        "get_billing_account",
    );
    assert!(exact.exact_name);
    assert_eq!(exact.sentence(), "loaded: the request names it exactly");

    // A ranker that cannot explain leaves the words untold, rather than
    // claiming none matched.
    let tools = vec![
        Tool::new("lookup_status", "Look up the current service status"),
        Tool::new("send_invoice", "Send an invoice to a customer"),
    ];
    let small = Arc::new(Catalog::new("t", tools).unwrap());
    let searcher = Searcher::embedded();
    let req = request("service status", Some(1));
    let result = searcher.search(&small, &req).unwrap();
    let mut standing = searcher.standing(&small, &req, &result).unwrap();
    Arc::get_mut(&mut standing.inner).unwrap().ranker = Arc::new(Unexplained);
    let why = standing.why(1);
    assert!(!why.explained && why.matched.is_empty() && why.unmatched.is_empty());
    assert!(
        standing.why(0).explained,
        "the answer's own explanation is kept"
    );
}

#[derive(Debug)]
struct Unexplained;

impl CatalogRanker for Unexplained {
    fn ranker(&self) -> Ranker {
        Ranker::Bm25
    }
    fn len(&self) -> usize {
        2
    }
    fn rank(
        &self,
        _: &str,
        _: Option<&str>,
        _: usize,
    ) -> Result<Vec<crate::engine::Hit>, crate::engine::RankError> {
        Ok(Vec::new())
    }
    fn explain(&self, _: &str, _: Option<&str>, docs: &[usize]) -> Vec<Explanation> {
        vec![Explanation::default(); docs.len()]
    }
    fn explains(&self) -> bool {
        false
    }
}

/// The mcp-short catalog (nine real MCP servers' tools), and usage learned
/// from its time-split set's first days.
fn mcp_short() -> (Arc<Catalog>, Arc<crate::service::usage::Usage>) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/eval");
    let source = CatalogSource::Path(format!("{dir}/mcp-short/catalog.json").into());
    let catalog = Arc::new(crate::catalog::load(&source).unwrap());
    let pairs = std::fs::read_to_string(format!("{dir}/usage/earlier.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (catalog, Arc::new(crate::service::usage::Usage::new(pairs)))
}

#[test]
fn a_kept_ranking_stands_as_a_second_ranking_would() {
    let (catalog, usage) = mcp_short();
    let learned = Searcher::Embedded(Arc::new(crate::service::Service::new(
        crate::service::ServiceConfig {
            usage: Some(usage),
            ..crate::service::ServiceConfig::default()
        },
    )));
    let queries = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/eval/mcp-short/queries.jsonl"
    ))
    .unwrap();
    let mut kept_count = 0;
    for searcher in [Searcher::embedded(), learned] {
        for line in queries.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let query = v["query"].as_str().unwrap();
            for cap in [1, 3, 8] {
                let plain = request(query, Some(cap));
                let kept = SearchRequest {
                    keep_ranking: true,
                    ..plain.clone()
                };
                let a = searcher.search(&catalog, &plain).unwrap();
                let b = searcher.search(&catalog, &kept).unwrap();
                assert!(a.ranking.is_none());
                // The answer cut from the whole ranking is the answer.
                assert_eq!(a.tools, b.tools, "{query} cap {cap}");
                assert_eq!(a.matching, b.matching, "{query} cap {cap}");
                // Kept whatever the request (several intents too).
                let ranking = b.ranking.as_ref().expect(query);
                kept_count += 1;
                assert!(ranking.len() >= b.tools.len().min(1), "{query}");
                let fresh = searcher.standing(&catalog, &plain, &a).unwrap();
                let from_kept = searcher.standing(&catalog, &kept, &b).unwrap();
                for tool in 0..catalog.len() {
                    assert_eq!(
                        fresh.why(tool),
                        from_kept.why(tool),
                        "{query} cap {cap}: {}",
                        catalog.tools()[tool].name
                    );
                }
                assert_eq!(fresh.runners_up(10), from_kept.runners_up(10));
                let searched = b
                    .tools
                    .iter()
                    .filter(|h| h.reason != Some(crate::service::Reason::AlwaysLoad))
                    .count();
                let expected: Vec<Option<usize>> = (1..=searched).map(Some).collect();
                assert_eq!(answer_places(&from_kept, &b), expected, "{query} cap {cap}");
            }
        }
    }
    assert!(kept_count > 100, "only {kept_count} answers kept a ranking");
}

#[test]
fn a_ranking_placed_skips_always_load_tools_repeats_and_strangers() {
    let hit = |doc, score| Hit {
        doc,
        score,
        exact: false,
    };
    // Tool 1 is always-load; tool 2 is ranked twice; tool 9 is not in the
    // catalog of four.
    let ranking = [
        hit(1, 9.0),
        hit(2, 8.0),
        hit(9, 7.0),
        hit(0, 6.0),
        hit(2, 5.0),
    ];
    let placed = Placed::from_ranking(&ranking, &[false, true, false, false]);
    assert_eq!(placed.order, [(2, 8.0), (0, 6.0)]);
    assert_eq!(placed.place, [Some(1), None, Some(0), None]);
    assert_eq!(placed.score, [Some(6.0), Some(9.0), Some(8.0), None]);
}
