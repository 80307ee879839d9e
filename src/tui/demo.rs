//! `toolsift demo`: a tour of the explorer played from a script through the
//! swappable event stream, at a readable pace, with captions.
//!
//! A script is a TOML list of steps (`[[step]]`), each with at most one of
//! `action` (a keymap action name, `repeat` times), `type` (text typed one
//! character at a time: a live search per keystroke) or `pause` (seconds),
//! and optionally a `caption` (shown from this step until the next caption;
//! `caption = ""` hides it). The default script is `assets/demo.toml`.
//!
//! While it plays, the viewer's keys steer the player, not the explorer:
//! Space pauses and resumes, → goes on at once (ends a pause; one step when
//! paused), `?` pauses and says so, `q`, Esc or Ctrl-C quit. At its end the demo quits.

use std::collections::VecDeque;
use std::pin::Pin;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyModifiers};
use futures_util::{Stream, StreamExt, stream};
use serde::Deserialize;
use tokio::time::Instant;

use super::action::Action;
use super::effect::Msg;
use super::event::{ScriptStep, expand};

/// The default tour.
pub const DEFAULT_SCRIPT: &str = include_str!("../../assets/demo.toml");

/// What `?` says while a tour plays (it pauses the tour).
pub const HELP: &str = "the tour is paused: Space resumes, → plays one step, q quits; run `toolsift` to explore with every key (? there lists them)";

/// The pause after each typed character and action at speed 1.
pub const KEY_DELAY: Duration = Duration::from_millis(90);

/// A script that cannot be played: where and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{origin}:{line}: {message}")]
pub struct ScriptError {
    pub origin: String,
    pub line: usize,
    pub message: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    step: Vec<toml::Spanned<Step>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    action: Option<String>,
    repeat: Option<u32>,
    #[serde(rename = "type")]
    text: Option<String>,
    pause: Option<f64>,
    caption: Option<String>,
}

/// The longest pause a step may ask for, in seconds.
const MAX_PAUSE_SECS: f64 = 600.0;

/// Parses a script; every error names the file, the line and the step.
pub fn parse_script(text: &str, origin: &str) -> Result<Vec<ScriptStep>, ScriptError> {
    let file: File = toml::from_str(text).map_err(|e| {
        let (line, _, message) = crate::catalog::toml_error_at(text, &e);
        ScriptError {
            origin: origin.to_string(),
            line,
            message,
        }
    })?;
    if file.step.is_empty() {
        return Err(ScriptError {
            origin: origin.to_string(),
            line: 1,
            message: "no steps: add [[step]] tables".into(),
        });
    }
    let mut steps = Vec::new();
    for (n, spanned) in file.step.iter().enumerate() {
        let (line, _) = crate::catalog::line_col(text, spanned.span().start);
        let err = |message: String| ScriptError {
            origin: origin.to_string(),
            line,
            message: format!("step {}: {message}", n + 1),
        };
        let s = spanned.get_ref();
        let kinds = [s.action.is_some(), s.text.is_some(), s.pause.is_some()]
            .iter()
            .filter(|k| **k)
            .count();
        if kinds > 1 {
            return Err(err(
                "give at most one of `action`, `type` and `pause` per step".into(),
            ));
        }
        if kinds == 0 && s.caption.is_none() {
            return Err(err(
                "an empty step: give `action`, `type`, `pause` or `caption`".into(),
            ));
        }
        if s.repeat.is_some() && s.action.is_none() {
            return Err(err("`repeat` goes with `action`".into()));
        }
        if let Some(c) = &s.caption {
            steps.push(ScriptStep::Caption(Some(c.clone())));
        }
        if let Some(name) = &s.action {
            let action = Action::from_name(name).ok_or_else(|| {
                err(format!(
                    "unknown action {name:?} (the names of the keymap, as `toolsift` help lists them)"
                ))
            })?;
            let repeat = s.repeat.unwrap_or(1);
            if !(1..=100).contains(&repeat) {
                return Err(err(format!("`repeat` must be 1 to 100, not {repeat}")));
            }
            steps.extend((0..repeat).map(|_| ScriptStep::Action(action)));
        }
        if let Some(t) = &s.text {
            steps.push(ScriptStep::Type(t.clone()));
        }
        if let Some(p) = s.pause {
            if !(p.is_finite() && (0.0..=MAX_PAUSE_SECS).contains(&p)) {
                return Err(err(format!(
                    "`pause` must be 0 to {MAX_PAUSE_SECS} seconds, not {p}"
                )));
            }
            steps.push(ScriptStep::Pause(Duration::from_secs_f64(p)));
        }
    }
    Ok(steps)
}

