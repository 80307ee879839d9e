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
/// named so) and it runs `gateway`, directly or through a Python package
/// runner (`uvx toolsift gateway`, `uvx --from toolsift==1.2 toolsift
/// gateway`, `uv tool run`, `pipx run [--spec toolsift] toolsift gateway`).
pub fn starts_a_gateway(server: &McpServer) -> Option<String> {
    let Transport::Stdio { command, args, .. } = &server.transport else {
        return None;
    };
    let (shown, args) = match runner_target(command, args) {
        Some((target, rest)) => (format!("{command} … {target}"), rest),
        None if is_toolsift(command) || is_this_binary(command) => (command.clone(), &args[..]),
        None => return None,
    };
    if !args.iter().any(|a| a == "gateway") {
        return None;
    }
    Some(format!(
        "server {}: it runs `{} gateway`, this gateway itself, which would start itself again and again; it is skipped. Give the gateway your other servers, not the host's entry for the gateway",
        serde_json::Value::from(server.name.as_str()),
        crate::terminal_text::escape(&shown)
    ))
}

/// Whether `command`'s file name is toolsift's.
fn is_toolsift(command: &str) -> bool {
    std::path::Path::new(command)
        .file_stem()
        .is_some_and(|n| n == "toolsift")
}

/// The options of uvx and pipx that take a value (the next argument),
/// so the command they run is not taken for one.
const RUNNER_VALUE_OPTIONS: &[&str] = &[
    "--from",
    "--with",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--index",
    "--index-url",
    "--default-index",
    "--extra-index-url",
    "-i",
    "--find-links",
    "-f",
    "--constraints",
    "-c",
    "--overrides",
    "--directory",
    "--project",
    "--config-file",
    "--cache-dir",
    "--spec",
    "--pip-args",
];

/// When `command` is a Python package runner (`uvx`, `uv tool run`, `uv
/// run`, `pipx run`) whose command is toolsift: that command and the
/// arguments after it.
fn runner_target<'a>(command: &str, args: &'a [String]) -> Option<(&'a str, &'a [String])> {
    let runner = std::path::Path::new(command).file_stem()?.to_str()?;
    let mut rest = args;
    let skip = |rest: &mut &'a [String], word: &str| match rest.first() {
        Some(w) if w == word => {
            *rest = &rest[1..];
            true
        }
        _ => false,
    };
    match runner {
        "uvx" => {}
        "uv" => {
            let tool_run = skip(&mut rest, "tool") && skip(&mut rest, "run");
            if !tool_run && !skip(&mut rest, "run") && !skip(&mut rest, "tool") {
                return None;
            }
        }
        "pipx" => {
            if !skip(&mut rest, "run") {
                return None;
            }
        }
        _ => return None,
    }
    while let Some((first, after)) = rest.split_first() {
        if first == "--" {
            rest = after;
            continue;
        }
        if !first.starts_with('-') {
            // The command run: `toolsift`, `toolsift@1.2` or `toolsift==1.2`.
            let name = first
                .split(['@', '=', '[', '<', '>', '~'])
                .next()
                .unwrap_or_default();
            return is_toolsift(name).then_some((first.as_str(), after));
        }
        let takes_value = !first.contains('=') && RUNNER_VALUE_OPTIONS.contains(&first.as_str());
        rest = if takes_value {
            after.get(1..).unwrap_or_default()
        } else {
            after
        };
    }
    None
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
                sandbox: Default::default(),
            },
            always_load: false,
            isolation: Default::default(),
            login: None,
            login_as: None,
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

    #[test]
    fn the_gateway_through_a_python_package_runner_is_refused_too() {
        for (command, args) in [
            ("uvx", &["toolsift", "gateway", "--mcp", "s.json"][..]),
            ("uvx", &["--from", "toolsift==1.2", "toolsift", "gateway"]),
            (
                "/usr/local/bin/uvx",
                &["--python", "3.12", "toolsift@latest", "gateway"],
            ),
            (
                "uv",
                &["tool", "run", "--from", "toolsift", "toolsift", "gateway"],
            ),
            ("pipx", &["run", "toolsift", "gateway"]),
            (
                "pipx",
                &["run", "--spec", "toolsift[mcp]", "toolsift", "gateway"],
            ),
        ] {
            let why = starts_a_gateway(&stdio(command, args));
            let why = why.unwrap_or_else(|| panic!("{command} {args:?} is not refused"));
            assert!(
                why.contains("server \"toolsift\"") && why.contains("this gateway itself"),
                "{why}"
            );
        }
        for (command, args) in [
            ("uvx", &["--from", "toolsift", "mcp-server-time"][..]),
            ("uvx", &["toolsift", "serve"]),
            ("pipx", &["run", "mcp-server-git", "gateway"]),
            ("pipx", &["install", "toolsift"]),
            ("uv", &["pip", "install", "toolsift", "gateway"]),
        ] {
            assert!(
                starts_a_gateway(&stdio(command, args)).is_none(),
                "{command} {args:?}"
            );
        }
    }
}
