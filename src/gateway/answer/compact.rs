//! The text form of a `search_tools` answer: what a model reads when its
//! host passes on only a result's text. One line a tool (its name, server,
//! whether it only reads, its description) and its arguments as a short
//! signature (`timezone: string, limit?: integer, sort?: "asc"|"desc"`);
//! the full input schemas, with each argument's description, are in the
//! structured content, and a call whose arguments break its schema is
//! refused with the schema quoted. The JSON twice cost about half of each
//! answer.

use serde_json::Value;

use super::meta::{CALL_READ_TOOL, CALL_TOOL};

/// Enum values a signature names before it says `|…`.
const ENUM_VALUES: usize = 6;

/// The text of `answer` (the JSON `search_tools` answers).
pub(crate) fn answer_text(answer: &Value) -> String {
    let tools = answer["tools"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let query = answer["query"].as_str().unwrap_or_default();
    let mut out = String::new();
    if tools.is_empty() {
        out.push_str(&format!(
            "No tool found for {}.",
            serde_json::Value::from(query)
        ));
    } else {
        out.push_str(&format!(
            "{} found for {}. Call one with the dispatcher its line names ({CALL_READ_TOOL} or {CALL_TOOL}): {{\"name\": ..., \"arguments\": {{...}}}}. Each argument's description and the full input schemas are in the structured content.",
            count(tools.len()),
            serde_json::Value::from(query)
        ));
        for tool in tools {
            out.push('\n');
            out.push_str(&tool_lines(tool));
        }
    }
    if let Some(note) = answer["note"].as_str() {
        out.push_str("\nNote: ");
        out.push_str(note);
    }
    if let Some(held) = answer["held_back"].as_array().filter(|h| !h.is_empty()) {
        let names: Vec<&str> = held.iter().filter_map(|h| h["name"].as_str()).collect();
        out.push_str(&format!(
            "\nNothing fits well; the nearest, held back: {}.",
            names.join(", ")
        ));
    }
    for (key, label) in [
        ("servers_starting", "Servers still starting"),
        ("servers_down", "Servers down"),
    ] {
        if let Some(names) = answer[key].as_array().filter(|n| !n.is_empty()) {
            let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
            out.push_str(&format!("\n{label}: {}.", names.join(", ")));
        }
    }
    out
}

fn count(n: usize) -> String {
    if n == 1 {
        "1 tool".into()
    } else {
        format!("{n} tools")
    }
}

/// `- name [server, call_read_tool]: description` and `  arguments: ...`.
fn tool_lines(tool: &Value) -> String {
    let name = tool["name"].as_str().unwrap_or_default();
    let mut tags: Vec<&str> = tool["server"].as_str().into_iter().collect();
    tags.extend(tool["call_with"].as_str());
    let tags = if tags.is_empty() {
        String::new()
    } else {
        format!(" [{}]", tags.join(", "))
    };
    let description: String = tool["description"]
        .as_str()
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = format!("- {name}{tags}: {description}");
    let signature = signature(&tool["inputSchema"]);
    out.push_str("\n  arguments: ");
    out.push_str(if signature.is_empty() {
        "none"
    } else {
        &signature
    });
    out
}

/// `a: string, b?: integer` for an object schema's properties: the
/// required ones first (no `?`), then the others by name.
pub(crate) fn signature(schema: &Value) -> String {
    fields(schema, 0)
}

/// Nested objects shown field by field down to this depth (`entities:
/// {name: string, observations: string[]}[]`); deeper ones are `object`.
const NESTED: usize = 2;
/// Fields a nested object shows before `…`.
const NESTED_FIELDS: usize = 8;

/// [`signature`] of an object schema met at `depth`.
fn fields(schema: &Value, depth: usize) -> String {
    let Some(properties) = schema["properties"].as_object() else {
        return String::new();
    };
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut keys: Vec<(&String, &Value)> = properties.iter().collect();
    keys.sort_by_key(|(key, _)| !required.contains(&key.as_str()));
    let shown = if depth == 0 {
        keys.len()
    } else {
        NESTED_FIELDS
    };
    let mut out: Vec<String> = keys
        .iter()
        .take(shown)
        .map(|(key, property)| {
            let mark = if required.contains(&key.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{key}{mark}: {}", type_of(property, depth))
        })
        .collect();
    if keys.len() > shown {
        out.push("…".into());
    }
    out.join(", ")
}

/// A property's type in a word or two: `string`, `integer[]`,
/// `"asc"|"desc"`, `string|null`, `object`.
fn type_of(schema: &Value, depth: usize) -> String {
    if let Some(values) = schema["enum"].as_array() {
        let mut shown: Vec<String> = values
            .iter()
            .take(ENUM_VALUES)
            .map(Value::to_string)
            .collect();
        if values.len() > ENUM_VALUES {
            shown.push("…".into());
        }
        return shown.join("|");
    }
    if let Some(value) = schema.get("const") {
        return value.to_string();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema[key].as_array()
            && depth < 3
        {
            let mut kinds: Vec<String> = Vec::new();
            for o in options {
                let kind = type_of(o, depth + 1);
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
            return kinds.join("|");
        }
    }
    match &schema["type"] {
        Value::String(t) if t == "object" && depth < NESTED && schema["properties"].is_object() => {
            let inner = fields(schema, depth + 1);
            if inner.is_empty() {
                "object".into()
            } else {
                format!("{{{inner}}}")
            }
        }
        Value::String(t) if t == "array" && depth < 3 => {
            let item = type_of(&schema["items"], depth + 1);
            if item.contains('|') {
                format!("({item})[]")
            } else {
                format!("{item}[]")
            }
        }
        Value::String(t) => t.clone(),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ => "any".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_signature_names_types_marks_optional_ones_and_lists_enums() {
        let schema = json!({
            "type": "object",
            "properties": {
                "timezone": {"type": "string", "description": "IANA name"},
                "limit": {"type": "integer"},
                "sort": {"type": "string", "enum": ["asc", "desc"]},
                "labels": {"type": "array", "items": {"type": "string"}},
                "when": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "many": {"enum": [1, 2, 3, 4, 5, 6, 7]},
                "free": {}
            },
            "required": ["timezone"]
        });
        assert_eq!(
            signature(&schema),
            "timezone: string, free?: any, labels?: string[], limit?: integer, many?: 1|2|3|4|5|6|…, sort?: \"asc\"|\"desc\", when?: string|null"
        );
        assert_eq!(signature(&json!({"type": "object"})), "");
    }

    #[test]
    fn the_text_has_a_line_a_tool_its_arguments_and_what_else_the_answer_says() {
        let answer = json!({
            "query": "what time is it in Tokyo",
            "ranker": "bm25",
            "tools": [{
                "name": "get_current_time", "server": "time",
                "description": "Get current time\n  in a specific timezone",
                "inputSchema": {"type": "object", "properties": {"timezone": {"type": "string"}}, "required": ["timezone"]},
                "annotations": {"readOnlyHint": true},
                "call_with": "call_read_tool",
                "why": "matched time (name)"
            }],
            "note": "limit 20 is above this gateway's cap of 8; at most 8 tools.",
            "servers_starting": ["git"]
        });
        let text = answer_text(&answer);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with(
                "1 tool found for \"what time is it in Tokyo\". Call one with the dispatcher its line names (call_read_tool or call_tool)"
            ),
            "{text}"
        );
        assert_eq!(
            lines[1],
            "- get_current_time [time, call_read_tool]: Get current time in a specific timezone"
        );
        assert_eq!(lines[2], "  arguments: timezone: string");
        assert!(lines[3].starts_with("Note: limit 20"), "{text}");
        assert_eq!(lines[4], "Servers still starting: git.");
        let none = answer_text(&json!({"query": "fly to Mars", "tools": [],
            "nothing_fits": true, "held_back": [{"name": "book_flight"}]}));
        assert_eq!(
            none,
            "No tool found for \"fly to Mars\".\nNothing fits well; the nearest, held back: book_flight."
        );
    }

    #[test]
    fn nested_objects_show_their_fields_so_a_text_only_host_calls_right() {
        let schema = json!({"type": "object", "required": ["entities"], "properties": {
            "entities": {"type": "array", "items": {"type": "object", "required": ["name", "entityType"], "properties": {
                "name": {"type": "string"},
                "entityType": {"type": "string"},
                "observations": {"type": "array", "items": {"type": "string"}}
            }}}
        }});
        assert_eq!(
            signature(&schema),
            "entities: {entityType: string, name: string, observations?: string[]}[]"
        );
        let wide: serde_json::Map<String, Value> = (0..12)
            .map(|i| (format!("f{i:02}"), json!({"type": "string"})))
            .collect();
        let deep =
            json!({"type": "object", "properties": {"o": {"type": "object", "properties": wide}}});
        let shown = signature(&deep);
        assert!(
            shown.starts_with("o?: {f00?: string,") && shown.ends_with(", …}"),
            "{shown}"
        );
    }
}
