use serde_json::Value;

use super::score::{kth_largest, top_k};
use super::sentences::split_sentences;
use super::*;
use crate::catalog::Tool;

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    let mut t = Tool::new(name, description);
    t.input_schema = schema;
    t
}

fn names(index: &Index, tools: &[Tool], query: &str, k: usize) -> Vec<String> {
    index
        .search(query, None, k)
        .iter()
        .map(|h| tools[h.doc].name.clone())
        .collect()
}

fn sample() -> Vec<Tool> {
    vec![
        tool(
            "send_invoice",
            "Send an invoice to a customer by email.",
            serde_json::json!({"type":"object","properties":{"customer_id":{"type":"string","description":"The customer to bill"}}}),
        ),
        tool(
            "lookup_status",
            "Look up the current service status.",
            serde_json::json!({"type":"object","properties":{}}),
        ),
        tool(
            "list_incidents",
            "List open incidents for a service.",
            serde_json::json!({"type":"object","properties":{"severity":{"type":"string","enum":["critical","minor"]}}}),
        ),
        tool(
            "get_weather",
            "Current weather for a city.",
            serde_json::json!({"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","enum":["celsius","fahrenheit"]}}}),
        ),
    ]
}

#[test]
fn ranks_by_fields() {
    let tools = sample();
    let index = Index::build(&tools);
    assert_eq!(
        names(&index, &tools, "check service status", 2),
        ["lookup_status", "list_incidents"]
    );
    assert_eq!(
        names(&index, &tools, "weather in Paris in fahrenheit", 1),
        ["get_weather"]
    );
    // Enum values are indexed with the parameter descriptions.
    assert_eq!(names(&index, &tools, "critical", 5), ["list_incidents"]);
    // Nothing matches: nothing returned, not padding.
    assert!(index.search("zebra", None, 5).is_empty());
    assert!(index.search("", None, 5).is_empty());
    assert!(index.search("the of and", None, 5).is_empty());
}

#[test]
fn explain_names_fields() {
    let tools = sample();
    let index = Index::build(&tools);
    let e = index.explain("send invoices to customers", None, 0);
    let terms: Vec<&str> = e.matches.iter().map(|m| m.term.as_str()).collect();
    assert_eq!(
        terms,
        [
            "send",
            "invoices",
            "send invoices",
            "customers",
            "invoices customers"
        ]
    );
    assert_eq!(e.matches[0].fields, [Field::Name, Field::Description]);
    assert_eq!(
        e.matches[3].fields,
        [
            Field::Description,
            Field::ParamName,
            Field::ParamDescription
        ]
    );
    assert!(e.matches.iter().all(|m| m.score > 0.0));
    let total: f32 = e.matches.iter().map(|m| m.score).sum();
    let hit = index.search("send invoices to customers", None, 1)[0];
    assert!((hit.score - total).abs() < 1e-4);
}

#[test]
fn exact_names_rank_first() {
    let mut tools = sample();
    tools.push(tool("status", "Status.", serde_json::json!({})));
    let index = Index::build(&tools);
    assert_eq!(
        names(&index, &tools, "please run list_incidents now", 1),
        ["list_incidents"]
    );
    assert_eq!(
        names(&index, &tools, "use `get_weather`", 1),
        ["get_weather"]
    );
    // Dotted and camel forms are the same name.
    assert_eq!(names(&index, &tools, "lookupStatus", 1), ["lookup_status"]);
    let hit = index.search("lookup.status", None, 1)[0];
    assert!(hit.exact);
    // A one-word name wins only as the whole query or in backticks.
    assert_eq!(names(&index, &tools, "status", 1), ["status"]);
    assert!(!index.search("service status please", None, 1)[0].exact);
    assert!(index.search("call `status`", None, 1)[0].exact);
}

#[test]
fn deterministic_ties_by_catalog_order() {
    let tools: Vec<Tool> = (0..5)
        .map(|i| tool(&format!("t{i}"), "same words here", serde_json::json!({})))
        .collect();
    let index = Index::build(&tools);
    let docs: Vec<usize> = index
        .search("same words", None, 5)
        .iter()
        .map(|h| h.doc)
        .collect();
    assert_eq!(docs, [0, 1, 2, 3, 4]);
    assert_eq!(index.search("same words", None, 3).len(), 3);
}

use proptest::strategy::Strategy as _;

