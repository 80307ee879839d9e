//! The relevance gate, `select:` and `+term` through the service.

use super::tests::names;
use super::*;
use crate::catalog::Tool;

fn catalog() -> Catalog {
    let tool = |name: &str, description: &str, always: bool| {
        let mut t = Tool::new(name, description);
        t.always_load = always;
        t
    };
    Catalog::new(
        "t",
        vec![
            tool(
                "get_weather",
                "Current weather and forecast for a city",
                false,
            ),
            tool(
                "convert_currency",
                "Convert an amount of money between currencies",
                false,
            ),
            tool(
                "create_issue",
                "Open an issue in a GitHub repository",
                false,
            ),
            tool("list_issues", "List the issues of a GitLab project", false),
            tool("page_oncall", "Page the on-call engineer", true),
        ],
    )
    .unwrap()
}

fn search(query: &str, gate: Option<bool>) -> (Catalog, SearchOutcome) {
    let c = catalog();
    let s = Service::new(ServiceConfig {
        gate: true,
        ..Default::default()
    });
    let params = SearchRequest {
        query: query.into(),
        gate,
        ..Default::default()
    };
    let o = s.tool_search(&c, &params, "").unwrap();
    (c, o)
}

#[test]
fn a_request_that_fits_loads_its_tool() {
    let (c, o) = search("what's the weather forecast in Paris", None);
    assert_eq!(names(&c, &o), ["page_oncall", "get_weather"]);
    assert!(o.fit.unwrap().fits);
    assert!(o.held_back.is_empty());
    assert_eq!(o.note, None);
}

#[test]
fn a_generic_verb_or_a_stop_word_alone_does_not_fit() {
    for query in [
        "get me a taxi to the airport",
        "the list of it",
        "open the door",
    ] {
        let (c, o) = search(query, None);
        // Only the always-load tool; the nearest are said, not loaded.
        assert_eq!(names(&c, &o), ["page_oncall"], "{query}");
        let note = o.note.as_deref().unwrap_or_default();
        assert!(
            note.starts_with("no tool fits this request"),
            "{query}: {note}"
        );
        if !o.held_back.is_empty() {
            assert!(note.contains("the nearest, "), "{note}");
            assert!(o.held_back.iter().all(|h| !h.fit.fits));
        }
    }
    // The same request with the gate off loads what shares the word.
    let (c, o) = search("get me a taxi to the airport", Some(false));
    assert_eq!(names(&c, &o), ["page_oncall", "get_weather"]);
    assert!(!o.fit.unwrap().fits);
}

#[test]
fn a_request_in_another_language_than_the_catalog_fits_nothing() {
    let (c, o) = search("Wie wird das Wetter morgen in Berlin?", None);
    assert_eq!(names(&c, &o), ["page_oncall"]);
    assert!(o.note.unwrap().contains("no tool"));
}

#[test]
fn the_gate_is_a_request_option_over_the_service_default() {
    let c = catalog();
    let off = Service::default();
    let q = |gate| SearchRequest {
        query: "get me a taxi".into(),
        gate,
        ..Default::default()
    };
    // The service's default is off: Caveman clients get what matches.
    assert_eq!(
        names(&c, &off.tool_search(&c, &q(None), "").unwrap()).len(),
        2
    );
    let on = off.tool_search(&c, &q(Some(true)), "").unwrap();
    assert_eq!(names(&c, &on), ["page_oncall"]);
    assert_eq!(on.held_back.len(), 1);
    // On the wire: held_back names the nearest; `gate` must be a boolean.
    let body = |gate: &str| {
        format!(
            r#"{{"tools": [{{"name": "get_weather", "description": "Weather for a city"}}], "query": "get me a taxi", "gate": {gate}}}"#
        )
    };
    let wire = off.tool_search_json(body("true").as_bytes(), None).unwrap();
    assert!(wire.tools.is_empty());
    assert_eq!(wire.held_back[0].name, "get_weather");
    assert_eq!(wire.held_back[0].evidence, 0.5);
    let json = serde_json::to_value(&wire).unwrap();
    assert_eq!(json["held_back"][0]["name"], "get_weather");
    let e = off
        .tool_search_json(body("\"yes\"").as_bytes(), None)
        .unwrap_err();
    assert_eq!(
        (e.status, e.message.as_str()),
        (400, "gate must be a boolean, \"any\" or \"each\"")
    );
    // "each" is the gate on, one tool at a time.
    let wire = off
        .tool_search_json(body("\"each\"").as_bytes(), None)
        .unwrap();
    assert!(wire.tools.is_empty());
    // Absent when the gate let the tools through.
    let wire = off
        .tool_search_json(body("false").as_bytes(), None)
        .unwrap();
    assert!(
        serde_json::to_value(&wire)
            .unwrap()
            .get("held_back")
            .is_none()
    );
}

#[test]
fn select_loads_exactly_the_named_tools_and_reports_the_unknown() {
    let (c, o) = search(
        "select:list_issues, mcp__github__create_issue,nope,github.get_weather",
        None,
    );
    assert_eq!(
        names(&c, &o),
        ["page_oncall", "list_issues", "create_issue", "get_weather"]
    );
    assert!(o.tools[1..].iter().all(|t| t.reason == Reason::ExactName));
    // Named, not matched: no word of "select:..." explains them.
    assert!(o.tools.iter().all(|t| t.explanation.matches.is_empty()));
    assert!(o.tools[0].score == 0.0 && o.tools[1..].iter().all(|t| t.explanation.exact_name));
    assert_eq!(o.note.as_deref(), Some("select: no tool is named \"nope\""));
    // Beyond the cap: said, not dropped silently.
    let c = catalog();
    let s = Service::default();
    let params = SearchRequest {
        query: "select:list_issues,create_issue".into(),
        max_tools: crate::tools_handle::MaxTools::new(2),
        ..Default::default()
    };
    let o = s.tool_search(&c, &params, "").unwrap();
    assert_eq!(names(&c, &o), ["page_oncall", "list_issues"]);
    assert_eq!(
        o.note.as_deref(),
        Some("max_tools 2 leaves no room for \"create_issue\"")
    );
}

