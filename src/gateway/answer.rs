//! The gateway's own results: JSON for the model (as text, and as
//! structured content), and `isError` results that say what went wrong.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// A result holding `value`: compact JSON text, and the same value as
/// structured content.
pub(crate) fn json_result(value: Value) -> CallToolResult {
    let text = value.to_string();
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

/// An `isError` result with `message` (the model reads it).
pub(crate) fn error_result(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}
