//! Load benchmark of `toolsift serve`: `cargo bench --bench serve_load`.
//!
//! Starts the release `toolsift serve --addr 127.0.0.1:0` (the binary cargo
//! builds for this bench, `CARGO_BIN_EXE_toolsift`; `TOOLSIFT_BIN` overrides
//! it), waits for its `listening on` line, and sends it the bfcl-dev catalog
//! (2,101 tools, ~1.4 MB per body) from concurrent clients, one client and
//! connection kept alive per thread (`client.rs`), queries cycling through
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
//!   --client K    `raw` (default): HTTP/1.1 over a plain socket, the
//!                 request's bytes written as they are; `reqwest`: reqwest's
//!                 blocking client, which spends about as much CPU per
//!                 request as the server on the same cores
//!                 (TOOLSIFT_LOAD_CLIENT)
//!   --json OUT    also write the figures as JSON
//! `TOOLSIFT_BENCH_QUICK=1` makes it a 3 s run. Network: loopback only.

mod client;
mod phase;
mod proc;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolsift::catalog::{CatalogSource, SourceKind, load};
use toolsift::eval::load_queries;
use toolsift::service::Service;
use toolsift::wire::{TOOL_SEARCH_PATH, ToolSearchRequest, WireTool};

use client::{Client, ClientKind, request};
use phase::{Phase, flatness, run_phase, run_phase_on};
use proc::{BenchRedis, Proc, machine, mb, rss_kb, today, toolsift_bin};

/// Every client stops after this many requests, whatever the time.
const MAX_REQUESTS_PER_CLIENT: usize = 1_000_000;
/// Requests of one session before a client starts a new one.
const SESSION_TURNS: usize = 8;
const MAX_TOOLS: u64 = 10;
const SAMPLE_EVERY: Duration = Duration::from_millis(500);

struct Opts {
    clients: usize,
    seconds: f64,
    long: bool,
    baseline: bool,
    redis: bool,
    json: Option<String>,
    client: ClientKind,
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
        client: std::env::var("TOOLSIFT_LOAD_CLIENT")
            .ok()
            .and_then(|k| ClientKind::parse(&k))
            .unwrap_or(ClientKind::Raw),
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
            "--client" => {
                o.client = next
                    .and_then(|v| ClientKind::parse(v))
                    .expect("--client raw|reqwest");
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

/// The request bodies: the catalog prefix serialised once, the queries as
/// JSON strings.
struct Workload {
    prefix: Vec<u8>,
    queries: Vec<String>,
    client: ClientKind,
}

impl Workload {
    /// A request body: the shared prefix, then [`Workload::tail`].
    fn body(&self, query: usize, session: Option<&str>) -> Vec<u8> {
        [self.prefix.as_slice(), &self.tail(query, session)].concat()
    }

    /// What follows the prefix in a request body: the query, `max_tools`,
    /// the session.
    fn tail(&self, query: usize, session: Option<&str>) -> Vec<u8> {
        let q = &self.queries[query % self.queries.len()];
        let mut b = Vec::with_capacity(q.len() + 96);
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
    let mut client = Client::new(work.client, Duration::from_secs(60))?;
    let endpoint = format!("{url}{TOOL_SEARCH_PATH}");
    (0..n)
        .map(|i| {
            request(
                &mut client,
                &endpoint,
                &[&work.prefix, &work.tail(i, None)],
                None,
            )
        })
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
    toolsift::http::client::install_tls();
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
        client: o.client,
    });
    let load_seconds = if o.long { o.seconds * 10.0 } else { o.seconds };
    let body0 = work.body(0, None);
    println!(
        "serve_load: bfcl-dev catalog, {} tools, {:.2} MB per request body; {} queries; {} clients x {:.0} s{}, client: {}; {cpu}, {cores} cores; {date}",
        catalog.len(),
        body0.len() as f64 / 1e6,
        queries.len(),
        o.clients,
        load_seconds,
        if o.long { " (--long)" } else { "" },
        o.client.label()
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
            "client": o.client.label(),
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
