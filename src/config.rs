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

/// The embedded defaults.
pub const DEFAULT_CONFIG: &str = include_str!("../assets/config.toml");

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

/// `[explorer]`: the explorer's starting settings.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplorerConfig {
    pub strategy: Option<crate::select::Strategy>,
    pub initial_tool_count: Option<i64>,
    pub max_loaded_tools: Option<i64>,
    pub max_tools: Option<i64>,
    pub ranker: Option<crate::engine::Ranker>,
    pub token_basis: Option<crate::tokens::TokenBasis>,
    /// A compatible tool-search service to search through (checked as the
    /// file is read: a bad URL is an error at its line).
    #[serde(default, deserialize_with = "service_url")]
    pub service: Option<String>,
    /// Requests with known answers for the Tune screen (JSONL in the eval
    /// format, or `@demo`).
    pub queries: Option<String>,
    /// Tokens the model's context can spend on tool definitions: when a
    /// search fails, the explorer offers to send the full catalog instead
    /// only if it fits. None: never offered.
    pub context_budget: Option<u64>,
}

/// `service = "URL"`: an absolute http(s) URL, as the client takes it.
fn service_url<'de, D>(d: D) -> Result<Option<String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let url = String::deserialize(d)?;
    crate::wire::normalize_base_url(&url).map_err(serde::de::Error::custom)?;
    Ok(Some(url))
}

/// `[serve]`: `toolsift serve`'s settings (flags win over these).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServeSection {
    /// HOST:PORT to listen on.
    pub addr: Option<std::net::SocketAddr>,
    /// Names of environment variables that hold accepted API keys.
    pub api_key_env: Option<Vec<String>>,
    pub max_body_bytes: Option<usize>,
    pub max_catalog_tools: Option<usize>,
    pub default_max_tools: Option<u64>,
    pub token_basis: Option<crate::tokens::TokenBasis>,
    pub request_timeout_ms: Option<u64>,
    pub max_in_flight: Option<usize>,
    pub max_queued: Option<usize>,
    pub max_sessions: Option<usize>,
    pub session_idle_secs: Option<u64>,
    pub cache_bytes: Option<usize>,
    /// The budget of single definitions' token counts.
    pub token_cache_bytes: Option<usize>,
    pub log_queries: Option<bool>,
    pub insecure_no_auth: Option<bool>,
    /// `memory` or a Redis/Valkey URL.
    pub sessions: Option<String>,
    pub upstream_timeout_ms: Option<u64>,
    pub head_timeout_ms: Option<u64>,
    pub idle_timeout_ms: Option<u64>,
    pub max_connections: Option<usize>,
    pub shutdown_grace_ms: Option<u64>,
    pub max_passthrough: Option<usize>,
    pub max_passthrough_queued: Option<usize>,
    /// The environment variable holding the key `GET /metrics` needs.
    pub metrics_key_env: Option<String>,
    /// `[serve.upstreams.openai]`, `[serve.upstreams.anthropic]`.
    #[serde(default)]
    pub upstreams: BTreeMap<String, UpstreamSection>,
    /// The ranker of requests that name none.
    pub default_ranker: Option<crate::engine::Ranker>,
}

/// One provider's upstream in the config file.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamSection {
    /// The provider API's base URL, or "none" for no pass-through.
    pub url: Option<String>,
    /// An environment variable holding the upstream key.
    pub key_env: Option<String>,
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
    /// `[embeddings]` of the user file.
    pub embeddings: crate::embed::EmbeddingSettings,
    /// Default key bindings, per action name.
    pub default_keys: BTreeMap<String, Vec<String>>,
    /// The user's bindings, per action name (replacing that action's defaults).
    pub user_keys: BTreeMap<String, Vec<String>>,
    /// The user file that was read, if any.
    pub source: Option<PathBuf>,
    /// Where the explorer saves settings: the file read, else the usual
    /// place (created then).
    pub save_path: Option<PathBuf>,
}

/// Where a TOML error is in `text` (line, column, 1-based) and its message.
pub fn toml_error_at(text: &str, e: &toml::de::Error) -> (usize, usize, String) {
    let (line, column) = e
        .span()
        .map_or((1, 1), |s| crate::catalog::line_col(text, s.start));
    (line, column, e.message().trim().to_string())
}

