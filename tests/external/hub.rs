//! `--embeddings-local ORG/NAME`: a model fetched by Hugging Face id, from a
//! hub faked here (it speaks what the hub's file endpoint says: ranges,
//! `etag`, `x-repo-commit`), into `$HF_HOME/hub`, then used with no hub at
//! all. The files served are the real all-MiniLM-L6-v2 from
//! `scripts/setup-test-deps.sh`; the test fails, never skips, without it.

use crate::common;

use std::path::Path;
use std::sync::{Arc, Mutex};

pub(crate) use crate::common::fake_hub::{COMMIT, start_hub_of};

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
