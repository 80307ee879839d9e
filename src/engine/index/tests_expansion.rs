//! Query expansion in the index: everyday words find tool words, the
//! request's own words still rank first, and a word is counted once
//! whichever of its forms a tool has.

use super::*;
use crate::catalog::Tool;

fn top(index: &Index, tools: &[Tool], query: &str) -> Vec<String> {
    index
        .search(query, None, 3)
        .iter()
        .map(|h| tools[h.doc].name.clone())
        .collect()
}

fn files() -> Vec<Tool> {
    vec![
        Tool::new("create_directory", "Create a new directory."),
        Tool::new("write_file", "Create a new file or overwrite one."),
        Tool::new("list_directory", "List the entries of a directory."),
        Tool::new("get_tiny_image", "Returns a tiny image."),
        Tool::new("fetch", "Fetches a URL from the internet."),
    ]
}

#[test]
fn everyday_words_find_the_words_tools_use() {
    let tools = files();
    let index = Index::build(&tools);
    assert_eq!(
        top(&index, &tools, "make a folder called reports")[0],
        "create_directory"
    );
    assert_eq!(
        top(&index, &tools, "save this text to todo.md")[0],
        "write_file"
    );
    assert_eq!(
        top(&index, &tools, "show me a picture")[0],
        "get_tiny_image"
    );
    assert_eq!(top(&index, &tools, "get https://example.com")[0], "fetch");
    // Without expansion nothing of these requests is in the catalog.
    let plain = Index::build_with(
        &tools,
        Params {
            expansion: false,
            ..Params::default()
        },
    );
    assert!(top(&plain, &tools, "show me a picture").is_empty());
}

#[test]
fn the_explanation_shows_each_expansion() {
    let tools = files();
    let index = Index::build(&tools);
    let e = index.explain("make a folder called reports", None, 0);
    let terms: Vec<&str> = e.matches.iter().map(|m| m.term.as_str()).collect();
    assert!(terms.contains(&"folder → directory"), "{terms:?}");
    assert!(terms.contains(&"make → create"), "{terms:?}");
    let e = index.explain("save this text to todo.md", None, 1);
    assert!(
        e.matches.iter().any(|m| m.term == "todo.md → file"),
        "{:?}",
        e.matches
    );
}

#[test]
fn a_tool_with_the_requests_own_word_ranks_first() {
    let tools = vec![
        Tool::new("create_directory", "Create a directory."),
        Tool::new("create_folder", "Create a folder."),
    ];
    let index = Index::build(&tools);
    assert_eq!(top(&index, &tools, "create a folder")[0], "create_folder");
    assert_eq!(
        top(&index, &tools, "create a directory")[0],
        "create_directory"
    );
}

#[test]
fn a_word_found_in_two_forms_counts_once() {
    // "folder" and its expansion "directory" both in one tool: the tool
    // scores the better of the two, not their sum.
    let tools = vec![
        Tool::new("folder_directory", "Folder and directory."),
        Tool::new("folder_tool", "Folder."),
    ];
    let index = Index::build(&tools);
    let score = index.scores_of("folder", None, &[0])[0];
    let e = index.explain("folder", None, 0);
    assert_eq!(e.matches.len(), 1, "{:?}", e.matches);
    assert!((e.matches[0].score - score).abs() < 1e-5);
    let plain = Index::build_with(
        &tools,
        Params {
            expansion: false,
            ..Params::default()
        },
    );
    let folder = plain.scores_of("folder", None, &[0])[0];
    let directory = plain.scores_of("directory", None, &[0])[0] * index.params().expansion_weight;
    assert!(
        (score - folder.max(directory)).abs() < 1e-5,
        "{score} {folder} {directory}"
    );
}

#[test]
fn contractions_leave_no_word_behind() {
    let tools = vec![Tool::new("s_tool", "S.")];
    let index = Index::build(&tools);
    assert!(index.search("what's", None, 3).is_empty());
}

