//! The highlighted tool's definition taken out of the explorer: copied to
//! the clipboard (`y`) or opened in a pager (`e`), as JSON in the provider
//! format last chosen in the export popup. The loop does the terminal's
//! part ([`crate::tui::between_frames`]).

use super::App;
use crate::provider::payload_tool;
use crate::terminal_text::{escape, json_for_terminal};
use crate::tui::action::Action;
use crate::tui::effect::Effect;

/// Why there is no tool definition to take out.
#[derive(Debug, thiserror::Error)]
enum NoDefinition {
    #[error("no tool is highlighted")]
    NoTool,
    /// The tool's JSON could not be written (its name, escaped).
    #[error("{name}: {source}")]
    Json {
        name: String,
        source: serde_json::Error,
    },
}

impl App {
    /// The highlighted tool's JSON and its name for a message, or why
    /// there is none.
    fn tool_definition(&self) -> Result<(String, String), NoDefinition> {
        let (index, _) = self.current_tool().ok_or(NoDefinition::NoTool)?;
        let tool = &self.catalog.tools()[index];
        let format = self.tool_format;
        // The same text an export writes: exact JSON, safe on a terminal.
        let mut text = json_for_terminal(&payload_tool(tool, format)).map_err(|source| {
            NoDefinition::Json {
                name: escape(&tool.name).into_owned(),
                source,
            }
        })?;
        text.push('\n');
        let what = format!("{} ({} JSON)", escape(&tool.name), format.name());
        Ok((text, what))
    }

    pub(super) fn copy_tool(&mut self) -> Vec<Effect> {
        match self.tool_definition() {
            Ok((text, what)) => {
                let instead = match self.keymap.first(Action::OpenTool) {
                    Some(key) => format!("{key} opens it in a pager instead"),
                    None => "open_tool opens it in a pager instead".into(),
                };
                vec![Effect::Copy {
                    text,
                    what,
                    instead,
                }]
            }
            Err(why) => {
                self.status = Some(format!("nothing copied: {why}"));
                Vec::new()
            }
        }
    }

    pub(super) fn open_tool(&mut self) -> Vec<Effect> {
        match self.tool_definition() {
            Ok((text, what)) => vec![Effect::Page { text, what }],
            Err(why) => {
                self.status = Some(format!("nothing opened: {why}"));
                Vec::new()
            }
        }
    }
}