proptest::proptest! {
    #[test]
    fn top_k_is_the_sorted_prefix(
        scores in proptest::collection::vec(
            proptest::prop_oneof![proptest::strategy::Just(0.0f32), 0.0f32..10.0, (0u8..4).prop_map(f32::from)],
            0..300,
        ),
        k in 0usize..40,
    ) {
        let mut expected: Vec<(f32, u32)> = scores
            .iter()
            .enumerate()
            .filter(|(_, s)| **s > 0.0)
            .map(|(d, s)| (*s, d as u32))
            .collect();
        expected.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        expected.truncate(k);
        proptest::prop_assert_eq!(top_k(&scores, k), expected);
    }
}

proptest::proptest! {
    #[test]
    fn the_kth_largest_is_the_selected_one(
        xs in proptest::collection::vec(0.0f32..10.0, 0..200),
        k in 0usize..40,
    ) {
        let mut sorted = xs.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let expected = if k == 0 || xs.len() < k { 0.0 } else { sorted[k - 1] };
        proptest::prop_assert_eq!(kth_largest(&xs, k), expected);
    }
}

#[test]
fn sentences_split() {
    let s: Vec<&str> = split_sentences("Get 3.5 kg. Then v1.2 please?\nNext one; last").collect();
    assert_eq!(
        s,
        [
            "Get 3.5 kg.",
            " Then v1.2 please?",
            "\n",
            "Next one;",
            " last"
        ]
        .into_iter()
        .filter(|x| !x.trim().is_empty())
        .collect::<Vec<_>>()
    );
}

#[test]
fn deep_schemas_do_not_overflow() {
    let mut schema = serde_json::json!({"type":"string","description":"leaf"});
    for i in 0..500 {
        schema = serde_json::json!({"type":"object","properties":{ format!("p{i}"): schema }});
    }
    let tools = vec![tool("deep", "deep", schema)];
    let index = Index::build(&tools);
    assert_eq!(index.search("deep", None, 1).len(), 1);
}

#[test]
fn stem_memo_serves_every_index() {
    // "invoices" is in neither catalog verbatim: each index finds it by its
    // stem in its own map, whichever index the thread searched before.
    let a = vec![tool(
        "send_invoice",
        "Send an invoice.",
        serde_json::json!({}),
    )];
    let b = vec![
        tool("other", "Something else.", serde_json::json!({})),
        tool("pay_invoice", "Pay an invoice.", serde_json::json!({})),
    ];
    let (ia, ib) = (Index::build(&a), Index::build(&b));
    let docs = |index: &Index| -> Vec<usize> {
        index
            .search("invoices", None, 5)
            .iter()
            .map(|h| h.doc)
            .collect()
    };
    for _ in 0..2 {
        assert_eq!(docs(&ia), [0]);
        assert_eq!(docs(&ib), [1]);
    }
}

#[test]
fn field_keys_round_trip() {
    for f in Field::ALL {
        assert_eq!(f.key().parse::<Field>(), Ok(f));
        // The key is the serialised form.
        assert_eq!(serde_json::to_value(f).unwrap(), Value::from(f.key()));
    }
    assert_eq!(Field::ALL.len(), Field::COUNT);
    assert_eq!(Field::ParamName.key(), "param_name");
    assert_eq!(Field::ParamName.label(), "parameter name");
    let e = "parameter name".parse::<Field>().unwrap_err();
    assert_eq!(e, UnknownField("parameter name".to_string()));
    assert_eq!(
        e.to_string(),
        "unknown field \"parameter name\" (expected \"name\", \"description\", \"param_name\", \"param_description\", \"name_bigram\", \"description_bigram\", \"server\")"
    );
}

