//! The JSON files editors and hosts keep their MCP servers in, each entry
//! with where it starts (so a warning about one names its line):
//!
//! - `{"mcpServers": {...}}`: Claude Desktop, Claude Code's `.mcp.json`,
//!   Cursor;
//! - `{"servers": {...}, "inputs": [...]}`: VS Code's `.vscode/mcp.json`
//!   (its inputs are what `${input:ID}` stands for);
//! - `~/.claude.json`, where `claude mcp add` writes: the user's servers at
//!   the top (`mcpServers`) and each project's under `projects["/path"]`.
//!   A project's are read with the user's: the project named, else the
//!   current directory's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::config_error::McpConfigError;
use super::vars::Input;
use crate::catalog::line_col;

/// One server's entry as written, not yet read.
pub(super) struct RawEntry<'a> {
    pub(super) name: String,
    /// `file:line:column` of the entry.
    pub(super) at: String,
    pub(super) value: &'a RawValue,
    /// Where the entry's text starts in the file.
    pub(super) offset: usize,
}

/// What a JSON file holds: its entries, VS Code's inputs, and notes for
/// the user (which project was read).
pub(super) struct JsonServers<'a> {
    pub(super) entries: Vec<RawEntry<'a>>,
    pub(super) inputs: BTreeMap<String, Input>,
    pub(super) notes: Vec<String>,
}

#[derive(Deserialize)]
struct InputEntry {
    id: String,
    #[serde(default)]
    default: Option<serde_json::Value>,
    #[serde(default)]
    description: Option<String>,
}

/// Reads the servers of a JSON file `text` (shown as `origin`); `project`
/// picks a project of `~/.claude.json`.
pub(super) fn json_servers<'a>(
    text: &'a str,
    origin: &str,
    project: Option<&Path>,
) -> Result<JsonServers<'a>, McpConfigError> {
    let file = JsonFile { text, origin };
    let top: BTreeMap<String, &RawValue> =
        serde_json::from_str(text).map_err(|e| file.syntax(e, 0))?;
    let mut out = JsonServers {
        entries: Vec::new(),
        inputs: BTreeMap::new(),
        notes: Vec::new(),
    };
    let (servers, vscode) = match (top.get("mcpServers"), top.get("servers")) {
        (Some(s), _) => (Some(*s), false),
        (None, Some(s)) => (Some(*s), true),
        (None, None) => (None, false),
    };
    if let Some(raw) = servers {
        file.read_map(raw, &mut out.entries)?;
    }
    if vscode && let Some(raw) = top.get("inputs") {
        out.inputs = file.inputs(raw)?;
    }
    match (top.get("projects"), project) {
        (Some(projects), _) => file.add_project(projects, project, &mut out)?,
        (None, Some(p)) => {
            return Err(file.invalid(format!(
                "--project {:?}: this file has no \"projects\" (~/.claude.json has them)",
                p.display().to_string()
            )));
        }
        (None, None) => {}
    }
    if servers.is_none() && !top.contains_key("projects") {
        return Err(file.invalid("no MCP servers: expected a JSON object with \"mcpServers\" (Claude, Cursor), \"servers\" (VS Code) or \"projects\" (~/.claude.json), or a TOML file with [mcp.servers.NAME] sections".into()));
    }
    Ok(out)
}

/// A JSON servers file being read: its text, and how it is named in
/// messages.
struct JsonFile<'a, 'o> {
    text: &'a str,
    origin: &'o str,
}

