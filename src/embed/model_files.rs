//! What a sentence-transformers folder says, read: where its files come
//! from (a directory, or the model built in), its JSON files, how its
//! token vectors become one vector, and what keeps it from loading (the
//! file and why).

use std::path::Path;

use serde::Deserialize;

/// How token vectors become one vector (`1_Pooling/config.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    Mean,
    Cls,
    Max,
}

/// A pooling module's `config.json`, as every sentence-transformers version
/// writes it: one `pooling_mode` name (newer), or a switch per mode (older;
/// newer versions write both).
#[derive(Deserialize, Default)]
struct PoolingConfig {
    pooling_mode: Option<String>,
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pooling_mode_lasttoken: bool,
}

impl PoolingConfig {
    /// The one pooling it names; why not, when it names another or none.
    fn pooling(&self) -> Result<Pooling, PoolingUnsupported> {
        if let Some(mode) = &self.pooling_mode {
            return match mode.as_str() {
                "mean" | "mean_tokens" => Ok(Pooling::Mean),
                "cls" | "cls_token" => Ok(Pooling::Cls),
                "max" | "max_tokens" => Ok(Pooling::Max),
                other => Err(PoolingUnsupported::Mode(other.to_string())),
            };
        }
        let modes = [
            (self.pooling_mode_mean_tokens, Pooling::Mean),
            (self.pooling_mode_cls_token, Pooling::Cls),
            (self.pooling_mode_max_tokens, Pooling::Max),
        ];
        let on: Vec<Pooling> = modes.iter().filter(|m| m.0).map(|m| m.1).collect();
        let other = self.pooling_mode_mean_sqrt_len_tokens
            || self.pooling_mode_weightedmean_tokens
            || self.pooling_mode_lasttoken;
        match on.as_slice() {
            [one] if !other => Ok(*one),
            _ => Err(PoolingUnsupported::NotOne),
        }
    }
}

/// A pooling config this encoder cannot follow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolingUnsupported {
    #[error("pooling_mode {0:?} is not supported (mean, cls or max are)")]
    Mode(String),
    #[error("only one of mean, cls or max pooling is supported")]
    NotOne,
}

/// What keeps a model's files from making an encoder: the file (as
/// [`ModelFiles::place`] names it) and why.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{place}: cannot read it: {source}")]
    Read {
        place: String,
        source: std::io::Error,
    },
    #[error("{place}: cannot read {what}: not found")]
    Missing { place: String, what: &'static str },
    #[error("{place}: bad {what}: {why}")]
    Bad {
        place: String,
        what: &'static str,
        why: String,
    },
    #[error("{place}: not a BERT model: {why}")]
    NotBert { place: String, why: String },
    #[error("{place}: {source}")]
    Config {
        place: String,
        source: super::bert::Unsupported,
    },
    #[error("{place}: {source}")]
    Pooling {
        place: String,
        source: PoolingUnsupported,
    },
    #[error("{place}: module {kind:?} is not supported (Transformer, Pooling and Normalize are)")]
    Module { place: String, kind: String },
}

/// An entry of `modules.json`: a module's class and its folder.
#[derive(Deserialize)]
pub(super) struct Module {
    #[serde(rename = "type")]
    pub(super) kind: String,
    #[serde(default)]
    pub(super) path: String,
}

pub(super) fn parse_json<T: for<'de> Deserialize<'de>>(
    files: &dyn ModelFiles,
    name: &str,
    what: &'static str,
) -> Result<Option<T>, ModelError> {
    let Some(bytes) = files.read(name)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| ModelError::Bad {
            place: files.place(name),
            what,
            why: e.to_string(),
        })
}

pub(super) fn read_json<T: for<'de> Deserialize<'de>>(
    files: &dyn ModelFiles,
    name: &str,
    what: &'static str,
) -> Result<T, ModelError> {
    parse_json(files, name, what)?.ok_or_else(|| ModelError::Missing {
        place: files.place(name),
        what,
    })
}

/// Where a model's files come from: a directory, or the model built into
/// toolsift (`bundled.rs`).
pub trait ModelFiles {
    /// How messages name the file `name` (`DIR/config.json`).
    fn place(&self, name: &str) -> String;
    /// The file's bytes; `None` when it is not there.
    fn read(&self, name: &str) -> Result<Option<std::borrow::Cow<'static, [u8]>>, ModelError>;
}

/// A sentence-transformers directory.
pub struct Directory<'a>(pub &'a Path);

impl ModelFiles for Directory<'_> {
    fn place(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }

    fn read(&self, name: &str) -> Result<Option<std::borrow::Cow<'static, [u8]>>, ModelError> {
        let path = self.0.join(name);
        match std::fs::read(&path) {
            Ok(b) => Ok(Some(b.into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(ModelError::Read {
                place: path.display().to_string(),
                source,
            }),
        }
    }
}

/// The pooling and whether vectors are normalised, from `modules.json` and
/// the pooling module's config (mean pooling, no normalisation, when the
/// directory has neither, as sentence-transformers does for a bare model).
pub(super) fn read_modules(files: &dyn ModelFiles) -> Result<(Pooling, bool), ModelError> {
    let Some(modules) = parse_json::<Vec<Module>>(files, "modules.json", "modules.json")? else {
        return Ok((Pooling::Mean, false));
    };
    let mut pooling = Pooling::Mean;
    let mut normalize = false;
    for m in &modules {
        let kind = m.kind.rsplit('.').next().unwrap_or(&m.kind);
        match kind {
            "Transformer" => {}
            "Normalize" => normalize = true,
            "Pooling" => {
                let p = format!("{}/config.json", m.path.trim_end_matches('/'));
                let c: PoolingConfig = read_json(files, &p, "pooling config")?;
                pooling = c.pooling().map_err(|source| ModelError::Pooling {
                    place: files.place(&p),
                    source,
                })?;
            }
            other => {
                return Err(ModelError::Module {
                    place: files.place("modules.json"),
                    kind: other.to_string(),
                });
            }
        }
    }
    Ok((pooling, normalize))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<Pooling, PoolingUnsupported> {
        serde_json::from_str::<PoolingConfig>(json)
            .unwrap()
            .pooling()
    }

    #[test]
    fn the_pooling_of_every_sentence_transformers_version_is_read() {
        // Older versions: a switch per mode.
        let old = r#"{"word_embedding_dimension": 384, "pooling_mode_cls_token": false,
            "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false,
            "pooling_mode_mean_sqrt_len_tokens": false}"#;
        assert_eq!(read(old), Ok(Pooling::Mean));
        // Current ones: one name (and sometimes the switches beside it).
        assert_eq!(read(r#"{"pooling_mode": "mean"}"#), Ok(Pooling::Mean));
        assert_eq!(read(r#"{"pooling_mode": "cls"}"#), Ok(Pooling::Cls));
        assert_eq!(
            read(r#"{"pooling_mode": "max", "pooling_mode_max_tokens": true}"#),
            Ok(Pooling::Max)
        );
        // What it cannot pool is named.
        let why = read(r#"{"pooling_mode": "lasttoken"}"#)
            .unwrap_err()
            .to_string();
        assert!(why.contains("\"lasttoken\""), "{why}");
        assert!(read(r#"{"pooling_mode_lasttoken": true}"#).is_err());
        assert!(read("{}").is_err());
        assert!(
            read(r#"{"pooling_mode_mean_tokens": true, "pooling_mode_cls_token": true}"#).is_err()
        );
    }
}
