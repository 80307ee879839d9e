//! Learning from use: the ranking it adds, the gate, and the file.

use super::*;

fn catalog() -> Catalog {
    let tools = vec![
        Tool::new("git_status", "Shows the working tree status"),
        Tool::new("git_log", "Shows the commit logs"),
        Tool::new(
            "git_diff_unstaged",
            "Shows changes in the working directory that are not yet staged",
        ),
        Tool::new("get_sum", "Returns the sum of two numbers"),
    ];
    Catalog::new("t", tools).unwrap()
}

fn first(r: &dyn CatalogRanker, c: &Catalog, q: &str) -> String {
    c.tools()[r.rank(q, None, 3).unwrap()[0].doc].name.clone()
}

#[test]
fn a_request_like_one_that_led_to_a_tool_finds_it_first() {
    let c = catalog();
    let plain: Arc<dyn CatalogRanker> = Arc::new(Index::build(c.tools()));
    // BM25F alone: "what is the status of my change today" is nearest
    // the status.
    assert_ne!(
        first(plain.as_ref(), &c, "what is the status of my change today"),
        "git_diff_unstaged"
    );
    let usage = Usage::new(vec![Pair {
        query: "what is the status of my change so far".into(),
        tool: "git_diff_unstaged".into(),
        at: 0,
        key: None,
    }]);
    let learned = usage.wrap(&c, plain.clone(), None);
    assert_eq!(
        first(
            learned.as_ref(),
            &c,
            "what is the status of my change today"
        ),
        "git_diff_unstaged"
    );
    // The explanation says usage lifted it, and the gate lets it in.
    let e = learned.explain("what is the status of my change today", None, &[2]);
    assert_eq!(e[0].usage, Some(UsageMatch { uses: 1, rank: 1 }));
    assert!(
        crate::engine::Gate::for_ranker(Ranker::Bm25, 0.3)
            .judge(&e[0])
            .fits
    );
    // An unlike request (one word of several shared) is left alone.
    let q = "show the commit logs of the change";
    assert_eq!(first(learned.as_ref(), &c, q), first(plain.as_ref(), &c, q));
    assert_eq!(learned.explain(q, None, &[2])[0].usage, None);
}

#[test]
fn one_keys_use_never_steers_anothers_search() {
    let c = catalog();
    let plain: Arc<dyn CatalogRanker> = Arc::new(Index::build(c.tools()));
    let usage = Usage::new(Vec::new());
    for _ in 0..6 {
        usage.record(
            "what did I change so far",
            "git_diff_unstaged",
            Some("key-b"),
        );
    }
    let q = "what did I change today";
    let theirs = usage.wrap(&c, plain.clone(), Some("key-b"));
    assert_eq!(first(theirs.as_ref(), &c, q), "git_diff_unstaged");
    for other in [Some("key-a"), None] {
        let mine = usage.wrap(&c, plain.clone(), other);
        assert_eq!(
            first(mine.as_ref(), &c, q),
            first(plain.as_ref(), &c, q),
            "{other:?}"
        );
        assert_eq!(mine.explain(q, None, &[2])[0].usage, None);
    }
}

#[test]
fn usage_alone_never_passes_the_gate() {
    let c = catalog();
    let plain: Arc<dyn CatalogRanker> = Arc::new(Index::build(c.tools()));
    let usage = Usage::new(Vec::new());
    for _ in 0..6 {
        usage.record("what is the weather like today", "get_sum", None);
    }
    let learned = usage.wrap(&c, plain, None);
    let q = "what is the weather like today";
    let e = learned.explain(q, None, &[3]);
    assert!(e[0].usage.is_some(), "usage lifted it");
    assert!(
        !crate::engine::Gate::for_ranker(Ranker::Bm25, 0.3)
            .judge(&e[0])
            .fits,
        "but no word of the request is the tool's"
    );
}

#[test]
fn pairs_are_kept_bounded_and_a_bad_line_is_named() {
    let pairs: Vec<Pair> = (0..MAX_PAIRS + 5)
        .map(|i| Pair {
            query: format!("q{i}"),
            tool: "git_log".into(),
            at: i as u64,
            key: None,
        })
        .collect();
    let usage = Usage::new(pairs);
    assert_eq!(usage.len(), MAX_PAIRS);
    usage.record("  ", "git_log", None);
    usage.record(&"x".repeat(5_000), "git_log", None);
    assert_eq!(usage.len(), MAX_PAIRS, "the oldest went");
    let dir = std::env::temp_dir().join(format!("toolsift-usage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pairs.jsonl");
    std::fs::write(
        &path,
        format!(
            "{{\"query\": \"a b\", \"tool\": \"t\"}}\nnot json\n{{\"query\": \"{}\", \"tool\": \"t\"}}\n{{\"query\": \"c\", \"tool\": \"u\"}}\n{{\"query\": \"torn",
            "z".repeat(9_000)
        ),
    )
    .unwrap();
    // The lines that are pairs are read; the others are named, and
    // the file is not refused.
    let usage = Usage::open(&path).unwrap();
    assert_eq!(usage.len(), 2);
    let w = usage.warnings().join("\n");
    assert!(w.contains("pairs.jsonl: line 2: skipped"), "{w}");
    assert!(w.contains("line 3: skipped: 9"), "{w}");
    assert!(w.contains("line 5: skipped"), "{w}");
    // A file that does not exist yet starts empty, and is written.
    let fresh = dir.join("new.jsonl");
    let usage = Usage::open(&fresh).unwrap();
    usage.record("what did I change", "git_diff_unstaged", None);
    let back = read_pairs(&fresh).unwrap();
    assert_eq!(back.pairs[0].tool, "git_diff_unstaged");
    assert!(usage.warnings().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_file_is_trimmed_to_the_newest_pairs() {
    let dir = std::env::temp_dir().join(format!("toolsift-usage-trim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.jsonl");
    let text: String = (0..TRIM_AT + 50)
        .map(|i| format!("{{\"query\": \"q{i}\", \"tool\": \"t\"}}\n"))
        .collect();
    std::fs::write(&path, text).unwrap();
    let usage = Usage::open(&path).unwrap();
    assert_eq!(usage.len(), MAX_PAIRS);
    let back = read_pairs(&path).unwrap();
    assert_eq!(back.lines, MAX_PAIRS, "trimmed when opened");
    assert_eq!(
        back.pairs.last().unwrap().query,
        format!("q{}", TRIM_AT + 49)
    );
    // And again once appends take it past the bound.
    for i in 0..=(TRIM_AT - MAX_PAIRS) {
        usage.record(&format!("new {i}"), "t", None);
    }
    assert!(read_pairs(&path).unwrap().lines <= MAX_PAIRS + 1);
    let _ = std::fs::remove_dir_all(&dir);
}
