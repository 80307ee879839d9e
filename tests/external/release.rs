//! The release workflow (.github/workflows/release.yml), which only GitHub
//! runs: valid against GitHub's workflow schema (check-jsonschema's vendored
//! copy), and, read as YAML, building a wheel for every platform the docs
//! promise, an sdist, publishing to PyPI by trusted publishing on a version
//! tag alone, and the same binaries with their checksums as release assets.
//! PyYAML and check-jsonschema come from scripts/setup-test-deps.sh (in the
//! wheel venv); a missing one FAILS the test.

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

use crate::mcp_support::need;
use crate::wheel::wheel_venv;

const WORKFLOW: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/.github/workflows/release.yml");

/// Each target the release builds, and the container maturin builds it in.
const TARGETS: [(&str, &str); 7] = [
    ("x86_64-unknown-linux-gnu", "auto"),
    ("aarch64-unknown-linux-gnu", "auto"),
    ("x86_64-unknown-linux-musl", "musllinux_1_2"),
    ("aarch64-unknown-linux-musl", "musllinux_1_2"),
    ("x86_64-apple-darwin", "off"),
    ("aarch64-apple-darwin", "off"),
    ("x86_64-pc-windows-msvc", "off"),
];

/// The workflow as JSON, read by PyYAML (YAML 1.1 reads the key `on` as
/// true: it is put back as "on").
fn workflow() -> Value {
    let python = need(wheel_venv().join("bin/python"), "the wheel venv's python");
    let out = Command::new(python)
        .args([
            "-c",
            "import json, sys, yaml\n\
             doc = yaml.safe_load(open(sys.argv[1]))\n\
             doc['on'] = doc.pop(True, doc.get('on'))\n\
             print(json.dumps(doc))",
            WORKFLOW,
        ])
        .output()
        .expect("python runs");
    assert!(out.status.success(), "PyYAML: {out:?}");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn job<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let job = &doc["jobs"][name];
    assert!(job.is_object(), "no job {name}: {}", doc["jobs"]);
    job
}

/// The `uses:` of each of the job's steps.
fn uses(job: &Value) -> Vec<&str> {
    job["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(|s| s["uses"].as_str())
        .collect()
}

fn runs(job: &Value) -> String {
    let steps = job["steps"].as_array().expect("steps");
    steps.iter().filter_map(|s| s["run"].as_str()).collect()
}

#[test]
fn the_release_workflow_is_valid_against_githubs_schema() {
    let check = need(
        wheel_venv().join("bin/check-jsonschema"),
        "check-jsonschema",
    );
    let out = Command::new(check)
        .args(["--builtin-schema", "vendor.github-workflows", WORKFLOW])
        .output()
        .expect("check-jsonschema runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_release_workflow_builds_every_platform_with_maturin() {
    let doc = workflow();
    let wheels = job(&doc, "wheels");
    let built: BTreeMap<&str, &str> = wheels["strategy"]["matrix"]["include"]
        .as_array()
        .expect("a matrix of targets")
        .iter()
        .map(|t| {
            (
                t["target"].as_str().expect("target"),
                t["manylinux"].as_str().expect("manylinux"),
            )
        })
        .collect();
    assert_eq!(built, BTreeMap::from(TARGETS));
    assert!(uses(wheels).contains(&"PyO3/maturin-action@v1"), "{wheels}");
    assert!(
        runs(wheels).contains("scripts/release-archive.py"),
        "{wheels}"
    );
    let sdist = job(&doc, "sdist");
    let maturin = sdist["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["uses"] == "PyO3/maturin-action@v1")
        .expect("the sdist by maturin");
    assert_eq!(maturin["with"]["command"], "sdist");

    // The wheel the release builds is the one pyproject.toml describes
    // (the binary, not a Python extension), with the pinned toolchain.
    let pyproject =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/pyproject.toml")).unwrap();
    assert!(pyproject.contains("bindings = \"bin\""), "{pyproject}");
    let toolchain =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rust-toolchain.toml"))
            .unwrap();
    let pinned = format!(
        "channel = \"{}\"",
        doc["env"]["RUST_TOOLCHAIN"].as_str().unwrap()
    );
    assert!(toolchain.contains(&pinned), "{pinned} in {toolchain}");
}

#[test]
fn the_release_workflow_publishes_on_a_version_tag_alone() {
    let doc = workflow();
    assert_eq!(doc["on"]["push"]["tags"], serde_json::json!(["v*"]));
    assert_eq!(
        doc["permissions"]["contents"], "read",
        "{}",
        doc["permissions"]
    );

    // PyPI: trusted publishing, no token, from the `pypi` environment.
    let pypi = job(&doc, "pypi");
    assert_eq!(pypi["if"], "startsWith(github.ref, 'refs/tags/v')");
    assert_eq!(pypi["environment"]["name"], "pypi");
    assert_eq!(pypi["permissions"]["id-token"], "write");
    assert!(
        uses(pypi).contains(&"pypa/gh-action-pypi-publish@release/v1"),
        "{pypi}"
    );
    assert!(!pypi.to_string().contains("password"), "{pypi}");

    // The release: the archives and their checksums.
    let release = job(&doc, "github-release");
    assert_eq!(release["if"], "startsWith(github.ref, 'refs/tags/v')");
    assert_eq!(release["permissions"]["contents"], "write");
    let run = runs(release);
    assert!(
        run.contains("sha256sum") && run.contains("SHA256SUMS"),
        "{run}"
    );
    assert!(run.contains("gh release create"), "{run}");

    // A tag that is not Cargo.toml's version stops everything.
    let version = job(&doc, "version");
    assert!(runs(version).contains("Cargo.toml"), "{version}");
    for name in ["wheels", "sdist"] {
        assert_eq!(job(&doc, name)["needs"], "version", "{name}");
    }
}