/// Parses one config file's text.
pub fn parse(text: &str, origin: &str) -> Result<ConfigFile, ConfigError> {
    toml::from_str(text).map_err(|e| {
        let (line, column, message) = toml_error_at(text, &e);
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
            embeddings: Default::default(),
            default_keys: defaults
                .keys
                .iter()
                .map(|(a, k)| (a.clone(), k.to_vec()))
                .collect(),
            user_keys: BTreeMap::new(),
            source: None,
            save_path: None,
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
        let user = parse(&text, &path.display().to_string())?;
        config.merge(user);
        config.source = Some(path);
        Ok(config)
    }

    /// Merges a user file over this config.
    pub fn merge(&mut self, user: ConfigFile) {
        let e = user.explorer;
        let x = &mut self.explorer;
        x.strategy = e.strategy.or(x.strategy);
        x.initial_tool_count = e.initial_tool_count.or(x.initial_tool_count);
        x.max_loaded_tools = e.max_loaded_tools.or(x.max_loaded_tools);
        x.max_tools = e.max_tools.or(x.max_tools);
        x.ranker = e.ranker.or(x.ranker);
        x.token_basis = e.token_basis.or(x.token_basis);
        x.service = e.service.or(x.service.take());
        x.queries = e.queries.or(x.queries.take());
        x.context_budget = e.context_budget.or(x.context_budget);
        self.serve = user.serve;
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

/// The explorer's settings as [`save_explorer_settings`] writes them.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedSettings {
    pub strategy: crate::select::Strategy,
    pub initial_tool_count: i64,
    pub max_loaded_tools: Option<i64>,
    pub max_tools: Option<i64>,
    pub ranker: crate::engine::Ranker,
    pub token_basis: crate::tokens::TokenBasis,
}

/// The name a value has in the file (its serde name).
fn toml_name<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Writes `settings` into the `[explorer]` table of the config file at
/// `path`, keeping everything else of the file as it was (comments, other
/// tables, key order); a setting with no value is removed. The file is
/// created (with its folder) if missing, replaced atomically, and read back
/// as the explorer would read it before this returns.
pub fn save_explorer_settings(path: &Path, settings: &SavedSettings) -> Result<(), ConfigError> {
    let origin = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(ConfigError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    // A file the explorer could not read is not overwritten.
    parse(&text, &origin)?;
    let mut doc: toml_edit::DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| ConfigError::Invalid {
                origin: origin.clone(),
                message: e.to_string(),
            })?;
    let explorer = doc
        .entry("explorer")
        .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
    let Some(table) = explorer.as_table_like_mut() else {
        return Err(ConfigError::Invalid {
            origin,
            message: "`explorer` is not a table".into(),
        });
    };
    let mut set = |key: &str, value: Option<toml_edit::Value>| match value {
        Some(v) => {
            table.insert(key, toml_edit::Item::Value(v));
        }
        None => {
            table.remove(key);
        }
    };
    set("strategy", Some(toml_name(&settings.strategy).into()));
    set(
        "initial_tool_count",
        Some(settings.initial_tool_count.into()),
    );
    set(
        "max_loaded_tools",
        settings.max_loaded_tools.map(Into::into),
    );
    set("max_tools", settings.max_tools.map(Into::into));
    set("ranker", Some(toml_name(&settings.ranker).into()));
    set("token_basis", Some(toml_name(&settings.token_basis).into()));
    let out = doc.to_string();
    parse(&out, &origin)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Ranker;
    use crate::select::{DEFAULT_INITIAL_TOOL_COUNT, Strategy};
    use crate::tokens::TokenBasis;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn saving_settings_keeps_the_rest_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/config.toml");
        let saved = SavedSettings {
            strategy: Strategy::Deferred,
            initial_tool_count: 3,
            max_loaded_tools: Some(12),
            max_tools: None,
            ranker: Ranker::Bm25,
            token_basis: TokenBasis::O200kBase,
        };
        // A missing file (and folder) is created.
        save_explorer_settings(&path, &saved).unwrap();
        let c = Config::load_with(Some(&path), &no_env).unwrap();
        assert_eq!(c.explorer.initial_tool_count, Some(3));
        assert_eq!(c.explorer.max_loaded_tools, Some(12));
        // Comments, other keys and tables survive; a setting with no value
        // goes.
        std::fs::write(
            &path,
            "# mine\n[explorer]\nservice = \"http://127.0.0.1:9\" # remote\nmax_tools = 5\n\n[keys]\nquit = \"Q\"\n",
        )
        .unwrap();
        save_explorer_settings(&path, &saved).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# mine\n"), "{text}");
        assert!(
            text.contains("service = \"http://127.0.0.1:9\" # remote"),
            "{text}"
        );
        assert!(!text.contains("max_tools"), "{text}");
        assert!(text.contains("quit = \"Q\""), "{text}");
        let c = Config::load_with(Some(&path), &no_env).unwrap();
        assert_eq!(c.explorer.strategy, Some(Strategy::Deferred));
        assert_eq!(c.explorer.max_loaded_tools, Some(12));
        assert_eq!(c.user_keys["quit"], ["Q"]);
        // A file the explorer cannot read is left alone, with where.
        std::fs::write(&path, "[explorer\n").unwrap();
        let e = save_explorer_settings(&path, &saved)
            .unwrap_err()
            .to_string();
        assert!(e.contains("config.toml:1"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[explorer\n");
    }

    #[test]
    fn the_example_file_parses() {
        let text = include_str!("../assets/config.example.toml");
        let uncommented: String = text
            .lines()
            .map(|l| {
                l.strip_prefix("# ")
                    .filter(|r| r.contains(" = "))
                    .unwrap_or(l)
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let file = parse(&uncommented, "example").unwrap();
        assert_eq!(file.explorer.context_budget, Some(32000));
        assert_eq!(file.explorer.queries.as_deref(), Some("requests.jsonl"));
    }

    #[test]
    fn defaults_parse() {
        let c = Config::load_with(None, &no_env).unwrap();
        assert_eq!(c.explorer.strategy, Some(Strategy::Deferred));
        assert_eq!(c.explorer.initial_tool_count, Some(8));
        assert_eq!(c.default_keys["quit"], ["q"]);
        assert_eq!(c.default_keys["quit_now"], ["ctrl-c"]);
        assert!(c.source.is_none());
    }

    #[test]
    fn lookup_order() {
        let env = |k: &str| match k {
            "TOOLSIFT_CONFIG" => Some("/a.toml".to_string()),
            "XDG_CONFIG_HOME" => Some("/xdg".to_string()),
            "HOME" => Some("/home/u".to_string()),
            _ => None,
        };
        assert_eq!(
            locate(Some(Path::new("/flag.toml")), &env),
            Some((PathBuf::from("/flag.toml"), true))
        );
        assert_eq!(locate(None, &env), Some((PathBuf::from("/a.toml"), true)));
        let env2 = |k: &str| env(k).filter(|_| k != "TOOLSIFT_CONFIG");
        assert_eq!(
            locate(None, &env2),
            Some((PathBuf::from("/xdg/toolsift/config.toml"), false))
        );
        let env3 = |k: &str| env(k).filter(|_| k == "HOME");
        assert_eq!(
            locate(None, &env3),
            Some((PathBuf::from("/home/u/.config/toolsift/config.toml"), false))
        );
    }

    #[test]
    fn user_file_merges_and_missing_default_location_is_fine() {
        let dir = std::env::temp_dir().join(format!("toolsift-config-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("toolsift")).unwrap();
        let file = dir.join("toolsift/config.toml");
        std::fs::write(
            &file,
            "[explorer]\ninitial_tool_count = 3\n[keys]\nquit = \"x\"\n",
        )
        .unwrap();
        let d = dir.display().to_string();
        let env = move |k: &str| (k == "XDG_CONFIG_HOME").then(|| d.clone());
        let c = Config::load_with(None, &env).unwrap();
        assert_eq!(c.explorer.initial_tool_count, Some(3));
        assert_eq!(c.explorer.strategy, Some(Strategy::Deferred));
        assert_eq!(c.user_keys["quit"], ["x"]);
        assert_eq!(c.source.as_deref(), Some(file.as_path()));
        std::fs::remove_file(&file).unwrap();
        assert!(Config::load_with(None, &env).unwrap().source.is_none());
        // A file named explicitly must exist.
        let err = Config::load_with(Some(&file), &no_env).unwrap_err();
        assert!(err.to_string().contains("cannot read"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let err = parse("[explorer]\nstrategy = \n", "c.toml").unwrap_err();
        assert!(err.to_string().starts_with("c.toml:2:"), "{err}");
        let err = parse("[explorer]\nstratgy = \"all\"\n", "c.toml").unwrap_err();
        assert!(err.to_string().contains("stratgy"), "{err}");
        let err = parse("[colors]\n", "c.toml").unwrap_err();
        assert!(err.to_string().contains("colors"), "{err}");
    }

    #[test]
    fn the_built_in_file_states_the_code_defaults() {
        let x = parse(DEFAULT_CONFIG, "built-in config").unwrap().explorer;
        let explorer = crate::tui::app::Settings::default();
        assert_eq!(x.strategy, Some(explorer.strategy));
        assert_eq!(x.initial_tool_count, Some(DEFAULT_INITIAL_TOOL_COUNT));
        assert_eq!(x.initial_tool_count, Some(explorer.initial_tool_count));
        assert_eq!(x.max_loaded_tools, None);
        assert_eq!(x.max_tools, None);
        assert_eq!(x.ranker, Some(Ranker::default()));
        assert_eq!(x.token_basis, Some(TokenBasis::default()));
        assert_eq!(x.token_basis, Some(explorer.token_basis));
    }

    #[test]
    fn typed_values_parse() {
        let f = parse(
            "[explorer]\nstrategy = \"all\"\ntoken_basis = \"cl100k_base\"\nranker = \"embeddings\"\n",
            "c.toml",
        )
        .unwrap();
        assert_eq!(f.explorer.strategy, Some(Strategy::All));
        assert_eq!(f.explorer.token_basis, Some(TokenBasis::Cl100kBase));
        assert_eq!(f.explorer.ranker, Some(Ranker::Embeddings));
    }

    #[test]
    fn a_bad_value_names_file_line_and_column_with_the_sdk_message() {
        let cases = [
            (
                "[explorer]\nstrategy = \"lazy\"\n",
                "c.toml:2:12: strategy must be all or deferred",
            ),
            (
                "[explorer]\ninitial_tool_count = 2\ntoken_basis = \"gpt2\"\n",
                "c.toml:3:15: unknown token basis \"gpt2\"",
            ),
            ("[explorer]\nranker = \"dense\"\n", "c.toml:2:10: "),
            ("[explorer]\nstrategy = 3\n", "c.toml:2:12: "),
        ];
        for (text, needle) in cases {
            let err = parse(text, "c.toml").unwrap_err();
            assert!(matches!(err, ConfigError::Syntax { .. }), "{err:?}");
            assert!(err.to_string().starts_with(needle), "{err}");
        }
    }

    #[test]
    fn the_explorer_service_is_a_url_checked_at_its_line() {
        let f = parse(
            "[explorer]\nservice = \"http://127.0.0.1:8787\"\n",
            "c.toml",
        )
        .unwrap();
        assert_eq!(f.explorer.service.as_deref(), Some("http://127.0.0.1:8787"));
        let err = parse("[explorer]\nservice = \"ftp://tools.example\"\n", "c.toml").unwrap_err();
        assert!(matches!(err, ConfigError::Syntax { .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.starts_with("c.toml:2:11: "), "{text}");
        assert!(text.contains("ftp://tools.example"), "{text}");
        assert!(text.contains("absolute http(s) URL"), "{text}");
        // A user file's service replaces none; a later one wins.
        let mut c = Config::load_with(None, &|_| None).unwrap();
        assert_eq!(c.explorer.service, None);
        c.merge(f);
        assert_eq!(c.explorer.service.as_deref(), Some("http://127.0.0.1:8787"));
        c.merge(parse("[explorer]\n", "d.toml").unwrap());
        assert_eq!(c.explorer.service.as_deref(), Some("http://127.0.0.1:8787"));
    }
}
