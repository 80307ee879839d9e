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
//! environment variable NAME, so keys stay out of files; an unset one is an
//! error naming the server and the variable.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// The time a server gets to start and list its tools, unless configured.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// How to reach one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// One server to gather.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    pub name: String,
    pub transport: Transport,
    /// Every tool of this server is always-load.
    pub always_load: bool,
}

/// Servers and what to do with their tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpConfig {
    pub servers: Vec<McpServer>,
    /// `server/*`, `server/tool` or `tool` (a tool's name as the server
    /// gives it, or as the catalog shows it).
    pub always_load: Vec<String>,
    pub timeout: Duration,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            servers: Vec::new(),
            always_load: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// A config that cannot be used, with where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpConfigError {
    #[error("{path}: cannot read: {message}")]
    Io { path: String, message: String },
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{origin}: server {server:?}: {message}")]
    Server {
        origin: String,
        server: String,
        message: String,
    },
    #[error("{origin}: {message}")]
    Invalid { origin: String, message: String },
}

/// One server as written, in either file format.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ServerEntry {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default, alias = "always_load")]
    always_load: bool,
    /// Editors' own keys that say nothing about reaching the server.
    #[serde(default)]
    disabled: bool,
    #[serde(default, alias = "autoApprove")]
    #[allow(dead_code)]
    auto_approve: Option<Value>,
    #[allow(dead_code)]
    #[serde(default)]
    description: Option<String>,
}

/// `{"mcpServers": {...}}`, as editors write it.
#[derive(Debug, Deserialize)]
struct JsonFile {
    #[serde(rename = "mcpServers")]
    mcp_servers: BTreeMap<String, ServerEntry>,
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
    servers: BTreeMap<String, ServerEntry>,
    #[serde(default)]
    always_load: Vec<String>,
    timeout_secs: Option<f64>,
}

