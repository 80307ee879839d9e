//! Load benchmark of `toolsift serve`: `cargo bench --bench serve_load`.
//!
//! Starts the release `toolsift serve --addr 127.0.0.1:0` (the binary cargo
//! builds for this bench, `CARGO_BIN_EXE_toolsift`; `TOOLSIFT_BIN` overrides
//! it), waits for its `listening on` line, and sends it the bfcl-dev catalog
//! (2,101 tools, ~1.3 MB per body) from concurrent clients, one blocking
//! reqwest client and connection per thread, queries cycling through
//! queries-dev.jsonl, one request in three without a session and the others
//! continuing a session of their own (8 requests each). The catalog part of
//! the body is serialised once; each request splices in its query and
//! session. Then the same load against the naive Python service
//! (`scripts/baselines/naive_service.py`: a bm25s index built per request)
//! when the baselines' venv exists.
//!
//! Reports requests/s, latency percentiles, errors (any transport error,
//! non-2xx status or malformed answer), the server's CPU per request and its
//! RSS (VmRSS) before the load, during it (sampled every 0.5 s, max) and
//! after, and the in-process floor: parsing the body with serde_json,
//! `catalog::parse`, hashing, and `Service::tool_search_json` on a repeated
//! catalog, so the HTTP latency can be read against it.
//!
//! Flags (environment in brackets):
//!   --clients N   concurrent clients (TOOLSIFT_LOAD_CLIENTS; default 8)
//!   --seconds T   length of the loaded run (TOOLSIFT_LOAD_SECONDS; default 10)
//!   --long        toolsift's run 10x longer, and whether RSS stays flat
//!                 after warm-up (TOOLSIFT_LOAD_LONG=1)
//!   --no-baseline toolsift alone
//!   --no-redis    without the two-instance run: after the one instance with
//!                 memory sessions, two instances with `--sessions redis://`
//!                 sharing a `redis-server` the bench starts (free loopback
//!                 port, no persistence), each session's turns alternating
//!                 between the instances
//!   --json OUT    also write the figures as JSON
//! `TOOLSIFT_BENCH_QUICK=1` makes it a 3 s run. Network: loopback only.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use toolsift::catalog::{CatalogSource, SourceKind, load};
use toolsift::eval::load_queries;
use toolsift::service::Service;
use toolsift::wire::{TOOL_SEARCH_PATH, ToolSearchRequest, WireTool};

/// Every client stops after this many requests, whatever the time.
const MAX_REQUESTS_PER_CLIENT: usize = 1_000_000;
/// Requests of one session before a client starts a new one.
const SESSION_TURNS: usize = 8;
const MAX_TOOLS: u64 = 10;
const SAMPLE_EVERY: Duration = Duration::from_millis(500);
/// /proc/PID/stat counts CPU time in these (USER_HZ, 100 on Linux).
const TICKS_PER_SECOND: f64 = 100.0;

struct Opts {
    clients: usize,
    seconds: f64,
    long: bool,
    baseline: bool,
    redis: bool,
    json: Option<String>,
}

fn env_parse<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

fn opts() -> Opts {
    let quick = std::env::var_os("TOOLSIFT_BENCH_QUICK").is_some();
    let mut o = Opts {
        clients: env_parse("TOOLSIFT_LOAD_CLIENTS").unwrap_or(8),
        seconds: env_parse("TOOLSIFT_LOAD_SECONDS").unwrap_or(if quick { 3.0 } else { 10.0 }),
        long: std::env::var("TOOLSIFT_LOAD_LONG").is_ok_and(|v| v == "1"),
        baseline: true,
        redis: true,
        json: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let next = args.get(i + 1);
        match args[i].as_str() {
            "--clients" => {
                o.clients = next.and_then(|v| v.parse().ok()).expect("--clients N");
                i += 1;
            }
            "--seconds" => {
                o.seconds = next.and_then(|v| v.parse().ok()).expect("--seconds T");
                i += 1;
            }
            "--json" => {
                o.json = Some(next.expect("--json OUT").clone());
                i += 1;
            }
            "--long" => o.long = true,
            "--no-baseline" => o.baseline = false,
            "--no-redis" => o.redis = false,
            // `cargo bench` passes --bench; anything else is ignored too.
            _ => {}
        }
        i += 1;
    }
    o.clients = o.clients.clamp(1, 256);
    o.seconds = o.seconds.clamp(0.5, 600.0);
    o
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p / 100.0).round() as usize;
    sorted[i]
}

