//! JSON with comments, as VS Code writes `.vscode/mcp.json` (its own
//! examples have `//` comments and trailing commas) and as Cursor and
//! Claude Code accept: comments and trailing commas are made spaces, byte
//! for byte, so every line and column an error names is still the file's.
//! Text in strings is never touched.

use std::borrow::Cow;

/// `text` with `//` and `/* */` comments and the commas before a closing
/// `}` or `]` replaced by spaces (newlines kept); borrowed when it has
/// none.
pub(super) fn blank(text: &str) -> Cow<'_, str> {
    if !text.contains('/') && !text.contains(',') {
        return Cow::Borrowed(text);
    }
    let mut out: Vec<u8> = text.as_bytes().to_vec();
    let bytes = text.as_bytes();
    let mut i = 0;
    // Where the last comma outside strings is, while only blanks and
    // comments follow it.
    let mut comma: Option<usize> = None;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                comma = None;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |at| i + 2 + at + 2);
                for at in i..end {
                    if !matches!(bytes[at], b'\n' | b'\r') {
                        out[at] = b' ';
                    }
                }
                i = end;
            }
            b',' => {
                comma = Some(i);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(at) = comma.take() {
                    out[at] = b' ';
                }
                i += 1;
            }
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => {
                comma = None;
                i += 1;
            }
        }
    }
    // Whole characters (a comment's, a comma) were made spaces: still UTF-8.
    match String::from_utf8(out) {
        Ok(s) if s != text => Cow::Owned(s),
        _ => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_become_spaces_and_strings_stay() {
        let text = "// servers\n{\n  \"servers\": { /* one */\n    \"a\": {\"url\": \"https://x/*y*/z//w\", \"args\": [\"a,\", \"]\",],},\n  },\n}\n";
        let blanked = blank(text);
        assert_eq!(blanked.len(), text.len());
        let v: serde_json::Value = serde_json::from_str(&blanked).unwrap();
        assert_eq!(v["servers"]["a"]["url"], "https://x/*y*/z//w");
        assert_eq!(v["servers"]["a"]["args"], serde_json::json!(["a,", "]"]));
        // Lines are where they were.
        assert_eq!(blanked.lines().count(), text.lines().count());
        assert!(matches!(blank("{\"a\": 1}"), Cow::Borrowed(_)));
        // An escaped quote does not end a string.
        let v: serde_json::Value =
            serde_json::from_str(&blank("{\"a\": \"x\\\" // y\", }")).unwrap();
        assert_eq!(v["a"], "x\" // y");
        // Not JSON stays not JSON (an unclosed comment eats the rest).
        assert!(serde_json::from_str::<serde_json::Value>(&blank("{\"a\": /* 1}")).is_err());
    }
}
