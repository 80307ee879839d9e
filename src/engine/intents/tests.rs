//! Intent splitting and the merged ranking.
use super::*;

fn intents(q: &str) -> Vec<&str> {
    split(q).unwrap_or_default()
}

#[test]
fn the_verb_list_is_sorted_for_its_binary_search() {
    assert!(VERBS.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn clauses_joined_by_sequence_words_commas_and_and_are_split() {
    assert_eq!(
        intents("make a folder called out and then save the report there"),
        ["make a folder called out", "save the report there"]
    );
    assert_eq!(
        intents("check what changed, stage it and commit with message wip"),
        ["check what changed", "stage it", "commit with message wip"]
    );
    assert_eq!(
        intents("what time is it in Tokyo and remember that Ken lives there"),
        ["what time is it in Tokyo", "remember that Ken lives there"]
    );
    assert_eq!(
        intents("fetch https://example.com/data.csv, then write it to data.csv"),
        ["fetch https://example.com/data.csv", "write it to data.csv"]
    );
    assert_eq!(
        intents("create a branch, after that switch to it; show the status"),
        ["create a branch", "switch to it", "show the status"]
    );
    assert_eq!(
        intents("Find the file. Then please open it."),
        ["Find the file", "please open it"]
    );
}

#[test]
fn numbered_steps_and_lines_are_intents() {
    assert_eq!(
        intents("1. list the files in docs 2. read the README 3. show the recent commits"),
        [
            "list the files in docs",
            "read the README",
            "show the recent commits"
        ]
    );
    assert_eq!(
        intents("- list the issues\n- close the stale ones"),
        ["list the issues", "close the stale ones"]
    );
    // A number that is not the next step is a number.
    assert_eq!(split("add 17 and 25."), None);
    assert_eq!(split("version 2. is out"), None);
}

#[test]
fn lists_of_things_and_one_clause_requests_are_not_split() {
    for q in [
        "read a.txt, b.txt and c.txt at once",
        "add 17 and 25",
        "find the area of a triangle with base 10 and height 5",
        "stage README.md for commit",
        "what are the recent commits",
        "",
        "   ",
        "then",
        "and, then; 1. 2.",
    ] {
        assert_eq!(split(q), None, "{q:?}");
    }
}

#[test]
fn at_most_max_intents_come_back() {
    let q = (0..40)
        .map(|i| format!("show item{i}"))
        .collect::<Vec<_>>()
        .join("; ");
    assert_eq!(intents(&q).len(), MAX_INTENTS);
}

fn hits(docs: &[usize]) -> Vec<Hit> {
    docs.iter()
        .map(|&doc| Hit {
            doc,
            score: 1.0,
            exact: false,
        })
        .collect()
}

fn docs(hits: &[Hit]) -> Vec<usize> {
    hits.iter().map(|h| h.doc).collect()
}

#[test]
fn fusion_keeps_the_whole_requests_best_first_then_each_intents_best() {
    let whole = hits(&[1, 2, 3, 4]);
    let parts = [hits(&[1, 5, 6]), hits(&[7, 2, 8])];
    // 1 leads both the whole and the first intent; 7 leads the second;
    // 2 is second in the whole and in the second intent.
    assert_eq!(docs(&fuse(&whole, &parts, 4)), [1, 2, 7, 5]);
    assert_eq!(docs(&fuse(&whole, &[], 3)), [1, 2, 3]);
    assert!(fuse(&whole, &parts, 0).is_empty());
}

#[test]
fn an_exact_name_in_any_list_stays_first_and_exact() {
    let whole = hits(&[1, 2]);
    let mut part = hits(&[9]);
    part[0].exact = true;
    let fused = fuse(&whole, &[part], 3);
    assert_eq!(docs(&fused), [9, 1, 2]);
    assert!(fused[0].exact);
}

proptest::proptest! {
    #[test]
    fn split_never_panics_and_returns_slices_of_the_request(q in "\\PC{0,80}") {
        if let Some(parts) = split(&q) {
            proptest::prop_assert!(parts.len() >= 2 && parts.len() <= MAX_INTENTS);
            for p in parts {
                proptest::prop_assert!(q.contains(p) && !p.is_empty());
            }
        }
    }

    #[test]
    fn fusion_returns_each_tool_once(
        whole in proptest::collection::vec(0usize..20, 0..10),
        part in proptest::collection::vec(0usize..20, 0..10),
        k in 0usize..12,
    ) {
        let dedup = |v: Vec<usize>| {
            let mut seen = Vec::new();
            for d in v { if !seen.contains(&d) { seen.push(d); } }
            seen
        };
        let (whole, part) = (hits(&dedup(whole)), hits(&dedup(part)));
        let fused = fuse(&whole, std::slice::from_ref(&part), k);
        let mut ds = docs(&fused);
        let n = ds.len();
        ds.sort_unstable();
        ds.dedup();
        proptest::prop_assert_eq!(ds.len(), n);
        proptest::prop_assert!(n <= k);
        proptest::prop_assert_eq!(n, k.min(docs(&fuse(&whole, std::slice::from_ref(&part), usize::MAX)).len()));
    }
}

#[test]
fn a_long_request_is_ranked_whole_and_given_intents_are_merged() {
    use crate::catalog::Tool;
    use crate::engine::Index;
    let tools = vec![
        Tool::new("create_directory", "Create a new directory."),
        Tool::new("write_file", "Write text to a file."),
        Tool::new("git_commit", "Record changes to the repository."),
    ];
    let index = Index::build(&tools);
    let long = "make a folder called out and then save the report there and then \
                commit it with a message that says the report is done for the week";
    assert!(long.split_whitespace().count() > MAX_SPLIT_WORDS);
    assert!(split(long).is_some());
    assert_eq!(
        docs(&rank(&index, long, &[], None, 3).unwrap()),
        docs(&crate::engine::CatalogRanker::rank(&index, long, None, 3).unwrap())
    );
    // Given intents are merged whatever the length.
    let given = [
        "create a directory".to_string(),
        "record changes".to_string(),
    ];
    let ranked = docs(&rank(&index, "", &given, None, 2).unwrap());
    assert!(ranked.contains(&0) && ranked.contains(&2), "{ranked:?}");
}
