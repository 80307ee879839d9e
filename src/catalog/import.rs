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

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Catalog, CatalogError, ImportNote, Position, Tool};

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

fn bytecount_newlines(bytes: &[u8]) -> usize {
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

// ---------------------------------------------------------------- JSON ---

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

// ---------------------------------------------------------------- TOML ---

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlFile {
    catalog: Option<TomlMeta>,
    #[serde(default)]
    tool: Vec<toml::Spanned<toml::Table>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlMeta {
    name: Option<String>,
    #[allow(dead_code)]
    description: Option<String>,
}

fn parse_toml(text: &str, origin: &str, default_name: &str) -> Result<Catalog, CatalogError> {
    let file: TomlFile = toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
        let mut message = e.message().trim().to_string();
        if message.contains("unknown field `tools`") {
            message.push_str(" (tools are `[[tool]]` tables)");
        }
        CatalogError::Syntax {
            origin: origin.to_string(),
            format: "TOML",
            line,
            column,
            message,
        }
    })?;
    let name = file
        .catalog
        .and_then(|m| m.name)
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| default_name.to_string());
    if file.tool.is_empty() {
        return Err(CatalogError::Shape {
            origin: origin.to_string(),
            message: "no tools: a TOML catalog lists its tools as `[[tool]]` tables".into(),
        });
    }
    let origin_arc: Arc<str> = Arc::from(origin);
    let mut reader = Reader::new();
    let mut tools = Vec::with_capacity(file.tool.len());
    let (mut seen, mut line) = (0usize, 1usize);
    for (index, spanned) in file.tool.into_iter().enumerate() {
        let offset = spanned.span().start.min(text.len());
        if offset >= seen {
            line += bytecount_newlines(&text.as_bytes()[seen..offset]);
            seen = offset;
        }
        let position = Position {
            origin: origin_arc.clone(),
            index,
            line: Some(line),
        };
        let object = toml_table_to_json(spanned.into_inner());
        tools.push(reader.snake_tool(object, position, Format::Toml)?);
    }
    let Reader { formats, notes, .. } = reader;
    Catalog::build(name, tools, formats, notes, origin)
}

fn toml_table_to_json(table: toml::Table) -> Map<String, Value> {
    table
        .into_iter()
        .map(|(k, v)| (k, toml_to_json(v)))
        .collect()
}

fn toml_to_json(value: toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.into_iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Value::Object(toml_table_to_json(t)),
    }
}

// ------------------------------------------------------- one tool, any shape ---

struct Reader {
    formats: Vec<Format>,
    notes: Vec<ImportNote>,
}

/// The fields of one tool, read from whatever shape it came in.
struct Fields<'a> {
    object: &'a Map<String, Value>,
    position: &'a Position,
    name: Option<String>,
}

impl Fields<'_> {
    fn err(&self, message: String) -> CatalogError {
        CatalogError::Tool {
            position: self.position.clone(),
            tool: self.name.clone(),
            message,
        }
    }

    fn string(&self, key: &str) -> Result<Option<String>, CatalogError> {
        match self.object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.err(format!(
                "field `{key}` must be a string, got {}",
                describe_value(other)
            ))),
        }
    }

    fn flag(&self, key: &str) -> Result<Option<bool>, CatalogError> {
        flag_in(self.object, key).map_err(|m| self.err(m))
    }

    fn schema(&self, key: &str) -> Result<Option<Value>, CatalogError> {
        match self.object.get(key) {
            None => Ok(None),
            Some(v @ Value::Object(_)) => Ok(Some(v.clone())),
            Some(other) => Err(self.err(format!(
                "field `{key}` must be a JSON object, got {}",
                describe_value(other)
            ))),
        }
    }
}

fn flag_in(object: &Map<String, Value>, key: &str) -> Result<Option<bool>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(format!(
            "field `{key}` must be true or false, got {}",
            describe_value(other)
        )),
    }
}

const SNAKE_KEYS: &[&str] = &[
    "name",
    "description",
    "input_schema",
    "read_only",
    "idempotent",
    "always_load",
    "handler",
    "cache_control",
    "type",
];
const CAMEL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "readOnly",
    "idempotent",
    "alwaysLoad",
    "_meta",
    "icons",
];
const OPENAI_KEYS: &[&str] = &["type", "name", "description", "parameters", "strict"];

