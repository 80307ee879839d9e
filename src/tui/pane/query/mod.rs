//! The query box: its state (the text being typed, the queries committed
//! before, and whether the text is words or a regular expression) and its
//! keys; its drawing is `draw.rs`.

pub(crate) mod draw;

use crate::engine::Ranker;
use crate::tui::action::Action;
use crate::tui::line_input::LineInput;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct QueryBox {
    pub input: LineInput,
    /// Committed queries, oldest first.
    pub history: Vec<String>,
    history_pos: Option<usize>,
    /// The text is a regular expression (the regex ranker), not words.
    regex: bool,
}

/// The ranker a search of the query box asks for: the regex ranker while
/// the box reads a pattern (`regex`), else `setting` (the settings' own).
pub fn ranker(regex: bool, setting: Ranker) -> Ranker {
    if regex { Ranker::Regex } else { setting }
}

/// What the query box asks of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryOutcome {
    Nothing,
    /// The text changed: search it (a preview).
    Changed,
    /// Search it and record it in the session.
    Commit,
    /// Give the keyboard back.
    Leave,
}

impl QueryBox {
    pub fn text(&self) -> &str {
        &self.input.text
    }

    /// Whether the text is searched as a regular expression.
    pub fn is_regex(&self) -> bool {
        self.regex
    }

    /// Typed text.
    pub fn type_text(&mut self, text: &str) -> QueryOutcome {
        if self.input.insert(text) {
            self.history_pos = None;
            QueryOutcome::Changed
        } else {
            QueryOutcome::Nothing
        }
    }

    /// The box's keys (`input_*` actions).
    pub fn handle(&mut self, action: Action) -> QueryOutcome {
        match action {
            Action::InputCancel => QueryOutcome::Leave,
            Action::InputRegex => {
                // The same text, read the other way: search it again.
                self.regex = !self.regex;
                QueryOutcome::Changed
            }
            Action::InputSubmit => {
                // Committed again, a query moves to the newest place.
                let q = self.input.text.trim().to_string();
                if !q.is_empty() {
                    self.history.retain(|h| *h != q);
                    self.history.push(q);
                }
                self.history_pos = None;
                QueryOutcome::Commit
            }
            Action::InputHistoryPrev | Action::InputHistoryNext => {
                let before = self.input.text.clone();
                self.recall(action == Action::InputHistoryPrev);
                if self.input.text == before {
                    QueryOutcome::Nothing
                } else {
                    QueryOutcome::Changed
                }
            }
            other => {
                if self.input.edit(other) {
                    self.history_pos = None;
                    QueryOutcome::Changed
                } else {
                    QueryOutcome::Nothing
                }
            }
        }
    }

    /// Earlier and later queries.
    fn recall(&mut self, earlier: bool) {
        if self.history.is_empty() {
            return;
        }
        let last = self.history.len() - 1;
        self.history_pos = match (self.history_pos, earlier) {
            (None, true) => Some(last),
            (None, false) => None,
            (Some(0), true) => Some(0),
            (Some(i), true) => Some(i - 1),
            (Some(i), false) if i >= last => None,
            (Some(i), false) => Some(i + 1),
        };
        let text = self
            .history_pos
            .map_or(String::new(), |i| self.history[i].clone());
        self.input.set(&text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_asks_for_the_regex_ranker_and_words_for_the_settings() {
        assert_eq!(ranker(true, Ranker::Hybrid), Ranker::Regex);
        assert_eq!(ranker(false, Ranker::Hybrid), Ranker::Hybrid);
        assert_eq!(ranker(false, Ranker::Bm25), Ranker::Bm25);
    }
}
