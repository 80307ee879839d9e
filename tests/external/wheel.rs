//! The Python wheel as a user of an MCP host gets it: built by
//! scripts/build-wheel.sh (maturin; the debug profile here, to reuse the
//! tests' build), installed into a fresh venv with no index, and launched
//! by a real host (the official MCP Python SDK) as the gateway in front of
//! the real mcp-server-time: from the venv on the host's default revision,
//! and with `uvx --from WHEEL` (the form the docs' host snippets give) on
//! the older handshake revision. maturin and uv come from
//! scripts/setup-test-deps.sh; a missing one FAILS the test.
//!
//! The manylinux wheel is checked on every run. The musllinux one (a
//! static binary) needs the musl target's standard library, which a
//! machine without rustup's servers builds from Rust's source
//! (`build-wheel.sh --musl`, docs/release.md): its test runs when asked,
//! `cargo test --test external wheel -- --ignored`.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use crate::gateway::{call, command_line, found, host, names, search, text};
use crate::mcp_support::{TempDir, need, time_bin};

pub(crate) fn wheel_venv() -> PathBuf {
    std::env::var_os("TOOLSIFT_WHEEL_VENV")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::mcp_support::home().join(".cache/toolsift-wheel-venv"))
}

/// Which wheel: glibc's (manylinux) or musl's (musllinux).
#[derive(Clone, Copy, PartialEq)]
enum Libc {
    Gnu,
    Musl,
}

impl Libc {
    /// The platform tag's family the wheel's name carries.
    fn tag(self) -> &'static str {
        match self {
            Libc::Gnu => "manylinux",
            Libc::Musl => "musllinux",
        }
    }
}

/// The wheel, built into `dir` by the one build script.
fn build(dir: &TempDir, libc: Libc) -> String {
    need(wheel_venv().join("bin/maturin"), "maturin");
    let mut script = Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/build-wheel.sh"
    ));
    script.args(["--dev", "--out", &dir.path("dist")]);
    if libc == Libc::Musl {
        script.arg("--musl");
    }
    let out = script.output().expect("scripts/build-wheel.sh runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "build-wheel.sh failed:\n{stderr}");
    let wheel = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(
        wheel.ends_with(".whl") && std::path::Path::new(&wheel).is_file(),
        "build-wheel.sh printed no wheel: {wheel:?}\n{stderr}"
    );
    assert!(
        wheel.contains(&format!("-py3-none-{}_", libc.tag())),
        "not a {} wheel: {wheel}",
        libc.tag()
    );
    assert!(
        stderr.contains("installed and run from a fresh venv"),
        "{stderr}"
    );
    wheel
}

/// A fresh venv with the wheel alone installed in it; its `toolsift`.
/// pip installs glibc's wheel; musl's, which pip takes only on a musl
/// Python, goes in by uv for that platform (the binary is static).
fn install(dir: &TempDir, wheel: &str, libc: Libc) -> String {
    let venv = dir.path("venv");
    let made = Command::new("python3")
        .args(["-m", "venv", &venv])
        .status()
        .unwrap();
    assert!(made.success());
    let installed = match libc {
        Libc::Gnu => Command::new(format!("{venv}/bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .args(["--no-index", wheel])
            .output()
            .unwrap(),
        Libc::Musl => Command::new(need(wheel_venv().join("bin/uv"), "uv"))
            .args(["pip", "install", "--quiet", "--offline", "--no-index"])
            .args(["--python", &format!("{venv}/bin/python")])
            .args(["--python-platform", "x86_64-unknown-linux-musl", wheel])
            .output()
            .unwrap(),
    };
    assert!(installed.status.success(), "install: {installed:?}");
    let bin = format!("{venv}/bin/toolsift");
    assert!(
        std::path::Path::new(&bin).is_file(),
        "the wheel put no toolsift in {venv}/bin"
    );
    bin
}

/// The host's steps: the listing, a search for the time, the call.
fn steps() -> Value {
    json!([
        {"op": "list"},
        search("what time is it in Tokyo"),
        call("get_current_time", json!({"timezone": "Asia/Tokyo"})),
    ])
}

fn servers(dir: &TempDir) -> String {
    dir.write(
        "servers.json",
        &json!({"mcpServers": {"time": {"command": time_bin(), "args": ["--local-timezone", "Etc/UTC"]}}})
            .to_string(),
    )
}

fn the_host_finds_and_calls(command: &[String], mode: &str) {
    let doc = host(&["--stdio", &command_line(command)], mode, &steps(), 1);
    let r = doc["sessions"][0].as_array().unwrap();
    assert_eq!(
        names(&r[0]),
        ["search_tools", "call_read_tool", "call_tool"],
        "{mode}: {}",
        r[0]
    );
    assert!(
        found(&r[1]).contains(&"get_current_time".to_string()),
        "{mode}: {}",
        r[1]
    );
    assert_ne!(r[2]["isError"], true, "{mode}: {}", r[2]);
    assert!(text(&r[2]).contains("Asia/Tokyo"), "{mode}: {}", r[2]);
}

fn gateway_args(servers: &str) -> Vec<String> {
    [
        "gateway",
        "--offline",
        "--start-wait",
        "60",
        "--mcp",
        servers,
    ]
    .map(String::from)
    .to_vec()
}

/// The wheel built, installed in a fresh venv, and its gateway run by a
/// real host: from the venv, then through `uvx --from WHEEL` (glibc's).
fn the_wheel_runs_the_gateway(libc: Libc) {
    let dir = TempDir::new("wheel");
    let wheel = build(&dir, libc);
    let servers = servers(&dir);

    // pipx's way: the wheel in a venv of its own, its binary run by path.
    let bin = install(&dir, &wheel, libc);
    let version = Command::new(&bin).arg("--version").output().unwrap();
    assert!(
        String::from_utf8_lossy(&version.stdout)
            .starts_with(concat!("toolsift ", env!("CARGO_PKG_VERSION"))),
        "{version:?}"
    );
    let mut command = vec![bin.clone()];
    command.extend(gateway_args(&servers));
    the_host_finds_and_calls(&command, "auto");

    // The docs' host snippet: `uvx toolsift gateway …`, the package taken
    // from the built wheel (offline: the wheel needs nothing else). uvx
    // runs a wheel for its own platform, which the musllinux one is not on
    // a glibc machine: that one answers the older revision from the venv.
    let command = match libc {
        Libc::Gnu => {
            let uvx = need(wheel_venv().join("bin/uvx"), "uvx");
            let mut command = vec![uvx, "--offline".into(), "--cache-dir".into()];
            command.extend([dir.path("uv-cache"), "--from".into(), wheel.clone()]);
            command.push("toolsift".into());
            command.extend(gateway_args(&servers));
            command
        }
        Libc::Musl => command,
    };
    // The older revision's handshake, as a host that has not moved on.
    the_host_finds_and_calls(&command, "legacy");
}

#[test]
fn the_built_wheel_runs_the_gateway_from_a_fresh_venv_and_through_uvx() {
    the_wheel_runs_the_gateway(Libc::Gnu);
}

#[test]
#[ignore = "builds the musl target's standard library where rustup cannot add it: scripts/build-wheel.sh --musl"]
fn the_musllinux_wheel_runs_the_gateway_from_a_fresh_venv_and_through_uvx() {
    the_wheel_runs_the_gateway(Libc::Musl);
}
