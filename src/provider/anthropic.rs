//! Tools as Anthropic's models are given them: each definition as the
//! Messages API takes it, compact. Claude's tokenizer is not public, so
//! [`crate::tokens`] counts this text with cl100k_base and scales it (its
//! `anthropic` module), and adds the tool-use prompt of the model family.

use super::{PayloadFormat, payload_tool};
use crate::catalog::Tool;

/// The tool as the Messages API takes it: `{"name", "description",
/// "input_schema"}`, compact.
pub fn anthropic_json(tool: &Tool) -> String {
    payload_tool(tool, PayloadFormat::Anthropic).to_string()
}
