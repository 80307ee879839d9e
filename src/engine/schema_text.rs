//! The text of an input schema that search reads: the parameter names at
//! every nesting level, and the descriptions, titles and enum values of the
//! parameters. The BM25F index analyses it into words; the regex ranker
//! matches a pattern against it.

use serde_json::Value;

use super::Field;

/// Schemas nested deeper than this are not read further.
const MAX_DEPTH: usize = 32;

/// Calls `f` with each piece of `schema`'s text and its field: a parameter
/// name ([`Field::ParamName`]), or a description, title or enum value
/// ([`Field::ParamDescription`]), in document order. Each object is read in
/// one pass over its keys.
pub(super) fn walk_schema(schema: &Value, f: &mut impl FnMut(Field, &str)) {
    walk(schema, 0, f);
}

fn walk(schema: &Value, depth: usize, f: &mut impl FnMut(Field, &str)) {
    let Value::Object(map) = schema else { return };
    if depth > MAX_DEPTH {
        return;
    }
    for (key, value) in map {
        match (key.as_str(), value) {
            ("description" | "title", Value::String(s)) => f(Field::ParamDescription, s),
            ("enum", Value::Array(values)) => {
                for v in values {
                    match v {
                        Value::String(s) => f(Field::ParamDescription, s),
                        Value::Number(n) => f(Field::ParamDescription, &n.to_string()),
                        _ => {}
                    }
                }
            }
            ("properties", Value::Object(props)) => {
                for (name, prop) in props {
                    f(Field::ParamName, name);
                    walk(prop, depth + 1, f);
                }
            }
            ("items" | "additionalProperties" | "not", v @ Value::Object(_)) => {
                walk(v, depth + 1, f)
            }
            ("items" | "anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(items)) => {
                for v in items {
                    walk(v, depth + 1, f);
                }
            }
            ("$defs" | "definitions", Value::Object(defs)) => {
                for v in defs.values() {
                    walk(v, depth + 1, f);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_is_read() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city"},
                "units": {"enum": ["celsius", 3]},
                "filter": {
                    "type": "object",
                    "title": "Filter",
                    "properties": {"tags": {"items": {"properties": {"tag": {}}}}}
                },
                "when": {"anyOf": [{"description": "A date"}]}
            },
            "$defs": {"x": {"properties": {"deep": {}}}}
        });
        let mut seen = Vec::new();
        walk_schema(&schema, &mut |field, text| {
            seen.push((field, text.to_string()))
        });
        let (n, d) = (Field::ParamName, Field::ParamDescription);
        let expected = [
            (n, "city"),
            (d, "The city"),
            (n, "units"),
            (d, "celsius"),
            (d, "3"),
            (n, "filter"),
            (d, "Filter"),
            (n, "tags"),
            (n, "tag"),
            (n, "when"),
            (d, "A date"),
            (n, "deep"),
        ];
        let expected: Vec<(Field, String)> =
            expected.iter().map(|(f, t)| (*f, t.to_string())).collect();
        // The order of an object's keys is serde_json's: compare as sets.
        let mut a = seen.clone();
        let mut b = expected.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }
}
