//! `--mcp CONFIG`, `--mcp-stdio "CMD ARGS"`, `--mcp-url URL`: catalogs
//! gathered from live MCP servers, alone or merged with catalog files.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use toolsift::catalog::{self, Catalog, CatalogSource};
use toolsift::sources::mcp::{self, McpConfig, McpHost, ServerState, ServerStatus};
use toolsift::terminal_text::escape;

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
    /// Tools of the MCP servers to load always: server/*, server/tool or tool (repeatable; added to the config's [mcp] always_load).
    #[arg(long, value_name = "PATTERN")]
    pub always_load: Vec<String>,
    /// The longest a tool call may take (set by the command, not a flag here).
    #[arg(skip)]
    pub call_timeout: Option<Duration>,
    /// Leave out the servers that run `toolsift gateway` (the gateway's own
    /// reading: it must not start itself).
    #[arg(skip)]
    pub refuse_gateways: bool,
}

impl McpArgs {
    /// The time limit of one tool call (60 s unless the command set it).
    pub fn call_timeout(&self) -> Duration {
        self.call_timeout.unwrap_or(Duration::from_secs(60))
    }

    pub fn any(&self) -> bool {
        !(self.mcp.is_empty() && self.mcp_stdio.is_empty() && self.mcp_url.is_empty())
    }

