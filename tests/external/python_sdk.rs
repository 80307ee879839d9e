//! Interop with the real Caveman Python SDK (`caveman-sdk` 1.2.0 from PyPI,
//! import name `caveman_cloud`): each test starts `toolsift serve` and runs
//! a small script from `tests/interop/` against it, then checks the JSON the
//! script prints.
//!
//! The SDK lives in a venv outside the clone that `scripts/setup-test-deps.sh`
//! makes (`.ci/run` runs it). These tests fail, never skip, without it.

use crate::common;
use crate::common::{is_session_id, names};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::Server;
use serde_json::Value;

const SDK_VERSION: &str = "1.2.0";
const KEY: &str = "k-test-1";

/// The python that has the SDK: `TOOLSIFT_SDK_PYTHON`, else the venv the
/// setup script makes (`TOOLSIFT_SDK_VENV`, default
/// `~/.cache/toolsift-sdk-venv`). Checked once: it imports `caveman_cloud`
/// and has `caveman-sdk` at the pinned version.
pub(crate) fn sdk_python() -> &'static Path {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match PYTHON.get_or_init(find_sdk_python) {
        Ok(path) => path,
        Err(why) => panic!(
            "the Caveman Python SDK for the interop tests is missing: {why}\n\
             Run `scripts/setup-test-deps.sh` once from the repository root: it makes a \
             venv at ~/.cache/toolsift-sdk-venv (or $TOOLSIFT_SDK_VENV) and installs \
             caveman-sdk=={SDK_VERSION} from PyPI into it (`bash .ci/run` does this too). \
             Or set TOOLSIFT_SDK_PYTHON to a python that has caveman-sdk {SDK_VERSION}."
        ),
    }
}

fn find_sdk_python() -> Result<PathBuf, String> {
    let nonempty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let python = match nonempty("TOOLSIFT_SDK_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => {
            let venv = match nonempty("TOOLSIFT_SDK_VENV") {
                Some(v) => PathBuf::from(v),
                None => PathBuf::from(nonempty("HOME").ok_or("HOME is not set")?)
                    .join(".cache/toolsift-sdk-venv"),
            };
            venv.join("bin/python")
        }
    };
    if !python.exists() {
        return Err(format!("{} does not exist", python.display()));
    }
    let out = Command::new(&python)
        .args([
            "-c",
            "import caveman_cloud, importlib.metadata as m; print(m.version('caveman-sdk'))",
        ])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "`import caveman_cloud` fails with {}: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if version != SDK_VERSION {
        return Err(format!(
            "{} has caveman-sdk {version}, these tests are for {SDK_VERSION}",
            python.display()
        ));
    }
    Ok(python)
}

/// `toolsift serve` accepting `KEY` only.
fn server() -> Server {
    Server::start(
        &["--api-key-env", "TOOLSIFT_TEST_KEY"],
        &[("TOOLSIFT_TEST_KEY", KEY)],
    )
}

/// Runs `tests/interop/SCRIPT` with `TOOLSIFT_URL`, `TOOLSIFT_KEY` and
/// `envs`; returns the one JSON value it prints.
fn script(name: &str, url: &str, envs: &[(&str, &str)]) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(name);
    let out = Command::new(sdk_python())
        .arg("-B") // no __pycache__ in the source tree
        .arg(&path)
        .env("TOOLSIFT_URL", url)
        .env("TOOLSIFT_KEY", KEY)
        .env_remove("CAVE_WORKFLOW")
        .envs(envs.iter().copied())
        .output()
        .expect("run the SDK's python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{name} failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
        out.status
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{name} printed no JSON ({e}):\n{stdout}\nstderr: {stderr}"))
}

#[test]
fn seed_python_example_selects_lookup_status() {
    let srv = server();
    let v = script("seed_example.py", &srv.url, &[]);
    assert_eq!(names(&v["names"]), ["lookup_status"], "{v}");
    assert_eq!(names(&v["recovered"]), ["lookup_status"], "{v}");
    assert_eq!(v["handler"]["status"], "ok", "{v}");
    // deferred, initial_tool_count 0, nothing always-load: empty initial set.
    assert_eq!(names(&v["initial"]), Vec::<&str>::new(), "{v}");
    assert!(is_session_id(&v["session_id"]), "{v}");
    assert_eq!(v["method"], "bm25", "{v}");
    assert_eq!(v["token_basis"], "o200k_base", "{v}");
    assert_eq!(v["basis"], "inferred", "{v}");
    let sent = v["sent_schema_tokens"].as_u64().unwrap();
    let full = v["full_schema_tokens"].as_u64().unwrap();
    // The SDK zeroes both counts when the wire's are bad, so full > 0 shows
    // it accepted ours.
    assert!(full > 0 && sent <= full, "{v}");
    // One tool, returned: nothing deferred, nothing saved.
    assert_eq!(v["deferred_count"], 0, "{v}");
    assert_eq!(v["saved_tokens"].as_u64(), Some(full - sent), "{v}");
    assert_eq!(v["reduction_pct"].as_f64(), Some(0.0), "{v}");
    let log = srv.log_lines("POST /sdk/v1/tool-search 200", 1);
    assert!(
        log.contains("POST /sdk/v1/tool-search 200") && log.contains("tools=1 returned=1"),
        "{log}"
    );
    assert!(!log.contains(KEY), "the key is in the access log: {log}");
}

