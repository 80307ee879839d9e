//! A Hugging Face hub faked on a loopback port: it speaks what the hub's
//! file endpoint says (ranges, `etag`, `x-repo-commit`) for one repository
//! made of a model folder's files.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, Response, StatusCode};
use axum::routing::get;

pub const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

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
pub fn start_hub_of(
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
