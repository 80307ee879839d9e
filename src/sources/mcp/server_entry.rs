//! One server's entry in a servers file, as written in any of the formats,
//! checked and expanded into an [`McpServer`]; and why an entry cannot be.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::child_env::{InheritEnv, InheritEnvEntry, InheritEnvError};
use super::oauth_entry::{OAuthEntry, OAuthError, OAuthSettings};
use super::sandbox_entry::{Sandbox, SandboxError};
use super::vars::{VarError, Vars};

/// How to reach one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
        /// What of toolsift's own environment it gets besides `env`.
        inherit_env: InheritEnv,
        /// What it may touch, when it runs confined.
        sandbox: Sandbox,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
        /// How to log in when the server asks for it.
        oauth: OAuthSettings,
    },
}

/// One server to gather.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    pub name: String,
    pub transport: Transport,
    /// Every tool of this server is always-load.
    pub always_load: bool,
    /// Whether an HTTP gateway's keys share its connection.
    pub isolation: super::Isolation,
    /// Whose login its calls carry (`"login"`; none written: the
    /// gateway's default, [`super::LoginMode::resolve`]).
    pub login: Option<super::LoginMode>,
    /// The gateway key whose own login this connection uses (set on a
    /// key's own connection to a `per-user` server; none: the shared one).
    pub login_as: Option<String>,
}

/// One server as written, in any of the file formats.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    rename_all = "camelCase",
    expecting = "a server: an object with \"command\" (stdio) or \"url\" (HTTP)"
)]
pub(super) struct ServerEntry {
    #[serde(rename = "type")]
    pub(super) kind: Option<String>,
    pub(super) command: Option<String>,
    #[serde(default)]
    pub(super) args: Vec<String>,
    #[serde(default)]
    pub(super) env: BTreeMap<String, String>,
    /// VS Code's: a file of `NAME=value` lines added to `env`.
    #[serde(alias = "env_file")]
    pub(super) env_file: Option<String>,
    /// More of toolsift's environment than the safe set (`child_env.rs`).
    #[serde(alias = "inherit_env")]
    pub(super) inherit_env: Option<InheritEnvEntry>,
    pub(super) cwd: Option<PathBuf>,
    pub(super) url: Option<String>,
    #[serde(default)]
    pub(super) headers: BTreeMap<String, String>,
    /// How to log in (a server that asks for OAuth).
    pub(super) oauth: Option<OAuthEntry>,
    #[serde(default, alias = "always_load")]
    pub(super) always_load: bool,
    #[serde(default)]
    pub(super) isolation: super::Isolation,
    /// Each key its own login (`per-user`) or one for all (`shared`).
    pub(super) login: Option<super::LoginMode>,
    #[serde(default)]
    pub(super) disabled: bool,
    /// What a stdio server may touch (`sandbox_entry.rs`), read with its
    /// own messages.
    pub(super) sandbox: Option<Value>,
    /// Every other key: editors' own (ignored quietly) or a typo (named in
    /// a warning).
    #[serde(flatten)]
    pub(super) other: BTreeMap<String, Value>,
}

/// Keys editors write that say nothing about reaching the server.
pub(super) const EDITORS_KEYS: &[&str] = &[
    "autoApprove",
    "auto_approve",
    "alwaysAllow",
    "description",
    "dev",
    "gallery",
    "version",
    "timeout",
    "trust",
    "includeTools",
    "excludeTools",
    "name",
];

