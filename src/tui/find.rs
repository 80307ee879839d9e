//! Finding words in a scrolled text (the detail, help), as `less` does:
//! `/` opens a box, each keystroke moves to the first line from the top
//! of the view that holds the words (any case), Enter keeps them, Esc
//! clears them; then `n` and `N` go to the next and previous line that
//! holds them, round the end. Drawing notes the text's lines as drawn
//! (wrapped to the pane), so a find matches what is on screen, and marks
//! every match.

use std::cell::RefCell;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::action::Action;
use crate::tui::line_input::LineInput;

#[derive(Debug, Clone, Default)]
pub struct Find {
    input: LineInput,
    typing: bool,
    /// The text's lines as last drawn, lower-cased (drawing's note).
    lines: RefCell<Vec<String>>,
    /// The line of the match moved to last.
    at: Option<usize>,
}

/// Two finds are equal with the same words (the lines are drawing's note).
impl PartialEq for Find {
    fn eq(&self, other: &Find) -> bool {
        self.input == other.input && self.typing == other.typing
    }
}

/// What a key in the find box asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Nothing moves.
    Stay,
    /// Scroll to this line.
    Line(usize),
    /// The words match no line.
    Nowhere,
}

impl Find {
    /// Opens the box, empty.
    pub fn start(&mut self) {
        self.input = LineInput::default();
        self.typing = true;
        self.at = None;
    }

    /// The box has the keyboard.
    pub fn typing(&self) -> bool {
        self.typing
    }

    /// The words looked for (empty: none).
    pub fn words(&self) -> &str {
        &self.input.text
    }

    pub fn cursor(&self) -> usize {
        self.input.cursor
    }

    /// Forgets the words and closes the box.
    pub fn clear(&mut self) {
        self.input = LineInput::default();
        self.typing = false;
        self.at = None;
    }

    /// Notes where a move went.
    fn went(&mut self, found: Found) -> Found {
        match found {
            Found::Line(i) => self.at = Some(i),
            Found::Nowhere => self.at = None,
            Found::Stay => {}
        }
        found
    }

    /// Drawing notes the text's lines as drawn.
    pub fn record(&self, lines: &[Line]) {
        *self.lines.borrow_mut() = lines
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
                    .to_lowercase()
            })
            .collect();
    }

    /// The lines that hold the words.
    fn matching(&self) -> Vec<usize> {
        let needle = self.input.text.to_lowercase();
        if needle.is_empty() {
            return Vec::new();
        }
        self.lines
            .borrow()
            .iter()
            .enumerate()
            .filter(|(_, l)| l.contains(&needle))
            .map(|(i, _)| i)
            .collect()
    }

    /// The first line holding the words at or after `from`, else the first
    /// of all.
    fn first_from(&self, from: usize) -> Found {
        let m = self.matching();
        match m.iter().find(|&&i| i >= from).or(m.first()) {
            Some(&i) => Found::Line(i),
            None => Found::Nowhere,
        }
    }

    /// A key while the box has the keyboard; `top` is the view's first
    /// line.
    pub fn handle(&mut self, action: Action, top: usize) -> Found {
        let found = self.key(action, top);
        self.went(found)
    }

    fn key(&mut self, action: Action, top: usize) -> Found {
        match action {
            Action::InputSubmit => {
                self.typing = false;
                if self.input.text.is_empty() {
                    Found::Stay
                } else {
                    self.first_from(top)
                }
            }
            Action::InputCancel => {
                self.clear();
                Found::Stay
            }
            other => {
                if self.input.edit(other) {
                    self.first_from(top)
                } else {
                    Found::Stay
                }
            }
        }
    }

    /// Text typed into the box.
    pub fn type_text(&mut self, text: &str, top: usize) -> Found {
        let found = if self.input.insert(text) {
            self.first_from(top)
        } else {
            Found::Stay
        };
        self.went(found)
    }

    /// The next (or previous) line holding the words after (before) `top`,
    /// round the end; `Stay` when no words are kept.
    pub fn step(&mut self, forward: bool, top: usize) -> Found {
        if self.input.text.is_empty() {
            return Found::Stay;
        }
        // From the match moved to last (the view may stop short of it at
        // the text's end), else from the view's top.
        let top = self.at.unwrap_or(top);
        let m = self.matching();
        let next = if forward {
            m.iter().find(|&&i| i > top).or(m.first())
        } else {
            m.iter().rev().find(|&&i| i < top).or(m.last())
        };
        let found = next.map_or(Found::Nowhere, |&i| Found::Line(i));
        self.went(found)
    }

    /// Which match was moved to last (from 1) and how many lines hold the
    /// words: `(0, n)` before any move.
    pub fn count(&self) -> (usize, usize) {
        let m = self.matching();
        let at = self
            .at
            .and_then(|a| m.iter().position(|&i| i == a))
            .map_or(0, |p| p + 1);
        (at, m.len())
    }

    /// `lines` with every match of the words in `style` (a match within one
    /// span; the text is the same).
    pub fn mark<'a>(&self, lines: Vec<Line<'a>>, style: Style) -> Vec<Line<'a>> {
        let needle = self.input.text.to_lowercase();
        if needle.is_empty() {
            return lines;
        }
        lines
            .into_iter()
            .map(|line| {
                let mut spans = Vec::new();
                for span in line.spans {
                    split_span(span, &needle, style, &mut spans);
                }
                Line {
                    spans,
                    ..Line::default().style(line.style)
                }
                .alignment_opt(line.alignment)
            })
            .collect()
    }
}

