//! The explorer's settings written back into the config file, the rest of
//! the file kept as it was.

use std::path::Path;

use super::{ConfigError, parse};
use crate::settings::Settings;

/// Whether two values of a setting say the same (a name or a number; a
/// value of another kind is never the same).
fn same_value(a: &toml_edit::Value, b: &toml_edit::Value) -> bool {
    match (a, b) {
        (toml_edit::Value::String(a), toml_edit::Value::String(b)) => a.value() == b.value(),
        (toml_edit::Value::Integer(a), toml_edit::Value::Integer(b)) => a.value() == b.value(),
        _ => false,
    }
}

/// Writes `settings` into the `[explorer]` table of the config file at
/// `path`, keeping everything else of the file as it was (comments, other
/// tables, key order): a setting whose value is unchanged keeps its line as
/// it was, a changed one keeps its inline comment; a setting with no value
/// is removed. The file is
/// created (with its folder) if missing, replaced atomically, and read back
/// as the explorer would read it before this returns.
pub fn save_explorer_settings(path: &Path, settings: &Settings) -> Result<(), ConfigError> {
    save_explorer(path, settings, &Also::default())
}

/// What is saved beside the settings, and what is left as the file has it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Also {
    /// The ranker is left as the file has it: the explorer picked it, the
    /// user did not (a saved `ranker = "bm25"` would pin it, and turn off
    /// the hybrid default when a model is at hand).
    pub keep_ranker: bool,
    /// The request file the Tune screen measured (`queries`), when it is a
    /// file (a built-in `@` set is not written).
    pub queries: Option<String>,
}

/// [`save_explorer_settings`], with `also`.
pub fn save_explorer(path: &Path, settings: &Settings, also: &Also) -> Result<(), ConfigError> {
    let origin = path.display().to_string();
    let text = read_if_there(path)?;
    // A file the explorer could not read is not overwritten.
    parse(&text, &origin)?;
    let invalid = |message: String| ConfigError::Invalid {
        origin: origin.clone(),
        message,
    };
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| invalid(e.to_string()))?;
    let explorer = doc
        .entry("explorer")
        .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
    let Some(table) = explorer.as_table_like_mut() else {
        return Err(invalid("`explorer` is not a table".into()));
    };
    // Each setting as its serde value: its name in the file, a number, or
    // nothing.
    let values = serde_json::to_value(settings).map_err(|e| invalid(e.to_string()))?;
    for key in Settings::KEYS {
        if also.keep_ranker && key == "ranker" {
            continue;
        }
        let value: Option<toml_edit::Value> = match &values[key] {
            serde_json::Value::String(name) => Some(name.as_str().into()),
            serde_json::Value::Number(n) => n.as_i64().map(Into::into),
            serde_json::Value::Bool(b) => Some((*b).into()),
            _ => None,
        };
        set(table, key, value);
    }
    if let Some(queries) = also.queries.as_deref().filter(|q| !q.starts_with('@')) {
        set(table, "queries", Some(queries.into()));
    }
    let out = doc.to_string();
    parse(&out, &origin)?;
    replace(path, out)
}

/// The file's text; empty when there is no file.
fn read_if_there(path: &Path) -> Result<String, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(source) => Err(ConfigError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Sets `key` of `table` to `value` (`None`: removed). The same value
/// leaves the line as it was, byte for byte; a new value keeps the old
/// one's spacing and inline comment.
fn set(table: &mut dyn toml_edit::TableLike, key: &str, value: Option<toml_edit::Value>) {
    match (
        value,
        table.get_mut(key).and_then(toml_edit::Item::as_value_mut),
    ) {
        (Some(v), Some(old)) if same_value(old, &v) => {}
        (Some(mut v), Some(old)) => {
            *v.decor_mut() = old.decor().clone();
            *old = v;
        }
        (Some(v), None) => {
            table.insert(key, toml_edit::Item::Value(v));
        }
        (None, _) => {
            table.remove(key);
        }
    }
}

/// Writes `out` to `path` atomically (a file beside it, renamed over it),
/// creating its folder if missing.
fn replace(path: &Path, out: String) -> Result<(), ConfigError> {
    let io = |source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let tmp = path.with_extension("toml.toolsift-tmp");
    std::fs::write(&tmp, out).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}
