//! The gateway's own results: JSON for the model (as text, and as
//! structured content; a search answer's text in its compact form), and
//! `isError` results that say what went wrong.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// A result holding `value`: compact JSON text, and the same value as
/// structured content.
pub(crate) fn json_result(value: Value) -> CallToolResult {
    with_text(value.to_string(), value)
}

/// A `search_tools` result: `answer` as structured content, and as text
/// in the compact form a model reads ([`super::compact`]).
pub(crate) fn search_result(answer: Value) -> CallToolResult {
    with_text(super::compact::answer_text(&answer), answer)
}

fn with_text(text: String, value: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

/// An `isError` result with `message` (the model reads it).
pub(crate) fn error_result(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}
