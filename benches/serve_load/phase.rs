//! One timed run of the load: clients, the server's CPU and RSS sampled
//! beside them, and the figures it gives.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolsift::wire::TOOL_SEARCH_PATH;

use crate::client::{Client, request};
use crate::proc::{cpu_seconds, mb, rss_kb};
use crate::{MAX_REQUESTS_PER_CLIENT, SAMPLE_EVERY, Workload, percentile, session_of};

#[derive(Default)]
pub struct Phase {
    pub clients: usize,
    pub seconds: f64,
    pub requests: usize,
    pub errors: usize,
    pub error_samples: Vec<String>,
    pub latency_ms: Vec<f64>,
    pub rss_before_kb: u64,
    pub rss_max_kb: u64,
    pub rss_after_kb: u64,
    /// (seconds since the start, VmRSS kB, requests answered so far)
    pub rss_series: Vec<(f64, u64, usize)>,
    pub server_cpu_s: f64,
    pub client_cpu_s: f64,
}

impl Phase {
    pub fn rps(&self) -> f64 {
        self.requests as f64 / self.seconds
    }

    pub fn p(&self, q: f64) -> f64 {
        percentile(&self.latency_ms, q)
    }

    pub fn to_json(&self) -> Value {
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

    pub fn print(&self, label: &str, floor_ms: Option<f64>) {
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
pub fn run_phase(
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
pub fn rss_sum(pids: &[u32]) -> Option<u64> {
    pids.iter().map(|p| rss_kb(*p)).sum()
}

pub fn cpu_sum(pids: &[u32]) -> Option<f64> {
    pids.iter().map(|p| cpu_seconds(&p.to_string())).sum()
}

/// [`run_phase`] over several instances: request `i` of client `c` goes to
/// instance `(c + i) % n`, so a session's turns move between instances.
/// RSS and CPU are the instances' sums.
pub fn run_phase_on(
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
                let client = Client::new(work.client, Duration::from_secs(30));
                start_line.wait();
                let mut client = match client {
                    Ok(client) => client,
                    Err(e) => return (Vec::new(), 1, vec![e]),
                };
                let deadline = Instant::now() + duration;
                let first_query = c * work.queries.len() / clients;
                let (mut lat, mut errors, mut samples) = (Vec::new(), 0usize, Vec::new());
                for i in 0..MAX_REQUESTS_PER_CLIENT {
                    if Instant::now() >= deadline {
                        break;
                    }
                    let session = session_of(&tag, c, i);
                    let tail = work.tail(first_query + i, session.as_deref());
                    let endpoint = &endpoints[(c + i) % endpoints.len()];
                    let answer = request(
                        &mut client,
                        endpoint,
                        &[&work.prefix, &tail],
                        session.as_deref(),
                    );
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
pub fn flatness(series: &[(f64, u64, usize)], seconds: f64) -> Value {
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
