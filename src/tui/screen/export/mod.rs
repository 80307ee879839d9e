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
    match format {
        PayloadFormat::OpenaiResponses => "openai-responses",
        PayloadFormat::OpenaiChat => "openai-chat",
        PayloadFormat::Anthropic => "anthropic",
        PayloadFormat::Mcp => "mcp",
        PayloadFormat::Caveman => "caveman",
    }
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

    pub fn handle(&mut self, action: Action) -> Outcome {
        self.message = None;
        match action {
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
                    return Outcome::Stay;
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
                    return Outcome::Stay;
                }
                self.confirming = None;
                Outcome::Export {
                    format: self.format,
                    path,
                }
            }
            other => {
                if self.path.edit(other) {
                    self.confirming = None;
                }
                Outcome::Stay
            }
        }
    }
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
    let (tools, _) = on.export.clone().map_err(Unopened::NothingToExport)?;
    screens.hold(Box::new(ExportBox::new(tools, on.tool_format)));
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

    fn handle(&mut self, action: Action, _on: &On) -> Outcome {
        ExportBox::handle(self, action)
    }

    fn area(&self, on: &On) -> ratatui::layout::Rect {
        on.layout.export_popup
    }

    fn draw(&self, f: &mut Frame, on: &On, theme: &Theme) {
        let source = on
            .export
            .as_ref()
            .map_or(draw::Source::Loaded, |(_, source)| *source);
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
        assert!(matches!(
            b.handle(Action::InputSubmit),
            Outcome::Export {
                format: PayloadFormat::OpenaiResponses,
                path,
            } if path == "out.json"
        ));
        assert!(matches!(b.handle(Action::InputCancel), Outcome::Close));
    }

    #[test]
    fn an_existing_file_is_overwritten_only_on_a_second_enter() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tools.json");
        std::fs::write(&path, "kept").unwrap();
        let mut b = ExportBox::new(3, PayloadFormat::Anthropic);
        b.handle(Action::InputClear);
        b.type_text(path.to_str().unwrap());
        assert!(matches!(b.handle(Action::InputSubmit), Outcome::Stay));
        assert!(
            b.message
                .as_deref()
                .unwrap()
                .contains("Enter again overwrites")
        );
        // An edit asks again.
        b.type_text("x");
        b.handle(Action::InputBackspace);
        assert!(matches!(b.handle(Action::InputSubmit), Outcome::Stay));
        assert!(matches!(
            b.handle(Action::InputSubmit),
            Outcome::Export { .. }
        ));
    }
}
