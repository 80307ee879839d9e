//! A gateway must not stand in front of itself: a servers file that names
//! `toolsift gateway` (a copy of the host's config, say) would start a
//! gateway that starts a gateway, each retried. Such a server is refused
//! where the file is read, and a gateway started by a gateway refuses to
//! run (the first knows it by the variable it leaves in its servers'
//! environment), so a chain the file check misses (`sh -c`, a wrapper
//! script) stops at its second link.

use crate::sources::mcp::{McpServer, Transport};

pub use crate::sources::mcp::PARENT_VAR;

/// Why `server` is refused: its command is toolsift (this binary, or one
/// named so) and it runs `gateway`.
pub fn starts_a_gateway(server: &McpServer) -> Option<String> {
    let Transport::Stdio { command, args, .. } = &server.transport else {
        return None;
    };
    let gateway_arg = args.iter().any(|a| a == "gateway");
    let named = std::path::Path::new(command)
        .file_stem()
        .is_some_and(|n| n == "toolsift");
    if !gateway_arg || !(named || is_this_binary(command)) {
        return None;
    }
    Some(format!(
        "server {}: it runs `{command} gateway`, this gateway itself, which would start itself again and again; it is skipped. Give the gateway your other servers, not the host's entry for the gateway",
        serde_json::Value::from(server.name.as_str())
    ))
}

/// Whether `command` (a path, or a name looked up on PATH) is the running
/// executable.
fn is_this_binary(command: &str) -> bool {
    let Ok(me) = std::env::current_exe().and_then(std::fs::canonicalize) else {
        return false;
    };
    let candidates: Vec<std::path::PathBuf> = if command.contains('/') {
        vec![command.into()]
    } else {
        std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).map(|d| d.join(command)).collect())
            .unwrap_or_default()
    };
    candidates
        .iter()
        .filter_map(|c| std::fs::canonicalize(c).ok())
        .any(|c| c == me)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(command: &str, args: &[&str]) -> McpServer {
        McpServer {
            name: "toolsift".into(),
            transport: Transport::Stdio {
                command: command.into(),
                args: args.iter().map(|a| a.to_string()).collect(),
                env: Default::default(),
                cwd: None,
                inherit_env: Default::default(),
            },
            always_load: false,
            isolation: Default::default(),
        }
    }

    #[test]
    fn the_gateway_is_refused_as_its_own_server_and_other_servers_are_not() {
        let why = starts_a_gateway(&stdio(
            "/Users/you/.cargo/bin/toolsift",
            &["gateway", "--mcp", "servers.json"],
        ))
        .unwrap();
        assert!(why.contains("this gateway itself"), "{why}");
        let me = std::env::current_exe().unwrap();
        assert!(starts_a_gateway(&stdio(me.to_str().unwrap(), &["gateway"])).is_some());
        assert!(starts_a_gateway(&stdio("toolsift", &["serve"])).is_none());
        assert!(starts_a_gateway(&stdio("uvx", &["mcp-server-time"])).is_none());
        assert!(starts_a_gateway(&stdio("uvx", &["gateway"])).is_none());
    }
}
