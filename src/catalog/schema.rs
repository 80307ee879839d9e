//! What a tool's input schema says of its arguments.

use serde_json::{Map, Value, json};

/// Arguments a person would start a call from: the schema's required
/// parameters, each with the first of its `enum` values, else an empty
/// value of its type (`""`, `0`, `false`, `[]`, `{}`).
pub fn example_arguments(schema: &Value) -> Value {
    let props = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    let mut args = Map::new();
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let param = props.and_then(|p| p.get(name));
        let first_choice = param
            .and_then(|s| s.get("enum"))
            .and_then(Value::as_array)
            .and_then(|e| e.first().cloned());
        let value = match (first_choice, param.and_then(|s| s.get("type"))) {
            (Some(choice), _) => choice,
            (None, _) if param.and_then(|s| s.get("enum")).is_some() => Value::Null,
            (None, Some(t)) if t == "integer" || t == "number" => json!(0),
            (None, Some(t)) if t == "boolean" => json!(false),
            (None, Some(t)) if t == "array" => json!([]),
            (None, Some(t)) if t == "object" => json!({}),
            _ => json!(""),
        };
        args.insert(name.to_string(), value);
    }
    Value::Object(args)
}

/// Each way `arguments` fail `validator` (where, as a JSON pointer, `/`
/// for the whole, and what), at most `most`: the gateway's check of a
/// call and the explorer's breaker say the same.
#[cfg(feature = "mcp")]
pub fn argument_errors(
    validator: &jsonschema::Validator,
    arguments: &Value,
    most: usize,
) -> Vec<(String, String)> {
    validator
        .iter_errors(arguments)
        .take(most)
        .map(|e| {
            let at = e.instance_path().to_string();
            let at = if at.is_empty() { "/".to_string() } else { at };
            (at, e.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_required_parameters_with_an_empty_value_of_their_type() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "dry_run": {"type": "boolean"},
                "tags": {"type": "array"},
                "filter": {"type": "object"},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "empty_enum": {"enum": []},
                "untyped": {},
                "optional": {"type": "string"}
            },
            "required": ["id", "count", "ratio", "dry_run", "tags", "filter", "mode", "empty_enum", "untyped", "missing"]
        });
        assert_eq!(
            example_arguments(&schema),
            json!({"id": "", "count": 0, "ratio": 0, "dry_run": false, "tags": [], "filter": {},
                "mode": "fast", "empty_enum": null, "untyped": "", "missing": ""})
        );
        assert_eq!(example_arguments(&json!({"type": "object"})), json!({}));
    }
}
