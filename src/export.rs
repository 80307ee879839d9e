//! Tools written out as a file. A catalog in one of the formats the
//! importers read (`toolsift export-catalog`), so a gathered catalog (MCP
//! servers) can be versioned, diffed and served; the tools a search loaded
//! as a provider payload (`search --export`, the explorer's export). Each
//! tool's shape is the provider module's ([`crate::provider::payload_tool`]);
//! this module writes the file around them.

mod toml_safe;

use serde_json::{Value, json};

use crate::catalog::{Catalog, Tool};
use crate::provider::{PayloadFormat, payload_tool};

/// The formats `toolsift export-catalog` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// The Caveman wire descriptors: a JSON array of `{name, description,
    /// input_schema, read_only, idempotent, always_load}`.
    Caveman,
    /// MCP `tools/list`: `{"tools": [{name, title?, description,
    /// inputSchema, annotations: {readOnlyHint, idempotentHint}}]}`.
    Mcp,
    /// OpenAI Chat Completions tools: `[{"type": "function", "function":
    /// {name, description, parameters}}]`.
    Openai,
    /// Anthropic tools: `[{name, description, input_schema}]`.
    Anthropic,
    /// toolsift's TOML catalog (`[catalog]`, `[[tool]]`). Control,
    /// bidirectional and invisible characters are written as `\uXXXX`
    /// escapes.
    Toml,
}

/// The tools as a provider payload: a JSON array in `format`'s shape,
/// exact and safe on a terminal, ending with a newline.
pub fn payload<'a>(
    tools: impl IntoIterator<Item = &'a Tool>,
    format: PayloadFormat,
) -> Result<String, ExportError> {
    json_text(&Value::Array(
        tools.into_iter().map(|t| payload_tool(t, format)).collect(),
    ))
}

/// Exact JSON that is also safe on a terminal (DEL, C1 and bidi controls
/// written as `\u` escapes), ending with a newline.
fn json_text(value: &Value) -> Result<String, ExportError> {
    let mut text = crate::terminal_text::json_for_terminal(value).map_err(|e| ExportError {
        tool: String::new(),
        message: e.to_string(),
    })?;
    text.push('\n');
    Ok(text)
}

/// A catalog that one format cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool {tool:?}: {message}")]
pub struct ExportError {
    pub tool: String,
    pub message: String,
}

/// `catalog` in `format`, ending with a newline.
pub fn export(catalog: &Catalog, format: ExportFormat) -> Result<String, ExportError> {
    let tools = catalog.tools();
    let each = |f: PayloadFormat| Value::Array(tools.iter().map(|t| payload_tool(t, f)).collect());
    let value = match format {
        ExportFormat::Caveman => each(PayloadFormat::Caveman),
        ExportFormat::Mcp => json!({"tools": each(PayloadFormat::Mcp)}),
        ExportFormat::Openai => each(PayloadFormat::OpenaiChat),
        ExportFormat::Anthropic => each(PayloadFormat::Anthropic),
        ExportFormat::Toml => return toml_catalog(catalog),
    };
    json_text(&value)
}

