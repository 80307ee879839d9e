//! The live part of `--mcp`: the servers started, listed and followed, for
//! every command that gathers tools from them and for the gateway.

use std::sync::Arc;
use std::time::Duration;

use toolsift::catalog::{self, Catalog, CatalogSource};
use toolsift::sources::mcp::{self, McpHost, ServerState};
use toolsift::terminal_text::escape;

use super::mcp::{Loaded, McpArgs};
use super::mcp_error::McpError;

/// Restores the terminal when a signal ends toolsift during the explorer.
fn restore_terminal() {
    #[cfg(feature = "tui")]
    if toolsift::tui::terminal_in_use() {
        toolsift::tui::restore_terminal();
    }
}

/// [`super::load::catalogs`] of the MCP servers alone, following the servers' changes: the
/// receiver names each server whose tools changed.
pub fn load_watching(
    args: &McpArgs,
) -> Result<(Loaded, tokio::sync::mpsc::UnboundedReceiver<String>), McpError> {
    let (loaded, changes) = load_servers(&[], args, true)?;
    let changes = changes.ok_or(McpError::NoServer)?;
    Ok((loaded, changes))
}

/// Says where a server's login page is, on stderr (the host's log for a
/// gateway over stdio), escaped.
pub fn say_login_page(server: &str, url: &str, shown: mcp::login::Shown) {
    match shown {
        mcp::login::Shown::Browser => eprintln!(
            "toolsift: MCP server {} needs a login: its page is open in the browser (if not, open {})",
            escape(server),
            escape(url)
        ),
        mcp::login::Shown::Printed => eprintln!(
            "toolsift: MCP server {} needs a login: no browser was opened ({}): open {} in a browser",
            escape(server),
            if mcp::login::no_browser() {
                "TOOLSIFT_NO_BROWSER is set"
            } else {
                "none was found"
            },
            escape(url)
        ),
    }
}

