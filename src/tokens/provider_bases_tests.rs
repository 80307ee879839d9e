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
    let claude = counter.tool_tokens(&t, TokenBasis::AnthropicEstimate);
    let cl100k = TokenBasis::Cl100kBase.count(&by_basis::anthropic_json(&t));
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
    assert_eq!(
        TokenBasis::AnthropicEstimate.set_cost([claude]),
        claude + 346
    );
    assert_eq!(TokenBasis::OpenAi.set_cost(std::iter::empty()), 0);
    assert_eq!(TokenBasis::O200kBase.set_cost([3, 4]), 7);
    // Names on the wire, and the label of an estimate.
    assert_eq!(
        "openai:gpt-4".parse::<TokenBasis>(),
        Ok(TokenBasis::OpenAiGpt4)
    );
    assert_eq!(
        TokenBasis::AnthropicEstimate.label(),
        "anthropic (estimate)"
    );
}
