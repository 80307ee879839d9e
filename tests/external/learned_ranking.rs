//! The learned ranking is reproducible: the packaged weights are what
//! `scripts/train-ranker.py` makes of the dev sets' features, those
//! features are what this build computes with its built-in model, and no
//! held-out set is among what it was trained on.

use std::path::PathBuf;
use std::process::Command;

use crate::common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// In the order scripts/train-ranker.sh gives them.
const FEATURES: [&str; 15] = [
    "eval/ranking/features/people-dev-queries.jsonl.gz",
    "eval/ranking/features/people-dev-agent.jsonl.gz",
    "eval/ranking/features/bfcl-dev.jsonl.gz",
    "eval/ranking/features/train-business-queries.jsonl.gz",
    "eval/ranking/features/train-business-agent.jsonl.gz",
    "eval/ranking/features/train-comms-queries.jsonl.gz",
    "eval/ranking/features/train-comms-agent.jsonl.gz",
    "eval/ranking/features/train-data-queries.jsonl.gz",
    "eval/ranking/features/train-data-agent.jsonl.gz",
    "eval/ranking/features/train-devtools-queries.jsonl.gz",
    "eval/ranking/features/train-devtools-agent.jsonl.gz",
    "eval/ranking/features/train-infra-queries.jsonl.gz",
    "eval/ranking/features/train-infra-agent.jsonl.gz",
    "eval/ranking/features/train-web-queries.jsonl.gz",
    "eval/ranking/features/train-web-agent.jsonl.gz",
];

#[test]
fn the_packaged_model_is_what_the_script_trains_from_the_dev_features() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hybrid.json");
    let run = Command::new(crate::python_sdk::sdk_python())
        .current_dir(root())
        .arg("scripts/train-ranker.py")
        .arg(&out)
        .args(FEATURES)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let trained = std::fs::read_to_string(&out).unwrap();
    let packaged = std::fs::read_to_string(root().join("assets/ranking/hybrid.json")).unwrap();
    assert_eq!(trained, packaged, "run scripts/train-ranker.sh");
    assert!(!packaged.contains("heldout"), "{packaged}");
}

#[test]
fn the_dev_features_are_what_this_build_computes() {
    let dir = tempfile::tempdir().unwrap();
    let queries = dir.path().join("q.jsonl");
    let text = std::fs::read_to_string(root().join("eval/people-dev/queries.jsonl")).unwrap();
    let first: Vec<&str> = text.lines().take(40).collect();
    std::fs::write(&queries, first.join("\n") + "\n").unwrap();
    let features = dir.path().join("f.jsonl");
    // The features of the model built in, as shipped.
    let out = common::bin_as_shipped()
        .args([
            "eval",
            root()
                .join("eval/people-dev/catalog.json")
                .to_str()
                .unwrap(),
            queries.to_str().unwrap(),
            "--ranker",
            "hybrid",
            "--time-budget-ms",
            "0",
            "--features-out",
            features.to_str().unwrap(),
        ])
        .env("XDG_CACHE_HOME", dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut packed = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(root().join(FEATURES[0])).unwrap()),
        &mut packed,
    )
    .unwrap();
    let now = std::fs::read_to_string(&features).unwrap();
    let now: Vec<&str> = now.lines().collect();
    let before: Vec<&str> = packed.lines().take(now.len()).collect();
    // The features' names first, then the 40 requests: the same
    // candidates with the same labels, and features equal to within the
    // float noise of batching texts differently.
    assert_eq!(now.len(), 41);
    assert_eq!(now[0], before[0], "run scripts/train-ranker.sh");
    for (a, b) in now.iter().zip(&before).skip(1) {
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(a).unwrap(),
            serde_json::from_str(b).unwrap(),
        );
        let (ca, cb) = (
            a["candidates"].as_array().unwrap(),
            b["candidates"].as_array().unwrap(),
        );
        let tools = |c: &Vec<serde_json::Value>| -> Vec<(String, u64)> {
            let mut t: Vec<(String, u64)> = c
                .iter()
                .map(|c| {
                    (
                        c["tool"].as_str().unwrap().to_string(),
                        c["label"].as_u64().unwrap(),
                    )
                })
                .collect();
            t.sort();
            t
        };
        assert_eq!(
            tools(ca),
            tools(cb),
            "{}: run scripts/train-ranker.sh",
            a["id"]
        );
        for x in ca {
            let y = cb.iter().find(|y| y["tool"] == x["tool"]).unwrap();
            for (u, v) in x["x"]
                .as_array()
                .unwrap()
                .iter()
                .zip(y["x"].as_array().unwrap())
            {
                let (u, v) = (u.as_f64().unwrap(), v.as_f64().unwrap());
                assert!(
                    (u - v).abs() <= 2e-3,
                    "{} {}: {u} against {v}: run scripts/train-ranker.sh",
                    a["id"],
                    x["tool"]
                );
            }
        }
    }
}