/// Runs `f` at least `min_runs` times and for at least `budget`; sorted ms.
fn timed(min_runs: usize, budget: Duration, mut f: impl FnMut(usize)) -> Vec<f64> {
    let mut ms = Vec::new();
    let start = Instant::now();
    while ms.len() < min_runs || (start.elapsed() < budget && ms.len() < 100_000) {
        let t = Instant::now();
        f(ms.len());
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    ms
}

fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// User + system CPU seconds of a process (`self` or a pid).
fn cpu_seconds(who: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{who}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of stat(5); `after` starts at field 3.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / TICKS_PER_SECOND)
}

fn mb(kb: u64) -> f64 {
    kb as f64 / 1024.0
}

/// A service process: started, its `listening on` line read, its stderr
/// drained in the background (toolsift writes one access-log line per
/// request), killed on drop.
struct Proc {
    child: Child,
    url: String,
    log_lines: Arc<Mutex<(u64, VecDeque<String>)>>,
}

impl Proc {
    fn start(mut cmd: Command) -> Result<Proc, String> {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
        let log_lines = Arc::new(Mutex::new((0u64, VecDeque::new())));
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let sink = log_lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
                s.0 += 1;
                s.1.push_back(line);
                if s.1.len() > 8 {
                    s.1.pop_front();
                }
            }
        });
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send(line);
            // Keep draining whatever else it prints.
            let mut sink = Vec::new();
            let _ = reader.read_to_end(&mut sink);
        });
        let mut proc = Proc {
            child,
            url: String::new(),
            log_lines,
        };
        let line = rx.recv_timeout(Duration::from_secs(60)).unwrap_or_default();
        match line.trim().strip_prefix("listening on ") {
            Some(url) if url.starts_with("http://127.0.0.1:") => {
                proc.url = url.to_string();
                Ok(proc)
            }
            _ => {
                std::thread::sleep(Duration::from_millis(200));
                Err(format!(
                    "no `listening on http://127.0.0.1:...` line (got {line:?}); stderr: {}",
                    proc.log_tail()
                ))
            }
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn log_tail(&self) -> String {
        let s = self.log_lines.lock().unwrap_or_else(|p| p.into_inner());
        s.1.iter().cloned().collect::<Vec<_>>().join(" | ")
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The request bodies: the catalog prefix serialised once, the queries as
/// JSON strings.
struct Workload {
    prefix: Vec<u8>,
    queries: Vec<String>,
}

impl Workload {
    fn body(&self, query: usize, session: Option<&str>) -> Vec<u8> {
        let q = &self.queries[query % self.queries.len()];
        let mut b = Vec::with_capacity(self.prefix.len() + q.len() + 96);
        b.extend_from_slice(&self.prefix);
        b.extend_from_slice(q.as_bytes());
        b.extend_from_slice(format!(",\"max_tools\":{MAX_TOOLS}").as_bytes());
        if let Some(s) = session {
            b.extend_from_slice(format!(",\"session_id\":\"{s}\"").as_bytes());
        }
        b.push(b'}');
        b
    }
}

/// Request `i` of client `c` in phase `tag`: one in three without a session,
/// the others in sessions of `SESSION_TURNS` requests.
fn session_of(tag: &str, c: usize, i: usize) -> Option<String> {
    (!i.is_multiple_of(3)).then(|| format!("load-{tag}-{c}-{}", i / (SESSION_TURNS * 3 / 2)))
}

/// Sends one request; the latency in ms, or what went wrong.
fn request(
    http: &reqwest::blocking::Client,
    url: &str,
    body: Vec<u8>,
    session: Option<&str>,
) -> Result<f64, String> {
    let t = Instant::now();
    let response = http
        .post(url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .map_err(|e| format!("transport: {e}"))?;
    let status = response.status();
    let bytes = response.bytes().map_err(|e| format!("reading: {e}"))?;
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    if !status.is_success() {
        let text = String::from_utf8_lossy(&bytes);
        return Err(format!(
            "HTTP {status}: {}",
            text.chars().take(200).collect::<String>()
        ));
    }
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| format!("bad JSON answer: {e}"))?;
    let tools_ok = v["tools"]
        .as_array()
        .is_some_and(|t| t.len() as u64 <= MAX_TOOLS && t.iter().all(|x| x["name"].is_string()));
    let sid = v["session_id"].as_str();
    let session_ok = match session {
        Some(s) => sid == Some(s),
        None => sid.is_some_and(|s| !s.is_empty()),
    };
    if !tools_ok || !session_ok {
        return Err(format!(
            "bad answer: {}",
            String::from_utf8_lossy(&bytes)
                .chars()
                .take(200)
                .collect::<String>()
        ));
    }
    Ok(ms)
}

#[derive(Default)]
struct Phase {
    clients: usize,
    seconds: f64,
    requests: usize,
    errors: usize,
    error_samples: Vec<String>,
    latency_ms: Vec<f64>,
    rss_before_kb: u64,
    rss_max_kb: u64,
    rss_after_kb: u64,
    /// (seconds since the start, VmRSS kB, requests answered so far)
    rss_series: Vec<(f64, u64, usize)>,
    server_cpu_s: f64,
    client_cpu_s: f64,
}

impl Phase {
    fn rps(&self) -> f64 {
        self.requests as f64 / self.seconds
    }

    fn p(&self, q: f64) -> f64 {
        percentile(&self.latency_ms, q)
    }

    fn to_json(&self) -> Value {
        json!({
            "clients": self.clients,
            "seconds": self.seconds,
            "requests": self.requests,
            "errors": self.errors,
            "error_samples": self.error_samples,
            "requests_per_second": self.rps(),
            "latency_ms": {
                "p50": self.p(50.0), "p90": self.p(90.0), "p99": self.p(99.0),
                "max": self.latency_ms.last().copied().unwrap_or(f64::NAN),
            },
            "server_cpu_ms_per_request": 1000.0 * self.server_cpu_s / self.requests.max(1) as f64,
            "client_cpu_ms_per_request": 1000.0 * self.client_cpu_s / self.requests.max(1) as f64,
            "rss_mb": {
                "before": mb(self.rss_before_kb),
                "during_max": mb(self.rss_max_kb),
                "after": mb(self.rss_after_kb),
            },
        })
    }

    fn print(&self, label: &str, floor_ms: Option<f64>) {
        let vs = floor_ms.map_or_else(String::new, |f| {
            format!(" = {:.1}x the in-process p50", self.p(50.0) / f)
        });
        println!(
            "  {label}: {} clients, {} requests in {:.1} s: {:.1} requests/s; latency p50 {:.2} ms{vs}, p90 {:.2} ms, p99 {:.2} ms, max {:.1} ms; errors {}",
            self.clients,
            self.requests,
            self.seconds,
            self.rps(),
            self.p(50.0),
            self.p(90.0),
            self.p(99.0),
            self.latency_ms.last().copied().unwrap_or(f64::NAN),
            self.errors
        );
        println!(
            "    CPU per request: server {:.2} ms, clients {:.2} ms; server RSS before {:.1} MB, during (max) {:.1} MB, after {:.1} MB",
            1000.0 * self.server_cpu_s / self.requests.max(1) as f64,
            1000.0 * self.client_cpu_s / self.requests.max(1) as f64,
            mb(self.rss_before_kb),
            mb(self.rss_max_kb),
            mb(self.rss_after_kb)
        );
        for e in self.error_samples.iter().take(3) {
            println!("    error: {e}");
        }
    }
}

/// `clients` clients for `duration` against `url`; `pid` is the server's.
fn run_phase(
    url: &str,
    pid: u32,
    work: &Arc<Workload>,
    clients: usize,
    duration: Duration,
    tag: &str,
) -> Phase {
    run_phase_on(&[(url.to_string(), pid)], work, clients, duration, tag)
}

/// RSS of several processes together.
fn rss_sum(pids: &[u32]) -> Option<u64> {
    pids.iter().map(|p| rss_kb(*p)).sum()
}

fn cpu_sum(pids: &[u32]) -> Option<f64> {
    pids.iter().map(|p| cpu_seconds(&p.to_string())).sum()
}

/// [`run_phase`] over several instances: request `i` of client `c` goes to
/// instance `(c + i) % n`, so a session's turns move between instances.
/// RSS and CPU are the instances' sums.
fn run_phase_on(
    servers: &[(String, u32)],
    work: &Arc<Workload>,
    clients: usize,
    duration: Duration,
    tag: &str,
) -> Phase {
    let endpoints: Arc<Vec<String>> = Arc::new(
        servers
            .iter()
            .map(|(url, _)| format!("{url}{TOOL_SEARCH_PATH}"))
            .collect(),
    );
    let pids: Vec<u32> = servers.iter().map(|(_, pid)| *pid).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicUsize::new(0));
    let start_line = Arc::new(Barrier::new(clients + 1));
    let rss_before = rss_sum(&pids).unwrap_or(0);
    let sampler = {
        let (stop, done, pids) = (stop.clone(), done.clone(), pids.clone());
        std::thread::spawn(move || {
            let t0 = Instant::now();
            let mut series = Vec::new();
            // Bounded: the phase is at most 600 s plus slack.
            while !stop.load(Ordering::Relaxed) && t0.elapsed() < Duration::from_secs(900) {
                if let Some(kb) = rss_sum(&pids) {
                    series.push((t0.elapsed().as_secs_f64(), kb, done.load(Ordering::Relaxed)));
                }
                std::thread::sleep(SAMPLE_EVERY);
            }
            series
        })
    };
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let (work, endpoints, start_line) =
                (work.clone(), endpoints.clone(), start_line.clone());
            let (tag, done) = (tag.to_string(), done.clone());
            std::thread::spawn(move || {
                let http = reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(30))
                    .build();
                start_line.wait();
                let Ok(http) = http else {
                    return (
                        Vec::new(),
                        1,
                        vec!["cannot build the HTTP client".to_string()],
                    );
                };
                let deadline = Instant::now() + duration;
                let first_query = c * work.queries.len() / clients;
                let (mut lat, mut errors, mut samples) = (Vec::new(), 0usize, Vec::new());
                for i in 0..MAX_REQUESTS_PER_CLIENT {
                    if Instant::now() >= deadline {
                        break;
                    }
                    let session = session_of(&tag, c, i);
                    let body = work.body(first_query + i, session.as_deref());
                    let endpoint = &endpoints[(c + i) % endpoints.len()];
                    let answer = request(&http, endpoint, body, session.as_deref());
                    done.fetch_add(1, Ordering::Relaxed);
                    match answer {
                        Ok(ms) => lat.push(ms),
                        Err(e) => {
                            errors += 1;
                            if samples.len() < 3 {
                                samples.push(e);
                            }
                        }
                    }
                }
                (lat, errors, samples)
            })
        })
        .collect();
    let (server_cpu0, client_cpu0) = (cpu_sum(&pids), cpu_seconds("self"));
    start_line.wait();
    let t0 = Instant::now();
    let mut phase = Phase {
        clients,
        rss_before_kb: rss_before,
        ..Phase::default()
    };
    for w in workers {
        let (lat, errors, samples) = w
            .join()
            .unwrap_or_else(|_| (Vec::new(), 1, vec!["a client thread panicked".to_string()]));
        phase.requests += lat.len() + errors;
        phase.errors += errors;
        phase.latency_ms.extend(lat);
        phase.error_samples.extend(samples);
    }
    phase.seconds = t0.elapsed().as_secs_f64();
    phase.server_cpu_s = cpu_sum(&pids).unwrap_or(0.0) - server_cpu0.unwrap_or(0.0);
    phase.client_cpu_s = cpu_seconds("self").unwrap_or(0.0) - client_cpu0.unwrap_or(0.0);
    stop.store(true, Ordering::Relaxed);
    phase.rss_series = sampler.join().unwrap_or_default();
    phase.rss_max_kb = phase.rss_series.iter().map(|s| s.1).max().unwrap_or(0);
    std::thread::sleep(Duration::from_secs(1));
    phase.rss_after_kb = rss_sum(&pids).unwrap_or(0);
    phase.latency_ms.sort_by(f64::total_cmp);
    phase
}

