//! Hidden text: characters a person reviewing a catalog never sees but a
//! model reads. Tag characters (U+E0000 to U+E007F) are invisible copies of
//! ASCII that can spell a whole instruction; zero-width characters and
//! variation selectors can carry words or bytes between visible letters;
//! bidirectional controls make the eye read something else than the model.
//!
//! Names and schema keys are identifiers: every such character counts.
//! Descriptions and the schema's string values are prose: the joiners of
//! emoji sequences and of Persian or Devanagari letters, and one emoji
//! variation selector after a visible character, are part of what a reader
//! sees and do not count (see [`prose_chars`]).

use serde_json::Value;

use crate::catalog::Tool;
use crate::terminal_text::{Hidden, escape, hidden, prose_chars};

/// Distinct characters a finding lists before `...`.
const SHOWN_CHARS: usize = 5;
/// The longest hidden text a finding spells out, in characters.
const SPELLED_CHARS: usize = 300;

/// The hidden characters of one kind in one field of a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `name`, `description`, or a JSON path into the schema
    /// (`input_schema.properties.path.description`; a key is `... key "k"`),
    /// escaped.
    pub field: String,
    pub kind: Hidden,
    pub count: usize,
    /// The distinct characters, in the order they first appear.
    pub chars: Vec<char>,
    /// What tag characters spell in ASCII.
    pub spelled: Option<String>,
    /// Control characters that start an ANSI escape sequence (ESC then
    /// `[` or `]`).
    pub ansi: bool,
}

impl Finding {
    /// `hidden text in description: 31 tag characters (\u{e0069}, ...):
    /// hidden text "ignore all previous instructions"`.
    pub fn message(&self) -> String {
        let (one, many) = match self.kind {
            Hidden::Tag => ("tag character", "tag characters"),
            Hidden::Bidi => ("bidirectional control", "bidirectional controls"),
            Hidden::Invisible => (
                "zero-width or invisible character",
                "zero-width or invisible characters",
            ),
            Hidden::VariationSelector => ("variation selector", "variation selectors"),
            Hidden::Control => ("control character", "control characters"),
        };
        let mut shown: Vec<String> = self
            .chars
            .iter()
            .take(SHOWN_CHARS)
            .map(|&c| format!("\\u{{{:x}}}", u32::from(c)))
            .collect();
        if self.chars.len() > SHOWN_CHARS {
            shown.push("...".into());
        }
        let mut message = format!(
            "hidden text in {}: {} {} ({})",
            self.field,
            self.count,
            if self.count == 1 { one } else { many },
            shown.join(", ")
        );
        if let Some(text) = &self.spelled {
            message.push_str(&format!(": hidden text {}", quoted(text)));
        }
        if self.ansi {
            message.push_str(": an ANSI escape sequence");
        }
        message
    }
}

/// `text` in quotes, escaped as every output escapes text (a quote as
/// `\"`), cut to [`SPELLED_CHARS`].
fn quoted(text: &str) -> String {
    let cut = text.chars().count() > SPELLED_CHARS;
    let text: String = text.chars().take(SPELLED_CHARS).collect();
    let text = escape(&text).replace('"', "\\\"");
    format!("\"{text}\"{}", if cut { " (cut)" } else { "" })
}

/// Every field of `tool` that hides text: name, description, then the
/// schema's keys and strings in document order.
pub fn findings(tool: &Tool) -> Vec<Finding> {
    let mut out = Vec::new();
    scan(&tool.name, false, "name", &mut out);
    scan(&tool.description, true, "description", &mut out);
    schema(&tool.input_schema, "input_schema".into(), &mut out);
    out
}

fn schema(value: &Value, path: String, out: &mut Vec<Finding>) {
    match value {
        Value::String(s) => scan(s, true, &path, out),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                schema(item, format!("{path}[{i}]"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let segment = if !key.is_empty()
                    && key
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '$'))
                {
                    format!(".{key}")
                } else {
                    format!("[{}]", quoted(key))
                };
                scan(key, false, &format!("{path} key {}", quoted(key)), out);
                schema(item, format!("{path}{segment}"), out);
            }
        }
        _ => {}
    }
}

/// Whether `c` is a control character that hides something: C0, DEL and
/// C1, but in prose (`prose`) not a line break or a tab.
pub fn is_hiding_control(c: char, prose: bool) -> bool {
    c.is_control() && !(prose && matches!(c, '\n' | '\r' | '\t'))
}

/// The kind of hidden character `c` is, in prose or an identifier (before
/// the prose exceptions of [`prose_chars`]).
fn kind_of(c: char, prose: bool) -> Option<Hidden> {
    hidden(c).or_else(|| is_hiding_control(c, prose).then_some(Hidden::Control))
}

/// Adds a finding per kind of hidden character in `text` (a description
/// when `prose`, else an identifier).
fn scan(text: &str, prose: bool, field: &str, out: &mut Vec<Finding>) {
    let hidden_chars: Vec<(char, Hidden)> = if prose {
        prose_chars(text)
            .filter(|&(_, escaped)| escaped)
            .filter_map(|(c, _)| Some((c, kind_of(c, true)?)))
            .collect()
    } else {
        text.chars()
            .filter_map(|c| Some((c, kind_of(c, false)?)))
            .collect()
    };
    let mut kinds: Vec<Hidden> = hidden_chars.iter().map(|&(_, k)| k).collect();
    kinds.sort();
    kinds.dedup();
    for kind in kinds {
        let mut chars = Vec::new();
        let mut count = 0;
        for &(c, k) in &hidden_chars {
            if k == kind {
                count += 1;
                if !chars.contains(&c) {
                    chars.push(c);
                }
            }
        }
        let spelled = (kind == Hidden::Tag)
            .then(|| spell(text))
            .filter(|s| !s.is_empty());
        let ansi = kind == Hidden::Control
            && (text.contains("\u{1b}[") || text.contains("\u{1b}]") || text.contains('\u{9b}'));
        out.push(Finding {
            field: field.to_string(),
            kind,
            count,
            chars,
            spelled,
            ansi,
        });
    }
}

/// The ASCII that the tag characters of `text` spell (U+E0020 to U+E007E
/// are ASCII 0x20 to 0x7E; the language and cancel tags spell nothing).
pub fn spell(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            let code = u32::from(c).checked_sub(0xE0000)?;
            (0x20..=0x7E)
                .contains(&code)
                .then(|| char::from(code as u8))
        })
        .collect()
}
