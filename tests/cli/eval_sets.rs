//! The evaluation sets under eval/ hold to one set of rules, checked by one
//! script (`scripts/check-eval-set.py`): every set passes, and a set with a
//! fault is refused naming the request and the fault.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(folders: &[&Path]) -> Output {
    Command::new("python3")
        .arg(root().join("scripts/check-eval-set.py"))
        .args(folders)
        .output()
        .expect("python3 runs scripts/check-eval-set.py")
}

#[test]
fn every_set_of_the_request_shape_passes_the_one_check() {
    let sets: Vec<PathBuf> = std::fs::read_dir(root().join("eval"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("train-") || name == "kinds-heldout" || name == "people-heldout"
        })
        .collect();
    assert!(sets.len() >= 8, "{sets:?}");
    let refs: Vec<&Path> = sets.iter().map(PathBuf::as_path).collect();
    let out = check(&refs);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.matches(": OK").count(), sets.len(), "{stdout}");
}

#[test]
fn a_set_with_an_unknown_tool_and_a_stray_agent_row_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let from = root().join("eval/train-web");
    for file in ["catalog.json", "queries.jsonl", "agent.jsonl"] {
        std::fs::copy(from.join(file), dir.path().join(file)).unwrap();
    }
    let queries = std::fs::read_to_string(dir.path().join("queries.jsonl")).unwrap();
    let first = queries.lines().next().unwrap();
    let broken = first.replacen("\"click\"", "\"klick\"", 1);
    assert_ne!(first, broken, "the first request expects click");
    std::fs::write(
        dir.path().join("queries.jsonl"),
        queries.replacen(first, &broken, 1),
    )
    .unwrap();
    let out = check(&[dir.path()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("twb-0001: unknown tool 'klick'"),
        "{stdout}"
    );
    assert!(
        stdout.contains("twba-0001: expected differs from its request's first step"),
        "{stdout}"
    );
}