/// Whether RSS stays flat after warm-up, taken as the first half of the
/// run (the session table fills to its cap of 10,000 in about a minute at
/// this load, and the caches hold one catalog): the RSS at half time, the
/// max and last after it, the least-squares slope over the second half, and
/// requests/s per tenth of the run.
fn flatness(series: &[(f64, u64, usize)], seconds: f64) -> Value {
    let warm_t = seconds * 0.5;
    let Some(&(_, warm_kb, _)) = series.iter().find(|s| s.0 >= warm_t) else {
        return json!(null);
    };
    let after: Vec<&(f64, u64, usize)> = series.iter().filter(|s| s.0 >= warm_t).collect();
    let max_kb = after.iter().map(|s| s.1).max().unwrap_or(warm_kb);
    let last_kb = after.last().map_or(warm_kb, |s| s.1);
    let n = after.len() as f64;
    let (mt, mr) = (
        after.iter().map(|s| s.0).sum::<f64>() / n,
        after.iter().map(|s| mb(s.1)).sum::<f64>() / n,
    );
    let cov: f64 = after.iter().map(|s| (s.0 - mt) * (mb(s.1) - mr)).sum();
    let var: f64 = after.iter().map(|s| (s.0 - mt).powi(2)).sum();
    let slope = if var > 0.0 { 60.0 * cov / var } else { 0.0 };
    let growth = mb(max_kb) - mb(warm_kb);
    // Flat: never more than 10 % above the half-time RSS.
    let flat = growth <= 0.10 * mb(warm_kb);
    let tenths: Vec<f64> = (1..=10)
        .filter_map(|k| {
            let (a, b) = (seconds * (k - 1) as f64 / 10.0, seconds * k as f64 / 10.0);
            let at = |t: f64| series.iter().find(|s| s.0 >= t).map(|s| (s.0, s.2));
            let ((ta, ra), (tb, rb)) =
                (at(a)?, at(b).or_else(|| series.last().map(|s| (s.0, s.2)))?);
            (tb > ta).then(|| (rb - ra) as f64 / (tb - ta))
        })
        .collect();
    json!({
        "warm_up_seconds": warm_t,
        "rss_at_warm_up_mb": mb(warm_kb),
        "rss_max_after_warm_up_mb": mb(max_kb),
        "rss_last_mb": mb(last_kb),
        "growth_mb": growth,
        "slope_mb_per_minute": slope,
        "flat": flat,
        "requests_per_second_by_tenth": tenths,
    })
}

