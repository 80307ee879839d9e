//! What the host sees in `tools/list`: the always-load tools as their
//! servers wrote them, and the three meta-tools.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool as McpTool, ToolAnnotations};
use serde_json::json;

use crate::catalog::Tool;
use crate::engine::intents::MAX_INTENTS;
use crate::gateway::Snapshot;
use crate::tools_handle::MaxTools;

/// The servers' listings by (server, the server's name for the tool).
pub(crate) type Listed = std::collections::HashMap<(String, String), McpTool>;

pub const SEARCH_TOOLS: &str = "search_tools";
pub const CALL_TOOL: &str = "call_tool";
/// The dispatcher of read-only tools: a host can approve it once and still
/// ask before each `call_tool`.
pub const CALL_READ_TOOL: &str = "call_read_tool";

const CALL_DESCRIPTION: &str = "Call a tool that search_tools found, by its exact name, with arguments that follow its input schema. The result is the tool's own. Arguments that break the schema, and the same call repeated in a loop, are refused before they reach the tool. For a tool search_tools marks \"call_with\": \"call_read_tool\", use call_read_tool.";
const CALL_READ_DESCRIPTION: &str = "call_tool for the reads that stay on this machine: the tools search_tools marks \"call_with\": \"call_read_tool\" (read-only, not open-world). It refuses any other.";

fn object(value: serde_json::Value) -> Arc<JsonObject> {
    match value {
        serde_json::Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// `search_tools(query, limit?)`, with `limit` up to `max_tools`, described
/// as `description` says.
pub(crate) fn search_tool(max_tools: MaxTools, description: &str) -> McpTool {
    let schema = json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What you want to do, in plain words (e.g. \"what time is it in Tokyo\")."
            },
            "queries": {
                "type": "array",
                "items": {"type": "string"},
                "maxItems": MAX_INTENTS,
                "description": "For a task of several steps: one short request per step (e.g. [\"stage README.md\", \"commit it\"]); each step's tools come back. `query` may then be left empty."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": max_tools,
                "description": format!("Most tools to return (default and most: {max_tools}).")
            }
        },
        "required": ["query"],
        "additionalProperties": false
    });
    let mut tool = McpTool::new(SEARCH_TOOLS, description.to_string(), object(schema));
    tool.annotations = Some(
        ToolAnnotations::new()
            .read_only(true)
            .idempotent(true)
            .open_world(false),
    );
    tool
}

/// `call_tool(name, arguments)` (any tool; it may write), or with
/// `read_only` `call_read_tool` (read-only tools only), annotated so.
pub(crate) fn call_tool(read_only: bool) -> McpTool {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "description": "The tool's exact name, as search_tools gave it."
            },
            "arguments": {
                "type": "object",
                "description": "The tool's arguments, following its input schema."
            }
        },
        "required": ["name"],
        "additionalProperties": false
    });
    let (name, description) = if read_only {
        (CALL_READ_TOOL, CALL_READ_DESCRIPTION)
    } else {
        (CALL_TOOL, CALL_DESCRIPTION)
    };
    let mut tool = McpTool::new(name, description, object(schema));
    tool.annotations = Some(if read_only {
        // It runs only closed-world reads (or those a `read` rule vouches for).
        ToolAnnotations::new().read_only(true).open_world(false)
    } else {
        ToolAnnotations::new()
            .read_only(false)
            .destructive(true)
            .open_world(true)
    });
    tool
}

/// A catalog tool as its server listed it (annotations, output schema and
/// all), under its catalog name; from the catalog alone when the server's
/// listing is gone (or the tool came from a file).
pub(crate) fn upstream_definition(tool: &Tool, listed: &Listed) -> McpTool {
    let found = tool
        .mcp
        .as_ref()
        .and_then(|m| listed.get(&(m.server.to_string(), m.name.clone())));
    match found {
        Some(t) => {
            let mut t = t.clone();
            t.name = Cow::Owned(tool.name.clone());
            t
        }
        None => {
            let schema = object(tool.input_schema.clone());
            McpTool::new(tool.name.clone(), tool.description.clone(), schema)
        }
    }
}

/// The session's `tools/list`: the always-load tools (one whose name is a
/// meta-tool's is left out, and reachable through `call_tool`), the
/// meta-tools (`search_tools` described as `description` says: the
/// session's first), then the `exposed` tools (found in this session).
pub(crate) fn listing(
    snapshot: &Snapshot,
    max_tools: MaxTools,
    exposed: &[String],
    description: &str,
) -> Vec<McpTool> {
    let mut out: Vec<McpTool> = snapshot
        .catalog
        .tools()
        .iter()
        .zip(&snapshot.listed)
        .filter(|(t, _)| t.always_load && !is_meta(&t.name))
        .map(|(_, listed)| listed.clone())
        .collect();
    out.push(search_tool(max_tools, description));
    out.push(call_tool(true));
    out.push(call_tool(false));
    for name in exposed {
        if let Some(i) = snapshot.catalog.index_of(name)
            && !snapshot.catalog.tools()[i].always_load
            && !is_meta(name)
        {
            out.push(snapshot.listed[i].clone());
        }
    }
    out
}

pub(crate) fn is_meta(name: &str) -> bool {
    name == SEARCH_TOOLS || name == CALL_TOOL || name == CALL_READ_TOOL
}
