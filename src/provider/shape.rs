//! A tool as a request carries it: each provider API's shape, and MCP's and
//! Caveman's, which a payload or a catalog file can be written in too. The
//! token counter and the pass-through send these; the exports write them
//! (`crate::export`); the shared store keeps the Caveman one.

use serde_json::{Map, Value, json};

use crate::catalog::{META_SERVER, META_SERVER_ABOUT, Tool};

/// The provider payload formats: the loaded tools as a request to that
/// provider carries them (`toolsift search --export`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PayloadFormat {
    /// OpenAI Responses API: `{"type": "function", "name", "description",
    /// "parameters"}`.
    OpenaiResponses,
    /// OpenAI Chat Completions: `{"type": "function", "function": {"name",
    /// "description", "parameters"}}`.
    OpenaiChat,
    /// Anthropic Messages: `{"name", "description", "input_schema"}`.
    Anthropic,
    /// MCP `Tool`: `{"name", "title"?, "description", "inputSchema",
    /// "annotations"}`.
    Mcp,
    /// The Caveman wire descriptor.
    Caveman,
}

impl PayloadFormat {
    /// Its name, as `--export` takes it.
    pub fn name(self) -> &'static str {
        match self {
            PayloadFormat::OpenaiResponses => "openai-responses",
            PayloadFormat::OpenaiChat => "openai-chat",
            PayloadFormat::Anthropic => "anthropic",
            PayloadFormat::Mcp => "mcp",
            PayloadFormat::Caveman => "caveman",
        }
    }
}

/// One tool in a provider's shape.
pub fn payload_tool(t: &Tool, format: PayloadFormat) -> Value {
    match format {
        PayloadFormat::OpenaiResponses => json!({
            "type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema,
        }),
        PayloadFormat::OpenaiChat => json!({"type": "function", "function": {
            "name": t.name, "description": t.description, "parameters": t.input_schema,
        }}),
        PayloadFormat::Anthropic => {
            json!({"name": t.name, "description": t.description, "input_schema": t.input_schema})
        }
        PayloadFormat::Mcp => mcp(t),
        PayloadFormat::Caveman => caveman(t),
    }
}

fn caveman(t: &Tool) -> Value {
    json!({
        "name": t.name,
        "description": t.description,
        "input_schema": t.input_schema,
        "read_only": t.read_only,
        "idempotent": t.idempotent,
        "always_load": t.always_load,
    })
}

fn mcp(t: &Tool) -> Value {
    let mut v = Map::new();
    v.insert("name".into(), json!(t.name));
    if let Some(title) = t.mcp.as_ref().and_then(|m| m.title.as_ref()) {
        v.insert("title".into(), json!(title));
    }
    v.insert("description".into(), json!(t.description));
    v.insert("inputSchema".into(), t.input_schema.clone());
    v.insert(
        "annotations".into(),
        json!({"readOnlyHint": t.read_only, "idempotentHint": t.idempotent}),
    );
    if let Some(origin) = &t.mcp {
        // Which server it came from (and what that server says of itself),
        // so the catalog searches as the gathered one did.
        let mut meta = Map::new();
        meta.insert(META_SERVER.into(), json!(origin.server.as_ref()));
        if let Some(about) = &origin.about {
            meta.insert(META_SERVER_ABOUT.into(), json!(about.as_ref()));
        }
        v.insert("_meta".into(), Value::Object(meta));
    }
    Value::Object(v)
}
