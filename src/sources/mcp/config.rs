//! Which MCP servers to gather tools from: the common `mcpServers` JSON
//! (Claude Desktop, Claude Code's `.mcp.json`, Cursor), `[mcp]` sections of
//! toolsift's TOML config, or one server from the command line.
//!
//! ```toml
//! [mcp]
//! timeout_secs = 20                         # per server, to start and list
//! always_load = ["time/*", "git_status"]    # server/*, server/tool or tool
//!
//! [mcp.servers.time]
//! command = "uvx"
//! args = ["mcp-server-time"]
//! env = { TZ = "UTC" }
//! cwd = "/tmp"
//!
//! [mcp.servers.remote]
//! url = "https://mcp.example/mcp"
//! headers = { Authorization = "Bearer ${REMOTE_TOKEN}" }
//! always_load = true                        # every tool of this server
//! ```
//!
//! `${NAME}` in `args`, `env`, `cwd`, `url` and `headers` is replaced by the
//! environment variable NAME (`${NAME:-default}`, and VS Code's forms, see
//! `vars.rs`), so keys stay out of files. One server that cannot be read (an
//! unset variable, an unknown transport, a typo in its entry) is skipped
//! with a warning naming it and where it is; the others are read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::child_env::InheritEnv;
use super::config_error::McpConfigError;
use super::oauth_entry::OAuthSettings;
use super::server_entry::{EDITORS_KEYS, ServerEntry};
pub use super::server_entry::{McpServer, Transport};
pub use super::vars::home_path;
use super::vars::{Vars, workspace_of};

/// The time a server gets to start and list its tools, unless configured.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// Servers and what to do with their tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpConfig {
    pub servers: Vec<McpServer>,
    /// `server/*`, `server/tool` or `tool` (a tool's name as the server
    /// gives it, or as the catalog shows it).
    pub always_load: Vec<String>,
    pub timeout: Duration,
    /// What the user should hear of the files: each server skipped and
    /// why, keys ignored, which project was read.
    pub warnings: Vec<String>,
    /// What was read where (the project of `~/.claude.json`).
    pub notes: Vec<String>,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            servers: Vec::new(),
            always_load: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            warnings: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// `[mcp]` of a toolsift TOML file (other sections are not read here).
