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
}

#[derive(Args)]
pub struct LogoutArgs {
    /// The server's name, as it was logged in.
    #[arg(value_name = "SERVER")]
    pub server: String,
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
    println!(
        "logged in to {}; the tokens are kept in {} (toolsift logout {} forgets them)",
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
    let store = toolsift::sources::mcp::login::TokenStore::new(&args.server, "");
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
