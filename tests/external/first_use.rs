//! Semantic by default: a new user's first search ranks with the model
//! built in, offline, fetching nothing; `TOOLSIFT_MODEL=off` leaves BM25F
//! alone, said. A hub model named is fetched once (from a hub faked here,
//! never the internet) and read from the cache afterwards;
//! `toolsift model status|fetch|remove` manage it.

use std::path::Path;
use std::process::Output;

use crate::common;
use crate::hub::start_hub_of;

const MODEL: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// `toolsift ARGS` with the hub cache `hf_home` and the hub `endpoint`,
/// fetching allowed unless `offline`, the built-in model on.
fn run(args: &[&str], hf_home: &Path, endpoint: &str, offline: bool) -> Output {
    run_model(args, hf_home, endpoint, offline, "on")
}

/// [`run`] with `TOOLSIFT_MODEL` set to `model`.
fn run_model(args: &[&str], hf_home: &Path, endpoint: &str, offline: bool, model: &str) -> Output {
    let mut cmd = common::bin();
    cmd.args(args)
        .env("HF_HOME", hf_home)
        .env("HF_ENDPOINT", endpoint)
        .env("TOOLSIFT_MODEL", model)
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

/// A search for the time in Tokyo, with `extra` flags.
fn search_with(
    hf_home: &Path,
    endpoint: &str,
    offline: bool,
    model: &str,
    extra: &[&str],
) -> (serde_json::Value, String) {
    let catalog = common::fixture("paraphrase.json");
    let mut args = vec![
        "search",
        catalog.to_str().unwrap(),
        "what hour is it in Tokyo",
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = run_model(&args, hf_home, endpoint, offline, model);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

fn status(hf_home: &Path, model: Option<&str>) -> serde_json::Value {
    let mut args = vec!["model", "status", "--json"];
    args.extend(model);
    common::json(&run(&args, hf_home, "http://127.0.0.1:9", false))
}

#[test]
fn the_first_search_ranks_with_the_built_in_model_and_fetches_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let hf_home = tmp.path().join("hf");
    let (endpoint, log, stop) = start_hub_of(&common::minilm_dir(), MODEL);
    // Fetching on or off: hybrid with the model built in, from the first
    // search, with nothing said on stderr and nothing fetched.
    for offline in [false, true] {
        let (v, stderr) = search_with(&hf_home, &endpoint, offline, "on", &[]);
        assert_eq!(v["method"], "hybrid", "{v}\n{stderr}");
        assert_eq!(v["tools"][0]["name"], "get_current_time", "{v}");
        assert!(stderr.trim().is_empty(), "{stderr}");
    }
    assert!(log.lock().unwrap().is_empty(), "nothing fetched");
    assert!(!hf_home.join("hub").exists(), "nothing in the hub cache");
    let s = status(&hf_home, None);
    assert_eq!(s["source"], "built in", "{s}");
    assert_eq!(s["model"], "toolsift-tools-minilm", "{s}");
    assert!(s["bytes"].as_u64().unwrap() > 40_000_000, "{s}");
    // Turned off: BM25F, and the line says why.
    let (v, stderr) = search_with(&hf_home, &endpoint, false, "off", &[]);
    assert_eq!(v["method"], "bm25", "{v}");
    assert!(
        stderr.contains("toolsift search: ranking with BM25F alone:")
            && stderr.contains("the search model is off"),
        "{stderr}"
    );
    let out = run_model(
        &["model", "status", "--json"],
        &hf_home,
        &endpoint,
        false,
        "off",
    );
    assert_eq!(common::json(&out)["source"], "off");
    let _ = stop.send(());
}

#[test]
fn a_hub_model_named_is_fetched_once_then_ranks_offline() {
    let tmp = tempfile::tempdir().unwrap();
    let hf_home = tmp.path().join("hf");
    let (endpoint, log, stop) = start_hub_of(&common::minilm_dir(), MODEL);
    let named = ["--embeddings-local", MODEL];
    assert_eq!(status(&hf_home, Some(MODEL))["cached"], false);

    // First use: fetched once, with one line saying what.
    let (v, stderr) = search_with(&hf_home, &endpoint, false, "on", &named);
    assert_eq!(v["method"], "hybrid", "{v}\n{stderr}");
    assert!(
        stderr.contains(&format!("fetching {MODEL} from {endpoint}")),
        "{stderr}"
    );
    assert_eq!(v["tools"][0]["name"], "get_current_time", "{v}");
    let fetched = log.lock().unwrap().len();
    assert!(fetched >= 3, "{:?}", log.lock().unwrap());

    // Later: no fetch, hybrid again, even offline.
    let (v, stderr) = search_with(&hf_home, &endpoint, true, "on", &named);
    assert_eq!(v["method"], "hybrid", "{v}");
    assert!(!stderr.contains("fetching"), "{stderr}");
    assert_eq!(log.lock().unwrap().len(), fetched);
    let s = status(&hf_home, Some(MODEL));
    assert_eq!(s["cached"], true, "{s}");
    assert!(s["bytes"].as_u64().unwrap() > 80_000_000, "{s}");

    // Removed: gone from the cache, and fetched again by `model fetch`.
    let out = run(&["model", "remove", MODEL], &hf_home, &endpoint, false);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("removed from"),
        "{text}"
    );
    assert_eq!(status(&hf_home, Some(MODEL))["cached"], false);
    let out = run(&["model", "fetch", MODEL], &hf_home, &endpoint, false);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("at hand in"),
        "{text}"
    );
    assert_eq!(status(&hf_home, Some(MODEL))["cached"], true);
    // Fetching off: `model fetch` says so rather than doing nothing.
    let out = run(&["model", "fetch", MODEL], &hf_home, &endpoint, true);
    assert_eq!(out.status.code(), Some(2));

    // The hub unreachable and nothing cached: the named model is an error
    // that says why, never a silent BM25F.
    stop.send(()).unwrap();
    run(&["model", "remove", MODEL], &hf_home, &endpoint, false);
    let catalog = common::fixture("paraphrase.json");
    let out = run(
        &[
            "search",
            catalog.to_str().unwrap(),
            "what hour is it",
            "--embeddings-local",
            MODEL,
        ],
        &hf_home,
        "http://127.0.0.1:9",
        false,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("cannot reach the hub"), "{stderr}");
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
fn serve_answers_the_sdks_embeddings_ranker_with_the_built_in_model_unasked() {
    let key = [
        ("TOOLSIFT_TEST_KEY", "k-first-use"),
        ("TOOLSIFT_MODEL", "on"),
    ];
    let server = common::Server::start(&["--api-key-env", "TOOLSIFT_TEST_KEY"], &key);
    let (status, v) = serve_search(&server.url, Some("embeddings"));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["method"], "embeddings", "{v}");
    let (status, v) = serve_search(&server.url, Some("hybrid"));
    assert_eq!((status, v["method"].as_str()), (200, Some("hybrid")), "{v}");
    // A request that names no ranker keeps the wire's default.
    let (_, v) = serve_search(&server.url, None);
    assert_eq!(v["method"], "bm25", "{v}");
    said(
        &server,
        "the embeddings and hybrid rankers use toolsift-tools-minilm (built in)",
    );

    // The model turned off: the SDK's embeddings ranker is unavailable
    // (never a silent BM25F), and the start-up line said why.
    let key = [
        ("TOOLSIFT_TEST_KEY", "k-first-use"),
        ("TOOLSIFT_MODEL", "off"),
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
