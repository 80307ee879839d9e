//! A one-line text input with a cursor, edited by [`Action`]s (the keymap's
//! `input_*` keys) and typed text.

use super::action::Action;

/// A one-line text input; the cursor is a char index.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LineInput {
    pub text: String,
    pub cursor: usize,
    /// The text is a suggestion ([`LineInput::offered`]): typing replaces
    /// it whole; an editing or moving key makes it the user's own.
    pub offered: bool,
}

impl LineInput {
    pub fn new(text: &str) -> LineInput {
        let mut input = LineInput::default();
        input.set(text);
        input
    }

    /// An input holding a suggestion (a default path): Enter takes it,
    /// typing replaces it, ← → and the editing keys edit it.
    pub fn offered(text: &str) -> LineInput {
        LineInput {
            offered: !text.is_empty(),
            ..LineInput::new(text)
        }
    }

    fn byte_at(&self, char_index: usize) -> usize {
        self.text
            .char_indices()
            .nth(char_index)
            .map_or(self.text.len(), |(i, _)| i)
    }

    fn len(&self) -> usize {
        self.text.chars().count()
    }

    /// Inserts typed text at the cursor (control characters are dropped);
    /// typed over a suggestion, it replaces it.
    pub fn insert(&mut self, text: &str) -> bool {
        let mut changed = false;
        if self.offered && text.chars().any(|c| !c.is_control()) {
            self.offered = false;
            self.text.clear();
            self.cursor = 0;
            changed = true;
        }
        for c in text.chars().filter(|c| !c.is_control()) {
            let at = self.byte_at(self.cursor);
            self.text.insert(at, c);
            self.cursor += 1;
            changed = true;
        }
        changed
    }

    /// Applies an editing action; true when the text changed. Actions that
    /// are not editing ones do nothing.
    pub fn edit(&mut self, action: Action) -> bool {
        self.offered = false;
        let len = self.len();
        match action {
            Action::InputClear => {
                let changed = !self.text.is_empty();
                self.text.clear();
                self.cursor = 0;
                changed
            }
            Action::InputDeleteWord => {
                // Back over spaces, then over the word before them.
                let chars: Vec<char> = self.text.chars().collect();
                let mut start = self.cursor.min(len);
                while start > 0 && chars[start - 1].is_whitespace() {
                    start -= 1;
                }
                while start > 0 && !chars[start - 1].is_whitespace() {
                    start -= 1;
                }
                let (from, to) = (self.byte_at(start), self.byte_at(self.cursor));
                self.text.replace_range(from..to, "");
                let removed = self.cursor - start;
                self.cursor = start;
                removed > 0
            }
            Action::InputBackspace if self.cursor > 0 => {
                let at = self.byte_at(self.cursor - 1);
                self.text.remove(at);
                self.cursor -= 1;
                true
            }
            Action::InputDelete if self.cursor < len => {
                let at = self.byte_at(self.cursor);
                self.text.remove(at);
                true
            }
            Action::InputLeft => {
                self.cursor = self.cursor.saturating_sub(1);
                false
            }
            Action::InputRight => {
                self.cursor = (self.cursor + 1).min(len);
                false
            }
            Action::InputHome => {
                self.cursor = 0;
                false
            }
            Action::InputEnd => {
                self.cursor = len;
                false
            }
            _ => false,
        }
    }

    pub fn set(&mut self, text: &str) {
        self.text = text.to_string();
        self.cursor = text.chars().count();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_replaces_an_offered_text_and_a_key_makes_it_ones_own() {
        let mut l = LineInput::offered("@example");
        assert!(l.insert("/tmp/t.jsonl"));
        assert_eq!(l.text, "/tmp/t.jsonl");
        assert!(!l.offered);
        let mut l = LineInput::offered("@example");
        l.edit(Action::InputEnd);
        l.insert("2");
        assert_eq!(l.text, "@example2");
        let mut l = LineInput::offered("trace.jsonl");
        l.edit(Action::InputBackspace);
        assert_eq!(l.text, "trace.jsonl"[..10].to_string());
    }

    #[test]
    fn editing_is_by_chars_not_bytes() {
        let mut l = LineInput::new("héllo wörld");
        assert_eq!(l.cursor, 11);
        l.edit(Action::InputLeft);
        l.edit(Action::InputBackspace);
        assert_eq!(l.text, "héllo wörd");
        l.edit(Action::InputHome);
        l.edit(Action::InputDelete);
        assert_eq!(l.text, "éllo wörd");
        l.edit(Action::InputEnd);
        l.insert("x\u{7}y");
        assert_eq!(l.text, "éllo wördxy");
    }

    #[test]
    fn delete_word_handles_any_whitespace() {
        // An ideographic space is three bytes: no byte arithmetic on it.
        let mut l = LineInput::new("検索\u{3000}ツール  ");
        assert!(l.edit(Action::InputDeleteWord));
        assert_eq!(l.text, "検索\u{3000}");
        assert_eq!(l.cursor, 3);
        assert!(l.edit(Action::InputDeleteWord));
        assert_eq!(l.text, "");
        assert!(!l.edit(Action::InputDeleteWord));
        let mut l = LineInput::new("second query");
        l.edit(Action::InputDeleteWord);
        assert_eq!(l.text, "second ");
        assert!(l.edit(Action::InputClear));
        assert_eq!((l.text.as_str(), l.cursor), ("", 0));
    }
}