#[test]
fn namespaced_names_find_the_tool() {
    let tools = vec![
        tool("create_issue", "Open an issue.", serde_json::json!({})),
        tool("issue", "One issue.", serde_json::json!({})),
        tool("tool", "A tool.", serde_json::json!({})),
        tool("github__list_repos", "Repositories.", serde_json::json!({})),
        tool("bar", "Bar.", serde_json::json!({})),
        tool("foo_bar", "Foo bar.", serde_json::json!({})),
    ];
    let index = Index::build(&tools);
    let exact = |query: &str| -> Vec<&str> {
        index
            .search(query, None, 10)
            .iter()
            .filter(|h| h.exact)
            .map(|h| tools[h.doc].name.as_str())
            .collect()
    };
    // The name shown to an agent, with its server in front.
    for query in [
        "server__tool",
        "mcp__server__tool",
        "server.tool",
        "server/tool",
        "`mcp__server__tool`",
    ] {
        assert_eq!(exact(query), ["tool"], "{query}");
    }
    for query in [
        "github__create_issue",
        "mcp__github__create_issue",
        "github.create_issue",
        "github/create_issue",
        "please call mcp__github__create_issue now",
        "run github.create_issue for me",
    ] {
        assert_eq!(exact(query), ["create_issue"], "{query}");
    }
    // A catalog whose names carry the namespace already.
    for query in [
        "github__list_repos",
        "mcp__github__list_repos",
        "github.list_repos",
        "github/list_repos",
        "use mcp__github__list_repos",
    ] {
        assert_eq!(exact(query), ["github__list_repos"], "{query}");
    }
    // `__` marks a namespace anywhere; a one-word part after `.` or `/` is a
    // name only as the whole query (in a sentence it is a file or a path).
    assert_eq!(exact("then call srv__tool"), ["tool"]);
    assert!(exact("open docs/tool today").is_empty());
    assert!(exact("edit notes.tool please").is_empty());
    // One `_` joins a name's words: `create_issue` is not `issue`, and a word
    // of the query is not a name it ends.
    assert_eq!(exact("create_issue"), ["create_issue"]);
    assert!(exact("file an issue now").is_empty());
    assert!(exact("get_issue").is_empty());
    assert!(exact("mcp__github__issue_comment").is_empty());
    // The longest part that names a tool wins: `foo__bar` is `foo_bar`.
    assert_eq!(exact("foo__bar"), ["foo_bar"]);
    assert_eq!(exact("mcp__foo__bar"), ["foo_bar"]);
    assert_eq!(exact("baz__bar"), ["bar"]);
}

#[test]
fn many_namespaces_cost_a_bounded_number_of_lookups() {
    let tools = vec![tool("tool", "A tool.", serde_json::json!({}))];
    let index = Index::build(&tools);
    let query = format!("{}tool", "a.".repeat(50_000));
    assert!(index.search(&query, None, 1)[0].exact);
    let query = format!("{}x", "a__".repeat(50_000));
    assert!(index.search(&query, None, 1).iter().all(|h| !h.exact));
}

#[test]
fn a_thai_request_finds_the_thai_tool() {
    let mut tools = sample();
    tools.insert(
        1,
        tool(
            "thai_weather",
            "ดูสภาพอากาศวันนี้",
            serde_json::json!({"type":"object","properties":{"city":{"type":"string","description":"ชื่อเมือง"}}}),
        ),
    );
    tools.push(tool("thai_email", "ส่งอีเมลถึงลูกค้า", serde_json::json!({})));
    let index = Index::build(&tools);
    // "search the weather": no spaces, and no word in common with the
    // description but สภาพอากาศ (weather).
    assert_eq!(names(&index, &tools, "ค้นหาสภาพอากาศ", 10), ["thai_weather"]);
    // Mixed with English words, both count.
    assert_eq!(
        names(&index, &tools, "ค้นหาสภาพอากาศ in Paris, city weather", 2),
        ["thai_weather", "get_weather"]
    );
    assert_eq!(names(&index, &tools, "ส่งอีเมล", 1), ["thai_email"]);
}

/// The multi-sentence blend computed the plain way: every sentence scored
/// over the whole catalog.
fn blend_by_the_book(index: &Index, query: &str) -> Vec<f32> {
    let mut memo = super::query::StemMemo::default();
    let q = index.analyze(query, None, false, &mut memo);
    let score = |terms: &[usize]| {
        let mut s = vec![0f32; index.n_docs];
        for qt in terms.iter().map(|&i| &q.terms[i]) {
            for p in index.postings(qt.term) {
                s[index.post_docs[p] as usize] += qt.weight * index.post_impacts[p];
            }
        }
        s
    };
    let all: Vec<usize> = (0..q.terms.len()).collect();
    let mut scores = score(&all);
    let max_full = scores.iter().fold(0f32, |m, &v| m.max(v));
    if q.sentences.is_empty() || max_full <= 0.0 {
        return scores;
    }
    let mut best = vec![0f32; index.n_docs];
    for sentence in &q.sentences {
        let s = score(sentence);
        let max_s = s.iter().fold(0f32, |m, &v| m.max(v));
        if max_s > 0.0 {
            let inv = 1.0 / max_s;
            for (b, v) in best.iter_mut().zip(&s) {
                *b = b.max(v * inv);
            }
        }
    }
    let w = index.params.sentence_weight;
    for (s, b) in scores.iter_mut().zip(&best) {
        if *s > 0.0 {
            *s = *s / max_full + w * b;
        }
    }
    scores
}

