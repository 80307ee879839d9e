//! The gateway's own parts, without servers: a catalog file's tools (their
//! `handler.result` answers a call) behind the meta-tools.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::answer::call::SessionBreaker;
use super::answer::meta::listing;
use super::*;
use crate::catalog::Tool;
use crate::gateway::answer::call::Via;

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    let mut t = Tool::new(name, description);
    t.input_schema = schema;
    t.handler_result = Some(json!({"ran": name}));
    t
}

pub(super) fn catalog() -> Catalog {
    let city = json!({
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city"}},
        "required": ["city"]
    });
    let mut weather = tool(
        "get_weather",
        "Get the current weather in a city",
        city.clone(),
    );
    weather.read_only = true;
    let mut always = tool(
        "list_notes",
        "List the user's notes",
        json!({"type": "object"}),
    );
    always.always_load = true;
    let mut clash = tool(
        SEARCH_TOOLS,
        "An upstream tool that takes the meta-tool's name",
        json!({"type": "object"}),
    );
    clash.always_load = true;
    let tools = vec![
        weather,
        tool(
            "book_flight",
            "Book a flight between two airports",
            json!({
                "type": "object",
                "properties": {"from": {"type": "string"}, "to": {"type": "string"}},
                "required": ["from", "to"]
            }),
        ),
        tool(
            "send_email",
            "Send an email message to a recipient",
            json!({"type": "object"}),
        ),
        tool("get_time", "Get the time of day", json!({"type": "object"})),
        always,
        clash,
    ];
    Catalog::new("test", tools).unwrap()
}

pub(super) fn gateway(config: GatewayConfig) -> Arc<Gateway> {
    let host = Arc::new(McpHost::new(Duration::from_secs(5)).unwrap());
    Arc::new(Gateway::new(config, host, None, vec![catalog()], Recorder::quiet()).unwrap())
}

pub(super) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

pub(super) fn args(v: Value) -> rmcp::model::JsonObject {
    v.as_object().unwrap().clone()
}