fn machine() -> (String, usize) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cpu, cores)
}

/// Today's UTC date, YYYY-MM-DD.
fn today() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn toolsift_bin() -> PathBuf {
    std::env::var_os("TOOLSIFT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_toolsift")))
}

fn python_bin() -> PathBuf {
    let venv = std::env::var_os("TOOLSIFT_VENV").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/toolsift-venv"),
        PathBuf::from,
    );
    venv.join("bin/python")
}

/// Sequential requests before the timed run (the first one builds the
/// index and counts the tokens).
fn warm_up(url: &str, work: &Workload, n: usize) -> Result<Vec<f64>, String> {
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .map_err(|e| e.to_string())?;
    let endpoint = format!("{url}{TOOL_SEARCH_PATH}");
    (0..n)
        .map(|i| request(&http, &endpoint, work.body(i, None), None))
        .collect()
}

/// The unloaded run (one client), then the loaded one, for a started service.
fn measure(
    name: &str,
    proc: &Proc,
    work: &Arc<Workload>,
    o: &Opts,
    seconds: f64,
) -> Result<(Phase, Phase, Value), String> {
    let pid = proc.pid();
    let rss_idle = rss_kb(pid).unwrap_or(0);
    let warm = warm_up(&proc.url, work, 3)?;
    let rss_warm = rss_kb(pid).unwrap_or(0);
    let one = run_phase(
        &proc.url,
        pid,
        work,
        1,
        Duration::from_secs_f64(seconds.min(3.0)),
        &format!("{name}-1"),
    );
    let load = run_phase(
        &proc.url,
        pid,
        work,
        o.clients,
        Duration::from_secs_f64(seconds),
        &format!("{name}-n"),
    );
    let extra = json!({
        "rss_idle_mb": mb(rss_idle),
        "rss_after_warm_up_mb": mb(rss_warm),
        "first_request_ms": warm.first(),
        "log_lines": proc.log_lines.lock().map(|s| s.0).unwrap_or(0),
    });
    Ok((one, load, extra))
}

