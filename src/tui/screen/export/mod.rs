//! The export popup: the loaded tools as a provider payload, written to a
//! file. The path is a text box; the format changes with the keys that
//! page through history in the query box.

pub mod draw;

use ratatui::Frame;

use super::{On, Outcome, Popup, Screen, Screens, Told, Unopened};
use crate::tui::action::{Context, KeyGroup};
use crate::tui::paint::Theme;

use clap::ValueEnum;

use crate::catalog::Tool;
use crate::export::payload;
use crate::provider::PayloadFormat;
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::line_input::LineInput;

/// The name of a format, as `--export` takes it.
pub fn format_name(format: PayloadFormat) -> &'static str {
    format.name()
}

/// The file a format is written to unless the user types another.
pub fn default_path(format: PayloadFormat) -> String {
    format!("toolsift-tools.{}.json", format_name(format))
}

/// The key line's own keys (help and quit follow).
pub const KEYS: &[KeyGroup] = &[
    (
        &[Action::InputHistoryPrev, Action::InputHistoryNext],
        "format",
        "format",
        1,
    ),
    (&[Action::InputSubmit], "write", "write", 0),
    (&[Action::InputCancel], "cancel", "cancel", 0),
];

#[derive(Debug, Clone, PartialEq)]
pub struct ExportBox {
    pub format: PayloadFormat,
    pub path: LineInput,
    /// How many tools would be written.
    pub tools: usize,
    /// An existing file Enter was pressed on once: a second Enter on the
    /// same path overwrites it.
    confirming: Option<String>,
    /// What the last key or write said (a refusal, a failed write).
    pub message: Option<String>,
}

impl ExportBox {
    /// The popup for `tools` tools, on `format`.
    pub fn new(tools: usize, format: PayloadFormat) -> ExportBox {
        ExportBox {
            format,
            path: LineInput::offered(&default_path(format)),
            tools,
            confirming: None,
            message: None,
        }
    }

    fn step_format(&mut self, step: isize) {
        let all = PayloadFormat::value_variants();
        let i = all.iter().position(|f| *f == self.format).unwrap_or(0) as isize;
        let next = all[(i + step).rem_euclid(all.len() as isize) as usize];
        // A path the user has not changed follows the format.
        if self.path.text == default_path(self.format) {
            self.path = LineInput::offered(&default_path(next));
        }
        self.format = next;
    }

    pub fn type_text(&mut self, text: &str) {
        self.message = None;
        self.confirming = None;
        self.path.insert(text);
    }

    /// What `action` does to the popup.
    pub fn handle(&mut self, action: Action) -> Key {
        self.message = None;
        Key::Done(match action {
            Action::InputCancel => Outcome::Close,
            Action::InputHistoryPrev => {
                self.step_format(-1);
                Outcome::Stay
            }
            Action::InputHistoryNext => {
                self.step_format(1);
                Outcome::Stay
            }
            Action::InputSubmit => {
                let path = self.path.text.trim().to_string();
                if path.is_empty() {
                    self.message = Some("type a file to write to".into());
                    return Key::Done(Outcome::Stay);
                }
                // An existing file is overwritten only when asked twice.
                if std::path::Path::new(&path).exists()
                    && self.confirming.as_deref() != Some(path.as_str())
                {
                    self.message = Some(format!(
                        "{} exists: Enter again overwrites it; or edit the path",
                        escape(&path)
                    ));
                    self.confirming = Some(path);
                    return Key::Done(Outcome::Stay);
                }
                self.confirming = None;
                return Key::Write(path);
            }
            other => {
                if self.path.edit(other) {
                    self.confirming = None;
                }
                Outcome::Stay
            }
        })
    }

    /// The write of what the app exports now (asked of it) to `path`, or
    /// where to say why not: a payload that cannot be made is said in the
    /// popup, the path kept to fix.
    fn write(&mut self, path: String, on: &On) -> Outcome {
        let write = match on.ask.export() {
            Err(_) => Err(Told::Close("nothing to export: no tools are loaded".into())),
            Ok(out) => write_effect(self.format, path, &out.tools).map_err(|why| {
                self.message = Some(why.to_string());
                Told::Shown
            }),
        };
        Outcome::Export {
            format: self.format,
            write,
        }
    }
}

/// What a key does to the popup: an outcome, or the path to write to.
#[derive(Debug)]
pub enum Key {
    Done(Outcome),
    Write(String),
}

