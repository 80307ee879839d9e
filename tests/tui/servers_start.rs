//! `explore --mcp` draws at once: a real MCP server (mcp-server-time,
//! installed by scripts/setup-test-deps.sh) that takes seconds to start
//! holds nothing up; its tools join when it lists them.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::tty::Tty;

/// mcp-server-time from the test venv, or a failure naming the setup
/// script (these tests never skip).
fn time_server() -> String {
    let nonempty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let bin = nonempty("TOOLSIFT_MCP_BIN_DIR")
        .map(PathBuf::from)
        .or_else(|| nonempty("TOOLSIFT_SDK_VENV").map(|v| PathBuf::from(v).join("bin")))
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
                .join(".cache/toolsift-sdk-venv/bin")
        })
        .join("mcp-server-time");
    assert!(
        bin.is_file(),
        "mcp-server-time is not installed: {} is missing. Run scripts/setup-test-deps.sh once",
        bin.display()
    );
    bin.display().to_string()
}

#[test]
fn the_first_frame_comes_before_the_slowest_server_is_up() {
    let time = time_server();
    let dir = std::env::temp_dir().join(format!("toolsift-servers-start-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("servers.json");
    // The same real server twice, one of them starting 6 s late.
    let servers = serde_json::json!({"mcpServers": {
        "time": {"command": time, "args": ["--local-timezone", "Etc/UTC"]},
        "slowtime": {"command": "sh", "args": ["-c", format!("sleep 6; exec {time} --local-timezone Etc/UTC")]},
    }});
    std::fs::write(&config, servers.to_string()).unwrap();
    let started = Instant::now();
    let mut tty = Tty::spawn_with(&["explore", "--mcp", config.to_str().unwrap()], &[]);
    tty.wait_for("slowtime starting");
    let first = started.elapsed();
    assert!(
        first < Duration::from_secs(5),
        "the first frame took {first:?}, as long as the slow server's start"
    );
    // The quick server's tools join while the slow one sleeps, and a
    // search runs over them, saying what is still on its way.
    tty.wait_for("time 2 tools");
    assert!(tty.contents().contains("slowtime starting"));
    tty.send(b"/");
    for c in "convert".bytes() {
        tty.send(&[c]);
    }
    tty.wait_for("searched the 2 tools so far; 1 server still starting");
    assert!(started.elapsed() < Duration::from_secs(6));
    // Then the slow one's.
    tty.wait_for("slowtime joined: 4 tools in all");
    assert!(tty.contents().contains("slowtime 2 tools"));
    let _ = std::fs::remove_dir_all(&dir);
}