/// Tools whose words many everyday words expand to.
fn desk() -> Vec<Tool> {
    vec![
        Tool::new("create_directory", "Create a new directory on disk."),
        Tool::new("write_file", "Write text to a file, overwriting it."),
        Tool::new("send_email", "Send an email message to a recipient."),
        Tool::new("get_tiny_image", "Returns a tiny image."),
        Tool::new("delete_file", "Remove a file from disk."),
        Tool::new("search_repositories", "Find code repositories by keyword."),
        Tool::new("book_flight", "Reserve a seat on an airline flight."),
        Tool::new("get_weather", "Current weather and forecast for a city."),
    ]
}

#[test]
fn expansions_worked_into_the_index_score_as_walking_each_one_did() {
    // Search reads each request word's expanded list (built once with the
    // index); an explanation walks every expansion. Both must give each
    // tool the same score, word by word.
    let tools = desk();
    let index = Index::build(&tools);
    let all: Vec<usize> = (0..tools.len()).collect();
    for query in [
        "make a folder",
        "save my notes",
        "mail the picture to Bob",
        "erase that document",
        "look up projects about parsing",
        "reserve a plane ticket",
        "is it going to rain tomorrow",
        "show the photo",
        // A tool word two request words stand for, or one the request
        // has itself, counts once: such a query walks each expansion.
        "photo picture",
        "make a folder directory",
        "what's today's date",
    ] {
        let fast = index.scores_of(query, None, &all);
        for (doc, e) in index.explain_many(query, None, &all).iter().enumerate() {
            let mut walked: f32 = e.matches.iter().map(|m| m.score).sum();
            if e.unasked_destructive {
                walked *= index.params().unasked_destructive;
            }
            assert!(
                (fast[doc] - walked).abs() <= 1e-4 * walked.max(1.0),
                "{query:?} {}: {} from the index, {walked} walking {:?}",
                tools[doc].name,
                fast[doc],
                e.matches
            );
        }
    }
}

#[test]
fn a_query_reads_one_list_per_word_however_many_words_it_expands_to() {
    let tools = desk();
    let index = Index::build(&tools);
    let mut memo = super::query::StemMemo::default();
    // "erase" expands to several words tools have ("delete", "remove" ...):
    // an explanation walks each, a search reads one list.
    let fast = index.analyze("erase", None, false, &mut memo);
    let walked = index.analyze("erase", None, true, &mut memo);
    assert_eq!(fast.terms.len(), 1, "{:?}", fast.terms);
    assert!(walked.terms.len() >= 2, "{:?}", walked.terms);
    // Without expansion no list is built.
    let plain = Index::build_with(
        &tools,
        Params {
            expansion: false,
            ..Params::default()
        },
    );
    assert!(
        plain
            .analyze("erase", None, false, &mut memo)
            .terms
            .is_empty()
    );
    assert_eq!(
        plain.offsets.len(),
        index.offsets.len() - index.expanded_terms()
    );
}

#[test]
fn an_analysis_reused_across_queries_and_indexes_is_a_fresh_one() {
    // The thread's analysis keeps its room (and its term slots) from one
    // query to the next, whatever the index: nothing of the last may show.
    let big = Index::build(&desk());
    let small = Index::build(&files());
    let mut memo = super::query::StemMemo::default();
    let mut reused = super::query::AnalyzedQuery::default();
    let queries = [
        "make a folder and save my notes to todo.md",
        "photo picture",
        "erase that document, then mail the picture to Bob",
        "show the photo",
    ];
    for _ in 0..3 {
        for index in [&big, &small] {
            for q in queries {
                index.analyze_into(q, Some("a file"), false, &mut memo, &mut reused);
                let fresh = index.analyze(q, Some("a file"), false, &mut memo);
                let terms = |a: &super::query::AnalyzedQuery| -> Vec<(u32, u32, bool)> {
                    a.terms
                        .iter()
                        .map(|t| (t.term, t.weight.to_bits(), t.grouped))
                        .collect()
                };
                assert_eq!(terms(&reused), terms(&fresh), "{q}");
            }
        }
    }
}

