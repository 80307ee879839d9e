//! `--mcp CONFIG`, `--mcp-stdio "CMD ARGS"`, `--mcp-url URL`: catalogs
//! gathered from live MCP servers, alone or merged with catalog files. The
//! flags and the servers files are read here; the servers are started in
//! [`super::mcp_live`] (feature `mcp`), and [`super::load`] puts a
//! command's catalog together.

use std::path::PathBuf;
use std::sync::Arc;
#[cfg(feature = "mcp")]
use std::time::Duration;

use clap::Args;
use toolsift::catalog::Catalog;
use toolsift::sources::mcp::ServerStatus;
#[cfg(feature = "mcp")]
use toolsift::sources::mcp::{self, McpConfig, McpHost};
#[cfg(feature = "mcp")]
use toolsift::terminal_text::escape;

#[cfg(feature = "mcp")]
use super::mcp_error::McpError;

/// The MCP servers to gather tools from.
#[derive(Args, Default, Debug, Clone)]
pub struct McpArgs {
    /// MCP servers to gather tools from: an `mcpServers` JSON file (Claude Desktop, Claude Code `.mcp.json`, Cursor), VS Code's `.vscode/mcp.json`, `~/.claude.json`, or a TOML file with [mcp.servers.NAME] sections (repeatable). A server that cannot be read is skipped with a warning.
    #[arg(long, value_name = "CONFIG")]
    pub mcp: Vec<PathBuf>,
    /// The project of `~/.claude.json` whose servers join the user's (default: the current directory's).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// One stdio MCP server: its command line, e.g. "uvx mcp-server-time" (repeatable).
    #[arg(long, value_name = "CMD ARGS")]
    pub mcp_stdio: Vec<String>,
    /// One streamable-HTTP MCP server (repeatable).
    #[arg(long, value_name = "URL")]
    pub mcp_url: Vec<String>,
    #[arg(long, value_name = "SECS", help = format!("Seconds each server gets to start and list its tools (default {}, or the config's [mcp] timeout_secs)", toolsift::sources::mcp::config::DEFAULT_TIMEOUT.as_secs()))]
    pub mcp_timeout: Option<f64>,
    /// Tools of the MCP servers to load always: server/*, server/tool, tool, or * for every tool (repeatable; added to the config's [mcp] always_load).
    #[arg(long, value_name = "PATTERN")]
    pub always_load: Vec<String>,
    /// The longest a tool call may take (set by the command, not a flag here).
    #[cfg(feature = "mcp")]
    #[arg(skip)]
    pub call_timeout: Option<Duration>,
    /// Leave out the servers that run `toolsift gateway` (the gateway's own
    /// reading: it must not start itself).
    #[cfg(feature = "mcp")]
    #[arg(skip)]
    pub refuse_gateways: bool,
    /// Say at start what each stdio server may touch (the gateway's).
    #[cfg(feature = "mcp")]
    #[arg(skip)]
    pub say_sandbox: bool,

    /// The gateway's named keys, for the servers each key logs in to as
    /// itself (set by the gateway, not a flag here).
    #[cfg(feature = "mcp")]
    #[arg(skip)]
    pub key_logins: Option<mcp::KeyLogins>,
    /// The config file the gateway was given (`--config`), named in the
    /// login command a key is told to run.
    #[cfg(feature = "mcp")]
    #[arg(skip)]
    pub gateway_config: Option<PathBuf>,
}

impl McpArgs {
    /// The time limit of one tool call (60 s unless the command set it).
    #[cfg(feature = "mcp")]
    pub fn call_timeout(&self) -> Duration {
        self.call_timeout.unwrap_or(Duration::from_secs(60))
    }