fn toml_catalog(catalog: &Catalog) -> Result<String, ExportError> {
    let mut out = String::new();
    let head = toml::to_string(&json!({"catalog": {"name": catalog.name()}})).map_err(|e| {
        ExportError {
            tool: String::new(),
            message: e.to_string(),
        }
    })?;
    out.push_str(&head);
    for t in catalog.tools() {
        let one = json!({"tool": [payload_tool(t, PayloadFormat::Caveman)]});
        let text = toml::to_string(&one).map_err(|e| ExportError {
            tool: t.name.clone(),
            message: format!(
                "TOML cannot hold it ({e}); a JSON null in its schema is the usual cause: use --format caveman"
            ),
        })?;
        out.push('\n');
        out.push_str(&text);
    }
    Ok(toml_safe::escape_strings(&out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{SourceKind, parse};

    fn sample() -> Catalog {
        let mut a = Tool::new("get_time", "Current time in a time zone");
        a.input_schema = json!({"type": "object", "properties": {"tz": {"type": "string", "enum": ["UTC", "CET"]}}, "required": ["tz"]});
        a.read_only = true;
        a.idempotent = true;
        let mut b = Tool::new("git_commit", "Commit staged changes");
        b.always_load = true;
        Catalog::new("sample", vec![a, b]).unwrap()
    }

    fn same_tools(a: &Catalog, b: &Catalog, flags: bool) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.tools().iter().zip(b.tools()) {
            assert_eq!(
                (&x.name, &x.description, &x.input_schema),
                (&y.name, &y.description, &y.input_schema)
            );
            if flags {
                assert_eq!(
                    (x.read_only, x.idempotent, x.always_load),
                    (y.read_only, y.idempotent, y.always_load)
                );
            }
        }
    }

    #[test]
    fn every_format_loads_back() {
        let c = sample();
        for (format, kind, flags) in [
            (ExportFormat::Caveman, SourceKind::Json, true),
            (ExportFormat::Toml, SourceKind::Toml, true),
            (ExportFormat::Mcp, SourceKind::Json, false),
            (ExportFormat::Openai, SourceKind::Json, false),
            (ExportFormat::Anthropic, SourceKind::Json, false),
        ] {
            let text = export(&c, format).unwrap();
            let back =
                parse(&text, "x", "x", kind).unwrap_or_else(|e| panic!("{format:?}: {e}\n{text}"));
            same_tools(&c, &back, flags);
            assert_eq!(back.fingerprint(), c.fingerprint(), "{format:?}");
        }
        let mcp = export(&c, ExportFormat::Mcp).unwrap();
        let back = parse(&mcp, "x", "x", SourceKind::Json).unwrap();
        assert!(back.tools()[0].read_only && back.tools()[0].idempotent);
    }

    #[test]
    fn payloads_in_each_providers_shape() {
        let c = sample();
        let tools: Vec<&Tool> = c.tools().iter().collect();
        let get =
            |f| -> Value { serde_json::from_str(&payload(tools.clone(), f).unwrap()).unwrap() };
        let r = get(PayloadFormat::OpenaiResponses);
        assert_eq!(r[0]["type"], "function");
        assert_eq!(r[0]["name"], "get_time");
        assert_eq!(r[0]["parameters"]["required"][0], "tz");
        assert!(r[0].get("function").is_none());
        let ch = get(PayloadFormat::OpenaiChat);
        assert_eq!(ch[1]["function"]["name"], "git_commit");
        assert_eq!(ch[1]["function"]["parameters"]["type"], "object");
        let a = get(PayloadFormat::Anthropic);
        assert_eq!(a[0].as_object().unwrap().len(), 3);
        assert_eq!(a[0]["input_schema"]["type"], "object");
        let m = get(PayloadFormat::Mcp);
        assert_eq!(m[0]["inputSchema"]["type"], "object");
        assert_eq!(m[0]["annotations"]["readOnlyHint"], true);
        let cv = get(PayloadFormat::Caveman);
        assert_eq!(cv[1]["always_load"], true);
        // Each loads back through the importer as the same tools.
        for f in [
            PayloadFormat::OpenaiResponses,
            PayloadFormat::OpenaiChat,
            PayloadFormat::Anthropic,
            PayloadFormat::Mcp,
            PayloadFormat::Caveman,
        ] {
            let back = parse(
                &payload(tools.clone(), f).unwrap(),
                "x",
                "x",
                SourceKind::Json,
            )
            .unwrap();
            assert_eq!(back.fingerprint(), c.fingerprint(), "{f:?}");
        }
    }

    /// C1 controls (CSI, OSC, NEL), bidi controls, zero-width and tag
    /// characters in every kind of field, and text the TOML writer would
    /// put in literal strings (a backslash) or multi-line ones (a newline).
    fn hostile() -> Catalog {
        let mut a = Tool::new(
            "evil\u{9b}2J\u{202e}txt",
            "Reads a file.\u{9d}52;c;aGk=\u{7}\u{85}\nSecond line \u{200b}\u{e0069}\u{e0067}\u{e006e}",
        );
        a.input_schema = json!({
            "type": "object",
            "properties": {
                "pa\u{2066}th\u{feff}": {
                    "type": "string",
                    "description": "C:\\dir\u{9b}31m 'quoted' \u{200d}",
                    "enum": ["\u{85}", "a\\\u{202d}", "\u{e0100}x"]
                }
            }
        });
        let b = Tool::new("plain\u{180e}", "C:\\path\u{61c}\nwith '''quotes''' \"\"\"");
        Catalog::new("cat\u{9b}alog\u{202e}", vec![a, b]).unwrap()
    }

    #[test]
    fn toml_escapes_unsafe_characters_and_loads_back() {
        let c = hostile();
        let text = export(&c, ExportFormat::Toml).unwrap();
        for c in [
            '\u{9b}',
            '\u{9d}',
            '\u{85}',
            '\u{202e}',
            '\u{200b}',
            '\u{e0069}',
            '\u{feff}',
        ] {
            assert!(!text.contains(c), "raw {c:?} in {text}");
        }
        assert!(
            !text.contains(|c: char| c != '\n' && crate::terminal_text::is_unsafe(c)),
            "{text}"
        );
        assert!(text.contains("evil\\u009B2J\\u202Etxt"), "{text}");
        assert!(text.contains("\\U000E0069"), "{text}");
        let back =
            parse(&text, "x", "x", SourceKind::Toml).unwrap_or_else(|e| panic!("{e}\n{text}"));
        same_tools(&c, &back, true);
        assert_eq!(back.name(), c.name());
        assert_eq!(back.fingerprint(), c.fingerprint());
    }

    #[test]
    fn toml_refuses_null_with_the_tool_named() {
        let mut t = Tool::new("x", "d");
        t.input_schema = json!({"type": "object", "properties": {"a": {"default": null}}});
        let e = export(&Catalog::new("n", vec![t]).unwrap(), ExportFormat::Toml).unwrap_err();
        assert!(
            e.to_string().starts_with("tool \"x\": TOML cannot hold it"),
            "{e}"
        );
    }
}
