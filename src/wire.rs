//! Serde types of the Caveman tool-search protocol (CONTRACT §3), field names
//! exactly as on the wire, plus toolsift's documented extensions (`score`,
//! `matched`, `note`, `session_tools`, request `token_basis`), which Caveman
//! clients ignore.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::catalog::Tool;

/// The path of the endpoint, below the base URL.
pub const TOOL_SEARCH_PATH: &str = "/sdk/v1/tool-search";

/// A request body. `tools` stays raw so the catalog importer reads it (with
/// its positions and messages); the integers stay JSON values so a bad one
/// gets the SDK's message rather than serde's.
#[derive(Debug, Deserialize)]
pub struct ToolSearchRequest<'a> {
    #[serde(borrow)]
    pub tools: &'a RawValue,
    pub query: Value,
    #[serde(default)]
    pub context: Option<Value>,
    #[serde(default)]
    pub max_tools: Option<Value>,
    #[serde(default)]
    pub session_id: Option<Value>,
    #[serde(default)]
    pub ranker: Option<Value>,
    /// toolsift extension: the counter for the token figures.
    #[serde(default)]
    pub token_basis: Option<Value>,
}

/// A tool as sent in a request (snake_case descriptor).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    pub read_only: bool,
    pub idempotent: bool,
    pub always_load: bool,
}

impl From<&Tool> for WireTool {
    fn from(t: &Tool) -> Self {
        WireTool {
            name: t.name.clone(),
            description: t.description.clone(),
            input_schema: t.input_schema.clone(),
            read_only: t.read_only,
            idempotent: t.idempotent,
            always_load: t.always_load,
        }
    }
}

/// One query term that matched a returned tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireMatch {
    pub term: String,
    pub fields: Vec<String>,
    pub score: f64,
}

/// A returned tool: the descriptor plus why it was loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireSelectedTool {
    #[serde(flatten)]
    pub tool: WireTool,
    /// Ranking score (0 for an always-load tool that matched nothing).
    pub score: f64,
    /// `always_load`, `exact_name` or `ranked`.
    pub reason: String,
    pub matched: Vec<WireMatch>,
}

/// A response body: every contract field always present.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSearchResponse {
    pub tools: Vec<WireSelectedTool>,
    pub sent_schema_tokens: u64,
    pub full_schema_tokens: u64,
    pub deferred_count: u64,
    pub method: String,
    pub token_basis: String,
    pub session_id: String,
    /// Why nothing (or only always-load tools) came back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Every tool loaded in this session so far, in first-load order.
    #[serde(default)]
    pub session_tools: Vec<String>,
}

/// Every error body: `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
}