    /// The servers these flags name, merged in order; what was read where
    /// and each warning said on stderr.
    pub fn config(&self) -> Result<McpConfig, String> {
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
    pub fn read_config(&self) -> Result<McpConfig, String> {
        let env = |n: &str| std::env::var(n).ok();
        let mut config = McpConfig::default();
        for path in &self.mcp {
            let one = mcp::config::load_project(path, &env, self.project.as_deref())
                .map_err(|e| e.to_string())?;
            config.servers.extend(one.servers);
            config.always_load.extend(one.always_load);
            config.timeout = one.timeout;
            config.warnings.extend(one.warnings);
            config.notes.extend(one.notes);
        }
        if self.project.is_some() && self.mcp.is_empty() {
            return Err("--project picks a project of the --mcp file (~/.claude.json)".into());
        }

        for line in &self.mcp_stdio {
            config
                .servers
                .push(mcp::config::stdio_server(line).map_err(|e| e.to_string())?);
        }
        for url in &self.mcp_url {
            config
                .servers
                .push(mcp::config::http_server(url).map_err(|e| e.to_string())?);
        }
        config.always_load.extend(self.always_load.iter().cloned());
        if let Some(secs) = self.mcp_timeout {
            if !(secs > 0.0 && secs <= 3600.0) {
                return Err(format!(
                    "--mcp-timeout must be between 0 and 3600 seconds, not {secs}"
                ));
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

/// A catalog from files and MCP servers, with the live connections.
pub struct Loaded {
    pub catalog: Arc<Catalog>,
    pub host: Option<Arc<McpHost>>,
    pub servers: Vec<ServerStatus>,
}

/// Restores the terminal when a signal ends toolsift during the explorer.
fn restore_terminal() {
    #[cfg(feature = "tui")]
    if toolsift::tui::terminal_in_use() {
        toolsift::tui::restore_terminal();
    }
}

/// Loads `files` (or `default` when there are none and no MCP server) and
/// gathers the MCP servers of `args`. Each server that failed is a warning on
/// stderr; none loading (and no file) is an error.
pub fn load(files: &[String], default: Option<&str>, args: &McpArgs) -> Result<Loaded, String> {
    load_inner(files, default, args, false).map(|(loaded, _)| loaded)
}

/// [`load`] of the MCP servers alone, following the servers' changes: the
/// receiver names each server whose tools changed.
pub fn load_watching(
    args: &McpArgs,
) -> Result<(Loaded, tokio::sync::mpsc::UnboundedReceiver<String>), String> {
    let (loaded, changes) = load_inner(&[], None, args, true)?;
    let changes = changes.ok_or("no MCP server is configured")?;
    Ok((loaded, changes))
}

/// What the gateway starts with: its host, the tools of the servers that
/// listed them in time (none yet, maybe), and the servers' changes (a
/// server that comes up later is one).
pub struct Started {
    pub host: Arc<McpHost>,
    pub catalog: Option<Catalog>,
    pub changes: tokio::sync::mpsc::UnboundedReceiver<String>,
}

/// The MCP servers of `args` started without blocking: every server
/// starts in the background, and this waits at most `wait` for them (a
/// server that never answers holds nothing up); the others join later, a
/// server that failed is tried again. A failed server is a warning on
/// stderr, one still starting a note.
pub fn start_watching(args: &McpArgs, wait: Duration) -> Result<Started, String> {
    let config = args.config()?;
    if config.servers.is_empty() {
        return Err("no MCP server is configured".into());
    }
    mcp::install_exit_guards(restore_terminal);
    let host = McpHost::new(args.call_timeout()).map_err(|e| format!("MCP: {e}"))?;
    let changes = host.watch_changes();
    let gathered = host.gather_within(&config, wait);
    for s in &gathered.servers {
        match s.state {
            ServerState::Failed { .. } => eprintln!(
                "toolsift: warning: MCP server {} (tried again in the background)",
                escape(&s.summary())
            ),
            ServerState::Starting { .. } => eprintln!(
                "toolsift: MCP server {} (its tools join when it has listed them)",
                escape(&s.summary())
            ),
            ServerState::Loaded { .. } => {}
        }
        for w in s.warnings() {
            eprintln!(
                "toolsift: warning: MCP server {}: {}",
                escape(&s.name),
                escape(w)
            );
        }
    }
    if let Some(catalog) = &gathered.catalog {
        for pattern in mcp::unmatched_always_load(&config.always_load, catalog) {
            eprintln!(
                "toolsift: warning: always-load pattern {} matches no tool of the MCP servers that started",
                escape(&format!("{pattern:?}"))
            );
        }
    }
    Ok(Started {
        host: Arc::new(host),
        catalog: gathered.catalog,
        changes,
    })
}

type Changes = Option<tokio::sync::mpsc::UnboundedReceiver<String>>;

fn load_inner(
    files: &[String],
    default: Option<&str>,
    args: &McpArgs,
    watch: bool,
) -> Result<(Loaded, Changes), String> {
    if !args.any() {
        let sources: Vec<CatalogSource> = if files.is_empty() {
            default.map(CatalogSource::parse).into_iter().collect()
        } else {
            files.iter().map(|f| CatalogSource::parse(f)).collect()
        };
        let catalog = catalog::load_all(&sources).map_err(|e| e.to_string())?;
        return Ok((
            Loaded {
                catalog: Arc::new(catalog),
                host: None,
                servers: Vec::new(),
            },
            None,
        ));
    }
    let config = args.config()?;
    mcp::install_exit_guards(restore_terminal);
    let host = McpHost::new(args.call_timeout()).map_err(|e| format!("MCP: {e}"))?;
    let changes = watch.then(|| host.watch_changes());
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) && !config.servers.is_empty() {
        eprintln!(
            "toolsift: starting {} MCP server{} (up to {} s each)...",
            config.servers.len(),
            if config.servers.len() == 1 { "" } else { "s" },
            config.timeout.as_secs_f64()
        );
    }
    let gathered = host.gather(&config);
    for s in &gathered.servers {
        if matches!(s.state, ServerState::Failed { .. }) {
            eprintln!("toolsift: warning: MCP server {}", escape(&s.summary()));
        }
        for w in s.warnings() {
            eprintln!(
                "toolsift: warning: MCP server {}: {}",
                escape(&s.name),
                escape(w)
            );
        }
    }
    let mut catalogs: Vec<Catalog> = files
        .iter()
        .map(|f| catalog::load(&CatalogSource::parse(f)))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    match gathered.catalog {
        Some(c) => catalogs.push(c),
        None if catalogs.is_empty() => {
            let why = if gathered.servers.is_empty() {
                "no MCP server is configured".to_string()
            } else if gathered
                .servers
                .iter()
                .all(|s| matches!(s.state, ServerState::Failed { .. }))
            {
                "no MCP server loaded".to_string()
            } else {
                "the MCP servers list no tools".to_string()
            };
            return Err(why);
        }
        None => {}
    }
    let catalog = match catalogs.len() {
        1 => catalogs.pop().ok_or("no catalog")?,
        _ => Catalog::merge(catalogs).map_err(|e| e.to_string())?,
    };
    for pattern in mcp::unmatched_always_load(&config.always_load, &catalog) {
        eprintln!(
            "toolsift: warning: always-load pattern {} matches no tool of the MCP servers that started",
            escape(&format!("{pattern:?}"))
        );
    }
    Ok((
        Loaded {
            catalog: Arc::new(catalog),
            host: Some(Arc::new(host)),
            servers: gathered.servers,
        },
        changes,
    ))
}
