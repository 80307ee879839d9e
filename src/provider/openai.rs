//! Functions as OpenAI's models see them. The chat API does not hand a
//! model the JSON schemas of its functions. It rewrites them as TypeScript
//! type declarations inside a `namespace functions { ... }` block, and that
//! block is what gets billed (OpenAI cookbook, "How to count tokens with
//! tiktoken"; the community's reproduction in the npm package
//! `openai-chat-tokens`, whose counts match the API's).
//!
//! For each function, the block has:
//! - a `// description` line;
//! - `type NAME = (_: { ... }) => any;`, with one line per property
//!   (`name?:` when the property is optional) and its description as a
//!   comment above it (not below two levels of nesting);
//! - or `type NAME = () => any;` when there are no properties.
//!
//! Enums become unions of literals, arrays `T[]`, and nested objects are
//! indented by two spaces. A request with functions also carries
//! [`REQUEST_OVERHEAD`] tokens.
//!
//! Where the package renders JavaScript's `undefined` (a property with no
//! `type`, a type list such as `["string", "null"]`, `items` without a type
//! or given as a `oneOf`), this module writes what the model is meant to
//! read: `any`, the union of the listed types, `any[]`. On the GitHub MCP
//! catalog that is 3 lines of 117 tools; every other line is the package's.
//!
//! [`openai_json`] is a tool's definition itself, as the Responses API
//! receives it: the text the JSON bases (`o200k_base`, ...) count.

use serde::Serialize;
use serde_json::Value;

use crate::catalog::Tool;

/// What a request that carries functions adds beyond their block (the
/// cookbook's "nine per completion").
pub const REQUEST_OVERHEAD: u64 = 9;

/// The lines before the first function.
pub const HEADER: &str = "namespace functions {\n\n";
/// The line after the last one.
pub const FOOTER: &str = "} // namespace functions";

/// The whole block for `tools`, in order.
pub fn render_block<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> String {
    let mut out = String::from(HEADER);
    for t in tools {
        out.push_str(&render_tool(t));
    }
    out.push_str(FOOTER);
    out
}

/// One function's part of the block, with the blank line that follows it.
/// Under cl100k_base the block's tokens are the header's, each part's and
/// the footer's (the parts meet at line breaks, where it splits). Under
/// o200k_base, `;\n\n//` is one token, so the parts overstate the block by
/// up to a token per function: a set's cost is its block's, counted whole.
pub fn render_tool(tool: &Tool) -> String {
    let mut lines: Vec<String> = Vec::new();
    if !tool.description.is_empty() {
        lines.push(format!("// {}", tool.description));
    }
    let has_properties = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    if has_properties {
        lines.push(format!("type {} = (_: {{", tool.name));
        lines.push(properties(&tool.input_schema, 0));
        lines.push("}) => any;".to_string());
    } else {
        lines.push(format!("type {} = () => any;", tool.name));
    }
    let mut out = lines.join("\n");
    out.push_str("\n\n");
    out
}