/// Says what went wrong with a server's login, on stderr, escaped.
pub fn warn_of_login(server: &str, what: &str) {
    eprintln!(
        "toolsift: warning: MCP server {}: {}",
        escape(server),
        escape(what)
    );
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
pub fn start_watching(args: &McpArgs, wait: Duration) -> Result<Started, McpError> {
    let config = args.config()?;
    if config.servers.is_empty() {
        return Err(McpError::NoServer);
    }
    if args.say_sandbox {
        say_sandboxes(&config.servers);
    }
    let host = new_host(args)?;
    let changes = host.watch_changes();
    // A server that needs a login gets one the first time: its page is
    // opened in the browser (or its address said here, on stderr).
    host.log_in_when_needed(true, Arc::new(say_login_page));
    host.warn_of_logins(Arc::new(warn_of_login));
    host.log_in_with(args.login_command());
    if let Some(keys) = &args.key_logins {
        host.log_in_per_key(keys.clone());
    }
    let gathered = host.gather_within(&config, wait);
    for s in &gathered.servers {
        match s.state {
            ServerState::Failed { .. } => eprintln!(
                "toolsift: warning: MCP server {} (tried again in the background)",
                block(&s.summary())
            ),
            ServerState::Starting { .. } => eprintln!(
                "toolsift: MCP server {} (its tools join when it has listed them)",
                block(&s.summary())
            ),
            ServerState::WaitingForLogin { .. } => eprintln!(
                "toolsift: MCP server {} (its tools join once it is logged in)",
                block(&s.summary())
            ),
            ServerState::Loaded { .. } => {}
        }
        warn_of_server(s);
    }
    if let Some(catalog) = &gathered.catalog {
        warn_of_unmatched(&config.always_load, catalog);
    }
    Ok(Started {
        host: Arc::new(host),
        catalog: gathered.catalog,
        changes,
    })
}

type Changes = Option<tokio::sync::mpsc::UnboundedReceiver<String>>;

/// What the explorer opens on with `--mcp`: the servers started in the
/// background, the catalog of what is there at once (the files', or none
/// yet), the servers' changes to follow, and the files to merge each
/// server's tools beside.
#[cfg(feature = "tui")]
pub struct Opening {
    pub loaded: Loaded,
    pub changes: tokio::sync::mpsc::UnboundedReceiver<String>,
    pub files: Vec<Catalog>,
}

/// The MCP servers of `args` started without waiting for any (the
/// explorer's start): their tools join as each lists them, a server that
/// fails is tried again in the background, and every state shows on the
/// explorer's servers' line rather than on stderr (the screen hides it).
/// No server configured, or a file that does not read, is an error here.
#[cfg(feature = "tui")]
pub fn start_for_explorer(files: &[String], args: &McpArgs) -> Result<Opening, McpError> {
    let config = args.config()?;
    if config.servers.is_empty() {
        return Err(McpError::NoServer);
    }
    let file_catalogs = load_files(files)?;
    let host = new_host(args)?;
    let changes = host.watch_changes();
    host.warn_of_logins(Arc::new(warn_of_login));
    host.log_in_with(args.login_command());
    let gathered = host.gather_within(&config, Duration::ZERO);
    let (catalog, _) = mcp::merge_beside_files(gathered.catalog, &file_catalogs)?;
    Ok(Opening {
        loaded: Loaded {
            catalog: Arc::new(catalog),
            host: Some(Arc::new(host)),
            servers: gathered.servers,
        },
        changes,
        files: file_catalogs,
    })
}

/// The MCP servers of `args` started and listed, merged with `files`
/// ([`super::load::catalogs`]'s part that needs the servers); with `watch`, the
/// servers' changes too.
pub fn load_servers(
    files: &[String],
    args: &McpArgs,
    watch: bool,
) -> Result<(Loaded, Changes), McpError> {
    let config = args.config()?;
    if args.say_sandbox {
        say_sandboxes(&config.servers);
    }
    let host = new_host(args)?;
    let changes = watch.then(|| host.watch_changes());
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) && !config.servers.is_empty() {
        eprintln!(
            "toolsift: starting {} MCP server{} (up to {} s each)...",
            config.servers.len(),
            if config.servers.len() == 1 { "" } else { "s" },
            config.timeout.as_secs_f64()
        );
    }
    host.warn_of_logins(Arc::new(warn_of_login));
    let command = args.login_command();
    host.log_in_with(command.clone());
    let gathered = host.gather(&config);
    for s in &gathered.servers {
        if matches!(
            s.state,
            ServerState::Failed { .. } | ServerState::WaitingForLogin { .. }
        ) {
            eprintln!("toolsift: warning: MCP server {}", block(&s.summary()));
        }
        warn_of_server(s);
    }
    let file_catalogs = load_files(files)?;
    if gathered.catalog.is_none() && file_catalogs.is_empty() {
        return Err(none_listed(&gathered.servers, &command));
    }
    // A server's tool named as a file's takes its server's prefix.
    let (catalog, notes) = mcp::merge_beside_files(gathered.catalog, &file_catalogs)?;
    for note in notes {
        eprintln!("toolsift: {}", escape(&note));
    }
    warn_of_unmatched(&config.always_load, &catalog);
    Ok((
        Loaded {
            catalog: Arc::new(catalog),
            host: Some(Arc::new(host)),
            servers: gathered.servers,
        },
        changes,
    ))
}

/// What each stdio server may touch (read, write, net), or that it is not
/// sandboxed, on stderr; what its entry asks that this system cannot
/// enforce, a warning. Names and paths escaped.
fn say_sandboxes(servers: &[mcp::McpServer]) {
    for server in servers {
        let Some(report) = mcp::sandbox_report(server) else {
            continue;
        };
        let name = serde_json::Value::from(server.name.as_str()).to_string();
        eprintln!(
            "toolsift: MCP server {}: {}",
            escape(&name),
            escape(&report.line)
        );
        for w in &report.warnings {
            eprintln!(
                "toolsift: warning: MCP server {}: {}",
                escape(&name),
                escape(w)
            );
        }
    }
}

