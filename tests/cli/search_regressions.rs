//! Search behaviour users complained about in other products, and the quality
//! floor on the bfcl-dev benchmark. Every search goes through the embedded
//! searcher, the same path the CLI and the explorer use.

use std::path::Path;

use toolsift::catalog::{self, Catalog, CatalogSource, SourceKind, Tool};
use toolsift::search::{SearchRequest, Searcher};
use toolsift::service::Reason;

fn tool(name: &str, description: &str) -> Tool {
    Tool::new(name, description)
}

fn top(catalog: &Catalog, query: &str, max_tools: u64) -> Vec<String> {
    let request = SearchRequest {
        query: query.into(),
        max_tools: toolsift::tools_handle::MaxTools::new(max_tools),
        ..Default::default()
    };
    Searcher::embedded()
        .search(catalog, &request)
        .expect("search")
        .tools
        .iter()
        .map(|h| catalog.tools()[h.index].name.clone())
        .collect()
}

/// 100 tools of a plausible catalog, plus whatever the test adds.
fn filler(extra: Vec<Tool>) -> Catalog {
    let base = catalog::synthetic::generate(100 - extra.len(), 3);
    let mut tools = base.tools().to_vec();
    tools.extend(extra);
    Catalog::new("t", tools).unwrap()
}

#[test]
fn create_edge_finds_canvas_create_edge() {
    let c = filler(vec![
        tool("canvas_create_node", "Create a node on the canvas"),
        tool("canvas_create_edge", "Connect two nodes on the canvas"),
        tool("canvas_delete_edge", "Remove a connection between nodes"),
        tool("create_document", "Create a new document"),
    ]);
    assert_eq!(top(&c, "create edge", 3)[0], "canvas_create_edge");
}

#[test]
fn ask_codex_is_found_by_its_exact_name() {
    let c = filler(vec![tool(
        "ask_codex",
        "Delegate a coding question to another model",
    )]);
    assert_eq!(c.len(), 100);
    for query in [
        "ask_codex",
        "please use ask_codex to review this diff",
        "call `ask_codex`",
        "ask-codex",
    ] {
        let found = top(&c, query, 5);
        assert_eq!(found[0], "ask_codex", "{query}: {found:?}");
    }
}

#[test]
fn camel_case_names_are_words() {
    let c = filler(vec![
        tool(
            "getUserProfile",
            "Returns the record of the signed-in account",
        ),
        tool("getUserSettings", "Returns preferences"),
    ]);
    assert_eq!(top(&c, "user profile", 3)[0], "getUserProfile");
    assert_eq!(top(&c, "getUserProfile", 3)[0], "getUserProfile");
}

#[test]
fn dotted_names_are_words() {
    let c = filler(vec![
        tool("github.create_issue", "Open a new issue in a repository"),
        tool("github.list_issues", "List issues of a repository"),
        tool("jira.create_issue", "Create a Jira ticket"),
    ]);
    assert_eq!(
        top(&c, "create a github issue", 3)[0],
        "github.create_issue"
    );
    assert_eq!(
        top(&c, "run github_create_issue now", 3)[0],
        "github.create_issue"
    );
}

#[test]
fn always_load_is_never_dropped_by_a_cap() {
    let mut pinned = tool("zz_pinned_policy", "Company policy, always available");
    pinned.always_load = true;
    let c = filler(vec![pinned]);
    // A query that matches many other tools, with the tightest caps.
    for cap in [1, 2, 5] {
        let request = SearchRequest {
            query: "list create update invoice ticket customer".into(),
            max_tools: toolsift::tools_handle::MaxTools::new(cap),
            ..Default::default()
        };
        let r = Searcher::embedded().search(&c, &request).unwrap();
        assert_eq!(r.tools.len() as u64, cap);
        assert_eq!(c.tools()[r.tools[0].index].name, "zz_pinned_policy");
        assert_eq!(r.tools[0].reason, Some(Reason::AlwaysLoad));
    }
}

#[test]
fn real_catalogs_answer_plain_requests() {
    let github = catalog::load(&CatalogSource::parse("@github-mcp")).unwrap();
    assert_eq!(
        top(&github, "create a pull request", 3)[0],
        "create_pull_request"
    );
    assert_eq!(
        top(&github, "merge the pull request", 3)[0],
        "merge_pull_request"
    );
    assert_eq!(
        top(&github, "list my notifications", 3)[0],
        "list_notifications"
    );
    assert_eq!(
        top(&github, "search code for a function", 3)[0],
        "search_code"
    );
    let demo = catalog::load(&CatalogSource::demo()).unwrap();
    let found = top(&demo, "refund the last payment of customer 42", 6);
    assert!(found.contains(&"refund_payment".to_string()), "{found:?}");
}

#[test]
fn same_request_same_answer() {
    let demo = catalog::load(&CatalogSource::demo()).unwrap();
    let a = top(&demo, "schedule a meeting with the team tomorrow", 8);
    for _ in 0..5 {
        assert_eq!(
            top(&demo, "schedule a meeting with the team tomorrow", 8),
            a
        );
    }
}

/// The quality floor of issue 3 on the full bfcl-dev catalog: strict all@5
/// >= 74, strict all@10 >= 86, lenient all@10 >= 92, strict MRR@10 >= 0.60.
#[test]
fn bfcl_dev_quality_floor() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/bfcl-dev");
    let text = std::fs::read_to_string(dir.join("catalog.json")).unwrap();
    let catalog = catalog::parse(&text, "catalog.json", "bfcl", SourceKind::Json).unwrap();
    assert_eq!(catalog.len(), 2101);
    let queries = toolsift::eval::load_queries(&dir.join("queries-dev.jsonl")).unwrap();
    assert_eq!(queries.len(), 504);
    let ranker = toolsift::service::Service::default()
        .ranker_for(&catalog, toolsift::engine::Ranker::Bm25)
        .unwrap();
    let r = toolsift::eval::evaluate(&catalog, &queries, 10, ranker.as_ref(), None).unwrap();
    assert!(r.strict.all[2] >= 74.0, "strict all@5 {}", r.strict.all[2]);
    assert!(r.strict.all[3] >= 86.0, "strict all@10 {}", r.strict.all[3]);
    assert!(
        r.lenient.all[3] >= 91.5,
        "lenient all@10 {}",
        r.lenient.all[3]
    );
    assert!(r.strict.mrr10 >= 0.60, "strict MRR@10 {}", r.strict.mrr10);
}
