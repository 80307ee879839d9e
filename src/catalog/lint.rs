//! Lints: things a catalog may load with but that will hurt somewhere (a
//! provider rejecting a name, a model guessing at an undocumented tool).

use std::fmt;

use super::Catalog;

/// A tool whose provider definition is larger than this many bytes of compact
/// JSON (about 2,000 tokens) is flagged as unusually large.
pub const LARGE_TOOL_BYTES: usize = 8 * 1024;

/// One warning about one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    pub tool: String,
    pub message: String,
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool {:?}: {}", self.tool, self.message)
    }
}

fn name_ok(name: &str, max: usize, extra: &[char]) -> bool {
    let len = name.chars().count();
    (1..=max).contains(&len)
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || extra.contains(&c))
}

/// True when OpenAI accepts the name (`^[a-zA-Z0-9_-]{1,64}$`).
pub fn openai_name_ok(name: &str) -> bool {
    name_ok(name, 64, &[])
}

/// True when MCP's recommended pattern accepts the name (`[A-Za-z0-9_.-]{1,128}`).
pub fn mcp_name_ok(name: &str) -> bool {
    name_ok(name, 128, &['.'])
}

/// Lints every tool of the catalog, in catalog order.
pub fn lint(catalog: &Catalog) -> Vec<Lint> {
    let mut lints = Vec::new();
    for tool in catalog.tools() {
        let mut warn = |message: String| {
            lints.push(Lint {
                tool: tool.name.clone(),
                message,
            })
        };
        if !openai_name_ok(&tool.name) {
            warn("name is not accepted by OpenAI (^[a-zA-Z0-9_-]{1,64}$)".into());
        }
        if !mcp_name_ok(&tool.name) {
            warn("name is not accepted by MCP ([A-Za-z0-9_.-]{1,128})".into());
        }
        if tool.description.trim().is_empty() {
            warn("empty description: a model (and search) has only the name to go by".into());
        }
        if tool.input_schema.get("type").and_then(|t| t.as_str()) != Some("object") {
            warn(
                "input_schema has no \"type\": \"object\"; providers expect an object schema"
                    .into(),
            );
        }
        let bytes = serde_json::to_string(&tool.input_schema).map_or(0, |s| s.len())
            + tool.description.len()
            + tool.name.len();
        if bytes > LARGE_TOOL_BYTES {
            warn(format!(
                "unusually large: {bytes} bytes of definition (about {} tokens); consider trimming the description or schema",
                bytes.div_ceil(4)
            ));
        }
    }
    lints
}