#[test]
fn sdk_continues_a_session_and_the_server_keeps_its_tools() {
    let srv = server();
    let v = script("session.py", &srv.url, &[]);
    let id = &v["first"]["session_id"];
    assert!(is_session_id(id), "{v}");
    assert_eq!(names(&v["first"]["names"]), ["lookup_status"], "{v}");
    // The SDK's session_id= continues the session: the same id comes back.
    assert_eq!(&v["second"]["session_id"], id, "{v}");
    assert_eq!(names(&v["second"]["names"]), ["send_email"], "{v}");
    // The server's session_tools (read raw; the SDK drops it): every tool
    // loaded in the session, append-only, first-load order.
    assert_eq!(v["third"]["status"], 200, "{v}");
    assert_eq!(&v["third"]["session_id"], id, "{v}");
    assert_eq!(names(&v["third"]["names"]), ["close_ticket"], "{v}");
    assert_eq!(
        names(&v["third"]["session_tools"]),
        ["lookup_status", "send_email", "close_ticket"],
        "{v}"
    );
    // Without session_id the server mints a new one.
    assert!(is_session_id(&v["fresh_session_id"]), "{v}");
    assert_ne!(&v["fresh_session_id"], id, "{v}");
}

#[test]
fn max_loaded_tools_is_the_default_search_cap() {
    let srv = server();
    let v = script("max_loaded.py", &srv.url, &[]);
    assert!(v["catalog"].as_u64().unwrap() >= 5, "{v}");
    // initial_tool_count 8 capped by max_loaded_tools 2.
    assert_eq!(names(&v["initial"]).len(), 2, "{v}");
    // Without a cap the query loads more than 3 tools, so the caps below are
    // what limits the answers.
    let uncapped = names(&v["uncapped"]);
    assert!(uncapped.len() > 3, "{v}");
    let default_cap = names(&v["default_cap"]);
    assert!(!default_cap.is_empty() && default_cap.len() <= 2, "{v}");
    assert_eq!(default_cap, uncapped[..default_cap.len()], "{v}");
    let explicit = names(&v["explicit_3"]);
    assert!(explicit.len() > 2 && explicit.len() <= 3, "{v}");
    assert_eq!(explicit, uncapped[..explicit.len()], "{v}");
}

#[test]
fn embeddings_ranker_is_an_sdk_http_error() {
    let srv = server();
    let v = script("ranker_error.py", &srv.url, &[]);
    let e = &v["embeddings"]["error"];
    assert_eq!(e["type"], "urllib.error.HTTPError", "{v}");
    assert_eq!(e["code"], 400, "{v}");
    assert_eq!(e["body"]["error"]["code"], "ranker_unavailable", "{v}");
    assert!(e["body"]["error"]["message"].is_string(), "{v}");
    assert!(
        names(&v["bm25"]["ok"]).iter().any(|n| n == "lookup_status"),
        "{v}"
    );
}

#[test]
fn embeddings_ranker_works_through_the_sdk_with_a_provider() {
    let dir = common::minilm_dir().to_string_lossy().into_owned();
    let srv = Server::start(
        &[
            "--api-key-env",
            "TOOLSIFT_TEST_KEY",
            "--embeddings-local",
            &dir,
            "--no-embeddings-cache",
        ],
        &[("TOOLSIFT_TEST_KEY", KEY)],
    );
    let v = script("embeddings_search.py", &srv.url, &[]);
    let found = names(&v["embeddings"]["ok"]);
    assert_eq!(found.first().map(String::as_str), Some("send_email"), "{v}");
    assert_eq!(v["hybrid"]["status"], 200, "{v}");
    assert_eq!(v["hybrid"]["method"], "hybrid", "{v}");
    assert_eq!(
        names(&v["hybrid"]["names"]).first().map(String::as_str),
        Some("send_email"),
        "{v}"
    );
}

#[test]
fn wrong_or_missing_key_is_401_through_the_sdk() {
    let srv = server();
    let v = script("auth_error.py", &srv.url, &[]);
    assert!(v["right_key"]["ok"].is_array(), "{v}");
    for case in ["wrong_key", "empty_key"] {
        let e = &v[case]["error"];
        assert_eq!(e["type"], "urllib.error.HTTPError", "{case}: {v}");
        assert_eq!(e["code"], 401, "{case}: {v}");
        assert_eq!(e["body"]["error"]["code"], "unauthorized", "{case}: {v}");
    }
    assert_eq!(v["no_authorization"]["code"], 401, "{v}");
    assert_eq!(
        v["no_authorization"]["body"]["error"]["code"], "unauthorized",
        "{v}"
    );
}

