//! The configs users already have, read by `toolsift gateway` with real
//! servers behind it: Claude Code's `${VAR:-default}`, a variable unset, a
//! legacy SSE entry, VS Code's `.vscode/mcp.json` (`servers`, `inputs`,
//! `${workspaceFolder}`), `~/.claude.json` with a project's servers; one bad
//! server is a warning naming it, never the end of the gateway. And a
//! servers file that names the gateway itself is refused, not recursed.

use std::process::Output;

use serde_json::{Value, json};

use crate::common::json as parse_json;
use crate::mcp_support::*;

/// `gateway ARGS --dry-run --json`: the servers by name and state, stderr.
fn dry_run(args: &[&str], env: &[(&str, &str)]) -> (Output, Vec<(String, String)>, String) {
    let mut cmd = crate::common::bin();
    cmd.arg("gateway").arg("--offline").args(args).args([
        "--mcp-timeout",
        "60",
        "--dry-run",
        "--json",
    ]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let doc: Value = parse_json(&out);
    let servers = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["state"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (out, servers, err)
}

fn loaded(names: &[&str]) -> Vec<(String, String)> {
    names
        .iter()
        .map(|n| (n.to_string(), "loaded".to_string()))
        .collect()
}

#[test]
fn claude_code_variables_sse_and_unset_variables_skip_only_their_server() {
    let dir = TempDir::new("gw-cfg-claude");
    let config = mcp_json(
        &dir,
        json!({
            "time": {"command": time_bin(), "args": ["--local-timezone", "${TOOLSIFT_TEST_TZ:-Etc/UTC}"]},
            "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
            "needs-key": {"command": time_bin(), "env": {"KEY": "${TOOLSIFT_TEST_UNSET_KEY}"}},
        }),
    );
    let (_, servers, err) = dry_run(&["--mcp", &config], &[]);
    assert_eq!(servers, loaded(&["time"]), "{err}");
    assert!(
        err.contains("server \"legacy\": \"type\": \"sse\"")
            && err.contains("this server is skipped"),
        "{err}"
    );
    assert!(
        err.contains(
            "server \"needs-key\": environment variable TOOLSIFT_TEST_UNSET_KEY is not set"
        ),
        "{err}"
    );
    // Each warning says where the entry is.
    assert!(err.contains("mcp.json:3:"), "{err}");
}

#[test]
fn vscode_mcp_json_with_servers_inputs_and_the_workspace_folder() {
    let dir = TempDir::new("gw-cfg-vscode");
    let repo = git_repo(&dir);
    std::fs::create_dir_all(dir.0.join("repo/.vscode")).unwrap();
    let file = serde_json::to_string_pretty(&json!({
        "inputs": [
            {"type": "promptString", "id": "tz", "description": "Time zone", "default": "Etc/UTC"},
            {"type": "promptString", "id": "token", "description": "GitHub token", "password": true}
        ],
        "servers": {
            "git": {"type": "stdio", "command": git_bin(), "args": ["--repository", "${workspaceFolder}"]},
            "time": {"command": time_bin(), "args": ["--local-timezone", "${input:tz}"]},
            "github": {"type": "http", "url": "https://api.example.invalid/mcp", "headers": {"Authorization": "Bearer ${input:token}"}}
        }
    }))
    .unwrap();
    let path = format!("{repo}/.vscode/mcp.json");
    std::fs::write(&path, file).unwrap();
    let (out, servers, err) = dry_run(&["--mcp", &path], &[]);
    assert_eq!(servers, loaded(&["git", "time"]), "{err}");
    assert!(
        err.contains(
            "server \"github\": ${input:token} (\"GitHub token\") is asked of the user by VS Code"
        ),
        "{err}"
    );
    // git found the repository through ${workspaceFolder}.
    let doc: Value = parse_json(&out);
    assert!(doc["direct_tools"].as_u64().unwrap() >= 12, "{doc}");
}

#[test]
fn claude_json_reads_the_users_servers_and_the_projects() {
    let dir = TempDir::new("gw-cfg-claudejson");
    let repo = git_repo(&dir);
    let file = dir.write(
        ".claude.json",
        &serde_json::to_string_pretty(&json!({
            "numStartups": 12,
            "theme": "dark",
            "mcpServers": {"time": {"type": "stdio", "command": time_bin(), "args": [], "env": {}}},
            "projects": {
                repo.clone(): {"allowedTools": [], "mcpServers": {"git": {"type": "stdio", "command": git_bin(), "args": ["--repository", repo.clone()], "env": {}}}},
                "/elsewhere": {"mcpServers": {"other": {"command": "nope"}}}
            }
        }))
        .unwrap(),
    );
    let (_, servers, err) = dry_run(&["--mcp", &file, "--project", &repo], &[]);
    assert_eq!(servers, loaded(&["time", "git"]), "{err}");
    assert!(err.contains("1 server(s) of its own"), "{err}");
    // Without --project: the user's servers (this directory is no project).
    let (_, servers, err) = dry_run(&["--mcp", &file], &[]);
    assert_eq!(servers, loaded(&["time"]), "{err}");
    // A project that is not there is an error naming the ones that are.
    let out = crate::common::run(&[
        "gateway",
        "--offline",
        "--mcp",
        &file,
        "--project",
        "/nope",
        "--dry-run",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/elsewhere"), "{}", stderr(&out));
}

#[test]
fn a_servers_file_that_names_the_gateway_is_refused_not_recursed() {
    let dir = TempDir::new("gw-cfg-loop");
    let me = env!("CARGO_BIN_EXE_toolsift");
    let path = dir.path("mcp.json");
    let config = mcp_json(
        &dir,
        json!({
            "time": {"command": time_bin()},
            "toolsift": {"command": me, "args": ["gateway", "--offline", "--mcp", path]},
            // Wrapped so the file check cannot see it: the inner gateway
            // refuses to run under a gateway.
            "wrapped": {"command": "sh", "args": ["-c", format!("exec {me} gateway --mcp {path}")]},
        }),
    );
    let (out, servers, err) = dry_run(&["--mcp", &config], &[]);
    assert!(
        err.contains("server \"toolsift\": it runs") && err.contains("this gateway itself"),
        "{err}"
    );
    let doc: Value = parse_json(&out);
    assert_eq!(
        servers,
        vec![
            ("time".to_string(), "loaded".to_string()),
            ("wrapped".to_string(), "failed".to_string())
        ],
        "{doc}"
    );
    let wrapped = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "wrapped")
        .unwrap();
    assert!(
        wrapped
            .to_string()
            .contains("started as a server of another toolsift gateway"),
        "{wrapped}"
    );
    // Started by hand under a gateway, it says why and exits 2.
    let out = crate::common::bin()
        .args(["gateway", "--offline", "--mcp", &config, "--dry-run"])
        .env("TOOLSIFT_GATEWAY_PARENT", "1234")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("process 1234"), "{}", stderr(&out));
}
