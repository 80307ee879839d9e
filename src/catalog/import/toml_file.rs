//! The native TOML format: `[catalog]` and `[[tools]]`, each tool read
//! like a JSON one.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Format, Reader, bytecount_newlines};
use crate::catalog::{Catalog, CatalogError, Position};

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

pub(super) fn parse_toml(
    text: &str,
    origin: &str,
    default_name: &str,
) -> Result<Catalog, CatalogError> {
    let file: TomlFile = toml::from_str(text).map_err(|e| {
        let (line, column, mut message) = super::toml_error_at(text, &e);
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