#[test]
fn plus_terms_are_words_every_tool_must_contain() {
    let (c, o) = search("issues +project", Some(false));
    assert_eq!(names(&c, &o), ["page_oncall", "list_issues"]);
    let (c, o) = search("an issue +Repositories", Some(false));
    assert_eq!(names(&c, &o), ["page_oncall", "create_issue"]);
    // A required word no tool has: nothing but the always-load tool.
    let (c, o) = search("issues +jira", Some(false));
    assert_eq!(names(&c, &o), ["page_oncall"]);
    assert!(o.note.is_some());
}

fn fit(fits: bool) -> crate::engine::Fit {
    crate::engine::Fit {
        evidence: if fits { 2.0 } else { 0.5 },
        cosine: None,
        probability: None,
        exact_name: false,
        name_covered: false,
        fits,
    }
}

#[test]
fn the_gate_keeps_an_answer_any_of_whose_tools_fits_and_each_keeps_only_those() {
    use super::{GateMode, gate_keeps};
    // The best tool does not fit but the second does: the answer stands.
    let fits = [fit(false), fit(true), fit(false)];
    assert_eq!(gate_keeps(&fits, GateMode::Any), Some(vec![true; 3]));
    assert_eq!(
        gate_keeps(&fits, GateMode::Each),
        Some(vec![false, true, false])
    );
    assert_eq!(gate_keeps(&[fit(false), fit(false)], GateMode::Any), None);
    assert_eq!(gate_keeps(&[], GateMode::Each), None);
}

#[test]
fn omit_always_load_and_each_give_the_gateways_answer_through_the_service() {
    use super::GateMode;
    let service = Service::new(ServiceConfig::default());
    let weather = Tool::new("get_weather", "Weather forecast for a city");
    let mut always = Tool::new("whoami", "The current user");
    always.always_load = true;
    let sum = Tool::new("get_sum", "Returns the sum of two numbers");
    let c = Catalog::new("t", vec![always, weather, sum]).unwrap();
    let params = SearchRequest {
        query: "weather forecast in Paris".into(),
        max_tools: crate::tools_handle::MaxTools::new(1),
        gate: Some(true),
        gate_mode: GateMode::Each,
        omit_always_load: true,
        unrecorded: true,
        ..SearchRequest::default()
    };
    let out = service.tool_search(&c, &params, "").unwrap();
    // max_tools counts searched tools only; the always-load one is left out.
    assert_eq!(names(&c, &out), ["get_weather"]);
    // Unrecorded: no session kept.
    assert_eq!(service.stats().sessions, 0);
    let with_always = service
        .tool_search(
            &c,
            &SearchRequest {
                omit_always_load: false,
                max_tools: crate::tools_handle::MaxTools::new(2),
                ..params.clone()
            },
            "",
        )
        .unwrap();
    assert_eq!(names(&c, &with_always), ["whoami", "get_weather"]);
}

#[test]
fn queries_on_the_wire_are_ranked_and_merged_and_checked() {
    let service = Service::new(ServiceConfig::default());
    let tools = r#"[{"name": "get_weather", "description": "Current weather and forecast for a city"},
                    {"name": "convert_currency", "description": "Convert an amount of money between currencies"},
                    {"name": "create_issue", "description": "Open an issue in a GitHub repository"}]"#;
    let body = |rest: &str| format!(r#"{{"tools": {tools}, "query": "", {rest}}}"#);
    let wire = service
        .tool_search_json(
            body(
                r#""queries": ["weather in Oslo", "convert 20 dollars to euros"], "max_tools": 2"#,
            )
            .as_bytes(),
            None,
        )
        .unwrap();
    let mut names: Vec<&str> = wire.tools.iter().map(|t| t.tool.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["convert_currency", "get_weather"]);
    for (rest, message) in [
        (
            r#""queries": "weather""#,
            "`queries` must be an array of strings, not a string",
        ),
        (
            r#""queries": ["weather", 3]"#,
            "`queries[1]` must be a string, not a number",
        ),
        (r#""queries": ["weather", ""]"#, "`queries[1]` is empty"),
    ] {
        let e = service
            .tool_search_json(body(rest).as_bytes(), None)
            .unwrap_err();
        assert_eq!(
            (e.status, e.code, e.message.as_str()),
            (400, "invalid_queries", message)
        );
    }
    let many: Vec<String> = (0..17).map(|i| format!("\"step {i}\"")).collect();
    let e = service
        .tool_search_json(
            body(&format!(r#""queries": [{}]"#, many.join(","))).as_bytes(),
            None,
        )
        .unwrap_err();
    assert_eq!(e.message, "`queries` holds 17 items; at most 16");
    // The body a client sends carries them.
    let params = SearchRequest {
        query: "x".into(),
        queries: vec!["a".into()],
        gate: Some(true),
        gate_mode: GateMode::Each,
        omit_always_load: true,
        ..SearchRequest::default()
    };
    let c = catalog();
    let sent = serde_json::to_value(params.body(&c)).unwrap();
    assert_eq!(sent["queries"], serde_json::json!(["a"]));
    assert_eq!(sent["gate"], "each");
    assert_eq!(sent["omit_always_load"], true);
    let plain = serde_json::to_value(SearchRequest::default().body(&c)).unwrap();
    for key in ["queries", "gate", "omit_always_load"] {
        assert!(plain.get(key).is_none(), "{key} sent by default");
    }
}
