//! A catalog's cost under every basis side by side (`check --bases all`):
//! the tokenizers over each tool's JSON, Caveman's bytes/4 estimate, and
//! OpenAI's own rendering of functions ([`crate::provider::openai`]), whose
//! cost is the rendered block's plus the request's overhead, not a sum of
//! JSON.

use serde::Serialize;

use super::{TokenBasis, TokenCounter, reduction_pct, saved_tokens};
use crate::catalog::Tool;
use crate::provider::anthropic::anthropic_json;
use crate::provider::openai::{REQUEST_OVERHEAD, render_block};

/// How a basis counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    /// The encoding over each tool's compact JSON, summed (toolsift's
    /// figures elsewhere).
    Json,
    /// `ceil(bytes / 4)` of each tool's JSON: Caveman's own estimate.
    Estimate,
    /// OpenAI's rendering of the functions as TypeScript, one block, with
    /// the request's overhead: what an OpenAI bill counts.
    Rendered,
    /// Anthropic's tool-use system prompt and each tool as the Messages API
    /// takes it, through a calibrated offline estimate (Claude's tokenizer
    /// is not public): [`anthropic_estimate`].
    AnthropicEstimate,
    /// The provider's own counting endpoint: exact.
    Exact,
}

/// The estimate of what `tools` cost a Claude request: the tool-use prompt
/// and each definition's cl100k_base count times [`super::anthropic::ANTHROPIC_PER_CL100K`],
/// rounded per tool as [`TokenBasis::ANTHROPIC`] counts a tool
/// (nothing for no tools).
pub fn anthropic_estimate(tools: &[&Tool]) -> u64 {
    if tools.is_empty() {
        return 0;
    }
    let basis = TokenBasis::ANTHROPIC;
    basis.set_cost(tools.iter().map(|t| basis.count(&anthropic_json(t))))
}

/// One basis's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BasisCost {
    /// `o200k_base`, …, `openai` (o200k_base, GPT-4o and later),
    /// `openai:gpt-4` (cl100k_base).
    pub basis: String,
    pub counted: Counted,
    pub full_tokens: u64,
    pub initial_tokens: u64,
    pub saved_tokens: u64,
    pub reduction_pct: f64,
}

impl BasisCost {
    pub fn new(basis: &str, counted: Counted, full: u64, initial: u64) -> BasisCost {
        BasisCost {
            basis: basis.to_string(),
            counted,
            full_tokens: full,
            initial_tokens: initial,
            saved_tokens: saved_tokens(full, initial),
            reduction_pct: reduction_pct(full, initial),
        }
    }
}

/// The rendered bases: a name and the encoding their models use.
pub const RENDERED: [(&str, TokenBasis); 2] = [
    ("openai", TokenBasis::O200kBase),
    ("openai:gpt-4", TokenBasis::Cl100kBase),
];

/// `all` and its `initial` subset under every basis.
pub fn costs_by_basis(all: &[&Tool], initial: &[&Tool], counter: &TokenCounter) -> Vec<BasisCost> {
    let row = |basis: &str, counted, full: u64, initial: u64| {
        BasisCost::new(basis, counted, full, initial)
    };
    let mut rows: Vec<BasisCost> = [
        TokenBasis::O200kBase,
        TokenBasis::Cl100kBase,
        TokenBasis::EstimatedBytesDiv4,
    ]
    .into_iter()
    .map(|b| {
        let sum = |tools: &[&Tool]| -> u64 {
            counter.tools_tokens(tools.iter().copied(), b).iter().sum()
        };
        let counted = if b == TokenBasis::EstimatedBytesDiv4 {
            Counted::Estimate
        } else {
            Counted::Json
        };
        row(b.as_str(), counted, sum(all), sum(initial))
    })
    .collect();
    for (name, encoding) in RENDERED {
        let block = |tools: &[&Tool]| -> u64 {
            if tools.is_empty() {
                0
            } else {
                encoding.count(&render_block(tools.iter().copied())) + REQUEST_OVERHEAD
            }
        };
        rows.push(row(name, Counted::Rendered, block(all), block(initial)));
    }
    rows.push(row(
        "anthropic (estimate)",
        Counted::AnthropicEstimate,
        anthropic_estimate(all),
        anthropic_estimate(initial),
    ));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_basis_has_a_row_and_the_rendered_ones_count_the_block() {
        let mut a = Tool::new("get_weather", "Get the weather in a city");
        a.input_schema = serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
        let b = Tool::new("ping", "Ping");
        let rows = costs_by_basis(&[&a, &b], &[&b], &TokenCounter::new());
        let names: Vec<&str> = rows.iter().map(|r| r.basis.as_str()).collect();
        assert_eq!(
            names,
            [
                "o200k_base",
                "cl100k_base",
                "estimated_bytes_div_4",
                "openai",
                "openai:gpt-4",
                "anthropic (estimate)"
            ]
        );
        let claude = &rows[5];
        assert_eq!(claude.counted, Counted::AnthropicEstimate);
        let per = |t: &Tool| {
            crate::tokens::anthropic::scale(TokenBasis::Cl100kBase.count(&anthropic_json(t)))
        };
        assert_eq!(claude.full_tokens, 346 + per(&a) + per(&b));
        let openai = &rows[3];
        assert_eq!(openai.counted, Counted::Rendered);
        assert_eq!(
            openai.full_tokens,
            TokenBasis::O200kBase.count(&render_block([&a, &b])) + REQUEST_OVERHEAD
        );
        assert_eq!(
            openai.saved_tokens,
            openai.full_tokens - openai.initial_tokens
        );
        // Nothing sent costs nothing, overheads and prompts included.
        let none = costs_by_basis(&[&a], &[], &TokenCounter::new());
        assert_eq!(none[3].initial_tokens, 0);
        assert_eq!(none[5].initial_tokens, 0);
    }
}
