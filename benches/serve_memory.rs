//! Memory of `toolsift serve` under a stream of catalogs it has never seen:
//! `cargo bench --bench serve_memory [-- --requests N --tools T]`.
//!
//! Starts the release `toolsift serve --addr 127.0.0.1:0` (the binary cargo
//! builds for this bench, `CARGO_BIN_EXE_toolsift`; `TOOLSIFT_BIN` overrides
//! it, to measure another build), then sends it N requests (default 660),
//! one after another, each a preview (`"preview": true`: no session is kept)
//! whose catalog is T tool definitions (default 10,000, about 2 MB) that no
//! request sent before. Prints the server's RSS (VmRSS of /proc/PID/status)
//! before the first request, ten times during the stream and after it (a
//! few seconds later, idle), each with the `toolsift_cache_bytes` gauge of
//! `/metrics` and its breakdown by cache when the server has one, so that
//! memory growing with every new catalog, and a metric that does not show
//! it, can be read off.
//!
//! Flags (environment in brackets):
//!   --requests N  requests in the stream (TOOLSIFT_MEM_REQUESTS; default 660)
//!   --tools T     tools per request (TOOLSIFT_MEM_TOOLS; default 10000)
//!   --idle S      seconds to wait before the last reading (default 5)
//! `TOOLSIFT_BENCH_QUICK=1` makes it 40 requests. Network: loopback only.

// The load bench's processes: the server started and its address read,
// RSS from /proc.
#[path = "serve_load/proc.rs"]
#[allow(dead_code)]
mod proc;

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use toolsift::wire::TOOL_SEARCH_PATH;

use proc::{Proc, rss_kb, toolsift_bin};

struct Opts {
    requests: usize,
    tools: usize,
    idle: f64,
}

fn env_parse<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

fn opts() -> Opts {
    let quick = std::env::var_os("TOOLSIFT_BENCH_QUICK").is_some();
    let mut o = Opts {
        requests: env_parse("TOOLSIFT_MEM_REQUESTS").unwrap_or(if quick { 40 } else { 660 }),
        tools: env_parse("TOOLSIFT_MEM_TOOLS").unwrap_or(10_000),
        idle: 5.0,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let next = args.get(i + 1);
        match args[i].as_str() {
            "--requests" => {
                o.requests = next.and_then(|v| v.parse().ok()).expect("--requests N");
                i += 1;
            }
            "--tools" => {
                o.tools = next.and_then(|v| v.parse().ok()).expect("--tools T");
                i += 1;
            }
            "--idle" => {
                o.idle = next.and_then(|v| v.parse().ok()).expect("--idle S");
                i += 1;
            }
            // `cargo bench` passes --bench; anything else is ignored too.
            _ => {}
        }
        i += 1;
    }
    o.requests = o.requests.max(1);
    o.tools = o.tools.clamp(1, 10_000);
    o
}

/// `toolsift serve` on a free loopback port (its access log drained),
/// killed on drop.
fn start_server() -> Proc {
    let bin = toolsift_bin();
    let mut cmd = Command::new(&bin);
    cmd.args(["serve", "--addr", "127.0.0.1:0"])
        .env_remove("CAVE_BASE_URL");
    let server = Proc::start(cmd).unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
    println!("toolsift serve ({}), {}", bin.display(), server.url);
    server
}

/// Request `r`'s body: `tools` definitions no other request has (their
/// names, descriptions and a parameter carry `r`), a preview.
fn body(r: usize, tools: usize) -> Vec<u8> {
    let mut b = String::with_capacity(tools * 260 + 128);
    b.push_str("{\"tools\":[");
    for i in 0..tools {
        if i > 0 {
            b.push(',');
        }
        b.push_str(&format!(
            "{{\"name\":\"tool_{r}_{i}\",\"description\":\"Looks up record {i} of batch {r} in the order service and returns its status\",\
             \"input_schema\":{{\"type\":\"object\",\"properties\":{{\"id_{r}_{i}\":{{\"type\":\"string\",\"description\":\"The record's id\"}}}},\"required\":[\"id_{r}_{i}\"]}}}}"
        ));
    }
    b.push_str("],\"query\":\"order status of a record\",\"max_tools\":8,\"preview\":true}");
    b.into_bytes()
}

/// The `toolsift_cache_bytes*` lines of `/metrics`, as `name value` pairs.
fn cache_metrics(http: &reqwest::blocking::Client, url: &str) -> Vec<(String, f64)> {
    let text = http
        .get(format!("{url}/metrics"))
        .send()
        .and_then(|r| r.text())
        .unwrap_or_default();
    text.lines()
        .filter(|l| l.starts_with("toolsift_cache_bytes"))
        .filter_map(|l| {
            let (name, value) = l.rsplit_once(' ')?;
            Some((name.to_string(), value.parse().ok()?))
        })
        .collect()
}

fn mb(bytes: f64) -> f64 {
    bytes / (1024.0 * 1024.0)
}

/// One reading: RSS and the cache metrics.
fn reading(label: &str, pid: u32, http: &reqwest::blocking::Client, url: &str) -> u64 {
    let rss = rss_kb(pid).unwrap_or(0);
    let metrics = cache_metrics(http, url);
    let total = metrics
        .iter()
        .find(|(n, _)| n == "toolsift_cache_bytes")
        .map_or(f64::NAN, |(_, v)| *v);
    let mut parts: Vec<String> = metrics
        .iter()
        .filter_map(|(n, v)| {
            let cache = n.split("cache=\"").nth(1)?.split('"').next()?;
            Some(format!("{cache} {:.1}", mb(*v)))
        })
        .collect();
    parts.sort();
    println!(
        "  {label:<18} RSS {:>7.1} MB   toolsift_cache_bytes {:>6.1} MB{}",
        rss as f64 / 1024.0,
        mb(total),
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    );
    rss
}

fn main() {
    let o = opts();
    let server = start_server();
    let pid = server.pid();
    toolsift::http::client::install_tls();
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .expect("http client");
    let search = format!("{}{TOOL_SEARCH_PATH}", server.url);
    println!(
        "{} requests, each a preview of {} tools never sent before:",
        o.requests, o.tools
    );
    let start = reading("start", pid, &http, &server.url);
    let every = (o.requests / 10).max(1);
    let started = Instant::now();
    let mut peak = start;
    for r in 0..o.requests {
        let response = http
            .post(&search)
            .header("content-type", "application/json")
            .body(body(r, o.tools))
            .send()
            .unwrap_or_else(|e| panic!("request {r}: {e}"));
        let status = response.status();
        let answer: Value = response.json().unwrap_or(Value::Null);
        assert!(
            status.is_success() && answer["tools"].is_array(),
            "request {r}: HTTP {status}: {answer}"
        );
        peak = peak.max(rss_kb(pid).unwrap_or(0));
        if (r + 1) % every == 0 || r + 1 == o.requests {
            reading(&format!("after {}", r + 1), pid, &http, &server.url);
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_secs_f64(o.idle));
    let after = reading(&format!("{:.0} s idle", o.idle), pid, &http, &server.url);
    println!(
        "  {:.1} requests/s; RSS start {:.1} MB, peak {:.1} MB, after {:.1} MB ({:+.1} MB)",
        o.requests as f64 / seconds,
        start as f64 / 1024.0,
        peak as f64 / 1024.0,
        after as f64 / 1024.0,
        (after as f64 - start as f64) / 1024.0
    );
}