#[test]
fn two_words_a_tool_writes_as_one_find_it() {
    let tools = vec![
        Tool::new(
            "get_oncall_schedule",
            "Who is on duty for a team this week.",
        ),
        Tool::new("page_team", "Send a page to a team's phone."),
        Tool::new("signin_status", "Whether the user has signed up."),
        Tool::new("run_init", "Run a project's setup."),
        Tool::new("list_its", "Lists the ITS tickets."),
        Tool::new("dial_number", "Place a phone call to a team."),
    ];
    let index = Index::build(&tools);
    // "on call" is the tool's "oncall"; "sign in" its "signin".
    assert_eq!(
        top(&index, &tools, "who is on call")[0],
        "get_oncall_schedule"
    );
    assert_eq!(
        top(&index, &tools, "am I signed in? sign in")[0],
        "signin_status"
    );
    let e = index.explain_many("who is on call", None, &[0]);
    assert!(
        e[0].matches.iter().any(|m| m.term == "on call → oncall"),
        "{:?}",
        e[0].matches
    );
    // Not two stop words ("in it" is not "init"), nor the letter an
    // apostrophe cuts off ("it's" is not "its").
    assert!(
        index
            .search("put it in it", None, 3)
            .iter()
            .all(|h| h.doc != 3)
    );
    assert!(index.search("it's", None, 3).iter().all(|h| h.doc != 4));
}

#[test]
fn the_explanation_says_where_each_expansion_came_from() {
    let tools = files();
    let index = Index::build(&tools);
    let shown = |query: &str, doc: usize| -> Vec<String> {
        index
            .explain(query, None, doc)
            .matches
            .iter()
            .map(|m| m.shown().into_owned())
            .collect()
    };
    // The tool's word first, then the request's word it stands for.
    let folder = shown("make a folder called reports", 0);
    assert!(
        folder.contains(&r#"directory (from "folder")"#.to_string()),
        "{folder:?}"
    );
    // A general synonym says it is one.
    let tools = vec![Tool::new("find_physician", "Finds a physician nearby.")];
    let index = Index::build(&tools);
    let e = index.explain("a doctor for my knee", None, 0);
    let shown: Vec<String> = e.matches.iter().map(|m| m.shown().into_owned()).collect();
    assert_eq!(shown, [r#"physician (synonym of "doctor")"#], "{e:?}");
    // The request's own word is shown as it is.
    let e = index.explain("a physician for my knee", None, 0);
    assert!(e.matches.iter().any(|m| m.shown() == "physician"), "{e:?}");
}

/// The demo catalog, as `@demo` loads it.
fn demo() -> Vec<Tool> {
    crate::catalog::load(&crate::catalog::CatalogSource::demo())
        .expect("the demo catalog")
        .tools()
        .to_vec()
}

#[test]
fn a_rare_sense_of_a_word_does_not_rank_a_tool() {
    // "kick" is rarely the thrill that makes it a synonym of "charge",
    // "back" rarely the "support" of a verb, "time" never the
    // multiplication of "times".
    let tools = demo();
    let index = Index::build(&tools);
    let rank = |query: &str, name: &str| {
        index
            .search(query, None, tools.len())
            .iter()
            .position(|h| tools[h.doc].name == name)
    };
    let ci = rank("the build is red, kick it again", "rerun_ci_job").expect("found");
    let plan = rank(
        "the build is red, kick it again",
        "change_subscription_plan",
    );
    assert!(
        plan.is_none_or(|p| ci < p),
        "rerun_ci_job {ci}, change_subscription_plan {plan:?}"
    );
    for (query, word) in [
        ("the build is red, kick it again", "charge"),
        (
            "a customer got charged twice, give them their money back",
            "support",
        ),
        ("what time is it in Tokyo", "multipl"),
    ] {
        for hit in index.search(query, None, tools.len()) {
            let e = index.explain(query, None, hit.doc);
            assert!(
                e.matches.iter().all(|m| !m.word().starts_with(word)),
                "{query:?}: {} {:?}",
                tools[hit.doc].name,
                e.matches
            );
        }
    }
}
