//! One tool in any of the formats: its shape decides how it is read, its
//! fields checked with the file, line and tool named.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::{Format, describe_value};
use crate::catalog::{
    CatalogError, ImportNote, META_SERVER, META_SERVER_ABOUT, McpOrigin, Position, Tool,
};

pub(super) struct Reader {
    pub(super) formats: Vec<Format>,
    pub(super) notes: Vec<ImportNote>,
    /// What each MCP server of the catalog says of itself, held once.
    pub(super) abouts: Vec<std::sync::Arc<str>>,
}

/// The fields of one tool, read from whatever shape it came in.
pub(super) struct Fields<'a> {
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
        flag_in(self.object, key).map_err(|m| self.err(m.to_string()))
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

/// A field of a tool's JSON that is not what it must be: which field, what
/// it must be, and what it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} must be {must}, got {got}")]
struct BadField {
    field: String,
    must: &'static str,
    got: String,
}

impl BadField {
    fn new(field: String, must: &'static str, got: &Value) -> BadField {
        BadField {
            field,
            must,
            got: describe_value(got),
        }
    }
}

fn flag_in(object: &Map<String, Value>, key: &str) -> Result<Option<bool>, BadField> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(BadField::new(
            format!("field `{key}`"),
            "true or false",
            other,
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
    pub(super) fn new() -> Self {
        Reader {
            formats: Vec::new(),
            notes: Vec::new(),
            abouts: Vec::new(),
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
    pub(super) fn json_tool(
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
    pub(super) fn snake_tool(
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
        let mut mcp_origin =
            server_of(object.get("_meta"), &name).map_err(|m| fields.err(format!("_meta: {m}")))?;
        if let Some(origin) = &mut mcp_origin {
            origin.title = fields.string("title")?;
            // One server's text is shared by its tools.
            if let Some(about) = &origin.about {
                match self.abouts.iter().find(|a| a.as_ref() == about.as_ref()) {
                    Some(same) => origin.about = Some(same.clone()),
                    None => self.abouts.push(about.clone()),
                }
            }
        }
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
            mcp: mcp_origin,
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

/// The MCP origin a tool's `_meta` records: `None` when it names no server.
fn server_of(meta: Option<&Value>, name: &str) -> Result<Option<McpOrigin>, BadField> {
    let Some(Value::Object(meta)) = meta else {
        return Ok(None);
    };
    let server = match meta.get(META_SERVER) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        Some(other) => {
            return Err(BadField::new(
                format!("`{META_SERVER}`"),
                "a server's name",
                other,
            ));
        }
    };
    let about = match meta.get(META_SERVER_ABOUT) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(Arc::from(s.as_str())),
        Some(other) => {
            return Err(BadField::new(
                format!("`{META_SERVER_ABOUT}`"),
                "a string",
                other,
            ));
        }
    };
    Ok(Some(McpOrigin {
        server: Arc::from(server.as_str()),
        name: name.to_string(),
        title: None,
        about,
    }))
}
