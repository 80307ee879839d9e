//! The local encoder against other runtimes of the same model:
//! `cargo bench --bench encoders` (release build).
//!
//! Embeds the tool texts of `eval/people-dev/catalog.json` (533 tools, each
//! as `document_text` makes it, the text a catalog's embedding embeds) with
//! toolsift's encoder (`LocalModel` through `Embeddings::embed_all`, no
//! cache), then with `scripts/bench-encoders.py`: sentence-transformers on
//! PyTorch, onnxruntime in f32 and with dynamic int8 weights. All on the
//! same number of threads (`RAYON_NUM_THREADS`, else the machine's cores).
//! Prints each runtime's tools per second of wall time and of CPU time
//! (the process's CPU seconds over the threads: steadier on a shared
//! machine), the ratio to toolsift's, the lowest cosine of each runtime's
//! vectors to PyTorch's, and one short query's latency (median of 200).
//!
//! The model: `TOOLSIFT_MINILM_DIR`, default
//! `~/.cache/toolsift-models/all-MiniLM-L6-v2` (`scripts/setup-test-deps.sh`).
//! The Python side: `TOOLSIFT_BENCH_PYTHON`, default the venv
//! `scripts/bench-encoders-venv.sh` makes; without it only toolsift's
//! figures are printed. `TOOLSIFT_BENCH_QUICK=1` embeds 100 tools.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use toolsift::catalog::{CatalogSource, load};
use toolsift::embed::local::LocalModel;
use toolsift::embed::ranker::document_text;
use toolsift::embed::{Embedder, Embeddings, Role, VectorCache};

/// The process's CPU seconds so far (all threads, user and system).
fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole rusage into the pointer it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

fn home(rest: &str) -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(rest)
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x * *y)).sum();
    let na: f64 = a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

/// One runtime's figures.
struct Run {
    name: String,
    wall_s: f64,
    cpu_s: f64,
    lowest_cosine: Option<f64>,
}

/// What the Python side measured.
struct Others {
    runs: Vec<Run>,
    /// PyTorch's vectors of the texts.
    reference: Vec<Vec<f32>>,
    /// The texts' mean length in tokens.
    mean_tokens: f64,
}

/// The Python runtimes, or why not.
fn python_runs(dir: &Path, texts: &[String], threads: usize) -> Result<Others, String> {
    let python = std::env::var_os("TOOLSIFT_BENCH_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| home(".cache/toolsift-bench-venv/bin/python"));
    if !python.is_file() {
        return Err(format!(
            "{} not found; run scripts/bench-encoders-venv.sh",
            python.display()
        ));
    }
    let work = std::env::temp_dir().join(format!("toolsift-encoders-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let texts_path = work.join("texts.json");
    let vectors_path = work.join("vectors.json");
    std::fs::write(&texts_path, serde_json::to_vec(texts).expect("json"))
        .map_err(|e| e.to_string())?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/bench-encoders.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(dir)
        .arg(&texts_path)
        .arg(threads.to_string())
        .arg(&vectors_path)
        .env("OMP_NUM_THREADS", threads.to_string())
        .output()
        .map_err(|e| format!("{}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("bad report: {e}"))?;
    let vectors: Vec<Vec<f32>> =
        serde_json::from_slice(&std::fs::read(&vectors_path).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&work);
    let runs = report["runtimes"]
        .as_array()
        .ok_or("no runtimes")?
        .iter()
        .map(|r| Run {
            name: r["name"].as_str().unwrap_or("?").to_string(),
            wall_s: r["wall_s"].as_f64().unwrap_or(f64::NAN),
            cpu_s: r["cpu_s"].as_f64().unwrap_or(f64::NAN),
            lowest_cosine: r["lowest_cosine"].as_f64(),
        })
        .collect();
    Ok(Others {
        runs,
        reference: vectors,
        mean_tokens: report["mean_tokens"].as_f64().unwrap_or(0.0),
    })
}

fn main() {
    let quick = std::env::var_os("TOOLSIFT_BENCH_QUICK").is_some();
    let threads = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let dir = std::env::var_os("TOOLSIFT_MINILM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| home(".cache/toolsift-models/all-MiniLM-L6-v2"));
    let model = match LocalModel::load(&dir) {
        Ok(m) => Arc::new(m),
        Err(e) => {
            println!("local model: skipped ({e}); run scripts/setup-test-deps.sh");
            return;
        }
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/people-dev/catalog.json");
    let catalog = load(&CatalogSource::Path(path)).expect("people-dev catalog");
    let take = if quick { 100 } else { catalog.len() };
    let texts: Vec<String> = catalog.tools()[..take].iter().map(document_text).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();

    // Warm up, then the whole list through a cache that holds nothing yet.
    model.embed(&refs[..16], Role::Document).expect("embed");
    let embeddings = Embeddings::new(model.clone(), Arc::new(VectorCache::new(0, None)));
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let ours = embeddings.embed_all(&refs, Role::Document).expect("embed");
    let ours_run = Run {
        name: "toolsift (f32)".into(),
        wall_s: wall.elapsed().as_secs_f64(),
        cpu_s: cpu_seconds() - cpu,
        lowest_cosine: None,
    };

    let query = "what time is it in Tokyo";
    let cpu = cpu_seconds();
    let mut query_ms: Vec<f64> = (0..200)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(model.embed(&[query], Role::Query).expect("embed"));
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    let query_cpu_ms = (cpu_seconds() - cpu) * 1000.0 / query_ms.len() as f64;
    query_ms.sort_by(f64::total_cmp);

    let (mut runs, mean_tokens) = match python_runs(&dir, &texts, threads) {
        Ok(Others {
            runs,
            reference,
            mean_tokens,
        }) => {
            let lowest = ours
                .iter()
                .zip(&reference)
                .map(|(a, b)| cosine(a, b))
                .fold(f64::INFINITY, f64::min);
            (runs, Some((mean_tokens, lowest)))
        }
        Err(why) => {
            println!("other runtimes: skipped ({})", why.trim());
            (Vec::new(), None)
        }
    };
    let mut ours_run = ours_run;
    ours_run.lowest_cosine = mean_tokens.map(|m| m.1);
    runs.insert(0, ours_run);

    let n = texts.len() as f64;
    println!(
        "{} tool texts of eval/people-dev{}, {threads} thread(s)",
        texts.len(),
        mean_tokens.map_or(String::new(), |m| format!(" (mean {:.0} tokens)", m.0))
    );
    println!(
        "{:<52} {:>8} {:>8} {:>7} {:>7} {:>9}",
        "runtime", "tools/s", "per CPU", "ratio", "CPU s", "cos min"
    );
    let ours_cpu = n / (runs[0].cpu_s / threads as f64);
    for r in &runs {
        let per_cpu = n / (r.cpu_s / threads as f64);
        println!(
            "{:<52} {:>8.1} {:>8.1} {:>7.2} {:>7.1} {:>9}",
            r.name,
            n / r.wall_s,
            per_cpu,
            ours_cpu / per_cpu,
            r.cpu_s,
            r.lowest_cosine.map_or("-".into(), |c| format!("{c:.5}"))
        );
    }
    println!(
        "(tools/s: of wall time; per CPU: of CPU time over {threads} thread(s); ratio: toolsift's per CPU over the runtime's; cos min: the lowest cosine to PyTorch's vectors)"
    );
    println!(
        "query {query:?} with toolsift: p50 {:.2} ms, p95 {:.2} ms, {query_cpu_ms:.2} ms of CPU each (200 runs)",
        query_ms[100], query_ms[190]
    );
}
