//! Where the explorer's messages come from: a swappable stream of [`Msg`]s.
//! The real terminal is one source ([`terminal_events`]); a [`Script`] is
//! another, driving the explorer with actions, typed text and pauses the way
//! a person would, without knowing the user's keymap.

use std::collections::VecDeque;
use std::time::Duration;

use crossterm::event::KeyEvent;
use futures_util::{Stream, stream};

use super::action::Action;
use super::effect::Msg;

/// The terminal's keys and resizes; when its input ends (closed or broken)
/// the stream ends, and the explorer quits rather than wait for keys that
/// cannot come. While the terminal is lent to a pager nothing is read
/// ([`super::lend`]).
pub fn terminal_events() -> impl Stream<Item = Msg> + Unpin + Send + 'static {
    super::between_frames::events(super::between_frames::Lending::terminal())
}

/// One step of a script.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptStep {
    /// An action, as if its key had been pressed on the current screen.
    Action(Action),
    /// Text typed into the text box that has the keyboard, one character
    /// at a time (each a keystroke: a live search per character).
    Type(String),
    /// A raw key, through the user's keymap.
    Key(KeyEvent),
    /// Nothing happens for a while (searches come back, the screen shows).
    Pause(Duration),
    /// The terminal is resized.
    Resize(u16, u16),
    /// A demo's caption appears (none: it goes).
    Caption(Option<String>),
}

impl ScriptStep {
    /// The message of a step that is not a pause.
    pub fn into_msg(self) -> Option<Msg> {
        Some(match self {
            ScriptStep::Pause(_) => return None,
            ScriptStep::Action(a) => Msg::Action(a),
            ScriptStep::Type(t) => Msg::Type(t),
            ScriptStep::Key(k) => Msg::Key(k),
            ScriptStep::Resize(w, h) => Msg::Resize(w, h),
            ScriptStep::Caption(c) => Msg::Caption(c),
        })
    }
}

/// Steps with typed text split into one step per character, and a pause
/// of `delay` after every keystroke (none when zero).
pub fn expand(
    steps: impl IntoIterator<Item = ScriptStep>,
    delay: Duration,
) -> VecDeque<ScriptStep> {
    let mut expanded = VecDeque::new();
    for step in steps {
        match step {
            ScriptStep::Type(text) => {
                for c in text.chars() {
                    expanded.push_back(ScriptStep::Type(c.to_string()));
                    if !delay.is_zero() {
                        expanded.push_back(ScriptStep::Pause(delay));
                    }
                }
            }
            key @ (ScriptStep::Action(_) | ScriptStep::Key(_)) => {
                expanded.push_back(key);
                if !delay.is_zero() {
                    expanded.push_back(ScriptStep::Pause(delay));
                }
            }
            other => expanded.push_back(other),
        }
    }
    expanded
}

/// A scripted source: its steps in order, then the end of input (which
/// quits the explorer if the script has not).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    steps: VecDeque<ScriptStep>,
    /// A pause after every keystroke (actions, keys, typed characters).
    key_delay: Duration,
}

impl Script {
    pub fn new(steps: impl IntoIterator<Item = ScriptStep>) -> Script {
        Script {
            steps: steps.into_iter().collect(),
            key_delay: Duration::ZERO,
        }
    }

    /// Pauses `delay` after every keystroke, as a person types.
    pub fn with_key_delay(mut self, delay: Duration) -> Script {
        self.key_delay = delay;
        self
    }

    /// The steps as messages; pauses sleep on the tokio clock.
    pub fn into_stream(self) -> impl Stream<Item = Msg> + Unpin + Send + 'static {
        let expanded = expand(self.steps, self.key_delay);
        Box::pin(stream::unfold(expanded, |mut steps| async move {
            loop {
                match steps.pop_front()? {
                    ScriptStep::Pause(d) => tokio::time::sleep(d).await,
                    step => return step.into_msg().map(|msg| (msg, steps)),
                }
            }
        }))
    }
}