/// Why one server's entry cannot be used (the file and server are named by
/// the caller, which skips the server with a warning).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum EntryError {
    #[error("a server name must be non-empty and have no '/'")]
    Name,
    #[error(
        "\"type\": \"sse\" (the legacy HTTP+SSE transport) is not supported: if the server also speaks streamable HTTP, give that URL (often ending in /mcp) with \"type\": \"http\""
    )]
    Sse,
    #[error("give either `command` or `url`, not both")]
    CommandAndUrl,
    #[error("oauth is for servers reached by `url`, not started with `command`")]
    OAuthOnCommand,
    #[error("login is for servers reached by `url`, not started with `command`")]
    LoginOnCommand,
    #[error("inherit_env is for servers started with `command`, not a url")]
    InheritEnvOnUrl,
    #[error("url must be http:// or https://, not {0:?}")]
    NotHttp(String),
    #[error("unknown transport type {0:?} (expected stdio or http)")]
    UnknownType(String),
    #[error("needs `command` (stdio) or `url` (streamable HTTP)")]
    NoCommandOrUrl,
    #[error("envFile {path:?}: cannot read: {message}")]
    EnvFileRead { path: String, message: String },
    #[error("envFile {path:?} line {line}: not NAME=value")]
    EnvFileLine { path: String, line: usize },
    #[error(transparent)]
    Var(#[from] VarError),
    #[error(transparent)]
    InheritEnv(#[from] InheritEnvError),
    #[error(transparent)]
    OAuth(#[from] OAuthError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
}

impl ServerEntry {
    /// This entry checked and expanded as server `name`; `None` for a
    /// disabled one.
    pub(super) fn check(
        self,
        name: &str,
        vars: &Vars<'_>,
    ) -> Result<Option<McpServer>, EntryError> {
        if self.disabled {
            return Ok(None);
        }
        if name.trim().is_empty() || name.contains('/') {
            return Err(EntryError::Name);
        }
        let (always_load, isolation, login) = (self.always_load, self.isolation, self.login);
        let transport = match (self.kind.as_deref(), &self.command, &self.url) {
            (Some("sse"), _, _) => return Err(EntryError::Sse),
            (_, Some(_), Some(_)) => return Err(EntryError::CommandAndUrl),
            (None | Some("stdio"), Some(_), None) => self.stdio(vars)?,
            (None | Some("http" | "streamable-http" | "streamableHttp"), None, Some(_)) => {
                self.http(vars)?
            }
            (Some(kind), _, _)
                if !matches!(
                    kind,
                    "stdio" | "http" | "streamable-http" | "streamableHttp"
                ) =>
            {
                return Err(EntryError::UnknownType(kind.to_string()));
            }
            _ => return Err(EntryError::NoCommandOrUrl),
        };
        Ok(Some(McpServer {
            name: name.to_string(),
            transport,
            always_load,
            isolation,
            login,
            login_as: None,
        }))
    }

    /// A server started with `command`: its arguments, environment (the
    /// `envFile`'s, then `env`'s) and folder expanded.
    fn stdio(self, vars: &Vars<'_>) -> Result<Transport, EntryError> {
        if self.oauth.is_some() {
            return Err(EntryError::OAuthOnCommand);
        }
        if self.login.is_some() {
            return Err(EntryError::LoginOnCommand);
        }
        let expand = |s: &str| vars.expand(s);
        let mut env: BTreeMap<String, String> = BTreeMap::new();
        if let Some(file) = &self.env_file {
            // A relative envFile is the workspace's, as the hosts read it.
            let file = expand(file)?;
            let file = match &vars.workspace {
                Some(w) if Path::new(&file).is_relative() => {
                    Path::new(w).join(&file).display().to_string()
                }
                _ => file,
            };
            env.extend(env_file(&file)?);
        }
        for (k, v) in &self.env {
            env.insert(k.clone(), expand(v)?);
        }
        let cwd = match &self.cwd {
            None => None,
            Some(p) => Some(PathBuf::from(expand(&p.to_string_lossy())?)),
        };
        // The project folder: the server's own, else the file's workspace.
        let project = cwd
            .clone()
            .filter(|c| c.is_absolute())
            .or_else(|| vars.workspace.as_ref().map(PathBuf::from));
        let sandbox = match &self.sandbox {
            None => Sandbox::Off,
            Some(value) => super::sandbox_entry::read(value, project.as_deref(), vars)?,
        };
        Ok(Transport::Stdio {
            command: expand(self.command.as_deref().unwrap_or_default())?,
            args: self
                .args
                .iter()
                .map(|a| expand(a))
                .collect::<Result<_, _>>()?,
            env,
            cwd,
            inherit_env: match self.inherit_env {
                None => InheritEnv::Safe,
                Some(e) => e.read()?,
            },
            sandbox,
        })
    }

    /// A server reached by `url`: the url, its login settings and headers
    /// expanded.
    fn http(self, vars: &Vars<'_>) -> Result<Transport, EntryError> {
        let expand = |s: &str| vars.expand(s);
        let url = expand(self.url.as_deref().unwrap_or_default())?;
        if self.inherit_env.is_some() {
            return Err(EntryError::InheritEnvOnUrl);
        }
        if self.sandbox.is_some() {
            return Err(SandboxError::OnUrl.into());
        }
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(EntryError::NotHttp(url));
        }
        Ok(Transport::Http {
            url,
            oauth: match self.oauth {
                None => OAuthSettings::default(),
                Some(o) => o.read(&expand)?,
            },
            headers: self
                .headers
                .iter()
                .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                .collect::<Result<_, VarError>>()?,
        })
    }
}

/// VS Code's `envFile`: `NAME=value` lines (`#` comments, `export `, and
/// quotes around a value allowed).
fn env_file(path: &str) -> Result<BTreeMap<String, String>, EntryError> {
    let text = std::fs::read_to_string(path).map_err(|e| EntryError::EnvFileRead {
        path: path.to_string(),
        message: e.to_string(),
    })?;
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((k, v)) = line.split_once('=') else {
            return Err(EntryError::EnvFileLine {
                path: path.to_string(),
                line: n + 1,
            });
        };
        let v = v.trim();
        let v = v
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(v);
        out.insert(k.trim().to_string(), v.to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(json: serde_json::Value) -> ServerEntry {
        serde_json::from_value(json).unwrap()
    }

    fn why(json: serde_json::Value) -> String {
        let env = |_: &str| None;
        entry(json)
            .check("s", &Vars::env(&env))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn an_entry_that_cannot_be_used_says_which_key_and_value() {
        assert!(
            why(serde_json::json!({"type": "sse", "url": "http://x"}))
                .contains("\"type\": \"sse\"")
        );
        assert_eq!(
            why(serde_json::json!({"command": "a", "url": "http://x"})),
            "give either `command` or `url`, not both"
        );
        assert_eq!(
            why(serde_json::json!({"url": "ftp://x"})),
            "url must be http:// or https://, not \"ftp://x\""
        );
        assert_eq!(
            why(serde_json::json!({"type": "ws", "url": "http://x"})),
            "unknown transport type \"ws\" (expected stdio or http)"
        );
        assert!(why(serde_json::json!({"command": "${NOPE}"})).contains("NOPE is not set"));
        assert!(
            why(serde_json::json!({"url": "http://x", "oauth": {"callback_port": 0}}))
                .starts_with("oauth.callback_port must be 1 to 65535")
        );
        assert!(
            why(serde_json::json!({"command": "a", "inherit_env": ["A B"]})).contains("\"A B\"")
        );
    }

    #[test]
    fn a_disabled_entry_is_none_and_a_good_one_a_server() {
        let env = |_: &str| None;
        let vars = Vars::env(&env);
        let off = entry(serde_json::json!({"command": "a", "disabled": true}));
        assert_eq!(off.check("s", &vars), Ok(None));
        let on = entry(serde_json::json!({"command": "a", "args": ["b"]}));
        let server = on.check("s", &vars).unwrap().unwrap();
        assert!(matches!(server.transport, Transport::Stdio { ref args, .. } if args == &["b"]));
    }
}