#[derive(Debug, Deserialize)]
struct TomlFile {
    mcp: Option<TomlMcp>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlMcp {
    #[serde(default)]
    servers: BTreeMap<String, toml::Spanned<toml::Value>>,
    #[serde(default)]
    always_load: Vec<String>,
    timeout_secs: Option<f64>,
}

/// Reads a config file: JSON (`mcpServers`, VS Code's `servers`,
/// `~/.claude.json`) or TOML (`[mcp]`).
pub fn load(
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<McpConfig, McpConfigError> {
    load_project(path, env, None)
}

/// [`load`], with the project of `~/.claude.json` to read (`--project`).
pub fn load_project(
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    project: Option<&Path>,
) -> Result<McpConfig, McpConfigError> {
    let shown = path.display().to_string();
    // `~/` as a shell would: a host that starts toolsift passes its
    // arguments without one.
    let path = &home_path(path, env("HOME").as_deref());
    let project = project.map(|p| home_path(p, env("HOME").as_deref()));
    let project = project.as_deref();
    let text = std::fs::read_to_string(path).map_err(|e| McpConfigError::Io {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let dir = path
        .canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let home = env("HOME").map(PathBuf::from);
    let cwd = std::env::current_dir().ok();
    let mut vars = Vars::env(env);
    vars.workspace = dir
        .and_then(|d| workspace_of(&d, home.as_deref(), cwd.as_deref()))
        .map(|w| w.display().to_string());
    parse_with(&text, &shown, vars, project)
}

/// Parses a config file's text; JSON when it starts with `{`, else TOML.
pub fn parse(
    text: &str,
    origin: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<McpConfig, McpConfigError> {
    parse_with(text, origin, Vars::env(env), None)
}

pub(super) fn parse_with(
    text: &str,
    origin: &str,
    mut vars: Vars<'_>,
    project: Option<&Path>,
) -> Result<McpConfig, McpConfigError> {
    let mut config = McpConfig::default();
    // JSON with comments and trailing commas (VS Code's own examples have
    // both) reads as JSON; lines and columns stay the file's.
    let blanked = super::jsonc::blank(text);
    if blanked.trim_start().starts_with('{') {
        let text: &str = &blanked;
        let file = super::editors::json_servers(text, origin, project)?;
        vars.inputs = file.inputs;
        config.notes.extend(file.notes);
        for entry in file.entries {
            let read = ServerEntry::deserialize(entry.value).map_err(|e| {
                let (line, column) = super::editors::position(text, entry.offset, &e);
                (
                    format!("{origin}:{line}:{column}"),
                    super::editors::without_position(&e),
                )
            });
            config.read_entry(&entry.name, read, &entry.at, &vars);
        }
        return Ok(config);
    }
    if project.is_some() {
        return Err(McpConfigError::Invalid {
            origin: origin.to_string(),
            message: "--project is for ~/.claude.json, not a TOML file".into(),
        });
    }
    let file: TomlFile = toml::from_str(text).map_err(|e| {
        let (line, column, message) = crate::catalog::toml_error_at(text, &e);
        McpConfigError::Syntax {
            path: origin.to_string(),
            line,
            column,
            message,
        }
    })?;
    let Some(mcp) = file.mcp else {
        return Err(McpConfigError::Invalid {
            origin: origin.to_string(),
            message: "no MCP servers: expected a JSON object with \"mcpServers\" or a TOML file with [mcp.servers.NAME] sections".into(),
        });
    };
    config.always_load = mcp.always_load;
    if let Some(secs) = mcp.timeout_secs {
        if !(secs > 0.0 && secs <= 3600.0) {
            return Err(McpConfigError::Invalid {
                origin: origin.to_string(),
                message: format!("[mcp] timeout_secs must be between 0 and 3600, not {secs}"),
            });
        }
        config.timeout = Duration::from_secs_f64(secs);
    }
    for (name, spanned) in mcp.servers {
        let (line, column) = crate::catalog::line_col(text, spanned.span().start);
        let at = format!("{origin}:{line}:{column}");
        let read = spanned
            .into_inner()
            .try_into::<ServerEntry>()
            .map_err(|e| (at.clone(), e.message().trim().to_string()));
        config.read_entry(&name, read, &at, &vars);
    }
    Ok(config)
}

impl McpConfig {
    /// Adds the server of entry `name` (written at `at`), or a warning
    /// saying why it is skipped.
    fn read_entry(
        &mut self,
        name: &str,
        read: Result<ServerEntry, (String, String)>,
        at: &str,
        vars: &Vars<'_>,
    ) {
        let skipped = |at: &str, message: &str| {
            format!(
                "{at}: server {}: {message}; this server is skipped, the others are read",
                serde_json::Value::from(name)
            )
        };
        let entry = match read {
            Ok(entry) => entry,
            Err((where_, message)) => {
                self.warnings.push(skipped(&where_, &message));
                return;
            }
        };
        let unknown: Vec<&str> = entry
            .other
            .keys()
            .map(String::as_str)
            .filter(|k| !EDITORS_KEYS.contains(k))
            .collect();
        if !unknown.is_empty() {
            self.warnings.push(format!(
                "{at}: server {}: unknown key{} {} ignored",
                serde_json::Value::from(name),
                if unknown.len() == 1 { "" } else { "s" },
                unknown
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        match entry.check(name, vars) {
            Ok(Some(server)) => self.servers.push(server),
            Ok(None) => {}
            Err(why) => self.warnings.push(skipped(at, &why.to_string())),
        }
    }
}

/// Replaces each `${NAME}` (or `${NAME:-default}`) with the environment
/// variable NAME.
pub fn expand_env(
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, super::vars::VarError> {
    Vars::env(env).expand(text)
}

/// One stdio server from a command line (`--mcp-stdio "CMD ARGS"`), split as
/// a POSIX shell would (quotes and backslashes), without running a shell.
pub fn stdio_server(command_line: &str) -> Result<McpServer, McpConfigError> {
    let words = split_command_line(command_line).map_err(|why| McpConfigError::Invalid {
        origin: "--mcp-stdio".into(),
        message: why.to_string(),
    })?;
    let Some((command, args)) = words.split_first() else {
        return Err(McpConfigError::Invalid {
            origin: "--mcp-stdio".into(),
            message: "the command is empty".into(),
        });
    };
    let name = Path::new(command)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty() && !n.contains('/'))
        .unwrap_or_else(|| "stdio".into());
    // `uvx mcp-server-time`, `npx -y @scope/server-x`: name it after the package.
    let name = match name.as_str() {
        "uvx" | "npx" | "pipx" | "bunx" | "python" | "python3" | "node" | "uv" => args
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(|a| a.rsplit('/').next().unwrap_or(a).to_string())
            .filter(|a| !a.is_empty())
            .unwrap_or(name),
        _ => name,
    };
    Ok(McpServer {
        name,
        transport: Transport::Stdio {
            command: command.clone(),
            args: args.to_vec(),
            env: BTreeMap::new(),
            cwd: None,
            inherit_env: InheritEnv::Safe,
            sandbox: Default::default(),
        },
        always_load: false,
        isolation: Default::default(),
        login: None,
        login_as: None,
    })
}

/// One streamable-HTTP server (`--mcp-url URL`), named after its host.
pub fn http_server(url: &str) -> Result<McpServer, McpConfigError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| McpConfigError::Invalid {
        origin: "--mcp-url".into(),
        message: format!("{url:?}: {e}"),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(McpConfigError::Invalid {
            origin: "--mcp-url".into(),
            message: format!("{url:?}: must be http:// or https://"),
        });
    }
    let name = parsed
        .host_str()
        .map(|h| {
            parsed
                .port()
                .map_or_else(|| h.to_string(), |p| format!("{h}:{p}"))
        })
        .unwrap_or_else(|| "http".into());
    Ok(McpServer {
        name,
        transport: Transport::Http {
            url: url.to_string(),
            headers: BTreeMap::new(),
            oauth: OAuthSettings::default(),
        },
        always_load: false,
        isolation: Default::default(),
        login: None,
        login_as: None,
    })
}

/// A command line a quote is left open in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unclosed {0} quote")]
struct UnclosedQuote(char);

/// The words of a command line, split as a POSIX shell would.
fn split_command_line(line: &str) -> Result<Vec<String>, UnclosedQuote> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(UnclosedQuote('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => word.push(c),
                            None => return Err(UnclosedQuote('"')),
                        },
                        Some(c) => word.push(c),
                        None => return Err(UnclosedQuote('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}
