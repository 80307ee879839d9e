//! `toolsift login SERVER` and `toolsift logout SERVER`: a hosted MCP
//! server's OAuth login made once, ahead of the gateway or the explorer
//! (which also start one the first time a server needs it), and forgotten.

use clap::Args;

use super::error::CliError;
use super::mcp::McpArgs;
#[cfg(feature = "mcp")]
use super::mcp_error::McpError;

#[derive(Args)]
pub struct LoginArgs {
    /// The server's name in the servers file (for --mcp-url, its host:port).
    #[arg(value_name = "SERVER")]
    pub server: String,
    #[command(flatten)]
    pub mcp: McpArgs,
    /// Seconds to wait for the browser's answer.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub wait: u64,
    #[command(flatten)]
    pub key: AsKey,
}

/// Whose login: a gateway key's own (`--as KEY`), else the server's one.
#[derive(Args, Default, Debug, Clone)]
pub struct AsKey {
    /// Log in as the gateway key KEY (its name under [gateway.keys] of the config): its own login, used by its calls alone, to a server whose keys each log in ("login": "per-user").
    #[arg(long = "as", value_name = "KEY")]
    pub as_key: Option<String>,
    /// The config file that names the keys (else $TOOLSIFT_CONFIG, $XDG_CONFIG_HOME/toolsift/config.toml, ~/.config/toolsift/config.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
}

#[derive(Args)]
pub struct LogoutArgs {
    /// The server's name, as it was logged in.
    #[arg(value_name = "SERVER")]
    pub server: String,
    #[command(flatten)]
    pub key: AsKey,
}

#[cfg(feature = "mcp")]
impl AsKey {
    /// The key named by `--as`, checked against the config's named keys:
    /// a name it does not have is refused, naming the file and the names
    /// it has.
    pub fn checked(&self) -> Result<Option<&str>, CliError> {
        use toolsift::terminal_text::escape;
        let Some(name) = self.as_key.as_deref() else {
            return Ok(None);
        };
        let config = toolsift::config::Config::load(self.config.as_deref())?;
        let names: Vec<&str> = config.access.keys.iter().map(|k| k.name.as_str()).collect();
        if names.contains(&name) {
            return Ok(Some(name));
        }
        let file = match &config.source {
            Some(path) => path.display().to_string(),
            None => {
                "no config file (--config FILE, $TOOLSIFT_CONFIG or ~/.config/toolsift/config.toml)"
                    .into()
            }
        };
        let known = if names.is_empty() {
            "none".to_string()
        } else {
            names
                .iter()
                .map(|n| escape(n).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        };
        Err(CliError::Usage(format!(
            "--as {}: no key of that name in [gateway.keys] of {} (the keys there: {known})",
            escape(name),
            escape(&file)
        )))
    }
}

#[cfg(not(feature = "mcp"))]
pub fn login(_args: &LoginArgs) -> Result<(), CliError> {
    Err(CliError::Usage(super::mcp_error::WITHOUT_MCP.into()))
}

#[cfg(not(feature = "mcp"))]
pub fn logout(_args: &LogoutArgs) -> Result<(), CliError> {
    Err(CliError::Usage(super::mcp_error::WITHOUT_MCP.into()))
}

/// Logs in to the server named, of the servers the flags give: its page
/// opened in the browser (or its address said), the answer waited for,
/// where the tokens are kept said.
#[cfg(feature = "mcp")]
pub fn login(args: &LoginArgs) -> Result<(), CliError> {
    use toolsift::sources::mcp::Transport;
    use toolsift::sources::mcp::login::{Asked, log_in};
    use toolsift::terminal_text::escape;
    if !args.mcp.any() {
        return Err(CliError::Usage(
            "name the servers file the server is in: --mcp CONFIG (or --mcp-url URL)".into(),
        ));
    }
    if !(1..=3600).contains(&args.wait) {
        return Err(CliError::Usage(format!(
            "--wait must be 1 to 3600 seconds, not {}",
            args.wait
        )));
    }
    let as_key = args.key.checked()?;
    let server = named_server(args)?;
    let Transport::Http {
        url,
        headers,
        oauth,
    } = &server.transport
    else {
        return Err(CliError::Usage(format!(
            "{} is started with a command: only a server reached by url logs in",
            escape(&server.name)
        )));
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Usage(format!("cannot start: {e}")))?;
    let shown = |page: &str, how: toolsift::sources::mcp::login::Shown| {
        super::mcp_live::say_login_page(&server.name, page, how);
        eprintln!(
            "toolsift: waiting up to {} s for the browser's answer...",
            args.wait
        );
    };
    let logged = runtime
        .block_on(log_in(Asked {
            server: &server.name,
            url,
            as_key,
            headers,
            oauth,
            challenge: None,
            limit: std::time::Duration::from_secs(args.wait),
            shown: &shown,
            wait_unopened: true,
            hold: None,
        }))
        .map_err(|why| McpError::Login {
            server: server.name.clone(),
            why,
        })?;
    let (who, flag) = match as_key {
        Some(key) => (format!(" as key {key}"), format!(" --as {key}")),
        None => (String::new(), String::new()),
    };
    println!(
        "logged in to {}{who}; the tokens are kept in {} (toolsift logout {}{flag} forgets them)",
        escape(&server.name),
        escape(&logged.kept_in),
        escape(&server.name)
    );
    Ok(())
}

/// The server `toolsift login` names, of those the flags give; none of
/// that name is an error listing those there are.
#[cfg(feature = "mcp")]
fn named_server(args: &LoginArgs) -> Result<toolsift::sources::mcp::McpServer, CliError> {
    use toolsift::terminal_text::escape;
    let config = args.mcp.config()?;
    if let Some(server) = config.servers.iter().find(|s| s.name == args.server) {
        return Ok(server.clone());
    }
    let names: Vec<String> = config
        .servers
        .iter()
        .map(|s| escape(&s.name).into_owned())
        .collect();
    Err(CliError::Usage(format!(
        "no server named {} in the servers given (they are: {})",
        escape(&args.server),
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    )))
}

#[cfg(feature = "mcp")]
pub fn logout(args: &LogoutArgs) -> Result<(), CliError> {
    use toolsift::terminal_text::escape;
    let as_key = args.key.checked()?;
    let store = toolsift::sources::mcp::login::TokenStore::for_key(&args.server, "", as_key);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Usage(format!("cannot start: {e}")))?;
    let had = runtime
        .block_on(store.forget())
        .map_err(|why| McpError::Logout {
            server: args.server.clone(),
            why,
        })?;
    if had {
        println!("forgot the login of {}", escape(&args.server));
    } else {
        println!("no login was kept for {}", escape(&args.server));
    }
    Ok(())
}
