use std::path::PathBuf;

use super::Position;

/// Why a catalog could not be loaded. Every variant says where: the file, and
/// the line, column, tool or field when they are known.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("{origin}:{line}:{column}: invalid {format}: {message}")]
    Syntax {
        origin: String,
        format: &'static str,
        line: usize,
        column: usize,
        message: String,
    },

    #[error("{origin}: {message}")]
    Shape { origin: String, message: String },

    #[error("{position}{}: {message}", tool.as_ref().map(|n| format!(" {n:?}")).unwrap_or_default())]
    Tool {
        position: Position,
        tool: Option<String>,
        message: String,
    },

    #[error("{position}: tool name is empty")]
    EmptyName { position: Position },

    #[error("duplicate tool name {name:?}: defined at {first} and again at {second}")]
    DuplicateName {
        name: String,
        first: Position,
        second: Position,
    },

    #[error("{}catalog has no tools", if origin.is_empty() { String::new() } else { format!("{origin}: ") })]
    Empty { origin: String },

    #[error("unknown built-in catalog {name:?} (built-in catalogs: {available})")]
    UnknownBuiltin { name: String, available: String },
}
