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