fn main() {
    // reqwest here uses rustls without a built-in provider: install ring.
    toolsift::tls::install_provider();
    let o = opts();
    let (cpu, cores) = machine();
    let date = today();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = manifest.join("eval/bfcl-dev");
    let catalog = load(&CatalogSource::Path(dir.join("catalog.json"))).expect("bfcl catalog");
    let queries = load_queries(&dir.join("queries-dev.jsonl")).expect("bfcl queries");
    let tools_json = serde_json::to_string(
        &catalog
            .tools()
            .iter()
            .map(WireTool::from)
            .collect::<Vec<_>>(),
    )
    .expect("tools json");
    let work = Arc::new(Workload {
        prefix: format!("{{\"tools\":{tools_json},\"query\":").into_bytes(),
        queries: queries
            .iter()
            .map(|q| serde_json::to_string(&q.query).expect("query json"))
            .collect(),
    });
    let load_seconds = if o.long { o.seconds * 10.0 } else { o.seconds };
    let body0 = work.body(0, None);
    println!(
        "serve_load: bfcl-dev catalog, {} tools, {:.2} MB per request body; {} queries; {} clients x {:.0} s{}; {cpu}, {cores} cores; {date}",
        catalog.len(),
        body0.len() as f64 / 1e6,
        queries.len(),
        o.clients,
        load_seconds,
        if o.long { " (--long)" } else { "" }
    );

    // The floor, in process, one thread, before any server runs.
    let budget = Duration::from_millis(1500);
    let value_ms = timed(10, budget, |_| {
        std::hint::black_box(serde_json::from_slice::<Value>(&body0).expect("json"));
    });
    let wire_ms = timed(10, budget, |_| {
        std::hint::black_box(serde_json::from_slice::<ToolSearchRequest>(&body0).expect("wire"));
    });
    let hash_ms = timed(10, budget, |_| {
        std::hint::black_box(xxhash_rust::xxh3::xxh3_128(tools_json.as_bytes()));
    });
    let parse_ms = timed(10, budget, |_| {
        std::hint::black_box(
            toolsift::catalog::parse(&tools_json, "request", "request", SourceKind::Json)
                .expect("catalog"),
        );
    });
    let service = Service::default();
    let t = Instant::now();
    service
        .tool_search_json(&body0, None)
        .expect("first request");
    let first_in_process_ms = t.elapsed().as_secs_f64() * 1000.0;
    let bodies: Vec<(Vec<u8>, Option<String>)> = (0..64)
        .map(|i| {
            let s = session_of("floor", 0, i);
            (work.body(i, s.as_deref()), s)
        })
        .collect();
    let service_ms = timed(50, budget, |i| {
        let answer = service
            .tool_search_json(&bodies[i % bodies.len()].0, None)
            .expect("request");
        std::hint::black_box(serde_json::to_vec(&answer).expect("answer"));
    });
    drop(service);
    let floor_p50 = percentile(&service_ms, 50.0);
    println!("floor (in process, one thread):");
    for (label, ms) in [
        ("body -> serde_json::Value", &value_ms),
        ("body -> wire request (catalog kept raw)", &wire_ms),
        ("xxh3-128 of the catalog text", &hash_ms),
        ("catalog::parse (a new catalog)", &parse_ms),
        (
            "Service::tool_search_json + answer to JSON, repeated catalog",
            &service_ms,
        ),
    ] {
        println!(
            "  {label}: p50 {:.2} ms, p99 {:.2} ms ({} runs)",
            percentile(ms, 50.0),
            percentile(ms, 99.0),
            ms.len()
        );
    }
    println!(
        "  (first request in process, index built and tokens counted: {first_in_process_ms:.0} ms)"
    );
    let floor = json!({
        "body_to_value_ms_p50": percentile(&value_ms, 50.0),
        "body_to_wire_request_ms_p50": percentile(&wire_ms, 50.0),
        "hash_catalog_ms_p50": percentile(&hash_ms, 50.0),
        "catalog_parse_ms_p50": percentile(&parse_ms, 50.0),
        "tool_search_json_repeated_ms_p50": floor_p50,
        "tool_search_json_repeated_ms_p99": percentile(&service_ms, 99.0),
        "first_request_in_process_ms": first_in_process_ms,
    });

    // toolsift serve.
    let bin = toolsift_bin();
    let mut cmd = Command::new(&bin);
    cmd.args(["serve", "--addr", "127.0.0.1:0"])
        .env_remove("CAVE_BASE_URL");
    let server = Proc::start(cmd).unwrap_or_else(|e| panic!("toolsift serve ({bin:?}): {e}"));
    println!("toolsift serve ({}), {}:", bin.display(), server.url);
    let (one, loaded, extra) = measure("ts", &server, &work, &o, load_seconds)
        .unwrap_or_else(|e| panic!("toolsift serve: {e}"));
    let health: Option<Value> = reqwest::blocking::Client::new()
        .get(format!("{}/healthz", server.url))
        .timeout(Duration::from_secs(5))
        .send()
        .and_then(|r| r.json())
        .ok();
    drop(server);
    println!(
        "  RSS idle {:.1} MB, after warm-up {:.1} MB (first request {:.0} ms over HTTP)",
        extra["rss_idle_mb"].as_f64().unwrap_or(f64::NAN),
        extra["rss_after_warm_up_mb"].as_f64().unwrap_or(f64::NAN),
        extra["first_request_ms"].as_f64().unwrap_or(f64::NAN)
    );
    one.print("unloaded", Some(floor_p50));
    loaded.print("loaded", Some(floor_p50));
    if let Some(h) = &health {
        println!(
            "  after the run: {} sessions, {} searches (/healthz)",
            h["sessions"], h["searches"]
        );
    }
    let flat = o.long.then(|| flatness(&loaded.rss_series, loaded.seconds));
    if let Some(f) = &flat {
        println!(
            "  RSS at half time ({:.0} s): {:.1} MB; max later {:.1} MB (+{:.1} MB), last {:.1} MB, slope {:+.2} MB/min: {}",
            f["warm_up_seconds"].as_f64().unwrap_or(0.0),
            f["rss_at_warm_up_mb"].as_f64().unwrap_or(f64::NAN),
            f["rss_max_after_warm_up_mb"].as_f64().unwrap_or(f64::NAN),
            f["growth_mb"].as_f64().unwrap_or(f64::NAN),
            f["rss_last_mb"].as_f64().unwrap_or(f64::NAN),
            f["slope_mb_per_minute"].as_f64().unwrap_or(f64::NAN),
            if f["flat"].as_bool() == Some(true) {
                "flat (max within 10 % of the half-time RSS)"
            } else {
                "NOT flat (grew more than 10 % after half time)"
            }
        );
        let tenths: Vec<String> = f["requests_per_second_by_tenth"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| format!("{:.0}", x.as_f64().unwrap_or(0.0)))
                    .collect()
            })
            .unwrap_or_default();
        println!("  requests/s by tenth of the run: {}", tenths.join(" "));
    }
    let p50_ok = loaded.p(50.0) <= 10.0;
    let errors_ok = one.errors + loaded.errors == 0;
    println!(
        "  targets: p50 <= 10 ms at {} clients: {} ({:.2} ms); 0 errors: {}",
        o.clients,
        if p50_ok { "met" } else { "NOT met" },
        loaded.p(50.0),
        if errors_ok { "met" } else { "NOT met" }
    );
    let mut ts = json!({
        "binary": bin.display().to_string(),
        "unloaded": one.to_json(),
        "loaded": loaded.to_json(),
        "healthz_after": health,
        "targets": {"p50_le_10ms": p50_ok, "zero_errors": errors_ok},
    });
    if let (Some(obj), Some(x)) = (ts.as_object_mut(), extra.as_object()) {
        obj.extend(x.clone());
        if let Some(f) = flat {
            obj.insert("rss_flatness".into(), f);
            obj.insert(
                "rss_series".into(),
                json!(
                    loaded
                        .rss_series
                        .iter()
                        .map(|(t, kb, n)| json!([t, mb(*kb), n]))
                        .collect::<Vec<_>>()
                ),
            );
        }
    }

    // Two instances sharing their sessions through Redis, the same load
    // (the default length even with --long).
    let shared = if o.redis {
        shared_sessions(&bin, &work, &o)
    } else {
        json!({"skipped": "--no-redis"})
    };

    // The naive Python service, the same load (the default length even
    // with --long: the long run is about toolsift's memory).
    let baseline = if !o.baseline {
        json!({"skipped": "--no-baseline"})
    } else {
        naive(manifest, &work, &o, &loaded)
    };

    if let Some(path) = &o.json {
        let v = json!({
            "date": date,
            "machine": {"cpu": cpu, "cores": cores},
            "catalog": {"tools": catalog.len(), "body_bytes": body0.len(), "queries": queries.len()},
            "clients": o.clients,
            "seconds": load_seconds,
            "long": o.long,
            "floor": floor,
            "toolsift": ts,
            "toolsift_two_instances_redis": shared,
            "naive_python": baseline,
        });
        std::fs::write(path, serde_json::to_string_pretty(&v).unwrap_or_default())
            .expect("write json");
    }
    if !errors_ok {
        std::process::exit(1);
    }
}