/// How long `steps` take to play at `speed`: their pauses and the pause
/// after each key and typed character (what the searches take aside).
pub fn length(steps: &[ScriptStep], speed: f64) -> Duration {
    expand(steps.iter().cloned(), KEY_DELAY)
        .iter()
        .map(|s| match s {
            ScriptStep::Pause(d) => *d,
            _ => Duration::ZERO,
        })
        .sum::<Duration>()
        .div_f64(speed)
}

/// What a viewer's key does to the player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    TogglePause,
    /// `?`: pause, and say what the keys do.
    Help,
    Step,
    Quit,
}

/// The player's reading of a key (other keys do nothing: the viewer cannot
/// knock the tour off its script).
pub fn control(key: &crossterm::event::KeyEvent) -> Option<Control> {
    if key.kind == crossterm::event::KeyEventKind::Release {
        return None;
    }
    match key.code {
        KeyCode::Char(' ') => Some(Control::TogglePause),
        KeyCode::Char('?') | KeyCode::F(1) => Some(Control::Help),
        KeyCode::Right => Some(Control::Step),
        KeyCode::Char('q') | KeyCode::Esc => Some(Control::Quit),
        KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => Some(Control::Quit),
        _ => None,
    }
}

type Input = Pin<Box<dyn Stream<Item = Msg> + Send>>;

struct Player {
    steps: VecDeque<ScriptStep>,
    input: Input,
    paused: bool,
    /// The end of the pause under way.
    until: Option<Instant>,
    /// What was left of the pause when the player was paused.
    left: Option<Duration>,
    /// One step asked for while paused.
    step_once: bool,
    /// A message to give after the one just given.
    pending: Option<Msg>,
    done: bool,
}

/// What the player does next.
enum Next {
    Emit(Msg),
    Again,
}

impl Player {
    fn on_input(&mut self, msg: Option<Msg>) -> Next {
        let Some(msg) = msg else {
            // The viewer's input ended: play on without it.
            self.input = Box::pin(stream::pending());
            return Next::Again;
        };
        match msg {
            Msg::Key(k) => match control(&k) {
                Some(Control::Help) => {
                    let said = Msg::Status(HELP.into());
                    if self.paused {
                        return Next::Emit(said);
                    }
                    self.paused = true;
                    self.left = self
                        .until
                        .take()
                        .map(|u| u.saturating_duration_since(Instant::now()));
                    self.pending = Some(said);
                    Next::Emit(Msg::DemoPaused(true))
                }
                Some(Control::Quit) => {
                    self.done = true;
                    Next::Emit(Msg::InputClosed)
                }
                Some(Control::TogglePause) => {
                    self.paused = !self.paused;
                    if self.paused {
                        self.left = self
                            .until
                            .take()
                            .map(|u| u.saturating_duration_since(Instant::now()));
                    } else if let Some(left) = self.left.take() {
                        self.until = Some(Instant::now() + left);
                    }
                    Next::Emit(Msg::DemoPaused(self.paused))
                }
                Some(Control::Step) => {
                    self.until = None;
                    self.left = None;
                    if self.paused {
                        self.step_once = true;
                    }
                    Next::Again
                }
                None => Next::Again,
            },
            resize @ Msg::Resize(..) => Next::Emit(resize),
            _ => Next::Again,
        }
    }

    async fn next(&mut self) -> Option<Msg> {
        if let Some(msg) = self.pending.take() {
            return Some(msg);
        }
        loop {
            if self.done {
                return None;
            }
            let playing = !self.paused || self.step_once;
            if !playing {
                let msg = self.input.next().await;
                match self.on_input(msg) {
                    Next::Emit(m) => return Some(m),
                    Next::Again => continue,
                }
            }
            if let Some(until) = self.until {
                tokio::select! {
                    _ = tokio::time::sleep_until(until) => self.until = None,
                    msg = self.input.next() => match self.on_input(msg) {
                        Next::Emit(m) => return Some(m),
                        Next::Again => {}
                    },
                }
                continue;
            }
            match self.steps.pop_front() {
                None => {
                    // The end of the tour quits the explorer.
                    self.done = true;
                    return Some(Msg::InputClosed);
                }
                Some(ScriptStep::Pause(d)) => {
                    if !self.step_once {
                        self.until = Some(Instant::now() + d);
                    }
                }
                Some(step) => {
                    // A step asked for while paused is one visible step:
                    // a caption goes with what follows it.
                    if !matches!(step, ScriptStep::Caption(_)) {
                        self.step_once = false;
                    }
                    if let Some(msg) = step.into_msg() {
                        return Some(msg);
                    }
                }
            }
        }
    }
}