/// Sets a line's alignment when it had one.
trait AlignOpt {
    fn alignment_opt(self, a: Option<ratatui::layout::Alignment>) -> Self;
}

impl AlignOpt for Line<'_> {
    fn alignment_opt(self, a: Option<ratatui::layout::Alignment>) -> Self {
        match a {
            Some(a) => self.alignment(a),
            None => self,
        }
    }
}

/// `span` cut around each match of `needle` (lower-case), the matches in
/// `style` over the span's own.
fn split_span<'a>(span: Span<'a>, needle: &str, style: Style, out: &mut Vec<Span<'a>>) {
    let text = span.content.to_string();
    let lower = text.to_lowercase();
    // Lower-casing can change byte lengths (rare scripts): then the span
    // is left whole rather than cut at a wrong place.
    if lower.len() != text.len() {
        out.push(span);
        return;
    }
    let mut at = 0;
    for (start, m) in lower.match_indices(needle) {
        if start > at {
            out.push(Span::styled(text[at..start].to_string(), span.style));
        }
        let end = start + m.len();
        out.push(Span::styled(
            text[start..end].to_string(),
            span.style.patch(style),
        ));
        at = end;
    }
    if at == 0 {
        out.push(span);
    } else if at < text.len() {
        out.push(Span::styled(text[at..].to_string(), span.style));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(texts: &[&str]) -> Vec<Line<'static>> {
        texts.iter().map(|t| Line::from(t.to_string())).collect()
    }

    fn found(find: &mut Find, text: &str, top: usize) -> Found {
        find.start();
        find.type_text(text, top)
    }

    #[test]
    fn each_keystroke_moves_to_the_first_line_from_the_view_with_the_words() {
        let mut find = Find::default();
        find.record(&lines(&["Send an email", "to", "the TEAM", "email again"]));
        assert_eq!(found(&mut find, "EMAIL", 0), Found::Line(0));
        assert_eq!(find.type_text(" a", 0), Found::Line(3));
        assert_eq!(find.type_text("x", 0), Found::Nowhere);
        assert_eq!(find.handle(Action::InputBackspace, 0), Found::Line(3));
        // From a view further down: the next from there, else the first.
        assert_eq!(found(&mut find, "email", 1), Found::Line(3));
        assert_eq!(found(&mut find, "send", 2), Found::Line(0));
    }

    #[test]
    fn n_and_shift_n_go_round_the_matches_and_count_them() {
        let mut find = Find::default();
        find.record(&lines(&["a x", "b", "c x", "d", "e x"]));
        found(&mut find, "x", 0);
        assert_eq!(find.handle(Action::InputSubmit, 0), Found::Line(0));
        assert!(!find.typing());
        assert_eq!(find.step(true, 0), Found::Line(2));
        assert_eq!(find.step(true, 2), Found::Line(4));
        assert_eq!(find.step(true, 4), Found::Line(0), "round the end");
        assert_eq!(find.step(false, 0), Found::Line(4), "and back");
        assert_eq!(find.count(), (3, 3));
        // From the match moved to last, whatever the view's top (which
        // stops short of a match near the end).
        assert_eq!(find.step(true, 1), Found::Line(0));
        assert_eq!(find.count(), (1, 3));
        // Esc forgets the words: n does nothing then.
        find.start();
        find.handle(Action::InputCancel, 0);
        assert_eq!(find.step(true, 0), Found::Stay);
    }

    #[test]
    fn marking_keeps_the_text_and_styles_only_the_matches() {
        let mut find = Find::default();
        found(&mut find, "mail", 0);
        let style = Style::default().add_modifier(ratatui::style::Modifier::REVERSED);
        let marked = find.mark(vec![Line::from("Email and MAIL")], style);
        let spans: Vec<(&str, bool)> = marked[0]
            .spans
            .iter()
            .map(|s| (s.content.as_ref(), s.style == style))
            .collect();
        assert_eq!(
            spans,
            [
                ("E", false),
                ("mail", true),
                (" and ", false),
                ("MAIL", true)
            ]
        );
    }
}
