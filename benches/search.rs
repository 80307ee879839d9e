//! Search benchmarks: `cargo bench --bench search` (release build, one thread).
//!
//! Prints the figures BENCHMARKS.md records: index build and ranking speed on
//! the bfcl-dev catalog (2,101 tools), build and query latency on a synthetic
//! 10,000-tool catalog, and the service core's behaviour on a repeated catalog.
//! Ranking is timed on every bfcl-dev request and, apart, on the long,
//! multi-sentence ones (the `parallel` and `parallel_multiple` categories:
//! several requests in one message), and on short everyday requests (some
//! of several steps, split into intents) as the service ranks them
//! (`engine::intents::rank`). `--json FILE` also writes them as JSON.
//! Set `TOOLSIFT_BENCH_QUICK=1` for a short run; `--only all|long|whole SECONDS`
//! ranks that set alone for that long and stops (for a profiler).

use std::path::Path;
use std::time::{Duration, Instant};

use toolsift::catalog::{CatalogSource, load, synthetic};
use toolsift::engine::{Index, intents};
use toolsift::eval::load_queries;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p / 100.0).round() as usize;
    sorted[i]
}

fn time_builds(tools: &[toolsift::catalog::Tool], min_runs: usize, budget: Duration) -> Vec<f64> {
    let mut ms = Vec::new();
    let start = Instant::now();
    while ms.len() < min_runs || start.elapsed() < budget {
        let t = Instant::now();
        std::hint::black_box(Index::build(tools));
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    ms
}

/// The categories of long, multi-sentence requests.
const LONG: [&str; 2] = ["parallel", "parallel_multiple"];

/// Ranks `texts` (top 10) in passes for about `budget`: the best pass's
/// queries/s, and every request's latency in µs.
fn rank_passes(index: &Index, texts: &[&str], budget: Duration) -> (f64, Vec<f64>) {
    let mut best = Duration::MAX;
    let mut lat_us = Vec::new();
    let start = Instant::now();
    while start.elapsed() < budget || lat_us.is_empty() {
        let pass = Instant::now();
        for q in texts {
            let t = Instant::now();
            // As the service ranks: a request of several intents is split
            // and its rankings merged; one of one intent is one ranking.
            std::hint::black_box(intents::rank(index, q, &[], None, 10).expect("rank"));
            lat_us.push(t.elapsed().as_secs_f64() * 1e6);
        }
        best = best.min(pass.elapsed());
    }
    (texts.len() as f64 / best.as_secs_f64(), lat_us)
}

/// Ranks every tool for each of `texts`, in passes for about `budget`:
/// the best pass's queries/s.
fn whole_passes(index: &Index, texts: &[&str], budget: Duration) -> f64 {
    let mut best = Duration::MAX;
    let start = Instant::now();
    while start.elapsed() < budget || best == Duration::MAX {
        let pass = Instant::now();
        for q in texts {
            std::hint::black_box(index.search(q, None, index.len()));
        }
        best = best.min(pass.elapsed());
    }
    texts.len() as f64 / best.as_secs_f64()
}

fn main() {
    let quick = std::env::var_os("TOOLSIFT_BENCH_QUICK").is_some();
    let budget = Duration::from_millis(if quick { 300 } else { 3000 });
    let json_out = std::env::args().skip_while(|a| a != "--json").nth(1);
    let only = {
        let mut rest = std::env::args().skip_while(|a| a != "--only").skip(1);
        rest.next()
            .zip(rest.next().and_then(|s| s.parse::<f64>().ok()))
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/bfcl-dev");
    let catalog = load(&CatalogSource::Path(dir.join("catalog.json"))).expect("bfcl catalog");
    let queries = load_queries(&dir.join("queries-dev.jsonl")).expect("bfcl queries");

    // bfcl-dev: build.
    let index = Index::build(catalog.tools());
    // bfcl-dev: ranking throughput, best of passes over all queries, and per-query latency.
    let long: Vec<&str> = queries
        .iter()
        .filter(|q| LONG.contains(&q.category.as_str()))
        .map(|q| q.query.as_str())
        .collect();
    let all: Vec<&str> = queries.iter().map(|q| q.query.as_str()).collect();
    if let Some((set, secs)) = only {
        if set == "whole" {
            // A whole ranking of every tool, as the explorer's standing and
            // hybrid's lexical list ask for.
            let qps = whole_passes(&index, &all, Duration::from_secs_f64(secs));
            println!(
                "whole: {} requests, every tool ranked, {qps:.0} queries/s",
                all.len()
            );
            return;
        }
        let texts = if set == "long" { &long } else { &all };
        let (qps, _) = rank_passes(&index, texts, Duration::from_secs_f64(secs));
        println!("{set}: {} requests, {qps:.0} queries/s", texts.len());
        return;
    }
    let builds = time_builds(catalog.tools(), 10, budget);
    let (qps, mut lat_us) = rank_passes(&index, &all, budget);
    let (long_qps, mut long_lat) = rank_passes(&index, &long, budget);
    long_lat.sort_by(f64::total_cmp);
    lat_us.sort_by(f64::total_cmp);
    println!(
        "bfcl-dev catalog: {} tools, {} queries",
        catalog.len(),
        queries.len()
    );
    println!(
        "  index build: p50 {:.2} ms, min {:.2} ms ({} builds)",
        percentile(&builds, 50.0),
        builds[0],
        builds.len()
    );
    println!(
        "  ranking: {:.0} queries/s (best pass, one thread); latency p50 {:.1} µs, p95 {:.1} µs, p99 {:.1} µs",
        qps,
        percentile(&lat_us, 50.0),
        percentile(&lat_us, 95.0),
        percentile(&lat_us, 99.0)
    );
    println!(
        "  long requests ({}, {} of them, {:.0} bytes on average): {:.0} queries/s; latency p50 {:.1} µs, p95 {:.1} µs",
        LONG.join(" and "),
        long.len(),
        long.iter().map(|q| q.len()).sum::<usize>() as f64 / long.len().max(1) as f64,
        long_qps,
        percentile(&long_lat, 50.0),
        percentile(&long_lat, 95.0)
    );

    // Short everyday requests, with expansion, and multi-step ones split
    // into intents, against the 2,101 bfcl-dev tools.
    let short_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/mcp-short");
    let short: Vec<String> = ["queries.jsonl", "multi.jsonl"]
        .iter()
        .flat_map(|f| load_queries(&short_dir.join(f)).expect("short requests"))
        .map(|q| q.query)
        .collect();
    let short_refs: Vec<&str> = short.iter().map(String::as_str).collect();
    let split = short_refs
        .iter()
        .filter(|q| intents::split(q).is_some())
        .count();
    let (short_qps, mut short_lat) = rank_passes(&index, &short_refs, budget);
    short_lat.sort_by(f64::total_cmp);
    println!(
        "  short requests ({} of them, {split} split into intents) on the same catalog: {:.0} queries/s; latency p50 {:.1} µs, p95 {:.1} µs, max {:.1} µs",
        short_refs.len(),
        short_qps,
        percentile(&short_lat, 50.0),
        percentile(&short_lat, 95.0),
        short_lat.last().copied().unwrap_or(f64::NAN)
    );

    // Synthetic 10,000 tools.
    let big = synthetic::generate(10_000, 42);
    let big_builds = time_builds(big.tools(), 5, budget);
    let big_index = Index::build(big.tools());
    let mut big_lat = Vec::new();
    let start = Instant::now();
    while start.elapsed() < budget || big_lat.len() < queries.len() {
        for q in &queries {
            let t = Instant::now();
            std::hint::black_box(big_index.search(&q.query, None, 10));
            big_lat.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let synthetic_queries = [
            "list pending invoices for a customer",
            "rotate the secret key of the cluster",
            "search recent incidents by priority",
            "schedule a meeting with the team",
        ];
        for q in synthetic_queries {
            let t = Instant::now();
            std::hint::black_box(big_index.search(q, None, 10));
            big_lat.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    big_lat.sort_by(f64::total_cmp);
    println!("synthetic catalog: {} tools", big.len());
    println!(
        "  index build: p50 {:.1} ms, min {:.1} ms ({} builds)",
        percentile(&big_builds, 50.0),
        big_builds[0],
        big_builds.len()
    );
    println!(
        "  query: p50 {:.3} ms, p95 {:.3} ms, p99 {:.3} ms ({} queries)",
        percentile(&big_lat, 50.0),
        percentile(&big_lat, 95.0),
        percentile(&big_lat, 99.0),
        big_lat.len()
    );

    // The service core on a repeated catalog: every request carries the
    // whole bfcl catalog as JSON, as score.py sends it.
    let service = toolsift::service::Service::default();
    let tools_json = serde_json::to_string(
        &catalog
            .tools()
            .iter()
            .map(toolsift::wire::WireTool::from)
            .collect::<Vec<_>>(),
    )
    .expect("tools json");
    let body = |query: &str| {
        format!(
            "{{\"tools\":{tools_json},\"query\":{},\"max_tools\":10}}",
            serde_json::to_string(query).unwrap_or_default()
        )
    };
    let first_body = body(&queries[0].query);
    let t = Instant::now();
    service
        .tool_search_json(first_body.as_bytes(), None)
        .expect("first request");
    let first_ms = t.elapsed().as_secs_f64() * 1000.0;
    let after_first = service.stats();
    let mut repeat_ms = Vec::new();
    for q in queries.iter().take(if quick { 20 } else { 100 }) {
        let b = body(&q.query);
        let t = Instant::now();
        service
            .tool_search_json(b.as_bytes(), None)
            .expect("request");
        repeat_ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    repeat_ms.sort_by(f64::total_cmp);
    let stats = service.stats();
    println!(
        "service core, bfcl catalog in every request body ({:.2} MB):",
        first_body.len() as f64 / 1e6
    );
    println!(
        "  first request {:.1} ms (parse, index, tokenize {} tools); repeated: p50 {:.2} ms, p95 {:.2} ms (read the body, hash the catalog text, rank, explain)",
        first_ms,
        after_first.tokenized,
        percentile(&repeat_ms, 50.0),
        percentile(&repeat_ms, 95.0)
    );
    println!(
        "  after {} requests: catalog parses {}, index builds {}, index cache hits {}, tools tokenized {} (all in the first request)",
        stats.searches,
        stats.catalog_parses,
        stats.index_builds,
        stats.index_cache_hits,
        stats.tokenized
    );
    assert_eq!(stats.index_builds, 1, "a repeated catalog was re-indexed");
    assert_eq!(
        stats.tokenized, after_first.tokenized,
        "a repeated catalog was re-tokenized"
    );

    if let Some(path) = json_out {
        let v = serde_json::json!({
            "bfcl": {
                "tools": catalog.len(),
                "queries": queries.len(),
                "build_ms_p50": percentile(&builds, 50.0),
                "build_ms_min": builds[0],
                "queries_per_second": qps,
                "latency_us_p50": percentile(&lat_us, 50.0),
                "latency_us_p95": percentile(&lat_us, 95.0),
                "long": {
                    "categories": LONG,
                    "queries": long.len(),
                    "queries_per_second": long_qps,
                    "latency_us_p50": percentile(&long_lat, 50.0),
                },
                "short": {
                    "queries": short_refs.len(),
                    "split_into_intents": split,
                    "queries_per_second": short_qps,
                    "latency_us_p50": percentile(&short_lat, 50.0),
                    "latency_us_p95": percentile(&short_lat, 95.0),
                    "latency_us_max": short_lat.last().copied(),
                },
            },
            "service": {
                "first_request_ms": first_ms,
                "repeat_request_ms_p50": percentile(&repeat_ms, 50.0),
                "repeat_request_ms_p95": percentile(&repeat_ms, 95.0),
                "requests": stats.searches,
                "index_builds": stats.index_builds,
                "tokenized": stats.tokenized,
            },
            "synthetic_10k": {
                "tools": big.len(),
                "build_ms_p50": percentile(&big_builds, 50.0),
                "query_ms_p50": percentile(&big_lat, 50.0),
                "query_ms_p95": percentile(&big_lat, 95.0),
            },
        });
        std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap_or_default())
            .expect("write json");
    }
}
