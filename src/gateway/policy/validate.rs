//! A call's arguments checked against the tool's input schema before it
//! is sent (the JSON Schema crate `jsonschema`; no remote `$ref` is ever
//! fetched). Each tool's validator is compiled once, on its first call.

use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

/// Errors quoted in a refusal, at most.
const MAX_ERRORS: usize = 5;
/// A quoted error is cut to this many characters.
const MAX_ERROR_CHARS: usize = 300;
/// A schema quoted in a refusal is cut to this many bytes of its JSON.
pub(crate) const MAX_QUOTED_SCHEMA: usize = 2048;

/// What a tool's schema made of.
enum Compiled {
    Ready(jsonschema::Validator),
    /// The schema does not compile (a remote `$ref`, a bad keyword): the
    /// call goes through unchecked and the server checks it.
    Unusable(String),
}

/// One lazily compiled validator per catalog tool.
pub(crate) struct Validators {
    slots: Vec<OnceLock<Arc<Compiled>>>,
    /// Compiling is rare; one at a time keeps a burst of first calls from
    /// compiling one schema many times.
    compiling: Mutex<()>,
}

/// Why arguments were refused, or that the schema could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Checked {
    Valid,
    /// The schema does not compile; the call is not checked.
    Unchecked(String),
    /// Each error: where in the arguments (a JSON pointer) and what.
    Invalid(Vec<(String, String)>),
}

impl Validators {
    pub(crate) fn new(tools: usize) -> Validators {
        Validators {
            slots: (0..tools).map(|_| OnceLock::new()).collect(),
            compiling: Mutex::new(()),
        }
    }

    fn compiled(&self, index: usize, schema: &Value) -> Arc<Compiled> {
        let Some(slot) = self.slots.get(index) else {
            return Arc::new(Compiled::Unusable("no such tool".into()));
        };
        if let Some(c) = slot.get() {
            return c.clone();
        }
        let _one = self.compiling.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_init(|| {
            Arc::new(match jsonschema::validator_for(schema) {
                Ok(v) => Compiled::Ready(v),
                Err(e) => Compiled::Unusable(cut(&e.to_string())),
            })
        })
        .clone()
    }

    /// `arguments` against tool `index`'s `schema`.
    pub(crate) fn check(&self, index: usize, schema: &Value, arguments: &Value) -> Checked {
        match self.compiled(index, schema).as_ref() {
            Compiled::Unusable(why) => Checked::Unchecked(why.clone()),
            Compiled::Ready(v) => {
                let errors: Vec<(String, String)> =
                    crate::catalog::schema::argument_errors(v, arguments, MAX_ERRORS)
                        .into_iter()
                        .map(|(at, what)| (at, cut(&what)))
                        .collect();
                if errors.is_empty() {
                    Checked::Valid
                } else {
                    Checked::Invalid(errors)
                }
            }
        }
    }
}

/// `schema` as JSON for a refusal to quote: whole when it is short, else
/// its first [`MAX_QUOTED_SCHEMA`] bytes and how much it weighs in all.
pub(crate) fn quoted_schema(schema: &Value) -> String {
    let whole = schema.to_string();
    if whole.len() <= MAX_QUOTED_SCHEMA {
        return whole;
    }
    let mut end = MAX_QUOTED_SCHEMA;
    while !whole.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… (cut: the whole schema is {} bytes)",
        &whole[..end],
        crate::numbers::thousands(whole.len() as u64)
    )
}

fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_ERROR_CHARS {
        return text.to_string();
    }
    let mut out: String = text.chars().take(MAX_ERROR_CHARS).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_invalid_and_unusable_schemas() {
        let v = Validators::new(3);
        let schema = json!({
            "type": "object",
            "properties": {"repo_path": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["repo_path"]
        });
        assert_eq!(
            v.check(0, &schema, &json!({"repo_path": "/tmp"})),
            Checked::Valid
        );
        let Checked::Invalid(errors) = v.check(0, &schema, &json!({"n": "three"})) else {
            panic!("missing repo_path and a string for n are invalid");
        };
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors
                .iter()
                .any(|(at, e)| at == "/" && e.contains("repo_path"))
        );
        assert!(errors.iter().any(|(at, _)| at == "/n"));
        // A remote $ref is never fetched: the schema is unusable, not a hang.
        let remote = json!({"$ref": "https://example.invalid/schema.json"});
        assert!(matches!(
            v.check(1, &remote, &json!({})),
            Checked::Unchecked(_)
        ));
        // Out of range: unusable, not a panic.
        assert!(matches!(
            v.check(9, &schema, &json!({})),
            Checked::Unchecked(_)
        ));
    }

    #[test]
    fn a_quoted_schema_is_cut_to_a_few_kilobytes() {
        let small = json!({"type": "object"});
        assert_eq!(quoted_schema(&small), small.to_string());
        let properties: serde_json::Map<String, Value> = (0..10_000)
            .map(|i| (format!("é{i}"), json!({"type": "string"})))
            .collect();
        let big = json!({"type": "object", "properties": properties});
        let quoted = quoted_schema(&big);
        assert!(quoted.len() <= MAX_QUOTED_SCHEMA + 100, "{}", quoted.len());
        assert!(quoted.ends_with(" bytes)") && quoted.contains("cut: the whole schema is"));
    }

    #[test]
    fn long_errors_are_cut() {
        let v = Validators::new(1);
        let schema = json!({"type": "object", "properties": {"s": {"maxLength": 1}}});
        let long = "x".repeat(5000);
        let Checked::Invalid(errors) = v.check(0, &schema, &json!({ "s": long })) else {
            panic!("too long");
        };
        assert!(errors[0].1.chars().count() <= MAX_ERROR_CHARS + 1);
    }
}