/// The naive Python service under the same load, or why it did not run.
fn naive(manifest: &Path, work: &Arc<Workload>, o: &Opts, ts: &Phase) -> Value {
    let python = python_bin();
    if !python.exists() {
        println!(
            "naive Python service: skipped, no venv python at {} (scripts/baselines/run.sh makes it)",
            python.display()
        );
        return json!({"skipped": format!("no {}", python.display())});
    }
    let script = manifest.join("scripts/baselines/naive_service.py");
    let mut cmd = Command::new(&python);
    cmd.arg(&script).args(["--addr", "127.0.0.1:0"]);
    for var in [
        "OMP_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "MKL_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
    ] {
        cmd.env(var, "1");
    }
    let proc = match Proc::start(cmd) {
        Ok(p) => p,
        Err(e) => {
            println!("naive Python service: skipped, it did not start: {e}");
            return json!({"skipped": e});
        }
    };
    println!("naive Python service ({}), {}:", script.display(), proc.url);
    let (one, loaded, extra) = match measure("py", &proc, work, o, o.seconds) {
        Ok(r) => r,
        Err(e) => {
            println!("  failed: {e}");
            return json!({"failed": e});
        }
    };
    drop(proc);
    println!(
        "  RSS idle {:.1} MB, after warm-up {:.1} MB",
        extra["rss_idle_mb"].as_f64().unwrap_or(f64::NAN),
        extra["rss_after_warm_up_mb"].as_f64().unwrap_or(f64::NAN)
    );
    one.print("unloaded", None);
    loaded.print("loaded", None);
    println!(
        "  toolsift vs naive Python at {} clients: {:.0}x the requests/s, p50 {:.2} ms vs {:.0} ms",
        o.clients,
        ts.rps() / loaded.rps().max(1e-9),
        ts.p(50.0),
        loaded.p(50.0)
    );
    let mut v = json!({
        "script": script.display().to_string(),
        "unloaded": one.to_json(),
        "loaded": loaded.to_json(),
        "toolsift_rps_ratio": ts.rps() / loaded.rps().max(1e-9),
    });
    if let (Some(obj), Some(x)) = (v.as_object_mut(), extra.as_object()) {
        obj.extend(x.clone());
    }
    v
}

