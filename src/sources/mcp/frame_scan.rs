//! The top-level keys of a JSON-RPC message read as its bytes stream by,
//! holding none of it but the `id`'s value: enough to answer the request
//! a message too long or too deep to read was answering.

use serde_json::Value;

/// The longest `id` value kept (MCP's ids are numbers and short strings).
const MAX_ID_BYTES: usize = 256;

/// The deepest nesting serde_json reads (its recursion limit): a message
/// nested this deep or deeper is refused by rmcp.
pub(super) const MAX_DEPTH: usize = 128;

/// What a message's bytes said so far at its top level.
#[derive(Debug, Default)]
pub(super) struct Scan {
    depth: usize,
    /// The deepest the message went.
    deepest: usize,
    in_string: bool,
    escaped: bool,
    /// The top-level key being read (at most a few bytes are kept).
    key: Vec<u8>,
    /// Whether the string being read is a top-level key.
    reading_key: bool,
    /// The last top-level key read, while its value is read.
    value_of: Vec<u8>,
    /// The `id` value's bytes, while read and once read.
    id: Vec<u8>,
    reading_id: bool,
    /// A top-level `result` or `error`: the message answers a request.
    answers: bool,
    /// Whether the next top-level string is a key (after `{` or `,`).
    key_next: bool,
}

impl Scan {
    /// Reads `bytes`, the next part of the message.
    pub(super) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn byte(&mut self, b: u8) {
        if self.reading_id {
            let ends = !self.in_string && self.depth == 1 && (b == b',' || b == b'}');
            if !ends {
                if self.id.len() < MAX_ID_BYTES {
                    self.id.push(b);
                }
            } else {
                self.reading_id = false;
            }
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.reading_key {
                    self.reading_key = false;
                    self.value_of = std::mem::take(&mut self.key);
                }
            } else if self.reading_key && self.key.len() < 16 {
                self.key.push(b);
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                self.reading_key = self.depth == 1 && self.key_next;
                self.key_next = false;
            }
            b'{' | b'[' => {
                self.depth += 1;
                self.deepest = self.deepest.max(self.depth);
                self.key_next = self.depth == 1 && b == b'{';
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.key_next = true,
            b':' if self.depth == 1 => {
                match self.value_of.as_slice() {
                    b"id" => {
                        self.id.clear();
                        self.reading_id = true;
                    }
                    b"result" | b"error" => self.answers = true,
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// Whether the message nests too deep for serde_json ([`MAX_DEPTH`]).
    pub(super) fn too_deep(&self) -> bool {
        self.deepest >= MAX_DEPTH
    }

    /// The id of the request the message answers: a top-level `id` (a
    /// number or a string) beside a `result` or an `error`.
    pub(super) fn answer_id(&self) -> Option<Value> {
        if !self.answers || self.reading_id {
            return None;
        }
        match serde_json::from_slice::<Value>(self.id.trim_ascii()).ok()? {
            id @ (Value::Number(_) | Value::String(_)) => Some(id),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id_of(parts: &[&str]) -> Option<Value> {
        let mut scan = Scan::default();
        for p in parts {
            scan.feed(p.as_bytes());
        }
        scan.answer_id()
    }

    #[test]
    fn the_top_level_id_of_an_answer_is_found_wherever_it_stands() {
        assert_eq!(id_of(&[r#"{"jsonrpc":"2.0","id":12,"result":{"id":99}}"#]), Some(json!(12)));
        assert_eq!(
            id_of(&[r#"{"result":{"id":99,"s":"\"id\":5"},"jsonrpc":"2.0","#, r#" "id" : "ab,c" }"#]),
            Some(json!("ab,c"))
        );
        assert_eq!(id_of(&[r#"{"jsonrpc":"2.0","id":3,"error":{"code":1}}"#]), Some(json!(3)));
        // A request or a notification of the server's answers nothing.
        assert_eq!(id_of(&[r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#]), None);
        assert_eq!(id_of(&["Starting the server on stdio"]), None);
        // An id cut off with the line: none.
        assert_eq!(id_of(&[r#"{"result":{},"id":12"#]), None);
        assert_eq!(id_of(&[r#"{"result":{},"id":{"a":1}}"#]), None);
    }

    #[test]
    fn nesting_is_measured_outside_strings() {
        let mut scan = Scan::default();
        scan.feed(format!("{}\"[[[[\"{}", "[".repeat(MAX_DEPTH - 1), "]".repeat(MAX_DEPTH - 1)).as_bytes());
        assert!(!scan.too_deep());
        scan.feed(format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH)).as_bytes());
        assert!(scan.too_deep());
    }
}
