//! The OAuth fixture (tests/fixtures/mcp/oauth_server.py: an MCP server
//! with its own authorization server) and the browser of the login tests
//! (tests/interop/browser.py), for the files that log in.

use crate::gateway::toolsift;
use crate::mcp_support::*;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The fixture server on a free port, killed when dropped; its stderr in
/// a file (the tokens it issued).
pub(crate) struct OAuthServer {
    child: Child,
    pub(crate) url: String,
    log: String,
    /// Its command line, to start it again.
    args: Vec<String>,
}

impl OAuthServer {
    pub(crate) fn start(dir: &TempDir, expires: u32, refuse: &str) -> OAuthServer {
        OAuthServer::start_with(dir, expires, refuse, &[])
    }

    /// [`OAuthServer::start`] with the fixture's other flags.
    pub(crate) fn start_with(
        dir: &TempDir,
        expires: u32,
        refuse: &str,
        extra: &[&str],
    ) -> OAuthServer {
        let port = crate::common::redis::free_port();
        let mut args = vec![
            mcp_fixture("oauth_server.py"),
            port.to_string(),
            "--expires".to_string(),
            expires.to_string(),
            "--refuse-refresh".to_string(),
            refuse.to_string(),
        ];
        args.extend(extra.iter().map(|a| a.to_string()));
        let log = dir.path("oauth-server.log");
        let child = spawn(&args, &log, port);
        let url = format!("http://127.0.0.1:{port}/mcp");
        OAuthServer {
            child,
            url,
            log,
            args,
        }
    }

    /// Stops it and starts it again on its port: it has forgotten every
    /// client and token.
    pub(crate) fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let port: u16 = self.args[1].parse().unwrap();
        self.child = spawn(&self.args, &self.log, port);
    }

    pub(crate) fn said(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Every access and refresh token it issued.
    pub(crate) fn tokens(&self) -> Vec<String> {
        self.said()
            .lines()
            .filter_map(|l| l.strip_prefix("issued "))
            .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect()
    }
}

/// The fixture with `args`, its stderr appended to `log`, once it listens
/// on `port`.
fn spawn(args: &[String], log: &str, port: u16) -> Child {
    let err = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    let child = Command::new(python())
        .args(args)
        .stderr(err)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the OAuth fixture did not listen"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    child
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn browser() -> String {
    format!(
        "{} {}",
        python(),
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/interop/browser.py")
    )
}

pub(crate) fn run_env(args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let out = Command::new(toolsift())
        .env("TOOLSIFT_MODEL", "off")
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}
