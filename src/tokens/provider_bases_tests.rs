//! The provider bases: what a tool is counted on, and a set's overhead.

use super::*;

#[test]
fn provider_bases_count_what_the_provider_sees_and_add_their_overhead() {
    let mut t = Tool::new("get_weather", "Get the weather in a city");
    t.input_schema =
        serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}}});
    let counter = TokenCounter::new();
    let openai = counter.tool_tokens(&t, TokenBasis::OpenAi);
    assert_eq!(
        openai,
        TokenBasis::O200kBase.count(&openai::render_tool(&t))
    );
    let claude = counter.tool_tokens(&t, TokenBasis::ANTHROPIC);
    let cl100k = TokenBasis::Cl100kBase.count(&crate::provider::anthropic::anthropic_json(&t));
    assert_eq!(claude, (cl100k as f64 * 1.23).round() as u64);
    // A set pays the overhead once; no tools, nothing.
    let o = TokenBasis::OpenAi.request_overhead();
    assert_eq!(
        o,
        TokenBasis::O200kBase.count(openai::HEADER)
            + TokenBasis::O200kBase.count(openai::FOOTER)
            + 9
    );
    assert_eq!(
        TokenBasis::OpenAi.set_cost([openai, openai]),
        2 * openai + o
    );
    assert_eq!(TokenBasis::ANTHROPIC.set_cost([claude]), claude + 346);
    assert_eq!(TokenBasis::OpenAi.set_cost(std::iter::empty()), 0);
    assert_eq!(TokenBasis::O200kBase.set_cost([3, 4]), 7);
    // Names on the wire, and the label of an estimate.
    assert_eq!(
        "openai:gpt-4".parse::<TokenBasis>(),
        Ok(TokenBasis::OpenAiGpt4)
    );
    assert_eq!(TokenBasis::ANTHROPIC.label(), "anthropic (estimate)");
}

#[test]
fn a_model_names_its_family() {
    let p = |s: &str| s.parse::<TokenBasis>();
    // OpenAI: the model's encoding, as tiktoken maps model names.
    assert_eq!(p("openai:gpt-4o-mini"), Ok(TokenBasis::OpenAi));
    assert_eq!(p("openai:gpt-5"), Ok(TokenBasis::OpenAi));
    assert_eq!(p("openai:gpt-3.5-turbo"), Ok(TokenBasis::OpenAiGpt4));
    assert!(p("openai:davinci").is_err());
    assert!(p("openai:nonsense").is_err());
    // Anthropic: the family's prompt, and the choice's.
    let sonnet = p("anthropic:claude-sonnet-4-5").unwrap();
    assert_eq!(sonnet, TokenBasis::ANTHROPIC);
    assert_eq!(sonnet.label(), "anthropic (estimate)");
    let opus3 = p("anthropic:claude-3-opus-20240229").unwrap();
    assert_eq!(opus3.as_str(), "anthropic:claude-3-opus");
    assert_eq!(opus3.request_overhead(), 530);
    assert_eq!(p("anthropic:any").unwrap().request_overhead(), 313);
    assert!(opus3.label().ends_with("(estimate)"));
    // Every name round-trips, and the cache keeps each basis apart.
    let t = Tool::new("ping", "Ping the host");
    let counter = TokenCounter::new();
    for b in TokenBasis::NAMED {
        assert_eq!(p(b.as_str()), Ok(b));
        counter.tool_tokens(&t, b);
    }
    assert_eq!(counter.cached_count(), TokenBasis::NAMED.len());
}
