//! Dense ranking benchmarks: `cargo bench --bench dense` (release build).
//!
//! Prints the figures BENCHMARKS.md records:
//! - cosine top-10 over 10,000 unit vectors (384 dimensions) and the hybrid
//!   fusion (standard scores of both lists over all 10,000, mixed, top 10);
//! - with the local all-MiniLM-L6-v2 (`TOOLSIFT_MINILM_DIR`, default
//!   `~/.cache/toolsift-models/all-MiniLM-L6-v2`, from
//!   `scripts/setup-test-deps.sh`): one query's embedding, p50 and p95 over
//!   the bfcl-dev requests, and the bfcl-dev catalog's embedding, cold (no
//!   cache) and warm (every vector on disk).
//!
//! `TOOLSIFT_BENCH_QUICK=1` for a short run; `RAYON_NUM_THREADS=1` runs
//! the model on one core (the reference, `scripts/baselines/minilm_latency.py`,
//! is PyTorch on one thread).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use toolsift::catalog::{CatalogSource, load};
use toolsift::embed::local::LocalModel;
use toolsift::embed::{DenseRanker, Embedder, Embeddings, Role, VectorCache};
use toolsift::engine::dense::{Vectors, fuse, top_k};
use toolsift::engine::{CatalogRanker, Ranker};
use toolsift::eval::load_queries;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p / 100.0).round() as usize]
}

/// A small deterministic generator (xorshift), so runs compare.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    }

    fn unit(&mut self, dim: usize) -> Vec<f32> {
        let mut v: Vec<f32> = (0..dim).map(|_| self.next()).collect();
        toolsift::embed::normalize(&mut v);
        v
    }
}

fn time<F: FnMut()>(budget: Duration, min: usize, mut f: F) -> Vec<f64> {
    let mut us = Vec::new();
    let start = Instant::now();
    while us.len() < min || start.elapsed() < budget {
        let t = Instant::now();
        f();
        us.push(t.elapsed().as_secs_f64() * 1e6);
    }
    us.sort_by(f64::total_cmp);
    us
}

fn main() {
    let quick = std::env::var_os("TOOLSIFT_BENCH_QUICK").is_some();
    let budget = Duration::from_millis(if quick { 300 } else { 3000 });

    // 10,000 vectors: cosine + top 10, and cosine + fusion + top 10.
    let (n, dim) = (10_000, 384);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let rows: Vec<Vec<f32>> = (0..n).map(|_| rng.unit(dim)).collect();
    let vectors = Vectors::new(dim, &rows).expect("vectors");
    let lexical: Vec<f32> = (0..n)
        .map(|i| {
            if i % 7 == 0 {
                rng.next().abs() * 10.0
            } else {
                0.0
            }
        })
        .collect();
    let query = rng.unit(dim);
    let cos = time(budget, 50, || {
        let c = vectors.cosines(&query);
        std::hint::black_box(top_k(&c, 10));
    });
    let fused = time(budget, 50, || {
        let c = vectors.cosines(&query);
        let f = fuse(&lexical, &c, 0.5);
        std::hint::black_box(top_k(&f, 10));
    });
    println!(
        "cosine top-10 over {n} x {dim}: p50 {:.0} us, p95 {:.0} us ({} runs)",
        percentile(&cos, 50.0),
        percentile(&cos, 95.0),
        cos.len()
    );
    println!(
        "cosine + z-score fusion + top-10 over {n}: p50 {:.0} us, p95 {:.0} us",
        percentile(&fused, 50.0),
        percentile(&fused, 95.0)
    );

    // The local model.
    let dir = std::env::var_os("TOOLSIFT_MINILM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/toolsift-models/all-MiniLM-L6-v2")
        });
    let model = match LocalModel::load(&dir) {
        Ok(m) => Arc::new(m),
        Err(e) => {
            println!("local model: skipped ({e}); run scripts/setup-test-deps.sh");
            return;
        }
    };
    let bfcl = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/bfcl-dev");
    let catalog = load(&CatalogSource::Path(bfcl.join("catalog.json"))).expect("bfcl catalog");
    let queries = load_queries(&bfcl.join("queries-dev.jsonl")).expect("bfcl queries");
    let take = if quick { 50 } else { queries.len() };
    let mut q_us: Vec<f64> = queries[..take]
        .iter()
        .map(|q| {
            let t = Instant::now();
            std::hint::black_box(model.embed(&[&q.query], Role::Query).expect("embed"));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    q_us.sort_by(f64::total_cmp);
    let short = time(budget, 50, || {
        std::hint::black_box(
            model
                .embed(&["what time is it in Tokyo"], Role::Query)
                .expect("embed"),
        );
    });
    println!(
        "query embedding (all-MiniLM-L6-v2, {} bfcl-dev requests, {} thread(s)): p50 {:.1} ms, p95 {:.1} ms; short query p50 {:.1} ms",
        q_us.len(),
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "all".into()),
        percentile(&q_us, 50.0) / 1000.0,
        percentile(&q_us, 95.0) / 1000.0,
        percentile(&short, 50.0) / 1000.0
    );

    // The catalog: cold, then warm from disk in a new cache.
    let cache_dir = std::env::temp_dir().join(format!("toolsift-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache_dir);
    let tools = if quick { 200 } else { catalog.len() };
    let sub = toolsift::catalog::Catalog::new("bench", catalog.tools()[..tools].to_vec())
        .expect("catalog");
    let cold_cache = Arc::new(VectorCache::new(0, Some(cache_dir.clone())));
    let t = Instant::now();
    let ranker = DenseRanker::build(
        &sub,
        Ranker::Hybrid,
        Embeddings::new(model.clone(), cold_cache),
    )
    .expect("embed catalog");
    let cold = t.elapsed();
    let warm_cache = Arc::new(VectorCache::new(0, Some(cache_dir.clone())));
    let t = Instant::now();
    DenseRanker::build(
        &sub,
        Ranker::Hybrid,
        Embeddings::new(model.clone(), warm_cache.clone()),
    )
    .expect("embed catalog");
    let warm = t.elapsed();
    println!(
        "catalog embedding ({tools} tools): cold {:.1} s ({:.0} tools/s), warm {:.0} ms ({} from disk)",
        cold.as_secs_f64(),
        tools as f64 / cold.as_secs_f64(),
        warm.as_secs_f64() * 1000.0,
        warm_cache.stats().disk_hits
    );
    // A whole hybrid request (query embedding included), first time each.
    let mut r_us: Vec<f64> = queries[..take]
        .iter()
        .map(|q| {
            let t = Instant::now();
            std::hint::black_box(ranker.rank(&q.query, None, 10).expect("rank"));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    r_us.sort_by(f64::total_cmp);
    println!(
        "hybrid request over {tools} tools (query embedding included): p50 {:.1} ms, p95 {:.1} ms",
        percentile(&r_us, 50.0) / 1000.0,
        percentile(&r_us, 95.0) / 1000.0
    );
    let _ = std::fs::remove_dir_all(&cache_dir);
}