pub(super) fn text(r: &rmcp::model::CallToolResult) -> String {
    serde_json::to_value(r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn tools_list_is_the_always_load_tools_and_the_meta_tools() {
    let g = gateway(GatewayConfig::default());
    let names: Vec<String> = listing(
        &g.snapshot(),
        crate::tools_handle::MaxTools::of(8),
        &[],
        "d",
    )
    .iter()
    .map(|t| t.name.to_string())
    .collect();
    // The upstream tool named like a meta-tool is left out (reachable by call).
    assert_eq!(
        names,
        ["list_notes", SEARCH_TOOLS, CALL_READ_TOOL, CALL_TOOL]
    );
    let exposed = listing(
        &g.snapshot(),
        crate::tools_handle::MaxTools::of(8),
        &["get_weather".into(), "nope".into()],
        "d",
    );
    assert_eq!(exposed.last().unwrap().name, "get_weather");
    assert_eq!(exposed.len(), 5);
    let search = &listing(
        &g.snapshot(),
        crate::tools_handle::MaxTools::of(5),
        &[],
        "d",
    )[1];
    assert_eq!(search.input_schema["properties"]["limit"]["maximum"], 5);
}

#[test]
fn search_finds_with_schema_and_why_and_leaves_out_always_load_tools() {
    let g = gateway(GatewayConfig::default());
    let found = runtime().block_on(g.search_tools(
        "s",
        None,
        &Reach::default(),
        &args(json!({"query": "weather in Paris"})),
    ));
    assert_eq!(found.names, ["get_weather"]);
    let answer = found.result.structured_content.clone().unwrap();
    let first = &answer["tools"][0];
    assert_eq!(first["name"], "get_weather");
    assert_eq!(first["inputSchema"]["required"][0], "city");
    assert!(
        first["why"].as_str().unwrap().contains("weather (name"),
        "{first}"
    );
    assert_eq!(found.result.is_error, Some(false));
    // For hosts that read only content: each tool in a line, and its
    // arguments (the schema's descriptions only in the structured content).
    let text = text(&found.result);
    assert!(
        text.contains("\n- get_weather [call_read_tool]: ")
            || text.contains("\n- get_weather [call_tool]: "),
        "{text}"
    );
    assert!(text.contains("\n  arguments: city: string"), "{text}");
}

#[test]
fn nothing_fits_is_said_plainly_with_the_nearest_held_back() {
    let g = gateway(GatewayConfig::default());
    let found = runtime().block_on(g.search_tools(
        "s",
        None,
        &Reach::default(),
        &args(json!({"query": "get the stock price"})),
    ));
    assert!(found.names.is_empty(), "{:?}", found.names);
    let answer = found.result.structured_content.unwrap();
    assert_eq!(answer["tools"], json!([]));
    assert_eq!(answer["nothing_fits"], true, "{answer}");
    assert!(
        answer["note"].as_str().unwrap().contains("fits"),
        "{answer}"
    );
    // With the gate off, the weak match comes back.
    let mut off = GatewayConfig::default();
    off.service.gate = false;
    let found = runtime().block_on(gateway(off).search_tools(
        "s",
        None,
        &Reach::default(),
        &args(json!({"query": "get the stock price"})),
    ));
    assert!(!found.names.is_empty());
}

#[test]
fn with_the_gate_on_an_answer_whose_best_tool_fits_stands_whole() {
    // The gate every front end has: get_weather fits, so the tools below
    // it come too (get_time matches only the generic "get"), as with the
    // gate off.
    let query = args(json!({"query": "get the weather in Oslo"}));
    let on = runtime().block_on(gateway(GatewayConfig::default()).search_tools(
        "s",
        None,
        &Reach::default(),
        &query,
    ));
    assert_eq!(on.names, ["get_weather", "get_time"]);
    let mut config = GatewayConfig::default();
    config.service.gate = false;
    let off = runtime().block_on(gateway(config.clone()).search_tools(
        "s",
        None,
        &Reach::default(),
        &query,
    ));
    assert_eq!(off.names, on.names);
    // A request whose best tool does not fit loads nothing with the gate
    // on, and the nearest with it off.
    let query = args(json!({"query": "get a quote"}));
    let on = runtime().block_on(gateway(GatewayConfig::default()).search_tools(
        "s",
        None,
        &Reach::default(),
        &query,
    ));
    assert!(on.names.is_empty(), "{:?}", on.names);
    let off =
        runtime().block_on(gateway(config).search_tools("s", None, &Reach::default(), &query));
    assert!(!off.names.is_empty());
}

#[test]
fn search_arguments_are_checked() {
    let g = gateway(GatewayConfig {
        max_tools: crate::tools_handle::MaxTools::of(2),
        ..GatewayConfig::default()
    });
    let rt = runtime();
    for (bad, says) in [
        (json!({}), "needs `query`"),
        (json!({"query": 3}), "must be a string, not a number"),
        (json!({"query": "x", "limit": 0}), "from 1 to 2"),
        (json!({"query": "x", "limit": "3"}), "not a string"),
        (json!({"query": "x", "top": 3}), "not \"top\""),
    ] {
        let r = rt
            .block_on(g.search_tools("s", None, &Reach::default(), &args(bad.clone())))
            .result;
        assert_eq!(r.is_error, Some(true), "{bad}");
        assert!(text(&r).contains(says), "{bad}: {}", text(&r));
    }
    let r = rt.block_on(g.search_tools(
        "s",
        None,
        &Reach::default(),
        &args(json!({"query": "send email or book flight", "limit": 9})),
    ));
    assert!(r.names.len() <= 2);
    let note = r.result.structured_content.unwrap()["note"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(note.contains("above this gateway's cap of 2"), "{note}");
}

#[test]
fn calls_check_the_name_and_the_arguments_before_anything_runs() {
    let g = gateway(GatewayConfig::default());
    let b = g.new_breaker();
    let rt = runtime();
    let r = rt.block_on(g.call_tool_meta_done(
        "s",
        &b,
        &args(json!({"name": "get_wether", "arguments": {"city": "Oslo"}})),
        Via::default(),
    ));
    assert_eq!(r.is_error, Some(true));
    assert!(
        text(&r).contains("The closest names: get_weather"),
        "{}",
        text(&r)
    );
    let r = rt.block_on(g.call_tool_meta_done(
        "s",
        &b,
        &args(json!({"name": "book_flight", "arguments": {"from": "OSL"}})),
        Via::default(),
    ));
    assert_eq!(r.is_error, Some(true));
    assert!(
        text(&r).contains("\"to\" is a required property"),
        "{}",
        text(&r)
    );
    assert!(text(&r).contains("was not sent"));
    let r = rt.block_on(g.call_tool_meta_done(
        "s",
        &b,
        &args(json!({"name": "book_flight", "arguments": "{\"from\":\"OSL\",\"to\":\"CDG\"}"})),
        Via::default(),
    ));
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(r.structured_content, Some(json!({"ran": "book_flight"})));
    let r = rt.block_on(g.call_tool_meta_done(
        "s",
        &b,
        &args(json!({"name": "book_flight", "arguments": [1]})),
        Via::default(),
    ));
    assert!(text(&r).contains("must be an object, not an array"));
    // Names as agents write them resolve to the one tool.
    let r = rt.block_on(g.call_tool_meta_done(
        "s",
        &b,
        &args(json!({"name": "test.send_email"})),
        Via::default(),
    ));
    assert_eq!(r.structured_content, Some(json!({"ran": "send_email"})));
}

#[test]
fn the_breaker_blocks_the_call_past_the_threshold_and_a_different_call_resets_it() {
    let g = gateway(GatewayConfig {
        breaker_threshold: 2,
        breaker_threshold_read_only: 3,
        ..GatewayConfig::default()
    });
    let rt = runtime();
    let b = g.new_breaker();
    let email = || args(json!({"name": "send_email", "arguments": {"to": "a"}}));
    for _ in 0..2 {
        assert_eq!(
            rt.block_on(g.call_tool_meta_done("s", &b, &email(), Via::default()))
                .is_error,
            Some(false)
        );
    }
    let blocked = rt.block_on(g.call_tool_meta_done("s", &b, &email(), Via::default()));
    assert_eq!(blocked.is_error, Some(true));
    assert!(
        text(&blocked).contains("called 3 times in a row"),
        "{}",
        text(&blocked)
    );
    // Other arguments are another call: the streak starts again.
    let other = args(json!({"name": "send_email", "arguments": {"to": "b"}}));
    assert_eq!(
        rt.block_on(g.call_tool_meta_done("s", &b, &other, Via::default()))
            .is_error,
        Some(false)
    );
    // Read-only tools have their own threshold.
    let weather = || args(json!({"name": "get_weather", "arguments": {"city": "Oslo"}}));
    for _ in 0..3 {
        assert_eq!(
            rt.block_on(g.call_tool_meta_done("s", &b, &weather(), Via::default()))
                .is_error,
            Some(false)
        );
    }
    assert_eq!(
        rt.block_on(g.call_tool_meta_done("s", &b, &weather(), Via::default()))
            .is_error,
        Some(true)
    );
    // Another session has its own breaker.
    let fresh: SessionBreaker = g.new_breaker();
    assert_eq!(
        rt.block_on(g.call_tool_meta_done("t", &fresh, &weather(), Via::default()))
            .is_error,
        Some(false)
    );
}

#[test]
fn the_saving_counts_every_tool_direct_and_the_meta_tools_through() {
    let g = gateway(GatewayConfig::default());
    let s = list_saving(&g, crate::tokens::TokenBasis::O200kBase);
    assert_eq!(s.direct_tools, 6);
    assert_eq!(s.gateway_tools, 4);
    // A search_tools answer: at most max_tools (8) of the 4 tools that are
    // not always-load; the largest cost at least what the median ones do.
    assert_eq!(s.answer_tools, 4);
    assert!(s.answer_tokens_max >= s.answer_tokens_median && s.answer_tokens_median > 0);
    assert!(s.direct_tokens > 0 && s.gateway_tokens > 0);
    assert_eq!(s.saved(), s.direct_tokens.saturating_sub(s.gateway_tokens));
    // The catalog file's tools are one group; the always-load ones named.
    assert_eq!(s.servers.len(), 1);
    assert_eq!(s.servers[0].server, "(catalog files)");
    assert_eq!(s.servers[0].tools, 6);
    assert_eq!(s.always_load.len(), 2, "{:?}", s.always_load);
    // The answer's text is compact: a search answer costs less than its
    // JSON twice would.
    let snapshot = g.snapshot();
    let answer = json!({"query": "", "ranker": "bm25", "tools": (0..6)
        .filter(|&i| !snapshot.catalog.tools()[i].always_load)
        .map(|i| super::answer::find::found_tool(&snapshot, i, crate::service::Reason::Ranked, &Default::default()))
        .collect::<Vec<_>>()});
    let twice = crate::tokens::TokenBasis::O200kBase
        .count(&serde_json::to_string(&super::answer::results::json_result(answer)).unwrap());
    assert!(
        s.answer_tokens_max < twice * 17 / 20,
        "{} vs {twice}",
        s.answer_tokens_max
    );
}

#[test]
fn under_a_provider_basis_the_saving_is_what_the_model_is_billed() {
    use crate::tokens::TokenBasis;
    let g = gateway(GatewayConfig::default());
    for basis in [TokenBasis::OpenAi, TokenBasis::ANTHROPIC] {
        let s = list_saving(&g, basis);
        let snapshot = g.snapshot();
        // Every tool as the provider takes it, and the overhead once.
        let direct = basis.set_cost(
            snapshot
                .catalog
                .tools()
                .iter()
                .map(|t| basis.count(&basis.tool_text(t))),
        );
        assert_eq!(s.direct_tokens, direct, "{basis}");
        assert!(s.gateway_tokens > basis.request_overhead(), "{basis}");
        assert_eq!(s.basis, basis.as_str());
    }
}

#[test]
fn search_tools_answers_what_the_service_answers_under_the_gateways_policy() {
    use crate::service::{GateMode, SearchRequest};
    let g = gateway(GatewayConfig::default());
    let rt = runtime();
    for query in [
        "weather in Paris",
        "get the weather in Oslo",
        "book a flight and send an email about it",
        "get the stock price",
    ] {
        let found = rt.block_on(g.search_tools(
            "s",
            None,
            &Reach::default(),
            &args(json!({"query": query})),
        ));
        // The same request to the service, with the gateway's policy in its
        // parameters.
        let snapshot = g.snapshot();
        let params = SearchRequest {
            query: query.into(),
            max_tools: Some(GatewayConfig::default().max_tools),
            gate: Some(true),
            gate_mode: GateMode::Any,
            omit_always_load: true,
            unrecorded: true,
            ..SearchRequest::default()
        };
        let service = crate::service::Service::new(crate::service::ServiceConfig::default());
        let outcome = service.tool_search(&snapshot.catalog, &params, "").unwrap();
        let names: Vec<String> = outcome
            .tools
            .iter()
            .map(|t| snapshot.catalog.tools()[t.index].name.clone())
            .collect();
        assert_eq!(found.names, names, "{query:?}");
        let answer = found.result.structured_content.unwrap();
        assert_eq!(answer["ranker"], "bm25", "{answer}");
    }
}

/// The gateway searches the catalog it built, however large: `serve`'s
/// limit on a request's catalog (10,000 tools) is not its own.
#[test]
fn search_tools_searches_a_catalog_larger_than_a_requests_limit() {
    let tools = (0..10_500)
        .map(|i| Tool::new(format!("tool_{i:05}"), format!("Does thing number {i}")))
        .collect();
    let big = Catalog::new("big", tools).unwrap();
    let host = Arc::new(McpHost::new(Duration::from_secs(5)).unwrap());
    let g = Gateway::new(
        GatewayConfig::default(),
        host,
        None,
        vec![big],
        Recorder::quiet(),
    )
    .unwrap();
    assert!(
        g.service.config().max_catalog_tools >= 10_500 + crate::sources::mcp::MAX_CATALOG_TOOLS
    );
    let found = runtime().block_on(g.search_tools(
        "s",
        None,
        &Reach::default(),
        &args(json!({"query": "tool_10499"})),
    ));
    assert_eq!(
        found.result.is_error,
        Some(false),
        "{}",
        text(&found.result)
    );
    assert_eq!(found.names.first().map(String::as_str), Some("tool_10499"));
}

#[test]
fn search_tools_takes_the_steps_of_a_task_as_queries() {
    let g = gateway(GatewayConfig::default());
    let rt = runtime();
    let found = rt.block_on(g.search_tools(
        "s",
        None,
        &Reach::default(),
        &args(json!({"query": "", "queries": ["book a flight to Oslo", "send an email to Ann"]})),
    ));
    assert_eq!(
        found.result.is_error,
        Some(false),
        "{}",
        text(&found.result)
    );
    for tool in ["book_flight", "send_email"] {
        assert!(found.names.iter().any(|n| n == tool), "{:?}", found.names);
    }
    // One message of two steps finds the same tools.
    let one = rt.block_on(g.search_tools(
        "s",
        None,
        &Reach::default(),
        &args(json!({"query": "book a flight to Oslo, then send an email to Ann"})),
    ));
    let (mut a, mut b) = (found.names.clone(), one.names.clone());
    a.sort();
    b.sort();
    assert_eq!(a, b);
    for (bad, says) in [
        (
            json!({"query": "x", "queries": "a"}),
            "`queries` must be an array of strings, not a string",
        ),
        (
            json!({"query": "x", "queries": ["a", 2]}),
            "`queries[1]` must be a string, not a number",
        ),
        (
            json!({"query": "x", "queries": ["a", " "]}),
            "`queries[1]` is empty",
        ),
        (
            json!({"queries": (0..17).map(|i| format!("s{i}")).collect::<Vec<_>>()}),
            "`queries` holds 17 items; at most 16",
        ),
    ] {
        let r = rt
            .block_on(g.search_tools("s", None, &Reach::default(), &args(bad.clone())))
            .result;
        assert_eq!(r.is_error, Some(true), "{bad}");
        assert!(text(&r).contains(says), "{bad}: {}", text(&r));
    }
    let search = &listing(
        &g.snapshot(),
        crate::tools_handle::MaxTools::of(8),
        &[],
        "d",
    )[1];
    assert_eq!(search.input_schema["properties"]["queries"]["maxItems"], 16);
}

impl Gateway {
    /// `call_tool_meta`'s result, which these tests expect complete.
    pub(super) async fn call_tool_meta_done(
        &self,
        session: &str,
        breaker: &super::answer::call::SessionBreaker,
        arguments: &rmcp::model::JsonObject,
        via: Via<'_>,
    ) -> rmcp::model::CallToolResult {
        match self.call_tool_meta(session, breaker, arguments, via).await {
            rmcp::model::CallToolResponse::Complete(result) => result,
            other => panic!("a complete result, not {other:?}"),
        }
    }
}

#[test]
fn a_refusal_quotes_at_most_a_few_kilobytes_of_a_large_schema() {
    let properties: serde_json::Map<String, Value> = (0..20_000)
        .map(|i| (format!("field_{i}"), json!({"type": "string"})))
        .collect();
    let schema = json!({"type": "object", "properties": properties, "required": ["field_0"]});
    let files = vec![Catalog::new("big", vec![tool("fill_form", "Fill a form", schema)]).unwrap()];
    let host = Arc::new(McpHost::new(Duration::from_secs(5)).unwrap());
    let g = Gateway::new(
        GatewayConfig::default(),
        host,
        None,
        files,
        Recorder::quiet(),
    )
    .unwrap();
    let rt = runtime();
    let r = rt.block_on(g.call_tool_meta_done(
        "s",
        &g.new_breaker(),
        &args(json!({"name": "fill_form", "arguments": {}})),
        Via::default(),
    ));
    assert_eq!(r.is_error, Some(true));
    let said = text(&r);
    assert!(said.contains("was not sent"), "{said}");
    assert!(said.len() < 4 * 1024, "{} bytes", said.len());
    assert!(said.contains("cut: the whole schema is"), "{said}");
}

#[test]
fn a_retry_whose_state_is_no_question_of_the_gateways_runs_nothing() {
    let g = gateway(GatewayConfig::default());
    let rt = runtime();
    let retry = |state: &'static str| Via {
        asking: super::policy::approve::Asking {
            by_retry: true,
            state: Some(state),
            ..Default::default()
        },
        ..Via::default()
    };
    // A stale or made-up state never starts the call afresh.
    let r = rt.block_on(g.call_tool_meta_done(
        "s",
        &g.new_breaker(),
        &args(json!({"name": "get_time", "arguments": {}})),
        retry("round-0123456789abcdef0123456789abcdef"),
    ));
    assert_eq!(r.is_error, Some(true));
    let said = text(&r);
    assert!(said.contains("nothing ran"), "{said}");
    // Without a state, the same call goes on to the tool.
    let r = rt.block_on(g.call_tool_meta_done(
        "s",
        &g.new_breaker(),
        &args(json!({"name": "get_time", "arguments": {}})),
        Via::default(),
    ));
    assert!(!text(&r).contains("nothing ran"), "{}", text(&r));
}
