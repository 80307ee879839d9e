//! The live screen's filter (`/`): the rows whose words hold every word
//! typed, whatever their case: a search's request, session, ranker and
//! tools; a call's tool, server, session and outcome; a miss's request,
//! session, the tools returned and the tool wanted.

use crate::traffic::Event;
use crate::traffic::misses::Miss;
use crate::tui::action::Action;
use crate::tui::line_input::LineInput;

/// The words typed, and whether the box has the keyboard.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub input: LineInput,
    pub typing: bool,
}

impl Filter {
    /// The box, open and empty.
    pub fn typing() -> Filter {
        Filter {
            input: LineInput::default(),
            typing: true,
        }
    }

    /// The words typed, lowercased; none shows every row.
    pub fn words(&self) -> Vec<String> {
        self.input
            .text
            .split_whitespace()
            .map(str::to_lowercase)
            .collect()
    }

    /// A key while the box has the keyboard: Enter keeps the filter and
    /// gives the keys back to the list; Esc drops it. `false` when the
    /// filter is gone.
    pub fn edit(&mut self, action: Action) -> bool {
        match action {
            Action::InputSubmit => {
                self.typing = false;
                !self.input.text.trim().is_empty()
            }
            Action::InputCancel => false,
            other => {
                self.input.edit(other);
                true
            }
        }
    }
}

/// Whether `text` holds every word (lowercased already).
fn holds(text: &str, words: &[String]) -> bool {
    let text = text.to_lowercase();
    words.iter().all(|w| text.contains(w.as_str()))
}

/// Whether an event shows under the filter.
pub fn event_matches(event: &Event, words: &[String]) -> bool {
    if words.is_empty() {
        return true;
    }
    let text = match event {
        Event::Search(s) => format!(
            "{} {} {} {}",
            s.query,
            s.session,
            s.ranker,
            s.tools.join(" ")
        ),
        Event::Call(c) => format!(
            "{} {} {} {:?}",
            c.name,
            c.server.as_deref().unwrap_or(""),
            c.session,
            c.outcome
        ),
        Event::Dropped { .. } => "dropped".into(),
    };
    holds(&text, words)
}

/// Whether a miss shows under the filter.
pub fn miss_matches(miss: &Miss, words: &[String]) -> bool {
    if words.is_empty() {
        return true;
    }
    let text = format!(
        "{} {} {} {}",
        miss.query,
        miss.session,
        miss.returned.join(" "),
        miss.wanted.as_deref().unwrap_or("")
    );
    holds(&text, words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_must_be_there_whatever_its_case() {
        let words = |t: &str| {
            t.split_whitespace()
                .map(str::to_lowercase)
                .collect::<Vec<_>>()
        };
        assert!(holds(
            "Who is on call for Payments",
            &words("payments CALL")
        ));
        assert!(!holds(
            "Who is on call for Payments",
            &words("payments billing")
        ));
        assert!(holds("anything", &[]));
    }

    #[test]
    fn enter_keeps_words_and_esc_drops_them() {
        let mut f = Filter::typing();
        f.input.insert("tokyo");
        assert!(f.edit(Action::InputSubmit));
        assert!(!f.typing);
        assert_eq!(f.words(), ["tokyo"]);
        let mut f = Filter::typing();
        assert!(!f.edit(Action::InputSubmit), "an empty filter is no filter");
        let mut f = Filter::typing();
        f.input.insert("x");
        assert!(!f.edit(Action::InputCancel));
    }
}
