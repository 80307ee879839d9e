//! What the tests against real MCP servers share: where the servers are
//! installed (a missing one FAILS the test, naming the setup script), temp
//! directories, a git repository, configs, the servers' own listings, and
//! the processes a test started.

use crate::common;
pub(crate) use crate::common::{sigterm, wait_exit};

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use common::{json, run};
use serde_json::{Value, json};

pub(crate) use crate::common::installed::{
    SETUP, everything_bin, git_bin, home, need, npm_prefix, python, time_bin, venv_bin,
};

pub(crate) fn fetch_bin() -> String {
    need(venv_bin().join("mcp-server-fetch"), "mcp-server-fetch")
}

pub(crate) fn memory_bin() -> String {
    need(
        npm_prefix().join("node_modules/.bin/mcp-server-memory"),
        "@modelcontextprotocol/server-memory",
    )
}

pub(crate) fn filesystem_bin() -> String {
    need(
        npm_prefix().join("node_modules/.bin/mcp-server-filesystem"),
        "@modelcontextprotocol/server-filesystem",
    )
}

pub(crate) fn mcp_fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

/// The real servers start slowly on a loaded machine: a generous limit,
/// (the failure tests set their own short one).
pub(crate) fn run_mcp(args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend(["--mcp-timeout", "60"]);
    run(&all)
}

/// A unique word to find this test's processes by.
pub(crate) fn marker(tag: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "toolsift-mcptest-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A directory in the temp directory, removed when dropped.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(marker(tag));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub(crate) fn write(&self, name: &str, text: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    }

    pub(crate) fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A git repository for mcp-server-git, with one commit.
pub(crate) fn git_repo(dir: &TempDir) -> String {
    let repo = dir.path("repo");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-C", &repo])
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("git (needed by mcp-server-git; {SETUP} installs it): {e}"));
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    std::fs::create_dir_all(&repo).unwrap();
    git(&["init", "-q"]);
    std::fs::write(Path::new(&repo).join("README"), "hello\n").unwrap();
    git(&["add", "README"]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-q",
        "-m",
        "first",
    ]);
    repo
}

/// An `mcpServers` JSON config of `servers` (name -> entry).
pub(crate) fn mcp_json(dir: &TempDir, servers: Value) -> String {
    dir.write(
        "mcp.json",
        &serde_json::to_string_pretty(&json!({ "mcpServers": servers })).unwrap(),
    )
}

/// The three real servers as `mcpServers` entries.
pub(crate) fn real_servers(repo: &str) -> Value {
    json!({
        "time": {"command": time_bin(), "args": ["--local-timezone", "Etc/UTC"]},
        "git": {"command": git_bin(), "args": ["--repository", repo]},
        "everything": {"command": everything_bin()},
    })
}

/// The server's own tools/list (every page), read by
/// tests/fixtures/mcp/list_tools.py in plain JSON-RPC: the ground truth.
pub(crate) fn raw_tools(command: &[&str]) -> Vec<Value> {
    let out = Command::new(python())
        .arg(mcp_fixture("list_tools.py"))
        .args(command)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(out.status.success(), "list_tools.py {command:?}: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

pub(crate) fn hint(tool: &Value, name: &str) -> bool {
    tool["annotations"][name].as_bool().unwrap_or(false)
}

pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// check --json's tool_costs by name.
pub(crate) fn costs(report: &Value) -> BTreeMap<String, Value> {
    report["tool_costs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_string(), t.clone()))
        .collect()
}

/// export-catalog --format mcp's tools by name.
pub(crate) fn exported(out: &Output) -> BTreeMap<String, Value> {
    json(out)["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_string(), t.clone()))
        .collect()
}

/// PIDs of live processes whose command line or environment holds `marker`.
pub(crate) fn procs_with(marker: &str) -> Vec<u32> {
    let me = std::process::id();
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let has = |file: &str| {
            std::fs::read(entry.path().join(file))
                .map(|b| String::from_utf8_lossy(&b).contains(marker))
                .unwrap_or(false)
        };
        // A zombie has an empty cmdline and environ: it is gone.
        if has("cmdline") || has("environ") {
            pids.push(pid);
        }
    }
    pids
}

/// Waits up to `limit` for every process holding `marker` to end.
pub(crate) fn assert_gone(marker: &str, limit: Duration) {
    let start = Instant::now();
    loop {
        let left = procs_with(marker);
        if left.is_empty() {
            return;
        }
        if start.elapsed() > limit {
            let lines: Vec<String> = left
                .iter()
                .map(|p| {
                    let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
                    format!("{p}: {}", String::from_utf8_lossy(&cmd).replace('\0', " "))
                })
                .collect();
            panic!("processes left behind: {lines:#?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits up to `limit` for at least `n` processes holding `marker`.
pub(crate) fn wait_for_procs(marker: &str, n: usize, limit: Duration) {
    let start = Instant::now();
    while procs_with(marker).len() < n {
        assert!(
            start.elapsed() < limit,
            "fewer than {n} processes with {marker} appeared"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// server-everything in its streamable HTTP mode on a free loopback port,
/// killed (its whole process group) when dropped.
pub(crate) struct HttpServer {
    pub(crate) child: Child,
    pub(crate) port: u16,
}

impl HttpServer {
    pub(crate) fn start() -> HttpServer {
        let bin = everything_bin();
        for _attempt in 0..3 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let mut child = Command::new(&bin)
                .arg("streamableHttp")
                .env("PORT", port.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .process_group(0)
                .spawn()
                .unwrap();
            let (tx, rx) = std::sync::mpsc::channel();
            let err = child.stderr.take().unwrap();
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines().map_while(Result::ok) {
                    let _ = tx.send(line);
                }
            });
            let deadline = Instant::now() + Duration::from_secs(60);
            let mut seen = Vec::new();
            while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                if line.contains("listening on port") {
                    return HttpServer { child, port };
                }
                seen.push(line);
            }
            let server = HttpServer { child, port };
            drop(server);
            if seen.iter().any(|l| l.contains("already in use")) {
                continue;
            }
            panic!("server-everything streamableHttp did not start: {seen:#?}");
        }
        panic!("no free port for server-everything");
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        // SAFETY: the group is the one this test started.
        unsafe {
            libc::killpg(self.child.id() as i32, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

/// `mcpServers` entries for the fake server in `mode`, with `marker` in its
/// environment and command line.
pub(crate) fn fake(mode: &str, marker: &str, extra: &[&str]) -> Value {
    let mut args = vec![mcp_fixture("fake_server.py"), mode.to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--marker".to_string(), marker.to_string()]);
    json!({"command": python(), "args": args, "env": {"TOOLSIFT_TEST_MARKER": marker}})
}
