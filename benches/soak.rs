//! A bounded soak: `cargo bench --bench soak [-- --minutes 10 --clients 8
//! --json FILE]`.
//!
//! Two `toolsift serve` instances (the release binary cargo builds for this
//! bench; `TOOLSIFT_BIN` overrides it) share one `redis-server` for sessions,
//! catalogs and vectors, with small limits so that they are reached early:
//! sessions idle out after 60 s, the shared store may take 32 MiB and its
//! entries live 120 s, each instance caches at most 32 MiB of catalogs. A
//! fake provider (the tests' own) answers the pass-through. Each client
//! thread alternates between the instances, one keep-alive connection to
//! each, and sends, in turn:
//!
//! - 50 %: the bfcl-dev catalog (2,101 tools, repeated), no session;
//! - 20 %: the same catalog, continuing the client's session;
//! - 10 %: a catalog never seen before (300 synthetic tools), a new session;
//! - 20 %: a provider call (`POST /openai/v1/responses`) in the client's
//!   session, its history calling a catalog tool (the tools are added).
//!
//! Every 10 s it samples both servers' RSS, Redis's `used_memory`, its
//! sessions and shared entries, and the bytes the shared ones take. It
//! reports the requests by kind, the errors (any transport error, any
//! status but 200 other than the documented 503s, any 200 whose answer is
//! not an answer: no `tools` array or no `session_id`), RSS at the end of
//! the warm-up (the first two fifths, while the bounded caches fill) and
//! after it, and Redis's peak memory beside its bound.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolsift::catalog::{CatalogSource, load, synthetic};

#[path = "../tests/common/fake_upstream.rs"]
#[allow(dead_code)]
mod fake_upstream;

const SHARED_MB: u64 = 32;
const SESSION_IDLE_SECS: u64 = 60;
const SHARED_TTL_SECS: u64 = 120;
const CACHE_BYTES: u64 = 32 << 20;

struct Opts {
    minutes: f64,
    clients: usize,
    json: Option<String>,
}

fn opts() -> Opts {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    Opts {
        minutes: value("--minutes")
            .and_then(|v| v.parse().ok())
            .unwrap_or(10.0),
        clients: value("--clients").and_then(|v| v.parse().ok()).unwrap_or(8),
        json: value("--json"),
    }
}

struct Proc {
    child: Child,
    url: String,
}

