//! Hidden text stopped at the gateway (`--hidden-text strip|drop|keep`):
//! a server's tool whose text hides something (ANSI sequences, control,
//! tag, zero-width or bidirectional characters) reaches the model cleaned
//! (strip, the default) or not at all (drop); each change is logged and
//! counted in /metrics (`toolsift_gateway_hidden_text_tools`).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::catalog::{Catalog, Tool, clean_tool, hidden_text, strip_json, strip_prose};
pub use crate::config::HiddenText;
use crate::terminal_text::escape;

use crate::gateway::{GatewayError, Recorder};

/// How many tools of the catalog in use hid text: cleaned, left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HiddenCounts {
    pub stripped: usize,
    pub dropped: usize,
}

/// `catalog` as `mode` has the host see it: tools cleaned or left out,
/// each change logged by `recorder`, and how many.
pub(crate) fn sanitize(
    catalog: Catalog,
    mode: HiddenText,
    recorder: &Recorder,
) -> Result<(Catalog, HiddenCounts), GatewayError> {
    if mode == HiddenText::Keep || catalog.is_empty() {
        return Ok((catalog, HiddenCounts::default()));
    }
    let mut changed = false;
    let (mut stripped, mut dropped) = (0usize, 0usize);
    let mut kept: Vec<Tool> = Vec::with_capacity(catalog.len());
    for tool in catalog.tools() {
        let name = escape(&tool.name);
        let outcome = match mode {
            HiddenText::Drop => match hidden_text(tool).first() {
                None => Ok(None),
                Some(f) => Err(f.message()),
            },
            _ => clean_tool(tool).map_err(|e| e.to_string()),
        };
        match outcome {
            Ok(None) => kept.push(tool.clone()),
            Ok(Some((clean, fields))) => {
                recorder.warn(&format!(
                    "tool \"{name}\": hidden text taken out of {} (--hidden-text strip)",
                    fields.join(", ")
                ));
                stripped += 1;
                changed = true;
                kept.push(clean);
            }
            Err(why) => {
                recorder.warn(&format!(
                    "tool \"{name}\" left out: {why} (--hidden-text {mode})"
                ));
                dropped += 1;
                changed = true;
            }
        }
    }
    let counts = HiddenCounts { stripped, dropped };
    if !changed {
        return Ok((catalog, counts));
    }
    if kept.is_empty() {
        return Err(GatewayError::AllHideText {
            tools: catalog.len(),
            mode,
        });
    }
    Ok((Catalog::new(catalog.name(), kept)?, counts))
}

/// A call's result without hidden text in its content and structured
/// content (ANSI, tag characters, bidirectional controls; emoji sequences
/// stay); whether anything was taken out.
pub(crate) fn clean_result(result: &mut rmcp::model::CallToolResult) -> bool {
    clean_answer(result, &["content", "structuredContent"])
}

/// An answer a server gave (a call's result, a read resource, a got
/// prompt) without hidden text in the fields named by `parts`: in their
/// strings and in their objects' keys (data, not a tool's schema: no name
/// depends on them), each `uri` left as it is (its server needs it back);
/// whether anything was taken out.
pub(crate) fn clean_answer<T: Serialize + DeserializeOwned>(
    answer: &mut T,
    parts: &[&str],
) -> bool {
    let Ok(mut value) = serde_json::to_value(&*answer) else {
        return false;
    };
    let mut changed = false;
    for key in parts {
        if let Some(part) = value.get_mut(*key) {
            changed |= strip_data(part);
        }
    }
    if changed && let Ok(clean) = serde_json::from_value(value) {
        *answer = clean;
        return true;
    }
    false
}

/// Whether `answer`'s `parts` hide text (what [`clean_answer`] would take
/// out).
pub(crate) fn answer_hides<T: Serialize + DeserializeOwned>(answer: &T, parts: &[&str]) -> bool {
    let Ok(mut value) = serde_json::to_value(answer) else {
        return false;
    };
    parts
        .iter()
        .any(|key| value.get_mut(*key).is_some_and(strip_data))
}

/// [`strip_json`] over the keys of objects too (a key that hides text is
/// cleaned; should two keys become one, the first stays); `uri` untouched.
fn strip_data(value: &mut Value) -> bool {
    match value {
        Value::Array(items) => items.iter_mut().fold(false, |c, v| strip_data(v) | c),
        Value::Object(map) => {
            let mut changed = false;
            let mut clean = serde_json::Map::with_capacity(map.len());
            for (key, mut v) in std::mem::take(map) {
                if key != "uri" {
                    changed |= strip_data(&mut v);
                }
                let stripped = strip_prose(&key).into_owned();
                changed |= stripped != key;
                clean.entry(stripped).or_insert(v);
            }
            *map = clean;
            changed
        }
        _ => strip_json(value),
    }
}

/// A server's definition of a tool, as the host receives it: its strings
/// (description, title, schemas, annotations) cleaned unless `mode` keeps
/// them.
pub(crate) fn clean_listed(tool: &mut rmcp::model::Tool, mode: HiddenText) {
    if mode == HiddenText::Keep {
        return;
    }
    let Ok(mut value) = serde_json::to_value(&*tool) else {
        return;
    };
    let name = value.get("name").cloned();
    if strip_json(&mut value) {
        if let Some(name) = name {
            value["name"] = name;
        }
        if let Ok(clean) = serde_json::from_value(value) {
            *tool = clean;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{CallToolResult, ContentBlock};

    #[test]
    fn a_result_loses_ansi_tags_and_bidi_but_keeps_emoji_and_line_breaks() {
        let tags: String = "ignore all"
            .chars()
            .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
            .collect();
        // A flag emoji is a tag sequence of its own: it stays.
        let scotland = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}";
        let mut result = CallToolResult::success(vec![ContentBlock::text(format!(
            "\u{1b}[31mred\u{1b}[0m\nline two {scotland} \u{202e}x{tags}"
        ))]);
        result.structured_content = Some(serde_json::json!({
            "note": "a\u{1b}[2Jb",
            "\u{1b}[8mkey": {"uri": "x://\u{202e}kept", "n": 1}
        }));
        assert!(clean_result(&mut result));
        let shown = serde_json::to_value(&result).unwrap();
        assert_eq!(
            shown["content"][0]["text"],
            format!("red\nline two {scotland} x")
        );
        assert_eq!(shown["structuredContent"]["note"], "ab");
        // Keys are cleaned; a URI is left as its server needs it.
        assert_eq!(
            shown["structuredContent"]["key"],
            serde_json::json!({"uri": "x://\u{202e}kept", "n": 1})
        );
        assert!(!clean_result(&mut result), "nothing left to take out");
    }
}