/// The properties of `object`, one entry per property, each prefixed by
/// `indent` spaces (a nested object's own lines carry their own indent).
fn properties(object: &Value, indent: usize) -> String {
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut entries: Vec<String> = Vec::new();
    if let Some(props) = object.get("properties").and_then(Value::as_object) {
        for (name, param) in props {
            if indent < 2
                && let Some(d) = param.get("description").and_then(Value::as_str)
                && !d.is_empty()
            {
                entries.push(format!("// {d}"));
            }
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            entries.push(format!("{name}{optional}: {},", type_of(param, indent)));
        }
    }
    let pad = " ".repeat(indent);
    entries
        .iter()
        .map(|e| format!("{pad}{e}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A property's type as TypeScript.
fn type_of(param: &Value, indent: usize) -> String {
    if let Some(options) = param.get("anyOf").and_then(Value::as_array) {
        return options
            .iter()
            .map(|o| type_of(o, indent))
            .collect::<Vec<_>>()
            .join(" | ");
    }
    match param.get("type") {
        Some(Value::String(t)) => named_type(t, param, indent),
        Some(Value::Array(types)) => {
            let names: Vec<String> = types
                .iter()
                .filter_map(Value::as_str)
                .map(|t| named_type(t, param, indent))
                .collect();
            if names.is_empty() {
                "any".into()
            } else {
                names.join(" | ")
            }
        }
        _ => "any".into(),
    }
}

fn named_type(t: &str, param: &Value, indent: usize) -> String {
    let literals = |quote: bool| -> Option<String> {
        let values = param.get("enum")?.as_array()?;
        Some(
            values
                .iter()
                .map(|v| {
                    let text = js_string(v);
                    if quote { format!("\"{text}\"") } else { text }
                })
                .collect::<Vec<_>>()
                .join(" | "),
        )
    };
    match t {
        "string" => literals(true).unwrap_or_else(|| "string".into()),
        "number" | "integer" => literals(false).unwrap_or_else(|| "number".into()),
        "boolean" => "boolean".into(),
        "null" => "null".into(),
        "object" => format!("{{\n{}\n}}", properties(param, indent + 2)),
        "array" => match param.get("items") {
            Some(items) if items.get("type").is_some() || items.get("anyOf").is_some() => {
                format!("{}[]", type_of(items, indent))
            }
            _ => "any[]".into(),
        },
        _ => "any".into(),
    }
}

/// A JSON value as JavaScript's `String(v)` writes it (for enum literals).
fn js_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e21 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Array(a) => a.iter().map(js_string).collect::<Vec<_>>().join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

#[derive(Serialize)]
struct ResponsesTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

/// The tool's definition as the Responses API receives it: compact JSON of
/// `{"type":"function","name","description","parameters"}`, in that order
/// (schema object keys sorted, so the count does not depend on the source
/// file's key order).
pub fn openai_json(tool: &Tool) -> String {
    let definition = ResponsesTool {
        kind: "function",
        name: &tool.name,
        description: &tool.description,
        parameters: &tool.input_schema,
    };
    // Serialising a struct of strings and a `Value` cannot fail.
    serde_json::to_string(&definition).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, description: &str, schema: Value) -> Tool {
        let mut t = Tool::new(name, description);
        t.input_schema = schema;
        t
    }

    #[test]
    fn renders_the_namespace_form() {
        let t = tool(
            "get_weather",
            "Get the weather",
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city"},
                    "unit": {"type": "string", "enum": ["c", "f"]},
                    "days": {"type": "integer"},
                    "where": {"type": "object", "properties": {"lat": {"type": "number", "description": "deep"}}, "required": ["lat"]},
                    "tags": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["city"]
            }),
        );
        assert_eq!(
            render_block([&t]),
            "namespace functions {\n\n// Get the weather\ntype get_weather = (_: {\n// The city\ncity: string,\ndays?: number,\ntags?: string[],\nunit?: \"c\" | \"f\",\nwhere?: {\n  lat: number,\n},\n}) => any;\n\n} // namespace functions"
        );
        let bare = tool("ping", "", json!({"type": "object"}));
        assert_eq!(render_tool(&bare), "type ping = () => any;\n\n");
    }

    #[test]
    fn what_the_package_leaves_undefined_reads_as_types() {
        let t = tool(
            "f",
            "",
            json!({"type": "object", "properties": {
                "a": {},
                "b": {"type": ["string", "null"]},
                "c": {"type": "array", "items": {}},
                "d": {"type": "number", "enum": [1.0, 2.5]}
            }}),
        );
        let text = render_tool(&t);
        assert!(text.contains("a?: any,"), "{text}");
        assert!(text.contains("b?: string | null,"), "{text}");
        assert!(text.contains("c?: any[],"), "{text}");
        assert!(text.contains("d?: 1 | 2.5,"), "{text}");
    }
}