impl Proc {
    fn serve(args: &[&str]) -> Proc {
        use std::io::{BufRead, BufReader, Read};
        let bin = std::env::var_os("TOOLSIFT_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_toolsift")));
        let mut child = Command::new(bin)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .env_remove("CAVE_BASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start toolsift serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("the listening line");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        // The access log, drained.
        let mut stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            while stderr.read(&mut buf).is_ok_and(|n| n > 0) {}
        });
        Proc { child, url }
    }

    fn rss_mb(&self) -> f64 {
        rss_mb(self.child.id())
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn rss_mb(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn redis_cli(port: u16, args: &[&str]) -> String {
    Command::new("redis-cli")
        .args(["-p", &port.to_string()])
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// What the shared catalogs and vectors take in the store now: their keys'
/// and values' bytes, in MiB (the budget bounds these, plus about 96
/// bytes of the store's own per entry).
fn shared_live_mb(port: u16) -> f64 {
    let mut script = String::new();
    for pattern in ["toolsift:catalog:*", "toolsift:vec:*"] {
        for key in redis_cli(port, &["--scan", "--pattern", pattern]).lines() {
            script.push_str(&format!("STRLEN {key}\n"));
        }
    }
    let keys_bytes: usize = script.lines().map(|l| l.len() - "STRLEN ".len()).sum();
    let out = Command::new("redis-cli")
        .args(["-p", &port.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(script.as_bytes())?;
            child.wait_with_output()
        })
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let values: f64 = out
        .lines()
        .filter_map(|l| l.trim().parse::<f64>().ok())
        .sum();
    (values + keys_bytes as f64) / (1024.0 * 1024.0)
}

/// Keys matching `pattern`.
fn keys(port: u16, pattern: &str) -> usize {
    redis_cli(port, &["--scan", "--pattern", pattern])
        .lines()
        .count()
}

fn redis_used_mb(port: u16) -> f64 {
    redis_cli(port, &["INFO", "memory"])
        .lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map_or(f64::NAN, |b| b / (1024.0 * 1024.0))
}

#[derive(Default)]
struct Tally {
    by_kind: [AtomicU64; 4],
    ok: AtomicU64,
    documented_503: AtomicU64,
    errors: AtomicU64,
    first_errors: Mutex<Vec<String>>,
}

impl Tally {
    fn error(&self, what: String) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut first = self.first_errors.lock().unwrap();
        if first.len() < 10 {
            first.push(what);
        }
    }
}

const KINDS: [&str; 4] = ["repeated", "session", "new catalog", "provider call"];

struct Work {
    bfcl: String,
    names: Vec<String>,
    queries: Vec<String>,
}

/// One client: `seed` tells its new catalogs from every other's.
fn client(work: &Work, servers: &[String], seed: u64, stop: &AtomicBool, tally: &Tally) {
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let mut session: Option<String> = None;
    let mut k: u64 = 0;
    while !stop.load(Ordering::Relaxed) {
        let server = &servers[(k % servers.len() as u64) as usize];
        let query = &work.queries[(seed as usize * 31 + k as usize) % work.queries.len()];
        let slot = k % 20;
        let kind = match slot {
            0..=9 => 0,
            10..=13 if session.is_some() => 1,
            14 | 15 => 2,
            16..=19 if session.is_some() => 3,
            _ => 0,
        };
        tally.by_kind[kind].fetch_add(1, Ordering::Relaxed);
        let q = serde_json::to_string(query).unwrap();
        let (path, body, id) = match kind {
            0 | 1 => {
                let s = match (kind, &session) {
                    (1, Some(id)) => format!(",\"session_id\":{}", json!(id)),
                    _ => String::new(),
                };
                (
                    "/sdk/v1/tool-search",
                    format!("{{\"tools\":{},\"query\":{q}{s}}}", work.bfcl),
                    None,
                )
            }
            2 => {
                let c = synthetic::generate(300, seed << 32 | k);
                let tools: Vec<Value> = c
                    .tools()
                    .iter()
                    .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
                    .collect();
                (
                    "/sdk/v1/tool-search",
                    json!({"tools": tools, "query": query}).to_string(),
                    None,
                )
            }
            _ => {
                let name = &work.names[(k as usize * 7) % work.names.len()];
                let body = json!({"model": "m", "input": [
                    {"type": "function_call", "name": name, "call_id": "c", "arguments": "{}"},
                    {"type": "function_call_output", "call_id": "c", "output": "ok"},
                ]});
                ("/openai/v1/responses", body.to_string(), session.clone())
            }
        };
        let mut request = http
            .post(format!("{server}{path}"))
            .header("content-type", "application/json")
            .body(body);
        if let Some(id) = &id {
            request = request.header("x-cave-tool-session", id);
        }
        match request.send() {
            Err(e) => tally.error(format!("{}: {e}", KINDS[kind])),
            Ok(r) => {
                let status = r.status().as_u16();
                let v: Value = r.json().unwrap_or(Value::Null);
                let code = v["error"]["code"].as_str().unwrap_or_default().to_string();
                match status {
                    200 if kind == 3 => tally.ok.fetch_add(1, Ordering::Relaxed),
                    // An answer, possibly with no tool (a request nothing fits).
                    200 if v["tools"].is_array() && v["session_id"].is_string() => {
                        if kind != 2 {
                            session = v["session_id"].as_str().map(str::to_string);
                        }
                        tally.ok.fetch_add(1, Ordering::Relaxed)
                    }
                    503 if ["overloaded", "session_store_unavailable"].contains(&code.as_str()) => {
                        tally.documented_503.fetch_add(1, Ordering::Relaxed)
                    }
                    _ => {
                        tally.error(format!("{}: {status} {}", KINDS[kind], v));
                        0
                    }
                };
            }
        }
        k += 1;
    }
}

fn main() {
    toolsift::http::client::install_tls();
    let o = opts();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("eval/bfcl-dev");
    let catalog = load(&CatalogSource::Path(dir.join("catalog.json"))).expect("bfcl catalog");
    let queries = toolsift::eval::load_queries(&dir.join("queries-dev.jsonl")).expect("queries");
    let work = Work {
        bfcl: serde_json::to_string(
            &catalog
                .tools()
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
                .collect::<Vec<_>>(),
        )
        .unwrap(),
        names: catalog.tools().iter().map(|t| t.name.clone()).collect(),
        queries: queries.iter().map(|q| q.query.clone()).collect(),
    };

    let redis_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let redis_dir = std::env::temp_dir().join(format!("toolsift-soak-{}", std::process::id()));
    std::fs::create_dir_all(&redis_dir).unwrap();
    let mut redis = Command::new("redis-server")
        .args(["--port", &redis_port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(&redis_dir)
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server (scripts/setup-test-deps.sh installs it)");
    while std::net::TcpStream::connect(("127.0.0.1", redis_port)).is_err() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let upstream = fake_upstream::FakeUpstream::start();
    let config = redis_dir.join("soak.toml");
    std::fs::write(
        &config,
        format!("[serve]\nsession_idle_secs = {SESSION_IDLE_SECS}\ncache_bytes = {CACHE_BYTES}\n"),
    )
    .unwrap();
    let sessions = format!("redis://127.0.0.1:{redis_port}/0");
    let up = format!("openai={}/v1", upstream.url);
    let (mb, ttl) = (SHARED_MB.to_string(), SHARED_TTL_SECS.to_string());
    let args = [
        "--config",
        config.to_str().unwrap(),
        "--sessions",
        &sessions,
        "--shared-cache-mb",
        &mb,
        "--shared-cache-ttl-secs",
        &ttl,
        "--upstream",
        &up,
    ];
    let procs = [Proc::serve(&args), Proc::serve(&args)];
    let servers: Vec<String> = procs.iter().map(|p| p.url.clone()).collect();
    let total = Duration::from_secs_f64(o.minutes * 60.0);
    // The caches are bounded, but new catalogs take minutes to fill them
    // (about four at this load).
    let warm_up = total * 2 / 5;
    println!(
        "soak: {} min, {} clients, 2 instances, redis-server {}; bfcl-dev ({} tools) repeated, 300-tool catalogs new",
        o.minutes,
        o.clients,
        redis_cli(redis_port, &["INFO", "server"])
            .lines()
            .find_map(|l| l.strip_prefix("redis_version:"))
            .unwrap_or("?")
            .trim(),
        catalog.len()
    );

    let stop = AtomicBool::new(false);
    let tally = Tally::default();
    let samples: Mutex<Vec<Value>> = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|s| {
        for c in 0..o.clients {
            let (work, servers, stop, tally) = (&work, &servers, &stop, &tally);
            s.spawn(move || client(work, servers, c as u64 + 1, stop, tally));
        }
        while started.elapsed() < total {
            std::thread::sleep(Duration::from_secs(10));
            let sample = json!({
                "s": started.elapsed().as_secs(),
                "rss_mb": [procs[0].rss_mb(), procs[1].rss_mb()],
                "redis_mb": redis_used_mb(redis_port),
                "redis_keys": redis_cli(redis_port, &["DBSIZE"]).trim().parse::<u64>().unwrap_or(0),
                "sessions": keys(redis_port, "toolsift:session:*"),
                "shared_catalogs": keys(redis_port, "toolsift:catalog:*"),
                "shared_vectors": keys(redis_port, "toolsift:vec:*"),
                "shared_live_mb": shared_live_mb(redis_port),
                "requests": tally.by_kind.iter().map(|n| n.load(Ordering::Relaxed)).sum::<u64>(),
            });
            println!("  {sample}");
            samples.lock().unwrap().push(sample);
        }
        stop.store(true, Ordering::Relaxed);
    });
    let elapsed = started.elapsed().as_secs_f64();
    let samples = samples.into_inner().unwrap();
    let at = |s: &Value, i: usize| s["rss_mb"][i].as_f64().unwrap_or(f64::NAN);
    let after: Vec<&Value> = samples
        .iter()
        .filter(|s| s["s"].as_u64().unwrap_or(0) >= warm_up.as_secs())
        .collect();
    let rss = |i: usize| {
        let first = after.first().map_or(f64::NAN, |s| at(s, i));
        let last = after.last().map_or(f64::NAN, |s| at(s, i));
        let max = after.iter().map(|s| at(s, i)).fold(f64::NAN, f64::max);
        json!({"after_warm_up": first, "end": last, "max": max})
    };
    let shared_peak = samples
        .iter()
        .filter_map(|s| s["shared_live_mb"].as_f64())
        .fold(0f64, f64::max);
    let redis_peak = samples
        .iter()
        .filter_map(|s| s["redis_mb"].as_f64())
        .fold(f64::NAN, f64::max);
    let requests: u64 = tally
        .by_kind
        .iter()
        .map(|n| n.load(Ordering::Relaxed))
        .sum();
    let report = json!({
        "minutes": o.minutes,
        "clients": o.clients,
        "requests": requests,
        "requests_per_s": requests as f64 / elapsed,
        "by_kind": KINDS.iter().zip(&tally.by_kind).map(|(k, n)| (k.to_string(), json!(n.load(Ordering::Relaxed)))).collect::<serde_json::Map<_, _>>(),
        "ok": tally.ok.load(Ordering::Relaxed),
        "documented_503": tally.documented_503.load(Ordering::Relaxed),
        "errors": tally.errors.load(Ordering::Relaxed),
        "first_errors": *tally.first_errors.lock().unwrap(),
        "rss_mb": [rss(0), rss(1)],
        "redis_peak_mb": redis_peak,
        "shared_live_peak_mb": shared_peak,
        "limits": {"shared_mb": SHARED_MB, "shared_ttl_secs": SHARED_TTL_SECS, "session_idle_secs": SESSION_IDLE_SECS, "cache_bytes": CACHE_BYTES},
        "upstream_calls": upstream.seen().len(),
    });
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
    if let Some(path) = o.json {
        let full = json!({"report": report, "samples": samples});
        std::fs::write(&path, serde_json::to_string_pretty(&full).unwrap()).expect("write --json");
    }
    drop(procs);
    let _ = redis.kill();
    let _ = redis.wait();
    let _ = std::fs::remove_dir_all(&redis_dir);
}