/// Plays `steps` at `speed` (2: twice as fast), steered by `input` (the
/// viewer's keys and resizes); the stream ends after the last step or when
/// the viewer quits.
pub fn player<S>(
    steps: Vec<ScriptStep>,
    speed: f64,
    input: S,
) -> impl Stream<Item = Msg> + Unpin + Send + 'static
where
    S: Stream<Item = Msg> + Send + 'static,
{
    let scale = |d: Duration| d.div_f64(speed);
    let steps = steps.into_iter().map(|s| match s {
        ScriptStep::Pause(d) => ScriptStep::Pause(scale(d)),
        other => other,
    });
    let player = Player {
        steps: expand(steps, scale(KEY_DELAY)),
        input: Box::pin(input),
        paused: false,
        until: None,
        left: None,
        step_once: false,
        pending: None,
        done: false,
    };
    Box::pin(stream::unfold(player, |mut p| async move {
        let msg = p.next().await?;
        Some((msg, p))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEvent;

    #[test]
    fn the_default_script_parses() {
        let steps = parse_script(DEFAULT_SCRIPT, "assets/demo.toml").unwrap();
        assert!(steps.iter().any(|s| matches!(s, ScriptStep::Caption(_))));
        assert!(steps.contains(&ScriptStep::Action(Action::Tune)));
        assert!(steps.contains(&ScriptStep::Action(Action::BreakerLoop)));
        let searches = steps
            .iter()
            .filter(|s| matches!(s, ScriptStep::Type(_)))
            .count();
        assert!(searches >= 3, "{searches}");
    }

    #[test]
    fn the_tours_searches_load_the_tools_they_show_off() {
        // What each typed request of the default tour is there to find,
        // in the loaded set the explorer's defaults give (the cap of 8).
        // The last one no tool fits: the gate holds back what came nearest.
        let wanted: [(&str, &[&str]); 4] = [
            ("refund the duplicate charge", &["refund_payment"]),
            ("who is on call for payments", &["get_oncall_schedule"]),
            (
                "find a free slot for a meeting with Acme on Friday",
                &["find_meeting_slots", "create_calendar_event"],
            ),
            ("what time is it in Tokyo", &[]),
        ];
        let steps = parse_script(DEFAULT_SCRIPT, "assets/demo.toml").unwrap();
        let typed: Vec<&str> = steps
            .iter()
            .filter_map(|s| match s {
                ScriptStep::Type(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(typed, wanted.map(|(q, _)| q));
        let catalog = crate::catalog::load(&crate::catalog::CatalogSource::parse("@demo")).unwrap();
        let searcher = crate::search::Searcher::embedded();
        for (query, tools) in wanted {
            let request = crate::search::SearchRequest {
                query: query.into(),
                max_tools: crate::tools_handle::MaxTools::new(8),
                gate: Some(true),
                preview: true,
                ..Default::default()
            };
            let result = searcher.search(&catalog, &request).unwrap();
            let loaded: Vec<&str> = result
                .tools
                .iter()
                .map(|h| catalog.tools()[h.index].name.as_str())
                .collect();
            for tool in tools {
                assert!(
                    loaded.contains(tool),
                    "{query:?} loads {loaded:?}, not {tool}"
                );
            }
            if tools.is_empty() {
                let searched = result
                    .tools
                    .iter()
                    .filter(|h| h.reason != Some(crate::search::Reason::AlwaysLoad))
                    .count();
                assert_eq!(searched, 0, "{query:?} loads {loaded:?}");
                assert!(!result.held_back.is_empty(), "{query:?}");
            }
        }
    }

    #[test]
    fn bad_scripts_name_the_file_line_and_step() {
        let e = parse_script(
            "[[step]]\ncaption = \"hi\"\n\n[[step]]\naction = \"fly\"\n",
            "s.toml",
        )
        .unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(
            e.to_string()
                .starts_with("s.toml:4: step 2: unknown action \"fly\""),
            "{e}"
        );
        let e = parse_script("[[step]]\naction = \"help\"\ntype = \"x\"\n", "s.toml").unwrap_err();
        assert!(e.to_string().contains("step 1: give at most one"), "{e}");
        let e = parse_script("[[step]]\npause = -1\n", "s.toml").unwrap_err();
        assert!(e.to_string().contains("`pause` must be"), "{e}");
        let e = parse_script("[[step]]\nwait = 1\n", "s.toml").unwrap_err();
        assert!(e.to_string().starts_with("s.toml:2:"), "{e}");
        assert!(e.to_string().contains("wait"), "{e}");
        let e = parse_script("", "s.toml").unwrap_err();
        assert!(e.to_string().contains("no steps"), "{e}");
        let e = parse_script("[[step]\n", "s.toml").unwrap_err();
        assert!(e.to_string().starts_with("s.toml:1:"), "{e}");
    }

    fn key(code: KeyCode) -> Msg {
        Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[tokio::test(start_paused = true)]
    async fn pauses_steps_and_quits_from_the_viewers_keys() {
        let steps = vec![
            ScriptStep::Caption(Some("one".into())),
            ScriptStep::Pause(Duration::from_secs(100)),
            ScriptStep::Action(Action::Help),
            ScriptStep::Pause(Duration::from_secs(100)),
            ScriptStep::Action(Action::Quit),
        ];
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let input = stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|m| (m, rx)) });
        let mut p = player(steps, 1.0, input);
        assert!(matches!(p.next().await, Some(Msg::Caption(Some(c))) if c == "one"));
        // → ends the long pause at once.
        tx.send(key(KeyCode::Right)).unwrap();
        assert!(matches!(p.next().await, Some(Msg::Action(Action::Help))));
        // Space pauses: nothing plays, however long; another key does nothing.
        tx.send(key(KeyCode::Char(' '))).unwrap();
        assert!(matches!(p.next().await, Some(Msg::DemoPaused(true))));
        tx.send(key(KeyCode::Char('x'))).unwrap();
        let waited = tokio::time::timeout(Duration::from_secs(1000), p.next()).await;
        assert!(waited.is_err(), "played while paused: {waited:?}");
        // q quits: the end of input.
        tx.send(key(KeyCode::Char('q'))).unwrap();
        assert!(matches!(p.next().await, Some(Msg::InputClosed)));
        assert!(p.next().await.is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn question_mark_pauses_and_says_the_keys() {
        let steps = vec![
            ScriptStep::Pause(Duration::from_secs(100)),
            ScriptStep::Action(Action::Quit),
        ];
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let input = stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|m| (m, rx)) });
        let mut p = player(steps, 1.0, input);
        tx.send(key(KeyCode::Char('?'))).unwrap();
        assert!(matches!(p.next().await, Some(Msg::DemoPaused(true))));
        assert!(matches!(p.next().await, Some(Msg::Status(s)) if s.contains("Space resumes")));
        let waited = tokio::time::timeout(Duration::from_secs(1000), p.next()).await;
        assert!(waited.is_err(), "played while paused: {waited:?}");
        tx.send(key(KeyCode::Char(' '))).unwrap();
        assert!(matches!(p.next().await, Some(Msg::DemoPaused(false))));
    }

    #[test]
    fn the_length_of_a_tour_is_its_pauses_and_keys() {
        let steps = vec![
            ScriptStep::Caption(Some("one".into())),
            ScriptStep::Pause(Duration::from_secs(2)),
            ScriptStep::Type("ab".into()),
            ScriptStep::Action(Action::Help),
        ];
        assert_eq!(length(&steps, 1.0), Duration::from_millis(2270));
        assert_eq!(length(&steps, 2.0), Duration::from_millis(1135));
    }

    #[tokio::test(start_paused = true)]
    async fn the_end_of_the_script_ends_the_demo() {
        let steps = vec![ScriptStep::Pause(Duration::from_secs(2))];
        let mut p = player(steps, 2.0, stream::pending());
        assert!(matches!(p.next().await, Some(Msg::InputClosed)));
        assert!(p.next().await.is_none());
    }
}