/// The servers' host, its processes guarded: killed on a signal that ends
/// toolsift (the terminal restored) and, by the warden, if toolsift is
/// killed outright.
fn new_host(args: &McpArgs) -> Result<McpHost, McpError> {
    mcp::install_exit_guards(restore_terminal);
    start_warden();
    McpHost::new(args.call_timeout()).map_err(McpError::Host)
}

/// The catalog files given beside the servers.
fn load_files(files: &[String]) -> Result<Vec<Catalog>, McpError> {
    Ok(files
        .iter()
        .map(|f| catalog::load(&CatalogSource::parse(f)))
        .collect::<Result<_, _>>()?)
}

/// Why no catalog came of the servers (and no file was given): none
/// configured, none loaded, some waiting for a login (named, with the
/// command that makes it), or none listing a tool.
fn none_listed(servers: &[mcp::ServerStatus], command: &mcp::login::LoginCommand) -> McpError {
    let waiting: Vec<&mcp::ServerStatus> = servers
        .iter()
        .filter(|s| matches!(s.state, ServerState::WaitingForLogin { .. }))
        .collect();
    if servers.is_empty() {
        McpError::NoServer
    } else if servers
        .iter()
        .all(|s| matches!(s.state, ServerState::Failed { .. }))
    {
        McpError::NoneLoaded
    } else if let Some(first) = waiting.first() {
        McpError::WaitingForLogin {
            names: waiting
                .iter()
                .map(|s| escape(&s.name).into_owned())
                .collect(),
            command: command(&first.name),
        }
    } else {
        McpError::NoTools
    }
}

/// A server's own warnings (its kept login refused, its tools skipped),
/// on stderr, escaped.
fn warn_of_server(s: &mcp::ServerStatus) {
    for w in s.warnings() {
        eprintln!(
            "toolsift: warning: MCP server {}: {}",
            escape(&s.name),
            escape(w)
        );
    }
}

/// Each always-load pattern that matches no tool of `catalog`, a warning
/// on stderr.
fn warn_of_unmatched(patterns: &[String], catalog: &Catalog) {
    for pattern in mcp::unmatched_always_load(patterns, catalog) {
        eprintln!(
            "toolsift: warning: always-load pattern {} matches no tool of the MCP servers that started",
            escape(&format!("{pattern:?}"))
        );
    }
}

/// A server's summary for stderr: its stderr's lines (a traceback) as
/// lines, each escaped and indented under the first, never one line of
/// `\n`s.
fn block(text: &str) -> String {
    toolsift::terminal_text::escape_lines(text)
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                line.to_string()
            } else {
                format!("    {line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The warden that kills the servers' processes if toolsift is killed
/// outright; one that cannot start is a warning, not the end.
fn start_warden() {
    if let Err(e) = mcp::start_warden() {
        eprintln!(
            "toolsift: warning: the warden that stops the MCP servers if toolsift is killed did not start ({}); a SIGKILL would leave their daemons running",
            escape(&e.to_string())
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_traceback_is_lines_each_escaped_and_indented() {
        let summary = "tb: failed: it exited; its stderr ended with: Traceback (most recent call last):\n  File \"x.py\", line 3\nRuntimeError: boom \u{1b}[31m";
        let shown = super::block(summary);
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines.len(), 3, "{shown}");
        assert!(lines[0].ends_with("Traceback (most recent call last):"));
        assert_eq!(lines[1], "      File \"x.py\", line 3");
        assert!(
            lines[2].starts_with("    RuntimeError: boom \\u{1b}"),
            "{shown}"
        );
        assert!(!shown.contains("\\n"), "{shown}");
    }
}
