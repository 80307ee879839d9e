//! What a tool's input schema says of its arguments.

use serde_json::{Map, Value, json};

/// Arguments a person would start a call from: the schema's required
/// parameters, each with a value its own schema takes where one can be
/// made: its `const`, `default`, first of `examples` or `enum`, else a
/// value of its type within its bounds (`minimum`, `exclusiveMinimum`,
/// `maximum`, `multipleOf`, `minLength`, `maxLength`, `pattern`,
/// `format`, `minItems`, an object's own required properties), else an
/// empty value of its type (`""`, `0`, `false`, `[]`, `{}`). A value the
/// schema still refuses (a pattern no plain word matches) is for the
/// person to fill in: the caller checks the whole against the schema.
pub fn example_arguments(schema: &Value) -> Value {
    example_object(schema, 0)
}

/// How deep nested objects and arrays are filled in.
const DEPTH: usize = 4;

fn example_object(schema: &Value, depth: usize) -> Value {
    let props = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    let mut args = Map::new();
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let value = match props.and_then(|p| p.get(name)) {
            Some(param) => example_value(param, depth),
            None => json!(""),
        };
        args.insert(name.to_string(), value);
    }
    Value::Object(args)
}

/// A value `param` takes, as far as it says what it takes.
fn example_value(param: &Value, depth: usize) -> Value {
    if let Some(c) = param.get("const") {
        return c.clone();
    }
    if let Some(d) = param.get("default") {
        return d.clone();
    }
    let first = |key: &str| {
        param
            .get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.first().cloned())
    };
    if let Some(e) = first("examples") {
        return e;
    }
    if param.get("enum").is_some() {
        return first("enum").unwrap_or(Value::Null);
    }
    // The first branch that is not `null` (a person fills in a value).
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = param.get(key).and_then(Value::as_array) {
            let branch = branches
                .iter()
                .find(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                .or(branches.first());
            if let Some(b) = branch {
                return example_value(b, depth);
            }
        }
    }
    let kind = match param.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string"),
        _ => "string",
    };
    match kind {
        "integer" => example_number(param, true),
        "number" => example_number(param, false),
        "boolean" => json!(false),
        "null" => Value::Null,
        "array" => {
            let n = param.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let item = match param.get("items") {
                Some(items) if depth < DEPTH => example_value(items, depth + 1),
                _ => json!(""),
            };
            Value::Array(vec![item; n.min(16)])
        }
        "object" if depth < DEPTH => example_object(param, depth + 1),
        "object" => json!({}),
        _ => example_string(param),
    }
}