/// A `redis-server` for the bench on a free loopback port, no persistence.
struct BenchRedis {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl BenchRedis {
    fn start() -> Result<BenchRedis, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let dir = std::env::temp_dir().join(format!("toolsift-bench-redis-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                format!("cannot start redis-server ({e}); scripts/setup-test-deps.sh installs it")
            })?;
        let r = BenchRedis { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err("redis-server did not start".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(r)
    }
}

impl Drop for BenchRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Two `serve --sessions redis://` instances under the same load.
fn shared_sessions(bin: &Path, work: &Arc<Workload>, o: &Opts) -> Value {
    let redis = match BenchRedis::start() {
        Ok(r) => r,
        Err(e) => {
            println!("two instances with Redis: skipped: {e}");
            return json!({"skipped": e});
        }
    };
    let url = format!("redis://127.0.0.1:{}/0", redis.port);
    let mut procs = Vec::new();
    for _ in 0..2 {
        let mut cmd = Command::new(bin);
        cmd.args(["serve", "--addr", "127.0.0.1:0", "--sessions", &url])
            .env_remove("CAVE_BASE_URL");
        match Proc::start(cmd) {
            Ok(p) => procs.push(p),
            Err(e) => return json!({"error": e}),
        }
    }
    for p in &procs {
        if let Err(e) = warm_up(&p.url, work, 3) {
            return json!({"error": e});
        }
    }
    let servers: Vec<(String, u32)> = procs.iter().map(|p| (p.url.clone(), p.pid())).collect();
    println!(
        "toolsift serve x2 --sessions {url} ({} and {}):",
        servers[0].0, servers[1].0
    );
    let loaded = run_phase_on(
        &servers,
        work,
        o.clients,
        Duration::from_secs_f64(o.seconds),
        "redis-n",
    );
    loaded.print("loaded, 2 instances", None);
    drop(procs);
    drop(redis);
    json!({"instances": 2, "sessions": "redis", "loaded": loaded.to_json()})
}