/// Reads a config file: JSON (`mcpServers`) or TOML (`[mcp]`).
pub fn load(
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<McpConfig, McpConfigError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| McpConfigError::Io {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    parse(&text, &shown, env)
}

/// Parses a config file's text; JSON when it starts with `{`, else TOML.
pub fn parse(
    text: &str,
    origin: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<McpConfig, McpConfigError> {
    if text.trim_start().starts_with('{') {
        let file: JsonFile = serde_json::from_str(text).map_err(|e| McpConfigError::Syntax {
            path: origin.to_string(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        let mut config = McpConfig::default();
        for (name, entry) in file.mcp_servers {
            if let Some(server) = server(origin, name, entry, env)? {
                config.servers.push(server);
            }
        }
        return Ok(config);
    }
    let file: TomlFile = toml::from_str(text).map_err(|e| {
        let (line, column, message) = crate::config::toml_error_at(text, &e);
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
    let mut config = McpConfig {
        always_load: mcp.always_load,
        ..McpConfig::default()
    };
    if let Some(secs) = mcp.timeout_secs {
        if !(secs > 0.0 && secs <= 3600.0) {
            return Err(McpConfigError::Invalid {
                origin: origin.to_string(),
                message: format!("[mcp] timeout_secs must be between 0 and 3600, not {secs}"),
            });
        }
        config.timeout = Duration::from_secs_f64(secs);
    }
    for (name, entry) in mcp.servers {
        if let Some(server) = server(origin, name, entry, env)? {
            config.servers.push(server);
        }
    }
    Ok(config)
}

/// One entry checked and expanded; `None` for a disabled one.
fn server(
    origin: &str,
    name: String,
    entry: ServerEntry,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<McpServer>, McpConfigError> {
    let err = |message: String| McpConfigError::Server {
        origin: origin.to_string(),
        server: name.clone(),
        message,
    };
    if entry.disabled {
        return Ok(None);
    }
    if name.trim().is_empty() || name.contains('/') {
        return Err(err("a server name must be non-empty and have no '/'".into()));
    }
    let expand = |s: &str| expand_env(s, env).map_err(&err);
    let transport = match (entry.kind.as_deref(), entry.command, entry.url) {
        (Some("sse"), _, _) => {
            return Err(err(
                "the legacy SSE transport is not supported; use stdio or streamable HTTP".into(),
            ));
        }
        (_, Some(_), Some(_)) => {
            return Err(err("give either `command` or `url`, not both".into()));
        }
        (None | Some("stdio"), Some(command), None) => Transport::Stdio {
            command: expand(&command)?,
            args: entry
                .args
                .iter()
                .map(|a| expand(a))
                .collect::<Result<_, _>>()?,
            env: entry
                .env
                .iter()
                .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                .collect::<Result<_, McpConfigError>>()?,
            cwd: match entry.cwd {
                None => None,
                Some(p) => Some(PathBuf::from(expand(&p.to_string_lossy())?)),
            },
        },
        (None | Some("http" | "streamable-http" | "streamableHttp"), None, Some(url)) => {
            let url = expand(&url)?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(err(format!("url must be http:// or https://, not {url:?}")));
            }
            Transport::Http {
                url,
                headers: entry
                    .headers
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                    .collect::<Result<_, McpConfigError>>()?,
            }
        }
        (Some(kind), _, _)
            if !matches!(
                kind,
                "stdio" | "http" | "streamable-http" | "streamableHttp"
            ) =>
        {
            return Err(err(format!(
                "unknown transport type {kind:?} (expected stdio or http)"
            )));
        }
        _ => {
            return Err(err(
                "needs `command` (stdio) or `url` (streamable HTTP)".into()
            ));
        }
    };
    Ok(Some(McpServer {
        name,
        transport,
        always_load: entry.always_load,
    }))
}

/// Replaces each `${NAME}` with the environment variable NAME.
pub fn expand_env(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("unclosed ${{ in {text:?}"));
        };
        let name = &after[..end];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("${{{name}}} is not an environment variable name"));
        }
        match env(name) {
            Some(value) => out.push_str(&value),
            None => return Err(format!("environment variable {name} is not set")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// One stdio server from a command line (`--mcp-stdio "CMD ARGS"`), split as
/// a POSIX shell would (quotes and backslashes), without running a shell.
pub fn stdio_server(command_line: &str) -> Result<McpServer, McpConfigError> {
    let words = split_command_line(command_line).map_err(|message| McpConfigError::Invalid {
        origin: "--mcp-stdio".into(),
        message,
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
        },
        always_load: false,
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
        },
        always_load: false,
    })
}

fn split_command_line(line: &str) -> Result<Vec<String>, String> {
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
                        None => return Err("unclosed ' quote".into()),
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
                            None => return Err("unclosed \" quote".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("unclosed \" quote".into()),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("s3cret".into()),
            "HOME" => Some("/home/u".into()),
            _ => None,
        }
    }

    #[test]
    fn json_mcp_servers() {
        let text = r#"{"mcpServers": {
            "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone=${HOME}"], "env": {"A": "b"}},
            "remote": {"type": "http", "url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
            "off": {"command": "nope", "disabled": true}
        }}"#;
        let c = parse(text, "mcp.json", &env).unwrap();
        assert_eq!(c.servers.len(), 2);
        assert_eq!(c.servers[0].name, "remote");
        assert_eq!(
            c.servers[0].transport,
            Transport::Http {
                url: "https://x.example/mcp".into(),
                headers: [("Authorization".to_string(), "Bearer s3cret".to_string())].into()
            }
        );
        let Transport::Stdio { args, env: e, .. } = &c.servers[1].transport else {
            panic!()
        };
        assert_eq!(args[1], "--local-timezone=/home/u");
        assert_eq!(e["A"], "b");
        assert_eq!(c.timeout, DEFAULT_TIMEOUT);
    }

    #[test]
    fn toml_mcp_section() {
        let text = "[explorer]\nstrategy = \"all\"\n[mcp]\ntimeout_secs = 5\nalways_load = [\"time/*\"]\n[mcp.servers.time]\ncommand = \"uvx\"\nargs = [\"mcp-server-time\"]\nalways_load = true\n";
        let c = parse(text, "c.toml", &env).unwrap();
        assert_eq!(c.timeout, Duration::from_secs(5));
        assert_eq!(c.always_load, ["time/*"]);
        assert!(c.servers[0].always_load);
    }

    #[test]
    fn errors_name_file_server_and_what() {
        let e = parse(
            r#"{"mcpServers": {"a": {"url": "https://x/${NOPE}"}}}"#,
            "m.json",
            &env,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.json: server \"a\": environment variable NOPE is not set"
        );
        let e = parse(
            r#"{"mcpServers": {"a": {"type": "sse", "url": "https://x"}}}"#,
            "m.json",
            &env,
        )
        .unwrap_err();
        assert!(e.to_string().contains("SSE"), "{e}");
        let e = parse(r#"{"mcpServers": {"a": {"args": []}}}"#, "m.json", &env).unwrap_err();
        assert!(e.to_string().contains("needs `command`"), "{e}");
        let e = parse(
            "{\"mcpServers\": {\n\"a\": {\"comand\": \"x\"}}}",
            "m.json",
            &env,
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("m.json:2:"), "{e}");
        let e = parse("[mcp.servers.a]\ncommand = 3\n", "c.toml", &env).unwrap_err();
        assert!(e.to_string().starts_with("c.toml:2:"), "{e}");
        let e = parse("[explorer]\n", "c.toml", &env).unwrap_err();
        assert!(e.to_string().contains("no MCP servers"), "{e}");
    }

    #[test]
    fn command_lines() {
        let s = stdio_server("uvx mcp-server-time --local-timezone 'Europe/Paris'").unwrap();
        assert_eq!(s.name, "mcp-server-time");
        let s = stdio_server("npx -y @modelcontextprotocol/server-everything").unwrap();
        assert_eq!(s.name, "server-everything");
        let Transport::Stdio { command, args, .. } = &s.transport else {
            panic!()
        };
        assert_eq!((command.as_str(), args.len()), ("npx", 2));
        let s = stdio_server("/usr/bin/my-server \"a b\" c\\ d").unwrap();
        assert_eq!(s.name, "my-server");
        let Transport::Stdio { args, .. } = &s.transport else {
            panic!()
        };
        assert_eq!(args, &["a b", "c d"]);
        assert!(stdio_server("  ").is_err());
        assert!(stdio_server("x 'open").is_err());
        assert_eq!(
            http_server("http://127.0.0.1:9/mcp").unwrap().name,
            "127.0.0.1:9"
        );
        assert!(http_server("ftp://x").is_err());
    }
}
