//! A search response as a compatible client reads it (docs/wire.md §3):
//! leniently where the SDKs are lenient, strictly where they are strict.

use serde_json::Value;

use super::{ToolSearchResponse, WireMatch, WireSelectedTool, WireTool};

/// Largest integer a JSON number carries exactly (2^53 - 1).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A response body no compatible client would accept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResponseError {
    #[error("tool search response tools must be an array")]
    NotAnArray,
    /// A tool without a string name (the SDKs then fail as for an unknown
    /// tool).
    #[error("tool search response contained an unknown or duplicate tool")]
    UnknownOrDuplicate,
    /// The body is not a JSON object.
    #[error("tool search response is not a JSON object: {0}")]
    InvalidBody(String),
}

impl ResponseError {
    /// A stable code.
    pub fn code(&self) -> &'static str {
        match self {
            ResponseError::NotAnArray => "response_tools_not_array",
            ResponseError::UnknownOrDuplicate => "response_unknown_or_duplicate_tool",
            ResponseError::InvalidBody(_) => "response_not_json",
        }
    }
}

fn wire_count(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    let n = match v.as_u64() {
        Some(n) => n,
        None => {
            let f = v.as_f64()?;
            if f < 0.0 || f.fract() != 0.0 || f > MAX_SAFE_INTEGER as f64 {
                return None;
            }
            f as u64
        }
    };
    (n <= MAX_SAFE_INTEGER).then_some(n)
}

fn wire_string(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_string)
}

/// A response body as a compatible client reads it: leniently where the SDKs
/// are lenient (bad counts become 0, a missing `method` or `token_basis`
/// becomes blank for the client's rules to name), strictly where they are strict
/// (`tools` must be an array of objects with string names).
pub fn parse_response(body: &[u8]) -> Result<ToolSearchResponse, ResponseError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| ResponseError::InvalidBody(e.to_string()))?;
    let Value::Object(object) = value else {
        return Err(ResponseError::InvalidBody("not an object".into()));
    };
    let Some(Value::Array(items)) = object.get("tools") else {
        return Err(ResponseError::NotAnArray);
    };
    let mut tools = Vec::with_capacity(items.len());
    for item in items {
        let Some(name) = item.get("name").and_then(Value::as_str) else {
            return Err(ResponseError::UnknownOrDuplicate);
        };
        let matched = item
            .get("matched")
            .and_then(|m| serde_json::from_value::<Vec<WireMatch>>(m.clone()).ok())
            .unwrap_or_default();
        tools.push(WireSelectedTool {
            tool: WireTool {
                name: name.to_string(),
                description: wire_string(item.get("description")).unwrap_or_default(),
                input_schema: item.get("input_schema").cloned().unwrap_or(Value::Null),
                read_only: item
                    .get("read_only")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                idempotent: item
                    .get("idempotent")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                always_load: item
                    .get("always_load")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            },
            score: item.get("score").and_then(Value::as_f64),
            reason: wire_string(item.get("reason")),
            matched,
            dense: item
                .get("dense")
                .and_then(|d| serde_json::from_value(d.clone()).ok()),
            usage: item
                .get("usage")
                .and_then(|d| serde_json::from_value(d.clone()).ok()),
        });
    }
    let (sent, full) = match (
        wire_count(object.get("sent_schema_tokens")),
        wire_count(object.get("full_schema_tokens")),
    ) {
        (Some(s), Some(f)) => (s, f),
        _ => (0, 0),
    };
    Ok(ToolSearchResponse {
        tools,
        sent_schema_tokens: sent,
        full_schema_tokens: full,
        deferred_count: wire_count(object.get("deferred_count")).unwrap_or(0),
        method: wire_string(object.get("method")).unwrap_or_default(),
        token_basis: wire_string(object.get("token_basis")).unwrap_or_default(),
        session_id: wire_string(object.get("session_id")).unwrap_or_default(),
        note: wire_string(object.get("note")),
        session_tools: object
            .get("session_tools")
            .and_then(|v| serde_json::from_value::<Vec<String>>(v.clone()).ok())
            .unwrap_or_default(),
        session_note: wire_string(object.get("session_note")),
        embedding: object
            .get("embedding")
            .and_then(|v| serde_json::from_value(v.clone()).ok()),
        held_back: object
            .get("held_back")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default(),
        matching: object
            .get("matching")
            .and_then(|v| serde_json::from_value(v.clone()).ok()),
    })
}