#[test]
fn retry_loop_breaker_stops_the_fourth_identical_call() {
    // SDK-local: no request is made, so no server; the Cave still needs a
    // base URL.
    let v = script("retry_loop.py", "http://127.0.0.1:9", &[]);
    assert_eq!(v["attempts"], 4, "{v}");
    assert_eq!(v["raised"], true, "{v}");
    assert_eq!(v["repeats"], 4, "{v}");
    assert_eq!(v["threshold"], 3, "{v}");
    assert_eq!(v["handler_runs"], 3, "{v}");
    assert_eq!(v["signature"], "lookup_status({})", "{v}");
    let message = v["message"].as_str().unwrap();
    assert!(
        message.starts_with("retry loop interrupted: tool call ")
            && message.ends_with("repeated 4 times (threshold 3)"),
        "{v}"
    );
}

#[test]
fn sessions_are_scoped_per_api_key() {
    let srv = Server::start(
        &[
            "--api-key-env",
            "TOOLSIFT_KEY_A",
            "--api-key-env",
            "TOOLSIFT_KEY_B",
        ],
        &[("TOOLSIFT_KEY_A", "k-alpha"), ("TOOLSIFT_KEY_B", "k-beta")],
    );
    let v = script(
        "scoped_sessions.py",
        &srv.url,
        &[("TOOLSIFT_KEY_A", "k-alpha"), ("TOOLSIFT_KEY_B", "k-beta")],
    );
    assert!(is_session_id(&v["a_session_id"]), "{v}");
    assert_eq!(names(&v["a_names"]), ["lookup_status"], "{v}");
    // Key B naming A's session id gets a session of its own, without A's tools.
    let b = &v["b"];
    assert_eq!(b["status"], 200, "{v}");
    assert_eq!(names(&b["names"]), ["send_email"], "{v}");
    assert_eq!(names(&b["session_tools"]), ["send_email"], "{v}");
    // Key A continuing it still has its own tools, and none of B's.
    let a = &v["a_again"];
    assert_eq!(a["status"], 200, "{v}");
    assert_eq!(&a["session_id"], &v["a_session_id"], "{v}");
    assert_eq!(
        names(&a["session_tools"]),
        ["lookup_status", "close_ticket"],
        "{v}"
    );
}

#[test]
fn sdk_provider_call_carries_the_sessions_tools_to_the_upstream() {
    let up = common::fake_upstream::FakeUpstream::start();
    let srv = Server::start(
        &[
            "--api-key-env",
            "TOOLSIFT_TEST_KEY",
            "--upstream",
            &format!("openai={}/v1", up.url),
        ],
        &[("TOOLSIFT_TEST_KEY", KEY)],
    );
    let v = script("provider_session.py", &srv.url, &[]);
    assert!(is_session_id(&v["session_id"]), "{v}");
    assert_eq!(v["later_session_id"], v["session_id"], "{v}");
    assert_eq!(names(&v["names"]), ["lookup_status"], "{v}");
    assert_eq!(names(&v["later_names"]), ["send_email"], "{v}");
    // The SDK got the upstream's answer.
    assert_eq!(v["response"]["id"], "resp_fake", "{v}");
    assert_eq!(
        names(&v["response"]["tools_seen"]),
        ["lookup_status", "send_email"],
        "{v}"
    );
    let seen = up.only();
    assert_eq!(seen.path, "/v1/responses");
    assert_eq!(seen.header("authorization"), Some("Bearer upstream-key"));
    assert!(
        seen.headers
            .iter()
            .all(|(n, v)| !n.starts_with("x-cave-") && !v.contains(KEY)),
        "{seen:?}"
    );
    // The app's own tool first, then the session's other one, in the
    // Responses shape.
    assert_eq!(seen.tool_names(), ["lookup_status", "send_email"]);
    let body = seen.json();
    assert_eq!(body["tools"][1]["type"], "function");
    assert_eq!(
        body["tools"][1]["description"],
        "Send an email message to a recipient"
    );
    assert_eq!(body["input"], "Check service status.");
    let log = srv.log_lines("POST /openai/v1/responses 200", 1);
    assert!(log.contains("injected=1"), "{log}");
}

/// A catalog over the body limit: the SDK (urllib sends the whole body
/// before reading) gets the 413 with its JSON message, not a broken pipe.
#[test]
fn sdk_sees_the_413_of_a_catalog_over_the_body_limit() {
    let srv = Server::start(
        &[
            "--api-key-env",
            "TOOLSIFT_TEST_KEY",
            "--max-body-bytes",
            "100000",
        ],
        &[("TOOLSIFT_TEST_KEY", KEY)],
    );
    let v = script("too_large.py", &srv.url, &[]);
    let err = &v["too_large"]["error"];
    assert_eq!(err["code"], 413, "{v}");
    assert_eq!(err["body"]["error"]["code"], "body_too_large", "{v}");
    assert!(
        err["body"]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("100000")),
        "{v}"
    );
    assert_eq!(names(&v["control"]["ok"]), ["lookup_status"], "{v}");
}
