//! Where the programs the tests run against are installed (the test venv,
//! the npm prefix): a missing one FAILS the test, naming the setup script.

use std::path::PathBuf;

pub const SETUP: &str = "scripts/setup-test-deps.sh";

pub fn home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
}

pub fn venv_bin() -> PathBuf {
    let nonempty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    nonempty("TOOLSIFT_MCP_BIN_DIR")
        .map(PathBuf::from)
        .or_else(|| nonempty("TOOLSIFT_SDK_VENV").map(|v| PathBuf::from(v).join("bin")))
        .unwrap_or_else(|| home().join(".cache/toolsift-sdk-venv/bin"))
}

pub fn npm_prefix() -> PathBuf {
    std::env::var_os("TOOLSIFT_NPM_PREFIX")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(".cache/toolsift-npm"))
}

/// `path` as a string, or a failure saying how to install it.
pub fn need(path: PathBuf, what: &str) -> String {
    assert!(
        path.is_file(),
        "{what} is not installed: {} is missing. Run {SETUP} once: it installs the MCP servers these tests use \
         (or set TOOLSIFT_MCP_BIN_DIR / TOOLSIFT_NPM_PREFIX to where they are)",
        path.display()
    );
    path.to_str().expect("UTF-8 path").to_string()
}

pub fn python() -> String {
    need(venv_bin().join("python"), "the test venv's python")
}

pub fn time_bin() -> String {
    need(venv_bin().join("mcp-server-time"), "mcp-server-time")
}

pub fn git_bin() -> String {
    need(venv_bin().join("mcp-server-git"), "mcp-server-git")
}

pub fn everything_bin() -> String {
    need(
        npm_prefix().join("node_modules/.bin/mcp-server-everything"),
        "@modelcontextprotocol/server-everything",
    )
}