impl<'a> JsonFile<'a, '_> {
    /// A syntax error met in the part of the text that starts at `base`,
    /// at its line and column in the whole file.
    fn syntax(&self, e: serde_json::Error, base: usize) -> McpConfigError {
        let (line, column) = position(self.text, base, &e);
        McpConfigError::Syntax {
            path: self.origin.to_string(),
            line,
            column,
            message: without_position(&e),
        }
    }

    /// The file is not a servers file as it is, and why.
    fn invalid(&self, message: String) -> McpConfigError {
        McpConfigError::Invalid {
            origin: self.origin.to_string(),
            message,
        }
    }

    /// The entries of a `{"NAME": {...}}` map, each with where it starts.
    fn read_map(
        &self,
        raw: &'a RawValue,
        out: &mut Vec<RawEntry<'a>>,
    ) -> Result<(), McpConfigError> {
        let base = offset_in(self.text, raw);
        let map: BTreeMap<String, &'a RawValue> =
            serde_json::from_str(raw.get()).map_err(|e| self.syntax(e, base))?;
        for (name, value) in map {
            let offset = offset_in(self.text, value);
            let (line, column) = line_col(self.text, offset);
            out.push(RawEntry {
                name,
                at: format!("{}:{line}:{column}", self.origin),
                value,
                offset,
            });
        }
        Ok(())
    }

    /// VS Code's `inputs`, by id: each one's default (as text) and
    /// description.
    fn inputs(&self, raw: &RawValue) -> Result<BTreeMap<String, Input>, McpConfigError> {
        let inputs: Vec<InputEntry> = serde_json::from_str(raw.get())
            .map_err(|e| self.syntax(e, offset_in(self.text, raw)))?;
        Ok(inputs
            .into_iter()
            .map(|i| {
                let default = i.default.map(|d| match d {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                });
                let input = Input {
                    default,
                    description: i.description,
                };
                (i.id, input)
            })
            .collect())
    }

    /// `~/.claude.json`'s project (the one named, else the current
    /// directory's) read with the user's servers: its servers override the
    /// user's of their names, and a note says how many each has. A project
    /// named that is not there is an error listing those that are.
    fn add_project(
        &self,
        projects: &'a RawValue,
        project: Option<&Path>,
        out: &mut JsonServers<'a>,
    ) -> Result<(), McpConfigError> {
        let base = offset_in(self.text, projects);
        let projects: BTreeMap<String, &RawValue> =
            serde_json::from_str(projects.get()).map_err(|e| self.syntax(e, base))?;
        let wanted = match project {
            Some(p) => Some(p.to_path_buf()),
            None => std::env::current_dir().ok(),
        };
        let Some((key, raw)) = wanted.as_deref().and_then(|w| find_project(&projects, w)) else {
            let Some(project) = project else {
                return Ok(());
            };
            let known: Vec<&str> = projects.keys().map(String::as_str).take(8).collect();
            return Err(self.invalid(format!(
                "--project {:?}: no such project here (its projects: {})",
                project.display().to_string(),
                if known.is_empty() {
                    "none".into()
                } else {
                    known.join(", ")
                }
            )));
        };
        #[derive(Deserialize)]
        struct Project<'b> {
            #[serde(rename = "mcpServers", borrow, default)]
            mcp_servers: Option<&'b RawValue>,
        }
        let p: Project = serde_json::from_str(raw.get())
            .map_err(|e| self.syntax(e, offset_in(self.text, raw)))?;
        let mut local = Vec::new();
        if let Some(s) = p.mcp_servers {
            self.read_map(s, &mut local)?;
        }
        out.notes.push(format!(
            "{}: project {key:?}: {} server(s) of its own, with the user's {}",
            self.origin,
            local.len(),
            out.entries.len()
        ));
        // A project's server overrides the user's of its name.
        out.entries
            .retain(|e| !local.iter().any(|l| l.name == e.name));
        out.entries.extend(local);
        Ok(())
    }
}

/// The project of `projects` at `wanted` (compared as written, then both
/// resolved), with its key.
fn find_project<'a, 'b>(
    projects: &'b BTreeMap<String, &'a RawValue>,
    wanted: &Path,
) -> Option<(&'b str, &'a RawValue)> {
    let resolved = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let trim = |p: &Path| PathBuf::from(p.to_string_lossy().trim_end_matches('/'));
    // The folder itself, else the nearest folder above it that is a
    // project (Claude Code started in a project's subdirectory reads that
    // project's servers).
    for wanted in wanted.ancestors() {
        let wanted_resolved = resolved(wanted);
        let found = projects
            .iter()
            .find(|(k, _)| trim(Path::new(k)) == trim(wanted))
            .or_else(|| {
                projects
                    .iter()
                    .find(|(k, _)| resolved(Path::new(k)) == wanted_resolved)
            });
        if let Some((k, v)) = found {
            return Some((k.as_str(), *v));
        }
    }
    None
}

/// Where `raw` (a slice of `text`) starts in it.
pub(super) fn offset_in(text: &str, raw: &RawValue) -> usize {
    let start = raw.get().as_ptr() as usize;
    let base = text.as_ptr() as usize;
    start
        .checked_sub(base)
        .filter(|o| *o <= text.len())
        .unwrap_or(0)
}

/// The line and column in `text` of error `e`, met in the part of `text`
/// that starts at `base`.
pub(super) fn position(text: &str, base: usize, e: &serde_json::Error) -> (usize, usize) {
    let (line, column) = line_col(text, base);
    if e.line() <= 1 {
        (line, column + e.column().saturating_sub(1))
    } else {
        (line + e.line() - 1, e.column())
    }
}

/// serde_json's message without its " at line L column C".
pub(super) fn without_position(e: &serde_json::Error) -> String {
    let shown = e.to_string();
    match shown.rfind(" at line ") {
        Some(at) => shown[..at].to_string(),
        None => shown,
    }
}
