//! The config file: built-in defaults (`assets/config.toml`, embedded), a
//! user file merged over them, then command-line flags over both.
//!
//! The user file is `--config FILE`, else `$TOOLSIFT_CONFIG`, else
//! `$XDG_CONFIG_HOME/toolsift/config.toml`, else
//! `~/.config/toolsift/config.toml`. A file named by a flag or the variable
//! must exist; the usual places may be empty.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::file_value;
use crate::layer::Layer;

mod access;
mod explorer;
mod gateway;
mod save;
mod serve;

pub use access::{AccessPlan, GroupEntry, KeyEntry, KeyPlan, Written};
pub use explorer::ExplorerConfig;
pub use gateway::{GatewaySection, HiddenText, ToolRule, path_in};
pub use save::{Also, save_explorer, save_explorer_settings};
pub use serve::{NotASwitch, ServeSection, UpstreamSection, switch};

/// The embedded defaults.
pub const DEFAULT_CONFIG: &str = include_str!("../../assets/config.toml");

/// Why the config could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{origin}:{line}:{column}: {message}")]
    Syntax {
        origin: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{origin}: {message}")]
    Invalid { origin: String, message: String },
}

/// A key list may be written as one string or a list of strings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Keys {
    One(String),
    Many(Vec<String>),
}

impl Keys {
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            Keys::One(k) => vec![k.clone()],
            Keys::Many(ks) => ks.clone(),
        }
    }
}

/// One config file as written.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    #[serde(default)]
    pub explorer: ExplorerConfig,
    #[serde(default)]
    pub serve: ServeSection,
    #[serde(default)]
    pub gateway: GatewaySection,
    /// `[embeddings]`: the embedding provider of the dense rankers.
    #[serde(default)]
    pub embeddings: crate::embed::EmbeddingSettings,
    #[serde(default)]
    pub keys: BTreeMap<String, Keys>,
}

/// The merged configuration and where its user part came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub explorer: ExplorerConfig,
    /// `[serve]` of the user file (no built-in values: the code's defaults).
    pub serve: ServeSection,
    /// `[gateway]` of the user file.
    pub gateway: GatewaySection,
    /// `[embeddings]` of the user file.
    pub embeddings: crate::embed::EmbeddingSettings,
    /// Default key bindings, per action name.
    pub default_keys: BTreeMap<String, Vec<String>>,
    /// The user's file names the explorer's ranker (the built-in config
    /// always does): else a front end may pick one by what is at hand.
    pub user_chose_ranker: bool,
    /// The user's bindings, per action name (replacing that action's defaults).
    pub user_keys: BTreeMap<String, Vec<String>>,
    /// The user file that was read, if any.
    pub source: Option<PathBuf>,
    /// The user file's named keys (`[gateway.keys]`, `[gateway.groups]`),
    /// each part with the line it was written on.
    pub access: AccessPlan,
    /// Where the explorer saves settings: the file read, else the usual
    /// place (created then).
    pub save_path: Option<PathBuf>,
}

/// The key of the value an error is about (`strategy` of
/// `[explorer] strategy = …`): toml records the path and writes it under
/// its message when it has no text to quote.
fn key_of(e: &toml::de::Error) -> Option<String> {
    let mut bare = e.clone();
    bare.set_input(None);
    let shown = bare.to_string();
    let path = shown
        .lines()
        .last()?
        .strip_prefix("in `")?
        .strip_suffix('`')?;
    path.rsplit('.').next().map(str::to_string)
}

/// Parses one config file's text. A value refused by its check is named by
/// its key: `strategy must be all or deferred, not "lazy"`.
pub fn parse(text: &str, origin: &str) -> Result<ConfigFile, ConfigError> {
    toml::from_str(text).map_err(|e| {
        let (line, column, mut message) = crate::catalog::toml_error_at(text, &e);
        if file_value::is_refusal(&message)
            && let Some(key) = key_of(&e)
        {
            message = format!("{key} {message}");
        }
        ConfigError::Syntax {
            origin: origin.to_string(),
            line,
            column,
            message,
        }
    })
}

/// Where the user file is looked for, given the flag and the environment.
pub fn locate(
    flag: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<(PathBuf, bool)> {
    if let Some(p) = flag {
        return Some((p.to_path_buf(), true));
    }
    if let Some(p) = env("TOOLSIFT_CONFIG").filter(|p| !p.is_empty()) {
        return Some((PathBuf::from(p), true));
    }
    if let Some(x) = env("XDG_CONFIG_HOME").filter(|p| !p.is_empty()) {
        return Some((Path::new(&x).join("toolsift/config.toml"), false));
    }
    env("HOME")
        .filter(|p| !p.is_empty())
        .map(|h| (Path::new(&h).join(".config/toolsift/config.toml"), false))
}

impl Config {
    /// Reads the defaults and the user file (see the module docs).
    pub fn load(flag: Option<&Path>) -> Result<Config, ConfigError> {
        Self::load_with(flag, &|k| std::env::var(k).ok())
    }

    pub fn load_with(
        flag: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let defaults = parse(DEFAULT_CONFIG, "built-in config")?;
        let mut config = Config {
            explorer: defaults.explorer,
            serve: ServeSection::default(),
            gateway: GatewaySection::default(),
            embeddings: Default::default(),
            default_keys: defaults
                .keys
                .iter()
                .map(|(a, k)| (a.clone(), k.to_vec()))
                .collect(),
            user_keys: BTreeMap::new(),
            user_chose_ranker: false,
            source: None,
            save_path: None,
            access: AccessPlan::default(),
        };
        let Some((path, required)) = locate(flag, env) else {
            return Ok(config);
        };
        config.save_path = Some(path.clone());
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if !required && e.kind() == std::io::ErrorKind::NotFound => return Ok(config),
            Err(source) => return Err(ConfigError::Io { path, source }),
        };
        let origin = path.display().to_string();
        let user = parse(&text, &origin)?;
        config.access = access::plan(&user.gateway.keys, &user.gateway.groups, &text, &origin)?;
        config.merge(user);
        config.source = Some(path);
        Ok(config)
    }

    /// Merges a user file over this config.
    pub fn merge(&mut self, user: ConfigFile) {
        self.user_chose_ranker |= user.explorer.settings.ranker.is_some();
        self.explorer = user.explorer.over(std::mem::take(&mut self.explorer));
        self.serve = user.serve;
        self.gateway = user.gateway;
        self.embeddings = user.embeddings;
        for (action, keys) in user.keys {
            self.user_keys.insert(action, keys.to_vec());
        }
    }

    /// The origin to name in messages about the user part.
    pub fn origin(&self) -> String {
        self.source.as_ref().map_or_else(
            || "built-in config".to_string(),
            |p| p.display().to_string(),
        )
    }
}

#[cfg(test)]
mod tests;
