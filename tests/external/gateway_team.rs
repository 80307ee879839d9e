//! docs/gateway-team.md's config, as written: its keys, groups, sandboxed
//! servers and per-user hosted server read by `toolsift gateway` with the
//! real mcp-server-time and server-everything behind it. Only what cannot
//! run here is put in place: the local servers' commands (the installed
//! binaries, not `uvx`/`npx` fetching them) and the tracker's address (a
//! loopback port nothing listens on). Each part's own behaviour is tested
//! in its own file (gateway_access, gateway_logins, gateway_sandbox,
//! gateway_otel).

use serde_json::Value;

use crate::mcp_support::*;

const PAGE: &str = include_str!("../../docs/gateway-team.md");

/// The page's first fenced block in `lang`, as written.
fn block(lang: &str) -> String {
    let fence = format!("```{lang}\n");
    let rest = PAGE.split(&fence).nth(1).expect("the block is on the page");
    rest.split("```").next().unwrap().to_string()
}

/// The page's servers file, its local servers' commands those installed.
fn servers(dir: &TempDir) -> String {
    let mut doc: Value = serde_json::from_str(&block("json")).expect("the page's JSON parses");
    let servers = &mut doc["mcpServers"];
    servers["time"]["command"] = time_bin().into();
    servers["time"]["args"] = serde_json::json!(["--local-timezone", "Etc/UTC"]);
    servers["everything"]["command"] = everything_bin().into();
    servers["everything"]["args"] = serde_json::json!([]);
    servers["tracker"]["url"] = "http://127.0.0.1:9/mcp".into();
    dir.write("servers.json", &doc.to_string())
}

fn gateway(config: &str, dir: &TempDir) -> std::process::Output {
    let config = dir.write("config.toml", config);
    let mut cmd = crate::common::bin();
    cmd.arg("gateway").arg("--offline").args([
        "--config",
        &config,
        "--mcp",
        &servers(dir),
        "--mcp-timeout",
        "60",
        "--dry-run",
    ]);
    for (var, key) in [
        ("ALICE_KEY", "a-1"),
        ("BOB_KEY", "b-2"),
        ("CAROL_KEY", "c-3"),
    ] {
        cmd.env(var, key);
    }
    cmd.output().unwrap()
}

#[test]
fn the_team_page_s_config_runs_as_written() {
    let dir = TempDir::new("gw-team-page");
    let out = gateway(&block("toml"), &dir);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let line = |server: &str| {
        err.lines()
            .find(|l| l.starts_with(&format!("toolsift: MCP server \"{server}\": ")))
            .unwrap_or_else(|| panic!("no start-up line for {server}:\n{err}"))
            .to_string()
    };
    // Both local servers are sandboxed; the time server has no network.
    for server in ["time", "everything"] {
        assert!(line(server).contains("sandboxed (Landlock ABI"), "{err}");
    }
    assert!(line("time").contains("net: none"), "{err}");
    // Each local server listed its tools under the sandbox.
    let listed = crate::common::stdout_text(&out);
    let by_server = listed
        .lines()
        .find(|l| l.starts_with("direct, by server:"))
        .unwrap_or_else(|| panic!("{listed}\n{err}"));
    assert!(by_server.contains("everything 17 tools"), "{by_server}");
    assert!(by_server.contains("time 2 tools"), "{by_server}");
}

#[test]
fn a_slip_in_the_team_page_s_config_is_named_with_its_key_and_line() {
    let dir = TempDir::new("gw-team-slip");
    let written = block("toml");
    let slipped = written.replacen("group = \"clock\"", "group = \"ops\"", 1);
    assert_ne!(slipped, written, "bob's group is on the page");
    let out = gateway(&slipped, &dir);
    let err = stderr(&out);
    assert_ne!(out.status.code(), Some(0), "{err}");
    let line = written
        .lines()
        .skip_while(|l| *l != "[gateway.keys.bob]")
        .position(|l| l.starts_with("group"))
        .unwrap()
        + written
            .lines()
            .position(|l| l == "[gateway.keys.bob]")
            .unwrap()
        + 1;
    assert!(
        err.contains(&format!("config.toml:{line}")) && err.contains("[gateway.keys.bob]"),
        "{err}"
    );
    assert!(
        err.contains("group \"ops\" does not exist (the groups: clock, dev)"),
        "{err}"
    );
}