const BLEND_WORDS: [&str; 12] = [
    "invoice", "customer", "weather", "city", "status", "service", "send", "list", "open",
    "incident", "email", "forecast",
];

proptest::proptest! {
    #[test]
    fn the_sentence_blend_scores_as_the_plain_computation_does(
        descriptions in proptest::collection::vec(
            proptest::collection::vec(0usize..BLEND_WORDS.len(), 1..6), 1..30),
        sentences in proptest::collection::vec(
            proptest::collection::vec(0usize..BLEND_WORDS.len() + 3, 1..5), 2..5),
    ) {
        let tools: Vec<Tool> = descriptions
            .iter()
            .enumerate()
            .map(|(i, words)| {
                let text: Vec<&str> = words.iter().map(|&w| BLEND_WORDS[w]).collect();
                Tool::new(format!("tool_{i}"), text.join(" "))
            })
            .collect();
        let index = Index::build(&tools);
        // Words past the list are unknown to the catalog.
        let query: Vec<String> = sentences
            .iter()
            .map(|s| {
                let words: Vec<&str> =
                    s.iter().map(|&w| BLEND_WORDS.get(w).copied().unwrap_or("zebra")).collect();
                format!("{}.", words.join(" "))
            })
            .collect();
        let query = query.join(" ");
        let docs: Vec<usize> = (0..tools.len()).collect();
        // Twice: the scratch buffers are left clean for the next search.
        // The sums are grouped by sentence, so the last bits may differ.
        let expected = blend_by_the_book(&index, &query);
        for _ in 0..2 {
            let got = index.scores_of(&query, None, &docs);
            for (g, e) in got.iter().zip(&expected) {
                proptest::prop_assert!((g - e).abs() <= 1e-5 * e.abs().max(1.0), "{got:?} {expected:?}");
            }
        }
    }
}

#[test]
fn a_tools_server_and_what_it_says_of_itself_are_searched() {
    use crate::catalog::McpOrigin;
    use std::sync::Arc;
    let origin = |server: &str, about: &str| McpOrigin {
        server: Arc::from(server),
        name: String::new(),
        title: None,
        about: Some(Arc::from(about)),
    };
    let mut tools = vec![
        tool("read_graph", "Read the whole graph.", serde_json::json!({})),
        tool(
            "read_file",
            "Read a file's contents.",
            serde_json::json!({}),
        ),
        tool(
            "status",
            "Show the working tree status.",
            serde_json::json!({}),
        ),
    ];
    tools[0].mcp = Some(origin(
        "memory",
        "A knowledge graph that remembers entities.",
    ));
    tools[1].mcp = Some(origin("filesystem", "Secure file operations."));
    tools[2].mcp = Some(origin("git", "Tools to read and change Git repositories."));
    let index = Index::build(&tools);
    let first = |q: &str| index.search(q, None, 1)[0].doc;
    assert_eq!(first("what do you remember"), 0);
    assert_eq!(first("git status"), 2);
    assert_eq!(first("read from the knowledge graph"), 0);
    let why = index.explain("remember", None, 0);
    assert_eq!(why.matches[0].fields, [Field::Server]);
    // The same tools without servers do not match those words.
    let bare: Vec<_> = tools
        .into_iter()
        .map(|mut t| {
            t.mcp = None;
            t
        })
        .collect();
    assert!(Index::build(&bare).search("remember", None, 3).is_empty());
}

#[test]
fn a_word_few_tools_hold_is_rare_in_a_catalog_large_enough_to_tell() {
    use super::explain::is_rare;
    let mut tools: Vec<Tool> = (0..40)
        .map(|i| {
            tool(
                &format!("tool_{i}"),
                "Read a file from the disk.",
                Value::Null,
            )
        })
        .collect();
    tools.push(tool(
        "move_file",
        "Move or shred files on the disk.",
        Value::Null,
    ));
    let index = Index::build(&tools);
    let e = index.explain("shred the disk", None, 40);
    let rare: Vec<(&str, bool)> = e
        .matches
        .iter()
        .map(|m| (m.term.as_str(), m.rare))
        .collect();
    assert_eq!(rare, [("shred", true), ("disk", false)]);
    // The same words in a catalog of a few tools say nothing.
    let few = Index::build(&tools[38..]);
    assert!(
        few.explain("shred", None, 2)
            .matches
            .iter()
            .all(|m| !m.rare)
    );
    assert!(
        is_rare(1, 20)
            && is_rare(5, 100)
            && !is_rare(6, 100)
            && !is_rare(1, 19)
            && !is_rare(0, 100)
    );
}
