//! Semantic by default: a new user's first search fetches the search model
//! (from a hub faked here, never the internet) with one line saying what
//! and how big, every later search ranks with it offline, and without it
//! (fetching off, the hub unreachable) BM25F ranks alone and says so.
//! `toolsift model status|fetch|remove` manage it.

use std::path::Path;
use std::process::Output;

use crate::common;
use crate::hub::start_hub_of;

const MODEL: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// `toolsift ARGS` with the hub cache `hf_home` and the hub `endpoint`,
/// fetching allowed unless `offline`.
fn run(args: &[&str], hf_home: &Path, endpoint: &str, offline: bool) -> Output {
    let mut cmd = common::bin();
    cmd.args(args)
        .env("HF_HOME", hf_home)
        .env("HF_ENDPOINT", endpoint)
        .env_remove("HF_TOKEN")
        .env_remove("HF_HUB_OFFLINE")
        .env("XDG_CACHE_HOME", hf_home.join("xdg"));
    if offline {
        cmd.env("TOOLSIFT_OFFLINE", "1");
    } else {
        cmd.env_remove("TOOLSIFT_OFFLINE");
    }
    cmd.output().unwrap()
}

fn search(hf_home: &Path, endpoint: &str, offline: bool) -> (serde_json::Value, String) {
    let catalog = common::fixture("paraphrase.json");
    let out = run(
        &[
            "search",
            catalog.to_str().unwrap(),
            "what hour is it in Tokyo",
            "--json",
        ],
        hf_home,
        endpoint,
        offline,
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

fn status(hf_home: &Path) -> serde_json::Value {
    common::json(&run(
        &["model", "status", "--json"],
        hf_home,
        "http://127.0.0.1:9",
        false,
    ))
}

#[test]
fn the_search_model_is_fetched_on_first_use_and_bm25f_ranks_alone_without_it() {
    let tmp = tempfile::tempdir().unwrap();
    let hf_home = tmp.path().join("hf");
    let (endpoint, log, stop) = start_hub_of(&common::minilm_dir(), MODEL);

    // Fetching off and nothing cached: BM25F, and the line says why.
    let (v, stderr) = search(&hf_home, &endpoint, true);
    assert_eq!(v["method"], "bm25", "{v}");
    assert!(
        stderr.contains("toolsift search: ranking with BM25F alone:")
            && stderr.contains("fetching is off"),
        "{stderr}"
    );
    assert!(log.lock().unwrap().is_empty(), "nothing fetched offline");
    assert_eq!(status(&hf_home)["cached"], false);

    // First use: fetched once, with one line saying what and how big.
    let (v, stderr) = search(&hf_home, &endpoint, false);
    assert_eq!(v["method"], "hybrid", "{v}\n{stderr}");
    assert!(
        stderr.contains(&format!("fetching {MODEL} from {endpoint}"))
            && stderr.contains("about 91 MB"),
        "{stderr}"
    );
    assert_eq!(v["tools"][0]["name"], "get_current_time", "{v}");
    let fetched = log.lock().unwrap().len();
    assert!(fetched >= 3, "{:?}", log.lock().unwrap());

    // Later: no fetch, hybrid again, even offline.
    let (v, stderr) = search(&hf_home, &endpoint, true);
    assert_eq!(v["method"], "hybrid", "{v}");
    assert!(!stderr.contains("fetching"), "{stderr}");
    assert_eq!(log.lock().unwrap().len(), fetched);
    let s = status(&hf_home);
    assert_eq!(s["cached"], true, "{s}");
    assert!(s["bytes"].as_u64().unwrap() > 80_000_000, "{s}");

    // Removed: gone from the cache, and fetched again by `model fetch`.
    let out = run(&["model", "remove"], &hf_home, &endpoint, false);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("removed from"),
        "{text}"
    );
    assert_eq!(status(&hf_home)["cached"], false);
    let out = run(&["model", "fetch"], &hf_home, &endpoint, false);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("at hand in"),
        "{text}"
    );
    assert_eq!(status(&hf_home)["cached"], true);
    // Fetching off: `model fetch` says so rather than doing nothing.
    let out = run(&["model", "fetch"], &hf_home, &endpoint, true);
    assert_eq!(out.status.code(), Some(2));

    // The hub unreachable and nothing cached: BM25F, saying why.
    stop.send(()).unwrap();
    run(&["model", "remove"], &hf_home, &endpoint, false);
    let (v, stderr) = search(&hf_home, "http://127.0.0.1:9", false);
    assert_eq!(v["method"], "bm25", "{v}");
    assert!(
        stderr.contains("ranking with BM25F alone:") && stderr.contains("cannot reach the hub"),
        "{stderr}"
    );
}

/// One search of `serve` at `url` for `ranker` (none: the wire's default):
/// status and body.
fn serve_search(url: &str, ranker: Option<&str>) -> (u16, serde_json::Value) {
    let catalog = std::fs::read_to_string(common::fixture("paraphrase.json")).unwrap();
    let catalog: serde_json::Value = serde_json::from_str(&catalog).unwrap();
    let tools = catalog.get("tools").cloned().unwrap_or(catalog);
    let mut body = serde_json::json!({"tools": tools, "query": "what hour is it in Tokyo"});
    if let Some(r) = ranker {
        body["ranker"] = serde_json::json!(r);
    }
    let r = common::http_client()
        .post(format!("{url}/sdk/v1/tool-search"))
        .bearer_auth("k-first-use")
        .json(&body)
        .send()
        .unwrap();
    (r.status().as_u16(), r.json().unwrap())
}

#[test]
fn serve_answers_the_sdks_embeddings_ranker_with_the_search_model_unasked() {
    let home = tempfile::tempdir().unwrap();
    common::hub_with_the_default_model(home.path());
    let hf_home = home.path().to_str().unwrap();
    let key = [("TOOLSIFT_TEST_KEY", "k-first-use"), ("HF_HOME", hf_home)];
    let server = common::Server::start(&["--api-key-env", "TOOLSIFT_TEST_KEY"], &key);
    let (status, v) = serve_search(&server.url, Some("embeddings"));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["method"], "embeddings", "{v}");
    let (status, v) = serve_search(&server.url, Some("hybrid"));
    assert_eq!((status, v["method"].as_str()), (200, Some("hybrid")), "{v}");
    // A request that names no ranker keeps the wire's default.
    let (_, v) = serve_search(&server.url, None);
    assert_eq!(v["method"], "bm25", "{v}");
    let log = server.log.lock().unwrap().clone();
    assert!(
        log.contains(
            "the embeddings and hybrid rankers use sentence-transformers/all-MiniLM-L6-v2"
        ),
        "{log}"
    );

    // No model and fetching off: the SDK's embeddings ranker is unavailable
    // (never a silent BM25F), and the start-up line said why.
    let empty = tempfile::tempdir().unwrap();
    let key = [
        ("TOOLSIFT_TEST_KEY", "k-first-use"),
        ("HF_HOME", empty.path().to_str().unwrap()),
    ];
    let server = common::Server::start(&["--api-key-env", "TOOLSIFT_TEST_KEY"], &key);
    let (status, v) = serve_search(&server.url, Some("embeddings"));
    assert_eq!(status, 400, "{v}");
    said(&server, "ranking with BM25F alone");
}

/// The server's stderr says `needle` (read in the background: waited for).
fn said(server: &common::Server, needle: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let log = server.log.lock().unwrap().clone();
        if log.contains(needle) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{needle:?} not in {log}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
