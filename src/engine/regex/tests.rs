use serde_json::json;

use super::*;

fn tool(name: &str, description: &str, schema: serde_json::Value) -> Tool {
    let mut t = Tool::new(name, description);
    t.input_schema = schema;
    t
}

fn catalog() -> Vec<Tool> {
    vec![
        // 0: the pattern in a nested parameter's description only.
        tool(
            "send_message",
            "Send a chat message.",
            json!({"type":"object","properties":{"options":{"type":"object","properties":{
                "when":{"type":"string","description":"Schedule for later"}}}}}),
        ),
        // 1: in the description and a parameter name.
        tool(
            "create_event",
            "Schedule a meeting.",
            json!({"type":"object","properties":{"schedule_id":{"type":"string"}}}),
        ),
        // 2: nothing.
        tool("get_weather", "Current weather.", json!({})),
        // 3: in the name only.
        tool("schedule_report", "Build a report.", json!({})),
        // 4: in a parameter name, nested in an array's items.
        tool(
            "batch",
            "Run many calls.",
            json!({"type":"object","properties":{"calls":{"type":"array","items":{
                "type":"object","properties":{"schedule":{"type":"string"}}}}}}),
        ),
        // 5: in the name and the description.
        tool("schedule_call", "Schedule a call.", json!({})),
        // 6: in the description only, like 7: ties stay in catalog order.
        tool("remind", "Schedule a reminder.", json!({})),
        tool("alarm", "Schedule an alarm.", json!({})),
        // 8: in an enum value.
        tool(
            "set_mode",
            "Change the mode.",
            json!({"type":"object","properties":{"mode":{"enum":["manual","scheduled"]}}}),
        ),
    ]
}

fn ranked(r: &RegexRanker, pattern: &str) -> Vec<(usize, f32)> {
    r.rank(pattern, None, 100)
        .unwrap()
        .iter()
        .map(|h| (h.doc, h.score))
        .collect()
}

#[test]
fn ranks_by_the_best_field_then_the_number_of_fields_then_catalog_order() {
    let r = RegexRanker::build(&catalog());
    assert_eq!(r.ranker(), Ranker::Regex);
    assert_eq!(
        ranked(&r, "(?i)schedul"),
        [
            (5, 42.0), // name and description
            (3, 41.0), // name
            (1, 32.0), // description and parameter name
            (6, 31.0), // description
            (7, 31.0),
            (4, 21.0), // parameter name, nested in items
            (0, 11.0), // nested parameter description
            (8, 11.0), // enum value
        ]
    );
    // Case matters without (?i); the rest are not returned.
    let docs: Vec<usize> = ranked(&r, "Schedule").iter().map(|h| h.0).collect();
    assert_eq!(docs, [1, 5, 6, 7, 0]);
    assert!(ranked(&r, "zebra").is_empty());
    assert!(ranked(&r, "").is_empty());
    assert!(ranked(&r, "  ").is_empty());
    // k cuts the list; score() reads the same numbers.
    assert_eq!(r.rank("(?i)schedul", None, 2).unwrap().len(), 2);
    assert_eq!(
        r.score("(?i)schedul", None, &[2, 4, 5]).unwrap(),
        [0.0, 21.0, 42.0]
    );
}

#[test]
fn anchors_and_alternation_read_each_text_alone() {
    let r = RegexRanker::build(&catalog());
    // ^ and $ anchor each name, description or parameter text.
    let docs = |p: &str| -> Vec<usize> { ranked(&r, p).iter().map(|h| h.0).collect() };
    assert_eq!(docs("^schedule_"), [3, 5, 1]);
    assert_eq!(docs("^get_weather$|^batch$"), [2, 4]);
    assert_eq!(docs("^mode$"), [8]);
}

#[test]
fn explain_gives_the_text_matched_in_each_field() {
    let r = RegexRanker::build(&catalog());
    let e = r.explain("(?i)schedul\\w*", None, &[5, 1, 0, 2]);
    let terms = |i: usize| -> Vec<(String, Vec<Field>, f32)> {
        e[i].matches
            .iter()
            .map(|m| (m.term.clone(), m.fields.clone(), m.score))
            .collect()
    };
    assert_eq!(
        terms(0),
        [
            ("schedule_call".to_string(), vec![Field::Name], 41.0),
            ("Schedule".to_string(), vec![Field::Description], 1.0),
        ]
    );
    assert_eq!(
        terms(1),
        [
            ("Schedule".to_string(), vec![Field::Description], 31.0),
            ("schedule_id".to_string(), vec![Field::ParamName], 1.0),
        ]
    );
    assert_eq!(
        terms(2),
        [("Schedule".to_string(), vec![Field::ParamDescription], 11.0)]
    );
    assert!(e[3].matches.is_empty());
    // What each field added sums to the tool's score.
    for (i, doc) in [5, 1, 0].into_iter().enumerate() {
        let total: f32 = e[i].matches.iter().map(|m| m.score).sum();
        assert_eq!(total, r.score("(?i)schedul\\w*", None, &[doc]).unwrap()[0]);
        assert!(!e[i].exact_name);
    }
    // A long match is cut.
    let long = RegexRanker::build(&[tool("t", &"x".repeat(500), json!({}))]);
    let term = &long.explain("x+", None, &[0])[0].matches[0].term;
    assert_eq!(term.chars().count(), MAX_TERM_CHARS + 1);
    assert!(term.ends_with('…'));
}

#[test]
fn a_hostile_pattern_on_a_long_description_answers() {
    // `(a+)+$` backtracks exponentially on "aaa…!" in a backtracking engine;
    // here it is one linear pass per text.
    let tools = vec![
        tool("long", &format!("{}!", "a".repeat(100_000)), json!({})),
        tool("plain", &"a".repeat(100_000), json!({})),
    ];
    let r = RegexRanker::build(&tools);
    assert_eq!(ranked(&r, "(a+)+$"), [(1, 31.0)]);
    assert_eq!(ranked(&r, "(x+x+)+y"), []);
}

#[test]
fn bad_patterns_say_where_and_what() {
    let msg = |p: &str| compile(p).unwrap_err().to_string();
    assert_eq!(msg("(abc"), "regex: unclosed group at column 1 of \"(abc\"");
    assert_eq!(msg("ab)c"), "regex: unopened group at column 3 of \"ab)c\"");
    assert_eq!(
        msg("a|*b"),
        "regex: repetition operator missing expression at column 3 of \"a|*b\""
    );
    assert_eq!(
        msg("\\p{Klingon}"),
        "regex: Unicode property not found at column 1 of \"\\\\p{Klingon}\""
    );
    assert!(
        msg("(?x)a\n(b").contains("at line 2, column 1"),
        "{}",
        msg("(?x)a\n(b")
    );
    // At most 200 characters.
    assert!(compile(&"a".repeat(MAX_PATTERN_CHARS)).is_ok());
    assert_eq!(
        msg(&"a".repeat(MAX_PATTERN_CHARS + 1)),
        "regex: the pattern is 201 characters; at most 200 are accepted"
    );
    // A short pattern that compiles too large is refused, not built.
    let big = msg("\\w{1000}\\w{1000}");
    assert!(
        big.starts_with("regex: the pattern compiles to more than"),
        "{big}"
    );
    // The ranker's own error is the same words.
    let r = RegexRanker::build(&catalog());
    assert_eq!(
        r.rank("(abc", None, 5).unwrap_err().0,
        "regex: unclosed group at column 1 of \"(abc\""
    );
    assert!(check("(?i)ok|fine").is_ok());
}
