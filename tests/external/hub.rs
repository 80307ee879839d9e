//! `--embeddings-local ORG/NAME`: a model fetched by Hugging Face id, from a
//! hub faked here (it speaks what the hub's file endpoint says: ranges,
//! `etag`, `x-repo-commit`), into `$HF_HOME/hub`, then used with no hub at
//! all. The files served are the real all-MiniLM-L6-v2 from
//! `scripts/setup-test-deps.sh`; the test fails, never skips, without it.

use crate::common;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, Response, StatusCode};
use axum::routing::get;

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

#[derive(Clone)]
struct Hub {
    /// The one repository's id (`owner/name`).
    repo: Arc<String>,
    /// The one repository served, by file name.
    files: Arc<HashMap<String, Vec<u8>>>,
    /// `repo file` of every request.
    log: Arc<Mutex<Vec<String>>>,
}

async fn resolve(
    State(hub): State<Hub>,
    UrlPath((org, name, _rev, file)): UrlPath<(String, String, String, String)>,
    headers: HeaderMap,
) -> Response<Body> {
    hub.log.lock().unwrap().push(format!("{org}/{name} {file}"));
    let found = (format!("{org}/{name}") == *hub.repo)
        .then(|| hub.files.get(&file))
        .flatten();
    let Some(bytes) = found else {
        return Response::builder()
            .status(StatusCode::NOT_FOUND)
            .header("x-error-code", "EntryNotFound")
            .body(Body::from("Entry not found"))
            .unwrap();
    };
    let size = bytes.len();
    let (start, end) = headers
        .get("range")
        .and_then(|v| v.to_str().ok())
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.split_once('-'))
        .map(|(a, b)| {
            let a: usize = a.parse().unwrap_or(0);
            let b: usize = b.parse().unwrap_or(size - 1);
            (a.min(size), b.min(size - 1))
        })
        .unwrap_or((0, size - 1));
    Response::builder()
        .status(StatusCode::PARTIAL_CONTENT)
        .header(
            "etag",
            format!("\"{:016x}\"", xxhash_rust::xxh3::xxh3_64(bytes)),
        )
        .header("x-repo-commit", COMMIT)
        .header("content-range", format!("bytes {start}-{end}/{size}"))
        .body(Body::from(bytes[start..=end].to_vec()))
        .unwrap()
}

/// The fake hub on a loopback port, serving `dir` as the repository
/// `repo`, until `stop` is sent.
pub(crate) fn start_hub_of(
    dir: &Path,
    repo: &str,
) -> (
    String,
    Arc<Mutex<Vec<String>>>,
    tokio::sync::oneshot::Sender<()>,
) {
    let mut files = HashMap::new();
    for name in [
        "config.json",
        "tokenizer.json",
        "model.safetensors",
        "modules.json",
        "sentence_bert_config.json",
        "1_Pooling/config.json",
    ] {
        if let Ok(bytes) = std::fs::read(dir.join(name)) {
            files.insert(name.to_string(), bytes);
        }
    }
    assert!(
        files.contains_key("modules.json"),
        "the model has modules.json"
    );
    let hub = Hub {
        repo: Arc::new(repo.to_string()),
        files: Arc::new(files),
        log: Arc::new(Mutex::new(Vec::new())),
    };
    let log = hub.log.clone();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let app = Router::new()
                .route("/{org}/{name}/resolve/{rev}/{*file}", get(resolve))
                .with_state(hub);
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });
    });
    (format!("http://{addr}"), log, stop)
}

/// The fake hub serving the test model as `test-org/mini-lm`.
fn start_hub(
    dir: &Path,
) -> (
    String,
    Arc<Mutex<Vec<String>>>,
    tokio::sync::oneshot::Sender<()>,
) {
    start_hub_of(dir, "test-org/mini-lm")
}

fn search(model: &str, hf_home: &Path, endpoint: &str, vectors: &Path) -> std::process::Output {
    common::bin()
        .args([
            "search",
            common::fixture("paraphrase.json").to_str().unwrap(),
            "what hour is it in Tokyo",
            "--ranker",
            "embeddings",
            "--embeddings-local",
            model,
            "--json",
        ])
        .env("HF_HOME", hf_home)
        .env("HF_ENDPOINT", endpoint)
        .env_remove("HF_TOKEN")
        .env("XDG_CACHE_HOME", vectors)
        .output()
        .unwrap()
}

#[test]
fn a_model_by_hub_id_is_fetched_once_then_used_offline() {
    let dir = common::minilm_dir();
    let tmp = tempfile::tempdir().unwrap();
    let hf_home = tmp.path().join("hf");
    let vectors = tmp.path().join("xdg");
    let (endpoint, log, stop) = start_hub(&dir);

    // First run: fetched from the hub, then used.
    let out = search("test-org/mini-lm", &hf_home, &endpoint, &vectors);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("fetching test-org/mini-lm from {endpoint}")),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["method"], "embeddings", "{v}");
    assert_eq!(v["tools"][0]["name"], "get_current_time", "{v}");
    let snapshot = hf_home.join(format!("hub/models--test-org--mini-lm/snapshots/{COMMIT}"));
    for f in [
        "config.json",
        "tokenizer.json",
        "model.safetensors",
        "modules.json",
    ] {
        assert!(snapshot.join(f).is_file(), "{f} in {}", snapshot.display());
    }
    // The pooling module's config came too: modules.json names it.
    assert!(snapshot.join("1_Pooling/config.json").is_file());
    let fetched = log.lock().unwrap().clone();
    assert!(
        fetched
            .iter()
            .any(|l| l == "test-org/mini-lm model.safetensors"),
        "{fetched:?}"
    );

    // An id the hub does not have: a clear error naming the id and file.
    let out = search("test-org/absent", &hf_home, &endpoint, &vectors);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr.contains(&format!(
            "test-org/absent: config.json from {endpoint}: not found"
        )),
        "{stderr}"
    );

    // The hub gone: the cached model answers the same, with no fetch.
    stop.send(()).unwrap();
    let requests = log.lock().unwrap().len();
    let out = search("test-org/mini-lm", &hf_home, "http://127.0.0.1:9", &vectors);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("fetching"), "{stderr}");
    let again: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["tools"], v["tools"]);
    assert_eq!(log.lock().unwrap().len(), requests);

    // A path that does not exist is not taken for an id.
    let out = search("./no/such/model", &hf_home, &endpoint, &vectors);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no such directory"), "{stderr}");
}
