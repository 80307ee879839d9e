//! Untrusted text made safe to print on a terminal.
//!
//! A catalog is untrusted input: an MCP server or a downloaded file can put
//! escape sequences in tool names, descriptions and schemas (OSC 52
//! `ESC ] 52 ; c ; <base64> BEL` writes the user's clipboard, CSI `ESC [ 2 J`
//! clears the screen). Every human-readable output of the CLI passes the text
//! it did not write itself through [`escape`], which replaces each character
//! a terminal would act on with a visible, unambiguous escape made of
//! printable ASCII:
//!
//! - C0 controls and DEL: `\n`, `\r`, `\t`, else `\x1b`, `\x07`, `\x7f`, ...;
//! - C1 controls (U+0080 to U+009F): `\u{9b}`, ...;
//! - bidirectional controls, which reorder what the eye sees (U+061C,
//!   U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), and the line and
//!   paragraph separators U+2028, U+2029: `\u{202e}`, ...
//!
//! Everything else, printable ASCII and Unicode text included, is unchanged,
//! so a table column can be measured on the escaped text. [`escape_layout`]
//! does the same but keeps newlines and tabs: for a whole text whose lines
//! the program laid out itself (a report, an error message), as a safety net
//! behind the per-field escaping. [`json_for_terminal`] keeps JSON exact
//! while writing the same characters as `\uXXXX` escapes.

use std::borrow::Cow;
use std::fmt::Write as _;

/// True for a character a terminal may act on rather than show.
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}' | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// `text` with every unsafe character (newlines and tabs included) written
/// as a visible escape. Borrows when there is nothing to escape.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_where(text, is_unsafe)
}

/// Like [`escape`] but keeps `\n` and `\t`: for text laid out by the program
/// whose fields were already escaped.
pub fn escape_layout(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| c != '\n' && c != '\t' && is_unsafe(c))
}

fn escape_where(text: &str, unsafe_char: impl Fn(char) -> bool) -> Cow<'_, str> {
    let Some(first) = text.find(&unsafe_char) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if !unsafe_char(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{0}'..='\u{1f}' | '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            _ => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

/// Escapes every item and joins them with `sep` (a list of names on one line).
pub fn escape_join<S: AsRef<str>>(items: &[S], sep: &str) -> String {
    items
        .iter()
        .map(|s| escape(s.as_ref()))
        .collect::<Vec<_>>()
        .join(sep)
}

/// Pretty JSON of `value` that is safe on a terminal and parses back to
/// exactly `value`: serde_json already writes C0 controls as escapes; the
/// other unsafe characters (DEL, C1, bidirectional controls), which it
/// writes raw, become `\uXXXX`. They can only occur inside JSON strings,
/// where that escape means the same character.
pub fn json_for_terminal<T: serde::Serialize + ?Sized>(
    value: &T,
) -> Result<String, serde_json::Error> {
    // The C0 controls left in the text are the layout's own newlines.
    let raw = |c: char| c >= '\u{7f}' && is_unsafe(c);
    let text = serde_json::to_string_pretty(value)?;
    if !text.contains(raw) {
        return Ok(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if raw(c) {
            // Every unsafe character is in the Basic Multilingual Plane.
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

/// The width of a column holding `cells` (escaped text), at least `min`.
pub fn column_width<S: AsRef<str>>(cells: &[S], min: usize) -> usize {
    cells
        .iter()
        .map(|c| c.as_ref().chars().count())
        .max()
        .unwrap_or(min)
        .max(min)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn attacks_become_visible() {
        assert_eq!(escape("a\u{1b}]52;c;aGk=\u{7}b"), "a\\x1b]52;c;aGk=\\x07b");
        assert_eq!(escape("\u{1b}[2J"), "\\x1b[2J");
        assert_eq!(escape("x\u{9b}2J"), "x\\u{9b}2J");
        assert_eq!(escape("a\nb\tc\r"), "a\\nb\\tc\\r");
        assert_eq!(escape("\u{7f}\u{0}"), "\\x7f\\x00");
        assert_eq!(escape("abc\u{202e}txt.exe"), "abc\\u{202e}txt.exe");
        assert_eq!(escape("\u{2066}\u{2069}"), "\\u{2066}\\u{2069}");
        assert_eq!(escape_layout("a\nb\u{1b}\tc"), "a\nb\\x1b\tc");
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(escape("get_weather"), Cow::Borrowed(_)));
        assert!(matches!(escape_layout("a\nb\n"), Cow::Borrowed(_)));
        assert_eq!(
            escape("Wetter für München — 天気 ✓"),
            "Wetter für München — 天気 ✓"
        );
    }

    #[test]
    fn joins_escape_each_item() {
        assert_eq!(escape_join(&["a\nb", "c"], ", "), "a\\nb, c");
    }

    #[test]
    fn json_stays_exact() {
        let name = "n\u{1b}]52;c;aGk=\u{7}\u{9b}2J\u{7f}\u{202e}\n";
        let text = json_for_terminal(&serde_json::json!({ "name": name })).unwrap();
        assert!(
            !text.contains(|c: char| c != '\n' && is_unsafe(c)),
            "{text}"
        );
        assert!(text.contains("\\u009b"), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["name"], name);
    }

    proptest! {
        #[test]
        fn output_has_no_unsafe_char(text in any::<String>()) {
            let e = escape(&text);
            prop_assert!(!e.contains(is_unsafe), "{:?}", e);
            let l = escape_layout(&text);
            prop_assert!(!l.contains(|c: char| c != '\n' && c != '\t' && is_unsafe(c)));
        }

        #[test]
        fn safe_text_is_unchanged(text in "[ -~\u{a0}-\u{61b}\u{61d}-\u{1fff}\u{3000}-\u{9fff}]*") {
            prop_assert_eq!(escape(&text), text.as_str());
        }

        #[test]
        fn json_round_trips(text in any::<String>()) {
            let json = json_for_terminal(&text).unwrap();
            prop_assert!(!json.contains(is_unsafe));
            let back: String = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(back, text);
        }
    }
}
