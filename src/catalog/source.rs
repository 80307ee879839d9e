//! Where a catalog comes from: a path, `-` (standard input), or a built-in
//! catalog named with `@` (`@demo`, the default).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::import::{SourceKind, parse};
use super::{Catalog, CatalogError};

/// The catalogs embedded in the binary: `(name, file name, text)`.
pub const BUILTIN_CATALOGS: &[(&str, &str, &str)] = &[
    (
        "demo",
        "demo.toml",
        include_str!("../../assets/catalogs/demo.toml"),
    ),
    (
        "github-mcp",
        "github-mcp-server.tools.json",
        include_str!("../../assets/catalogs/github-mcp-server.tools.json"),
    ),
];

/// A catalog argument as the CLI takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogSource {
    Path(PathBuf),
    Stdin,
    Builtin(String),
}

impl CatalogSource {
    /// `-` is standard input, `@name` a built-in catalog, anything else a path.
    pub fn parse(arg: &str) -> Self {
        if arg == "-" {
            CatalogSource::Stdin
        } else if let Some(name) = arg.strip_prefix('@') {
            CatalogSource::Builtin(name.to_string())
        } else {
            CatalogSource::Path(PathBuf::from(arg))
        }
    }

    /// The default catalog: `@demo`.
    pub fn demo() -> Self {
        CatalogSource::Builtin("demo".into())
    }
}

impl std::fmt::Display for CatalogSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CatalogSource::Path(p) => write!(f, "{}", p.display()),
            CatalogSource::Stdin => f.write_str("<stdin>"),
            CatalogSource::Builtin(name) => write!(f, "@{name}"),
        }
    }
}

fn file_stem(path: &Path) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.to_string())
        .unwrap_or_else(|| path.display().to_string())
}

fn builtin_names() -> String {
    let mut names: Vec<String> = BUILTIN_CATALOGS
        .iter()
        .map(|(n, _, _)| format!("@{n}"))
        .collect();
    names.push("@synthetic-N (N tools, 1 to 100000)".into());
    names.join(", ")
}

/// Reads and parses one catalog.
pub fn load(source: &CatalogSource) -> Result<Catalog, CatalogError> {
    match source {
        CatalogSource::Path(path) => {
            let bytes = std::fs::read(path).map_err(|source| CatalogError::Io {
                path: path.clone(),
                source,
            })?;
            let text = String::from_utf8(bytes).map_err(|e| CatalogError::Shape {
                origin: path.display().to_string(),
                message: format!(
                    "not UTF-8 text (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                ),
            })?;
            parse(
                &text,
                &path.display().to_string(),
                &file_stem(path),
                SourceKind::from_path(path),
            )
        }
        CatalogSource::Stdin => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|source| CatalogError::Io {
                    path: PathBuf::from("<stdin>"),
                    source,
                })?;
            let text = String::from_utf8(bytes).map_err(|e| CatalogError::Shape {
                origin: "<stdin>".into(),
                message: format!(
                    "not UTF-8 text (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                ),
            })?;
            parse(&text, "<stdin>", "stdin", SourceKind::Sniff)
        }
        CatalogSource::Builtin(name) if name.starts_with("synthetic-") => {
            let n = name["synthetic-".len()..]
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=100_000).contains(n))
                .ok_or_else(|| CatalogError::UnknownBuiltin {
                    name: format!("@{name}"),
                    available: builtin_names(),
                })?;
            Ok(super::synthetic::generate(n, 42))
        }
        CatalogSource::Builtin(name) => {
            let Some((_, file, text)) = BUILTIN_CATALOGS.iter().find(|(n, _, _)| n == name) else {
                return Err(CatalogError::UnknownBuiltin {
                    name: format!("@{name}"),
                    available: builtin_names(),
                });
            };
            parse(
                text,
                &format!("@{name}"),
                name,
                SourceKind::from_path(Path::new(file)),
            )
        }
    }
}

/// Loads several catalogs and merges them; a name in two of them is an error
/// that names both places.
pub fn load_all(sources: &[CatalogSource]) -> Result<Catalog, CatalogError> {
    match sources {
        [] => load(&CatalogSource::demo()),
        [one] => load(one),
        many => Catalog::merge(many.iter().map(load).collect::<Result<Vec<_>, _>>()?),
    }
}