impl Reader {
    fn new() -> Self {
        Reader {
            formats: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn saw(&mut self, format: Format) {
        if !self.formats.contains(&format) {
            self.formats.push(format);
        }
    }

    fn note(&mut self, position: &Position, tool: Option<&str>, message: String) {
        self.notes.push(ImportNote {
            position: position.clone(),
            tool: tool.map(str::to_string),
            message,
        });
    }

    fn unknown_keys(&mut self, fields: &Fields<'_>, known: &[&str]) {
        let unknown: Vec<&str> = fields
            .object
            .keys()
            .map(String::as_str)
            .filter(|k| !known.contains(k))
            .collect();
        if !unknown.is_empty() {
            let list = unknown
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let position = fields.position.clone();
            let name = fields.name.clone();
            self.note(
                &position,
                name.as_deref(),
                format!("unknown field {list} ignored"),
            );
        }
    }

    /// A JSON tool of any supported shape.
    fn json_tool(
        &mut self,
        object: Map<String, Value>,
        position: Position,
    ) -> Result<Tool, CatalogError> {
        let kind = object.get("type").and_then(Value::as_str);
        if let Some(kind) = kind
            && kind != "custom"
        {
            if kind != "function" {
                return Err(CatalogError::Tool {
                    tool: object
                        .get("name")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    position,
                    message: format!(
                        "tool type {kind:?} is not a function tool (only function tools can be deferred)"
                    ),
                });
            }
            if let Some(function) = object.get("function") {
                let Value::Object(inner) = function else {
                    return Err(CatalogError::Tool {
                        position,
                        tool: None,
                        message: format!(
                            "field `function` must be an object, got {}",
                            describe_value(function)
                        ),
                    });
                };
                let outer = Fields {
                    object: &object,
                    position: &position,
                    name: None,
                };
                self.unknown_keys(&outer, &["type", "function"]);
                return self.openai_tool(inner, &position, Format::OpenAiChat);
            }
            return self.openai_tool(&object, &position, Format::OpenAiResponses);
        }
        let camel = ["inputSchema", "readOnly", "alwaysLoad", "annotations"]
            .iter()
            .any(|k| object.contains_key(*k));
        if camel {
            return self.camel_tool(&object, &position);
        }
        if object.contains_key("parameters") && !object.contains_key("input_schema") {
            return self.openai_tool(&object, &position, Format::OpenAiFunction);
        }
        let caveman = ["read_only", "idempotent", "always_load", "handler"]
            .iter()
            .any(|k| object.contains_key(*k));
        let format = if caveman || !object.contains_key("input_schema") {
            Format::Caveman
        } else {
            Format::Anthropic
        };
        self.snake_tool(object, position, format)
    }

    fn name_of(fields: &Fields<'_>) -> Result<String, CatalogError> {
        match fields.object.get("name") {
            Some(Value::String(s)) => Ok(s.clone()),
            None | Some(Value::Null) => Err(fields.err("missing field `name`".into())),
            Some(other) => Err(fields.err(format!(
                "field `name` must be a string, got {}",
                describe_value(other)
            ))),
        }
    }

    fn finish_schema(
        &mut self,
        fields: &Fields<'_>,
        schema: Option<Value>,
        key: &str,
    ) -> Result<Value, CatalogError> {
        match schema {
            Some(s) => Ok(s),
            None => {
                let position = fields.position.clone();
                let name = fields.name.clone();
                self.note(
                    &position,
                    name.as_deref(),
                    format!("no `{key}`: using an empty object schema"),
                );
                Ok(serde_json::json!({"type": "object", "properties": {}}))
            }
        }
    }

    /// Caveman wire JSON, Anthropic, and native TOML (snake_case keys).
    fn snake_tool(
        &mut self,
        object: Map<String, Value>,
        position: Position,
        format: Format,
    ) -> Result<Tool, CatalogError> {
        let mut fields = Fields {
            object: &object,
            position: &position,
            name: None,
        };
        let name = Self::name_of(&fields)?;
        fields.name = Some(name.clone());
        self.unknown_keys(&fields, SNAKE_KEYS);
        let description = fields.string("description")?.unwrap_or_default();
        let schema = fields.schema("input_schema")?;
        let input_schema = self.finish_schema(&fields, schema, "input_schema")?;
        let handler_result = match object.get("handler") {
            None => None,
            Some(Value::Object(h)) => {
                let extra: Vec<&String> = h.keys().filter(|k| *k != "result").collect();
                if !extra.is_empty() {
                    return Err(fields.err(format!(
                        "`handler` has unknown field `{}` (only `result` is allowed)",
                        extra[0]
                    )));
                }
                h.get("result").cloned()
            }
            Some(other) => {
                return Err(fields.err(format!(
                    "field `handler` must be a table with a `result`, got {}",
                    describe_value(other)
                )));
            }
        };
        let tool = Tool {
            description,
            input_schema,
            read_only: fields.flag("read_only")?.unwrap_or(false),
            idempotent: fields.flag("idempotent")?.unwrap_or(false),
            always_load: fields.flag("always_load")?.unwrap_or(false),
            handler_result,
            position: position.clone(),
            mcp: None,
            name,
        };
        self.saw(format);
        Ok(tool)
    }

    /// TypeScript camelCase descriptors and MCP `tools/list` entries.
    fn camel_tool(
        &mut self,
        object: &Map<String, Value>,
        position: &Position,
    ) -> Result<Tool, CatalogError> {
        let mut fields = Fields {
            object,
            position,
            name: None,
        };
        let name = Self::name_of(&fields)?;
        fields.name = Some(name.clone());
        self.unknown_keys(&fields, CAMEL_KEYS);
        let mcp = ["annotations", "title", "outputSchema", "_meta"]
            .iter()
            .any(|k| object.contains_key(*k));
        let description = match fields.string("description")? {
            Some(d) => d,
            None => fields.string("title")?.unwrap_or_default(),
        };
        let schema = fields.schema("inputSchema")?;
        let input_schema = self.finish_schema(&fields, schema, "inputSchema")?;
        let (hint_read_only, hint_idempotent) = match object.get("annotations") {
            None | Some(Value::Null) => (None, None),
            Some(Value::Object(a)) => (
                flag_in(a, "readOnlyHint").map_err(|m| fields.err(format!("annotations: {m}")))?,
                flag_in(a, "idempotentHint")
                    .map_err(|m| fields.err(format!("annotations: {m}")))?,
            ),
            Some(other) => {
                return Err(fields.err(format!(
                    "field `annotations` must be an object, got {}",
                    describe_value(other)
                )));
            }
        };
        let tool = Tool {
            description,
            input_schema,
            read_only: fields.flag("readOnly")?.or(hint_read_only).unwrap_or(false),
            idempotent: fields
                .flag("idempotent")?
                .or(hint_idempotent)
                .unwrap_or(false),
            always_load: fields.flag("alwaysLoad")?.unwrap_or(false),
            handler_result: None,
            position: position.clone(),
            mcp: None,
            name,
        };
        self.saw(if mcp { Format::Mcp } else { Format::CamelCase });
        Ok(tool)
    }

    /// OpenAI function tools (Chat's inner `function`, Responses, legacy).
    fn openai_tool(
        &mut self,
        object: &Map<String, Value>,
        position: &Position,
        format: Format,
    ) -> Result<Tool, CatalogError> {
        let mut fields = Fields {
            object,
            position,
            name: None,
        };
        let name = Self::name_of(&fields)?;
        fields.name = Some(name.clone());
        self.unknown_keys(&fields, OPENAI_KEYS);
        let description = fields.string("description")?.unwrap_or_default();
        let schema = fields.schema("parameters")?;
        let input_schema = self.finish_schema(&fields, schema, "parameters")?;
        self.saw(format);
        Ok(Tool {
            description,
            input_schema,
            read_only: false,
            idempotent: false,
            always_load: false,
            handler_result: None,
            position: position.clone(),
            mcp: None,
            name,
        })
    }
}
