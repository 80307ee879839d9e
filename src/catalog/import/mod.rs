//! Importers. Every format is read into the same [`Tool`]; the shape of each
//! tool decides how it is read, so a file may even mix formats.
//!
//! | format | how it is recognised |
//! |---|---|
//! | native TOML | `.toml` extension, or content that is not JSON |
//! | Caveman wire JSON | `input_schema` with `read_only` / `idempotent` / `always_load` |
//! | TypeScript camelCase | `inputSchema` with `readOnly` / `idempotent` / `alwaysLoad` |
//! | MCP `tools/list` | `inputSchema` (and `annotations`, `title`, `outputSchema`) |
//! | OpenAI Chat | `{"type":"function","function":{...}}` |
//! | OpenAI Responses | `{"type":"function","name":...,"parameters":...}` |
//! | Anthropic | `{name, description, input_schema}` |
//!
//! The top level may be an array of tools, an object with a `tools` array (an
//! MCP result, a Caveman request body, a provider request body), a JSON-RPC
//! response whose `result` has `tools`, or a single tool object.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::{Catalog, CatalogError, Position};

mod reader;
mod toml_file;

use reader::Reader;
use toml_file::parse_toml;

/// The format a tool was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Toml,
    Caveman,
    CamelCase,
    Mcp,
    OpenAiChat,
    OpenAiResponses,
    OpenAiFunction,
    Anthropic,
}

impl Format {
    pub fn label(self) -> &'static str {
        match self {
            Format::Toml => "toolsift TOML",
            Format::Caveman => "Caveman wire JSON",
            Format::CamelCase => "TypeScript camelCase JSON",
            Format::Mcp => "MCP tools/list",
            Format::OpenAiChat => "OpenAI Chat function tools",
            Format::OpenAiResponses => "OpenAI Responses function tools",
            Format::OpenAiFunction => "OpenAI legacy functions",
            Format::Anthropic => "Anthropic tools",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// How to read a text: by extension (`Toml`, `Json`) or by its content (`Sniff`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Toml,
    Json,
    Sniff,
}

impl SourceKind {
    /// From a file name: `.toml` is TOML, `.json`/`.jsonc` is JSON, else sniff.
    pub fn from_path(path: &std::path::Path) -> Self {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .as_deref()
        {
            Some("toml") => SourceKind::Toml,
            Some("json") => SourceKind::Json,
            _ => SourceKind::Sniff,
        }
    }
}

/// Parses `text` into a validated catalog. `origin` names the source in every
/// message (a path, `<stdin>`, `@demo`); `default_name` names the catalog when
/// the text does not.
pub fn parse(
    text: &str,
    origin: &str,
    default_name: &str,
    kind: SourceKind,
) -> Result<Catalog, CatalogError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match kind {
        SourceKind::Toml => parse_toml(text, origin, default_name),
        SourceKind::Json => parse_json(text, origin, default_name),
        SourceKind::Sniff => {
            let first = text.trim_start().chars().next();
            match first {
                Some('{') => parse_json(text, origin, default_name),
                Some('[') => {
                    // `[[tool]]` and `[catalog]` are TOML; `[{`, `[ ]`, `["` are JSON.
                    let rest = text.trim_start()[1..].trim_start();
                    let toml_like = rest.starts_with('[')
                        || rest.starts_with(|c: char| c.is_ascii_alphabetic());
                    if toml_like {
                        parse_toml(text, origin, default_name)
                    } else {
                        parse_json(text, origin, default_name)
                    }
                }
                None => Err(CatalogError::Empty {
                    origin: origin.to_string(),
                }),
                _ => parse_toml(text, origin, default_name),
            }
        }
    }
}

/// Where a TOML error is in `text` (line, column, 1-based) and its message.
pub fn toml_error_at(text: &str, e: &toml::de::Error) -> (usize, usize, String) {
    let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
    (line, column, e.message().trim().to_string())
}

/// 1-based line and column of byte `offset` in `text` (column in characters).
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let mut start = offset;
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

pub(super) fn bytecount_newlines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

/// A short description of a JSON value's kind, for messages.
pub(crate) fn describe_value(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            if short.len() < s.len() {
                format!("the string {short:?}…")
            } else {
                format!("the string {s:?}")
            }
        }
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

// The JSON formats: the top level, then each tool through the Reader.

fn parse_json(text: &str, origin: &str, default_name: &str) -> Result<Catalog, CatalogError> {
    let syntax = |e: serde_json::Error| CatalogError::Syntax {
        origin: origin.to_string(),
        format: "JSON",
        line: e.line(),
        column: e.column(),
        message: strip_serde_position(&e.to_string()),
    };
    let root: &RawValue = serde_json::from_str(text).map_err(syntax)?;
    let items = tool_items(root, origin, 0)?;
    let origin_arc: Arc<str> = Arc::from(origin);
    let mut reader = Reader::new();
    let mut tools = Vec::with_capacity(items.len());
    // Items come in text order: count lines incrementally, not from the start.
    let (mut seen, mut line) = (0usize, 1usize);
    for (index, raw) in items.iter().enumerate() {
        let offset = raw.get().as_ptr() as usize - text.as_ptr() as usize;
        if offset >= seen {
            line += bytecount_newlines(&text.as_bytes()[seen..offset]);
            seen = offset;
        }
        let position = Position {
            origin: origin_arc.clone(),
            index,
            line: Some(line),
        };
        let value: Value = serde_json::from_str(raw.get()).map_err(syntax)?;
        let Value::Object(object) = value else {
            return Err(CatalogError::Tool {
                position,
                tool: None,
                message: format!("expected a tool object, got {}", describe_value(&value)),
            });
        };
        tools.push(reader.json_tool(object, position)?);
    }
    let Reader { formats, notes, .. } = reader;
    Catalog::build(default_name.to_string(), tools, formats, notes, origin)
}

/// serde_json's messages end in "at line L column C"; we print those ourselves.
fn strip_serde_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Finds the array of tools in a JSON document (see the module docs).
fn tool_items<'a>(
    raw: &'a RawValue,
    origin: &str,
    depth: usize,
) -> Result<Vec<&'a RawValue>, CatalogError> {
    let shape = |message: String| CatalogError::Shape {
        origin: origin.to_string(),
        message,
    };
    let text = raw.get();
    if text.starts_with('[') {
        return serde_json::from_str(text).map_err(|e| shape(e.to_string()));
    }
    if !text.starts_with('{') {
        return Err(shape(format!(
            "expected an array of tools or an object with a `tools` array, got {}",
            serde_json::from_str::<Value>(text)
                .map(|v| describe_value(&v))
                .unwrap_or_else(|_| "something else".into())
        )));
    }
    let object: BTreeMap<String, &RawValue> =
        serde_json::from_str(text).map_err(|e| shape(e.to_string()))?;
    if let Some(tools) = object.get("tools") {
        if tools.get().starts_with('[') {
            return tool_items(tools, origin, depth + 1);
        }
        return Err(shape("`tools` must be an array of tools".into()));
    }
    if depth == 0
        && let Some(result) = object.get("result")
        && result.get().starts_with('{')
    {
        // A JSON-RPC response to `tools/list`.
        return tool_items(result, origin, depth + 1);
    }
    if depth == 0 && (object.contains_key("name") || object.contains_key("function")) {
        return Ok(vec![raw]);
    }
    let keys: Vec<&str> = object.keys().map(String::as_str).take(8).collect();
    Err(shape(format!(
        "expected an array of tools or an object with a `tools` array; found an object with keys {}",
        if keys.is_empty() {
            "(none)".to_string()
        } else {
            keys.join(", ")
        }
    )))
}
