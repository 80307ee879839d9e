//! Tool catalogs: the [`Tool`] descriptor, the validated [`Catalog`], and the
//! importers for every format toolsift reads (see [`import`]).
//!
//! A `Catalog` is always valid: at least one tool, every name non-empty after
//! trimming, names unique, every `input_schema` a JSON object. Anything else is
//! a [`CatalogError`] that says what was wrong and where (file, line, tool).

mod error;
mod import;
mod lint;
pub mod pattern;
pub mod schema;
mod source;
pub mod synthetic;

use std::collections::HashMap;
use std::fmt;
use std::io::Write as _;
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use serde_json::value::RawValue;

pub use error::CatalogError;
pub(crate) use import::line_col;
pub use import::toml_error_at;
pub use import::{Format, SourceKind, parse};
pub use lint::{
    Finding, LARGE_TOOL_BYTES, Lint, Uncleanable, clean_tool, hidden_text, lint, lint_tool,
    spell_tags, strip_json, strip_prose,
};
pub use source::{BUILTIN_CATALOGS, CatalogSource, load, load_all};

/// One tool of a catalog, as the SDKs describe it (docs/wire.md §1), plus the
/// simulated handler result the explorer and the breaker simulator use.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    /// Normally a JSON Schema with `"type":"object"`; always a JSON object.
    pub input_schema: Value,
    pub read_only: bool,
    pub idempotent: bool,
    pub always_load: bool,
    /// `handler.result` of the native TOML format: what a simulated call returns.
    pub handler_result: Option<Value>,
    /// Where the tool was defined.
    pub position: Position,
    /// The MCP server it came from, when it came from one.
    pub mcp: Option<McpOrigin>,
}

/// The `_meta` key of an MCP tool that names the server it came from
/// (toolsift's export of a gathered catalog writes it; the importer reads it).
pub const META_SERVER: &str = "io.toolsift/server";
/// The `_meta` key with what that server says of itself.
pub const META_SERVER_ABOUT: &str = "io.toolsift/server-about";

/// Where a tool gathered from a live MCP server came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpOrigin {
    /// The server's name in the config.
    pub server: Arc<str>,
    /// The tool's name on that server (the catalog may prefix it).
    pub name: String,
    /// The MCP `title`, for display.
    pub title: Option<String>,
    /// What the server says of itself (its `serverInfo` name, title and
    /// description, its `instructions`): searched with the tool, so "git"
    /// or "memory graph" find that server's tools.
    pub about: Option<Arc<str>>,
}

impl McpOrigin {
    /// The tool `name` of `server`, with no title and nothing said of the
    /// server.
    pub fn new(server: &str, name: &str) -> McpOrigin {
        McpOrigin {
            server: server.into(),
            name: name.into(),
            title: None,
            about: None,
        }
    }
}

impl Tool {
    /// A tool with the given name and description, an empty object schema,
    /// all flags false, and no position.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Tool {
            name: name.into(),
            description: description.into(),
            input_schema: serde_json::json!({"type": "object", "properties": {}}),
            read_only: false,
            idempotent: false,
            always_load: false,
            handler_result: None,
            position: Position::default(),
            mcp: None,
        }
    }
}

/// Where a tool stands: its source (file path, `<stdin>`, `@demo`), its index in
/// that source (0-based) and, when known, its line (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Position {
    pub origin: Arc<str>,
    pub index: usize,
    pub line: Option<usize>,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.origin.is_empty() {
            write!(f, "{}: ", self.origin)?;
        }
        write!(f, "tool #{}", self.index + 1)?;
        if let Some(line) = self.line {
            write!(f, " (line {line})")?;
        }
        Ok(())
    }
}

/// A note made while importing that does not stop the import (an unknown field,
/// a missing schema replaced by an empty one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportNote {
    pub position: Position,
    pub tool: Option<String>,
    pub message: String,
}

