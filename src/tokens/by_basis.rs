//! A catalog's cost under every basis side by side (`check --bases all`):
//! the tokenizers over each tool's JSON, Caveman's bytes/4 estimate, and
//! OpenAI's own rendering of functions ([`super::openai`]), whose cost is
//! the rendered block's plus the request's overhead, not a sum of JSON.

use serde::Serialize;

use super::openai::{REQUEST_OVERHEAD, render_block};
use super::{TokenBasis, TokenCounter, reduction_pct, saved_tokens};
use crate::catalog::Tool;

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
}

/// One basis's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BasisCost {
    /// `o200k_base`, …, `openai` (o200k_base, GPT-4o and later),
    /// `openai:gpt-4` (cl100k_base).
    pub basis: &'static str,
    pub counted: Counted,
    pub full_tokens: u64,
    pub initial_tokens: u64,
    pub saved_tokens: u64,
    pub reduction_pct: f64,
}

/// The rendered bases: a name and the encoding their models use.
pub const RENDERED: [(&str, TokenBasis); 2] = [
    ("openai", TokenBasis::O200kBase),
    ("openai:gpt-4", TokenBasis::Cl100kBase),
];

/// `all` and its `initial` subset under every basis.
pub fn costs_by_basis(all: &[&Tool], initial: &[&Tool], counter: &TokenCounter) -> Vec<BasisCost> {
    let row = |basis: &'static str, counted, full: u64, initial: u64| BasisCost {
        basis,
        counted,
        full_tokens: full,
        initial_tokens: initial,
        saved_tokens: saved_tokens(full, initial),
        reduction_pct: reduction_pct(full, initial),
    };
    let mut rows: Vec<BasisCost> = TokenBasis::ALL
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
        let names: Vec<&str> = rows.iter().map(|r| r.basis).collect();
        assert_eq!(
            names,
            [
                "o200k_base",
                "cl100k_base",
                "estimated_bytes_div_4",
                "openai",
                "openai:gpt-4"
            ]
        );
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
        // Nothing sent costs nothing, overhead included.
        assert_eq!(
            costs_by_basis(&[&a], &[], &TokenCounter::new())[3].initial_tokens,
            0
        );
    }
}