/// A number within `minimum`/`exclusiveMinimum`/`maximum`/
/// `exclusiveMaximum`, a multiple of `multipleOf`: 0 when nothing bounds
/// it.
fn example_number(param: &Value, integer: bool) -> Value {
    let num = |key: &str| param.get(key).and_then(Value::as_f64);
    let step = if integer { 1.0 } else { 0.5 };
    let mut v: f64 = 0.0;
    if let Some(m) = num("minimum") {
        v = v.max(m);
    }
    if let Some(m) = num("exclusiveMinimum") {
        v = v.max(m + step);
    }
    if let Some(m) = num("maximum") {
        v = v.min(m);
    }
    if let Some(m) = num("exclusiveMaximum") {
        v = v.min(m - step);
    }
    if integer {
        v = v.ceil();
    }
    if let Some(m) = num("multipleOf").filter(|m| *m > 0.0) {
        v = (v / m).ceil() * m;
    }
    if integer || v.fract() == 0.0 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// A string its `format`, `minLength`, `maxLength` and `pattern` take:
/// the empty string when nothing constrains it (a person types the
/// value), else the first of a few plain words that fits.
fn example_string(param: &Value) -> Value {
    let min = param.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = param
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let pattern = param
        .get("pattern")
        .and_then(Value::as_str)
        .and_then(|p| regex::Regex::new(p).ok());
    let format = param.get("format").and_then(Value::as_str);
    if min == 0 && pattern.is_none() && format.is_none() {
        return json!("");
    }
    let by_format = match format {
        Some("date-time") => Some("2025-01-01T00:00:00Z"),
        Some("date") => Some("2025-01-01"),
        Some("time") => Some("00:00:00Z"),
        Some("email") => Some("user@example.com"),
        Some("uri" | "url" | "iri") => Some("https://example.com"),
        Some("uuid") => Some("00000000-0000-4000-8000-000000000000"),
        Some("ipv4") => Some("127.0.0.1"),
        Some("hostname") => Some("example.com"),
        _ => None,
    };
    let words = [
        "example",
        "owner/name",
        "a",
        "A",
        "1",
        "example-1",
        "example_1",
        "EXAMPLE",
        "2025-01-01",
        "https://example.com",
        "user@example.com",
    ];
    let fits = |w: &str| {
        let n = w.chars().count();
        n >= min && max.is_none_or(|m| n <= m) && pattern.as_ref().is_none_or(|p| p.is_match(w))
    };
    let padded = |w: &str| {
        let n = w.chars().count();
        if n >= min {
            w.to_string()
        } else {
            format!("{w}{}", "x".repeat(min - n))
        }
    };
    by_format
        .into_iter()
        .chain(words)
        .map(padded)
        .find(|w| fits(w))
        .map_or_else(|| json!(padded("")), Value::String)
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

    #[test]
    fn a_value_each_parameter_s_own_schema_takes() {
        let cases = [
            (json!({"type": "integer", "minimum": 1}), json!(1)),
            (json!({"type": "number", "minimum": 1}), json!(1)),
            (json!({"type": "integer", "exclusiveMinimum": 0}), json!(1)),
            (json!({"type": "integer", "maximum": -3}), json!(-3)),
            (
                json!({"type": "integer", "minimum": 5, "multipleOf": 4}),
                json!(8),
            ),
            (
                json!({"type": "number", "exclusiveMinimum": 0.25}),
                json!(0.75),
            ),
            (json!({"type": "string", "minLength": 1}), json!("example")),
            (
                json!({"type": "string", "minLength": 9}),
                json!("examplexx"),
            ),
            (
                json!({"type": "string", "maxLength": 1, "minLength": 1}),
                json!("a"),
            ),
            (
                json!({"type": "string", "pattern": "^[a-z0-9-]+/[a-z0-9.-]+$"}),
                json!("owner/name"),
            ),
            (json!({"type": "string", "pattern": "^\\d+$"}), json!("1")),
            (
                json!({"type": "string", "format": "date-time"}),
                json!("2025-01-01T00:00:00Z"),
            ),
            (
                json!({"type": "string", "format": "email"}),
                json!("user@example.com"),
            ),
            (json!({"type": "string", "default": "main"}), json!("main")),
            (json!({"type": "integer", "examples": [42]}), json!(42)),
            (json!({"const": "v1"}), json!("v1")),
            (
                json!({"anyOf": [{"type": "null"}, {"type": "string", "minLength": 1}]}),
                json!("example"),
            ),
            (json!({"type": ["null", "integer"], "minimum": 2}), json!(2)),
            (
                json!({"type": "array", "minItems": 2, "items": {"type": "integer", "minimum": 3}}),
                json!([3, 3]),
            ),
            (
                json!({"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}, "required": ["id"]}),
                json!({"id": 1}),
            ),
        ];
        for (param, want) in cases {
            let schema = json!({"type": "object", "properties": {"p": param}, "required": ["p"]});
            assert_eq!(example_arguments(&schema), json!({"p": want}), "{param}");
        }
    }

    /// Every tool of the demo catalog and of GitHub's MCP server starts
    /// from arguments its own schema takes; a pattern no plain word
    /// matches is the one kind left for a person, and the check finds it.
    #[cfg(feature = "mcp")]
    #[test]
    fn every_starting_argument_of_two_real_catalogs_validates_or_is_flagged() {
        use crate::catalog::{CatalogSource, load};
        let refused = |schema: &Value| {
            let validator = jsonschema::validator_for(schema).expect("the schema compiles");
            argument_errors(&validator, &example_arguments(schema), 3)
        };
        for name in ["@demo", "@github-mcp"] {
            let catalog = load(&CatalogSource::parse(name)).unwrap();
            assert!(catalog.len() > 50, "{name}");
            let flagged: Vec<String> = catalog
                .tools()
                .iter()
                .filter(|t| !refused(&t.input_schema).is_empty())
                .map(|t| format!("{}: {:?}", t.name, refused(&t.input_schema)))
                .collect();
            assert!(flagged.is_empty(), "{name}: {flagged:#?}");
        }
        // One no plain word matches: left to a person, and refused.
        let odd = json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^Z{3}[0-9]{2}$"}}, "required": ["code"]});
        assert!(!refused(&odd).is_empty());
    }
}
