//! The command line (`:`, as in k9s and vim): a one-line prompt on the
//! bottom line that runs any action of the panes by its keymap name, or
//! sets one of a few settings (`:cap 8`, `:ranker hybrid`, `:sort tokens`).
//! Its state and keys are here, what a line says is `parse.rs`, its
//! drawing `draw.rs`; the app carries a command out (`app/cmdline.rs`).

pub mod draw;
pub mod parse;

use crate::tui::action::Action;
use crate::tui::line_input::LineInput;

/// How many lines the history keeps.
const HISTORY: usize = 100;

/// The prompt: its text, the lines run this session, and Tab's state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommandLine {
    open: bool,
    pub input: LineInput,
    /// Lines run, oldest first.
    history: Vec<String>,
    /// Where ↑ has gone back to in the history, and the line typed before.
    back: Option<(usize, String)>,
    /// Tab's turn through several candidates: the text before the word,
    /// the candidates, the one put.
    tab: Option<(String, Vec<String>, usize)>,
}

/// What a key on the line asks of the app.
#[derive(Debug, Clone, PartialEq)]
pub enum LineOutcome {
    Stay,
    /// The line closed with nothing to run.
    Closed,
    /// Run this line (the line closed).
    Run(String),
    /// Nothing completes the word typed: say so.
    Say(String),
}

impl CommandLine {
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Opens an empty line.
    pub fn open(&mut self) {
        self.open = true;
        self.input = LineInput::default();
        self.back = None;
        self.tab = None;
    }

    /// The candidates for the word being typed (those Tab steps through,
    /// the one it put first), for the line above the prompt.
    pub fn candidates(&self) -> (Vec<String>, Option<usize>) {
        if let Some((_, found, at)) = &self.tab {
            return (found.clone(), Some(*at));
        }
        (parse::candidates(&self.input.text).1, None)
    }

    /// Text typed on the line.
    pub fn type_text(&mut self, text: &str) {
        self.tab = None;
        self.input.insert(text);
    }

    /// An `input_*` action on the line.
    pub fn handle(&mut self, action: Action) -> LineOutcome {
        if action != Action::InputSubmit {
            self.tab = None;
        }
        match action {
            Action::InputCancel => {
                self.open = false;
                LineOutcome::Closed
            }
            // Backspace on an empty line leaves it, as in vim.
            Action::InputBackspace if self.input.text.is_empty() => {
                self.open = false;
                LineOutcome::Closed
            }
            Action::InputSubmit => {
                self.open = false;
                self.tab = None;
                let line = self.input.text.trim().to_string();
                if line.is_empty() {
                    return LineOutcome::Closed;
                }
                self.history.retain(|h| *h != line);
                self.history.push(line.clone());
                if self.history.len() > HISTORY {
                    self.history.remove(0);
                }
                LineOutcome::Run(line)
            }
            Action::InputHistoryPrev => {
                let at = match &self.back {
                    Some((at, _)) => at.saturating_sub(1),
                    None if self.history.is_empty() => return LineOutcome::Stay,
                    None => self.history.len() - 1,
                };
                let typed = self
                    .back
                    .take()
                    .map_or_else(|| self.input.text.clone(), |(_, t)| t);
                self.input.set(&self.history[at]);
                self.back = Some((at, typed));
                LineOutcome::Stay
            }
            Action::InputHistoryNext => {
                if let Some((at, typed)) = self.back.take() {
                    if at + 1 < self.history.len() {
                        self.input.set(&self.history[at + 1]);
                        self.back = Some((at + 1, typed));
                    } else {
                        self.input.set(&typed);
                    }
                }
                LineOutcome::Stay
            }
            other => {
                self.input.edit(other);
                LineOutcome::Stay
            }
        }
    }

    /// Tab (`back`: Shift-Tab): the word typed completed as far as every
    /// candidate agrees, then each candidate in turn.
    pub fn complete(&mut self, back: bool) -> LineOutcome {
        if let Some((head, found, at)) = &mut self.tab {
            let n = found.len();
            *at = if back {
                (*at + n - 1) % n
            } else {
                (*at + 1) % n
            };
            let text = format!("{head}{}", found[*at]);
            self.input.set(&text);
            return LineOutcome::Stay;
        }
        let (head, found) = parse::candidates(&self.input.text);
        let text = self.input.text.trim_start();
        let word = if head.is_empty() {
            text.to_string()
        } else {
            text.split_once(char::is_whitespace)
                .map_or("", |(_, rest)| rest.trim_start())
                .to_string()
        };
        match found.len() {
            0 => LineOutcome::Say(format!(
                "nothing completes \"{}\" (? lists the commands)",
                crate::terminal_text::escape(word.trim())
            )),
            1 => {
                let space = if head.is_empty() && parse::takes_argument(&found[0]) {
                    " "
                } else {
                    ""
                };
                self.input.set(&format!("{head}{}{space}", found[0]));
                LineOutcome::Stay
            }
            _ => {
                let common = parse::common_prefix(&found);
                if common.len() > word.len() {
                    self.input.set(&format!("{head}{common}"));
                } else {
                    let at = if back { found.len() - 1 } else { 0 };
                    self.input.set(&format!("{head}{}", found[at]));
                    self.tab = Some((head, found, at));
                }
                LineOutcome::Stay
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(text: &str) -> CommandLine {
        let mut line = CommandLine::default();
        line.open();
        line.type_text(text);
        line
    }

    #[test]
    fn tab_completes_the_common_start_then_steps_through() {
        let mut line = typed("ra");
        line.complete(false);
        assert_eq!(line.input.text, "ranker ");
        line.type_text("hy");
        line.complete(false);
        assert_eq!(line.input.text, "ranker hybrid");
        let mut line = typed("focus_");
        line.complete(false);
        assert_eq!(line.input.text, "focus_catalog");
        line.complete(false);
        assert_eq!(line.input.text, "focus_detail");
        line.complete(true);
        assert_eq!(line.input.text, "focus_catalog");
        let mut line = typed("zzz");
        assert!(matches!(line.complete(false), LineOutcome::Say(m) if m.contains("zzz")));
    }

    #[test]
    fn history_recalls_lines_run_and_esc_cancels() {
        let mut line = typed("cap 8");
        assert_eq!(
            line.handle(Action::InputSubmit),
            LineOutcome::Run("cap 8".into())
        );
        assert!(!line.is_open());
        line.open();
        line.type_text("sort");
        line.handle(Action::InputHistoryPrev);
        assert_eq!(line.input.text, "cap 8");
        line.handle(Action::InputHistoryNext);
        assert_eq!(line.input.text, "sort");
        assert_eq!(line.handle(Action::InputCancel), LineOutcome::Closed);
        assert!(!line.is_open());
    }
}