    /// The command that logs in to a server of these flags: `toolsift
    /// login NAME` with the flags that name its servers (the files as
    /// absolute paths, each word quoted for a shell when it needs it).
    #[cfg(feature = "mcp")]
    pub fn login_command(&self) -> mcp::login::LoginCommand {
        let mut flags = String::new();
        let mut add = |flag: &str, value: &str| {
            flags.push_str(&format!(" {flag} {}", shell_word(value)));
        };
        let absolute = |p: &std::path::Path| {
            std::path::absolute(p)
                .unwrap_or_else(|_| p.to_path_buf())
                .display()
                .to_string()
        };
        for path in &self.mcp {
            add("--mcp", &absolute(path));
        }
        if let Some(dir) = &self.project {
            add("--project", &absolute(dir));
        }
        for line in &self.mcp_stdio {
            add("--mcp-stdio", line);
        }
        for url in &self.mcp_url {
            add("--mcp-url", url);
        }
        if let Some(file) = &self.gateway_config {
            add("--config", &absolute(file));
        }
        Arc::new(move |server: &str| format!("toolsift login {}{flags}", shell_word(server)))
    }

    pub fn any(&self) -> bool {
        !(self.mcp.is_empty() && self.mcp_stdio.is_empty() && self.mcp_url.is_empty())
    }

    /// The servers these flags name, merged in order; what was read where
    /// and each warning said on stderr.
    #[cfg(feature = "mcp")]
    pub fn config(&self) -> Result<McpConfig, McpError> {
        let config = self.read_config()?;
        for note in &config.notes {
            eprintln!("toolsift: {}", escape(note));
        }
        for w in &config.warnings {
            eprintln!("toolsift: warning: {}", escape(w));
        }
        Ok(config)
    }

    /// [`McpArgs::config`], saying nothing.
    #[cfg(feature = "mcp")]
    pub fn read_config(&self) -> Result<McpConfig, McpError> {
        let env = |n: &str| std::env::var(n).ok();
        let mut config = McpConfig::default();
        for path in &self.mcp {
            let one = mcp::config::load_project(path, &env, self.project.as_deref())?;
            config.servers.extend(one.servers);
            config.always_load.extend(one.always_load);
            config.timeout = one.timeout;
            config.warnings.extend(one.warnings);
            config.notes.extend(one.notes);
        }
        if self.project.is_some() && self.mcp.is_empty() {
            return Err(McpError::ProjectWithoutFile);
        }

        for line in &self.mcp_stdio {
            config.servers.push(mcp::config::stdio_server(line)?);
        }
        for url in &self.mcp_url {
            config.servers.push(mcp::config::http_server(url)?);
        }
        config.always_load.extend(self.always_load.iter().cloned());
        if let Some(secs) = self.mcp_timeout {
            if !(secs > 0.0 && secs <= 3600.0) {
                return Err(McpError::Timeout(secs));
            }
            config.timeout = Duration::from_secs_f64(secs);
        }
        // Two servers of one name would be ambiguous: number the later ones.
        let mut seen = std::collections::HashMap::<String, usize>::new();
        for s in &mut config.servers {
            let n = seen.entry(s.name.clone()).or_default();
            *n += 1;
            if *n > 1 {
                s.name = format!("{}-{n}", s.name);
            }
        }
        if self.refuse_gateways {
            let (gateways, others): (Vec<_>, Vec<_>) = std::mem::take(&mut config.servers)
                .into_iter()
                .partition(|s| toolsift::gateway::starts_a_gateway(s).is_some());
            config.servers = others;
            config.warnings.extend(
                gateways
                    .iter()
                    .filter_map(toolsift::gateway::starts_a_gateway),
            );
        }
        Ok(config)
    }
}

/// `word` as a shell reads it back: bare when it is plain, else in single
/// quotes.
#[cfg(feature = "mcp")]
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// A catalog from files and MCP servers, with the live connections.
pub struct Loaded {
    pub catalog: Arc<Catalog>,
    #[cfg(feature = "mcp")]
    pub host: Option<Arc<McpHost>>,
    pub servers: Vec<ServerStatus>,
}