/// Tools that cannot be written out as a payload.
#[derive(Debug, thiserror::Error)]
#[error("not exported: {0}")]
pub struct NotExported(#[from] crate::export::ExportError);

/// The write of `tools` as `format` to `path` (an effect, its message
/// ready), or why they cannot be exported.
pub fn write_effect(
    format: PayloadFormat,
    path: String,
    tools: &[&Tool],
) -> Result<Effect, NotExported> {
    let text = payload(tools.iter().copied(), format)?;
    let shown =
        std::path::absolute(&path).map_or_else(|_| path.clone(), |p| p.display().to_string());
    Ok(Effect::WriteFile {
        done: format!(
            "wrote {} ({}) to {}",
            crate::tui::text::count(tools.len() as u64, "tool", "tools"),
            format_name(format),
            escape(&shown)
        ),
        path,
        text,
    })
}

/// The popup opens on the tools an export writes (on the format chosen
/// last), or says why there are none.
pub fn open(on: &On, screens: &mut Screens) -> Result<Vec<Effect>, Unopened> {
    let tools = on.ask.export()?.tools.len();
    screens.hold(Box::new(ExportBox::new(tools, on.ask.tool_format())));
    screens.show(Popup::Export);
    Ok(Vec::new())
}

impl Screen for ExportBox {
    fn id(&self) -> Popup {
        Popup::Export
    }

    /// The path is a text box: it has the keyboard.
    fn context(&self) -> Context {
        Context::Input
    }

    fn keys(&self) -> &'static [KeyGroup] {
        KEYS
    }

    fn handle(&mut self, action: Action, on: &On) -> Outcome {
        match ExportBox::handle(self, action) {
            Key::Done(outcome) => outcome,
            Key::Write(path) => self.write(path, on),
        }
    }

    fn area(&self, on: &On) -> ratatui::layout::Rect {
        on.layout.export_popup
    }

    fn draw(&self, f: &mut Frame, on: &On, theme: &Theme) {
        let source = (on.ask.export()).map_or(draw::Source::Loaded, |out| out.from);
        draw::draw(f, on.layout.export_popup, self, source, on.keymap, theme);
    }

    fn type_text(&mut self, text: &str) {
        ExportBox::type_text(self, text);
    }

    /// A failed write keeps the popup with the path typed, to fix.
    fn tell(&mut self, message: String, failed: bool) -> Told {
        if failed {
            self.message = Some(message);
            Told::Shown
        } else {
            Told::Close(message)
        }
    }

    fn of_catalog(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_path_follows_the_format_until_edited() {
        let mut b = ExportBox::new(3, PayloadFormat::OpenaiResponses);
        assert_eq!(b.path.text, "toolsift-tools.openai-responses.json");
        b.handle(Action::InputHistoryNext);
        assert_eq!(b.format, PayloadFormat::OpenaiChat);
        assert_eq!(b.path.text, "toolsift-tools.openai-chat.json");
        b.handle(Action::InputHistoryPrev);
        b.handle(Action::InputHistoryPrev);
        assert_eq!(b.format, PayloadFormat::Caveman);
        b.handle(Action::InputClear);
        b.type_text("out.json");
        b.handle(Action::InputHistoryNext);
        assert_eq!(b.path.text, "out.json");
        assert_eq!(b.format, PayloadFormat::OpenaiResponses);
        assert!(matches!(
            b.handle(Action::InputSubmit),
            Key::Write(path) if path == "out.json"
        ));
        assert!(matches!(
            b.handle(Action::InputCancel),
            Key::Done(Outcome::Close)
        ));
    }

    #[test]
    fn an_existing_file_is_overwritten_only_on_a_second_enter() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tools.json");
        std::fs::write(&path, "kept").unwrap();
        let mut b = ExportBox::new(3, PayloadFormat::Anthropic);
        b.handle(Action::InputClear);
        b.type_text(path.to_str().unwrap());
        assert!(matches!(
            b.handle(Action::InputSubmit),
            Key::Done(Outcome::Stay)
        ));
        assert!(
            b.message
                .as_deref()
                .unwrap()
                .contains("Enter again overwrites")
        );
        // An edit asks again.
        b.type_text("x");
        b.handle(Action::InputBackspace);
        assert!(matches!(
            b.handle(Action::InputSubmit),
            Key::Done(Outcome::Stay)
        ));
        assert!(matches!(b.handle(Action::InputSubmit), Key::Write(_)));
    }
}