impl fmt::Display for ImportNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.position)?;
        if let Some(name) = &self.tool {
            write!(f, " {name:?}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A validated catalog: non-empty (but [`Catalog::empty`]), unique non-blank
/// names, object schemas.
#[derive(Debug, Clone)]
pub struct Catalog {
    name: String,
    tools: Vec<Tool>,
    formats: Vec<Format>,
    notes: Vec<ImportNote>,
    /// Content hash of the tools' names, descriptions and schemas, computed
    /// once on first use (flags are not part of it: they change selection,
    /// not the index or the token counts).
    fingerprint: OnceLock<(u128, usize)>,
    /// Name -> index, built on first lookup.
    by_name: OnceLock<HashMap<String, usize>>,
    /// The always-load tools' indices, found on first use.
    always: OnceLock<Vec<usize>>,
    /// Each tool's schema as compact JSON, written the first time the
    /// tool is answered (at most the schemas' size again, for the tools
    /// ever returned), so a tool returned again and again is written once.
    schema_json: OnceLock<Box<[OnceLock<Box<RawValue>>]>>,
}

/// Equal content, whatever has been computed and cached so far.
impl PartialEq for Catalog {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.tools == other.tools
            && self.formats == other.formats
            && self.notes == other.notes
    }
}

impl Catalog {
    /// Validates `tools` and builds a catalog named `name`.
    pub fn new(name: impl Into<String>, tools: Vec<Tool>) -> Result<Self, CatalogError> {
        Self::build(name.into(), tools, Vec::new(), Vec::new(), "")
    }

    /// A catalog of no tools, for a front end whose tools are on their way
    /// (the gateway while its servers start). Loading never makes one: an
    /// empty file is an error.
    pub fn empty(name: impl Into<String>) -> Catalog {
        Catalog {
            name: name.into(),
            tools: Vec::new(),
            formats: Vec::new(),
            notes: Vec::new(),
            fingerprint: OnceLock::new(),
            by_name: OnceLock::new(),
            always: OnceLock::new(),
            schema_json: OnceLock::new(),
        }
    }

    pub(crate) fn build(
        name: String,
        tools: Vec<Tool>,
        formats: Vec<Format>,
        notes: Vec<ImportNote>,
        origin: &str,
    ) -> Result<Self, CatalogError> {
        if tools.is_empty() {
            return Err(CatalogError::Empty {
                origin: origin.to_string(),
            });
        }
        let mut seen: HashMap<&str, &Position> = HashMap::with_capacity(tools.len());
        for tool in &tools {
            if tool.name.trim().is_empty() {
                return Err(CatalogError::EmptyName {
                    position: tool.position.clone(),
                });
            }
            if !tool.input_schema.is_object() {
                return Err(CatalogError::Tool {
                    position: tool.position.clone(),
                    tool: Some(tool.name.clone()),
                    message: format!(
                        "field `input_schema` must be a JSON object, got {}",
                        import::describe_value(&tool.input_schema)
                    ),
                });
            }
            if let Some(first) = seen.insert(tool.name.as_str(), &tool.position) {
                return Err(CatalogError::DuplicateName {
                    name: tool.name.clone(),
                    first: first.clone(),
                    second: tool.position.clone(),
                });
            }
        }
        Ok(Catalog {
            name,
            tools,
            formats,
            notes,
            fingerprint: OnceLock::new(),
            by_name: OnceLock::new(),
            always: OnceLock::new(),
            schema_json: OnceLock::new(),
        })
    }

    /// Merges several catalogs into one (the tools of each, in order). A name
    /// defined in two of them is an error naming both places.
    pub fn merge(catalogs: Vec<Catalog>) -> Result<Self, CatalogError> {
        let name = catalogs
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(" + ");
        let mut tools = Vec::new();
        let mut formats = Vec::new();
        let mut notes = Vec::new();
        for catalog in catalogs {
            tools.extend(catalog.tools);
            for format in catalog.formats {
                if !formats.contains(&format) {
                    formats.push(format);
                }
            }
            notes.extend(catalog.notes);
        }
        Self::build(name, tools, formats, notes, "")
    }

    /// The catalog's display name (the `[catalog] name` of a TOML file, else
    /// the file name).
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Always false: a catalog has at least one tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.index_of(name).map(|i| &self.tools[i])
    }

    /// The index of the tool named `name` (a hash lookup after the first call).
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name
            .get_or_init(|| {
                self.tools
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (t.name.clone(), i))
                    .collect()
            })
            .get(name)
            .copied()
    }

    /// The formats the tools were read from, in order of first appearance.
    pub fn formats(&self) -> &[Format] {
        &self.formats
    }

    /// Notes made while importing (unknown fields, defaults filled in).
    pub fn notes(&self) -> &[ImportNote] {
        &self.notes
    }

    /// Indices of the always-load tools, in catalog order (found once:
    /// a search of a large catalog need not visit every tool for them).
    pub fn always_load_indices(&self) -> &[usize] {
        self.always.get_or_init(|| {
            (0..self.tools.len())
                .filter(|&i| self.tools[i].always_load)
                .collect()
        })
    }

    /// Tool `index`'s schema as compact JSON (written once). Panics if
    /// `index` is not a tool's, as `tools()[index]` does.
    pub fn schema_json(&self, index: usize) -> &RawValue {
        let all = self
            .schema_json
            .get_or_init(|| self.tools.iter().map(|_| OnceLock::new()).collect());
        all[index].get_or_init(|| {
            // A `Value` always writes (its keys are strings).
            serde_json::value::to_raw_value(&self.tools[index].input_schema).unwrap_or_default()
        })
    }

    /// Names of the always-load tools, in catalog order.
    pub fn always_load_names(&self) -> Vec<&str> {
        self.tools
            .iter()
            .filter(|t| t.always_load)
            .map(|t| t.name.as_str())
            .collect()
    }

    /// A 128-bit content hash of every tool's name, description and schema,
    /// in order: equal for catalogs that index and cost the same.
    pub fn fingerprint(&self) -> u128 {
        self.content().0
    }

    /// The size of that content in bytes (names, descriptions, compact
    /// schemas): what caches weigh a catalog by.
    pub fn content_bytes(&self) -> usize {
        self.content().1
    }

    fn content(&self) -> (u128, usize) {
        *self.fingerprint.get_or_init(|| {
            struct Hasher(xxhash_rust::xxh3::Xxh3, usize);
            impl std::io::Write for Hasher {
                fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                    self.0.update(buf);
                    self.1 += buf.len();
                    Ok(buf.len())
                }
                fn flush(&mut self) -> std::io::Result<()> {
                    Ok(())
                }
            }
            let mut h = Hasher(xxhash_rust::xxh3::Xxh3::new(), 0);
            for tool in &self.tools {
                let _ = h.write_all(tool.name.as_bytes());
                let _ = h.write_all(&[0]);
                let _ = h.write_all(tool.description.as_bytes());
                let _ = h.write_all(&[0]);
                let _ = serde_json::to_writer(&mut h, &tool.input_schema);
                if let Some(origin) = &tool.mcp {
                    // The server is searched too.
                    let _ = h.write_all(&[0xfe]);
                    let _ = h.write_all(origin.server.as_bytes());
                    let _ = h.write_all(&[0]);
                    let _ = h.write_all(origin.about.as_deref().unwrap_or_default().as_bytes());
                }
                let _ = h.write_all(&[0xff]);
            }
            (h.0.digest128(), h.1)
        })
    }

    /// The same catalog with `always_load` of tool `index` set to `value`.
    pub fn with_always_load(&self, index: usize, value: bool) -> Catalog {
        let mut copy = self.clone();
        if let Some(tool) = copy.tools.get_mut(index) {
            tool.always_load = value;
        }
        copy.always = OnceLock::new();
        copy
    }
}

#[cfg(test)]
mod tests;
