//! Interop with the real Caveman TypeScript SDK (`@caveman-ai/sdk` 1.0.0):
//! starts `toolsift serve` with a key and a fake openai upstream
//! (tests/common/fake_upstream.rs), runs the seed's TypeScript example with
//! Node (`tests/interop/ts/seed_example.mjs`) against it, and checks the JSON
//! the script prints and what the upstream got.
//!
//! The SDK is not on npm: it is vendored as source beside the repository
//! (`../shared/vendor/caveman-sdk-ts`, or `$TOOLSIFT_CAVEMAN_TS_SDK`), and
//! `scripts/setup-test-deps.sh` (`.ci/run` runs it) compiles it with
//! typescript from npm into a directory outside the clone. In CI this test
//! fails, never skips, without Node or the compiled SDK; outside CI, on a
//! clone with neither the compiled SDK nor its source beside it, it says
//! it is skipped.
//!
//!   TOOLSIFT_TS_SDK_DIST  the compiled SDK (default
//!                         $TOOLSIFT_TS_PREFIX/caveman-sdk/dist, prefix default ~/.cache/toolsift-ts)
//!   TOOLSIFT_NODE         the node to run (default `node` on PATH)

use crate::common;
use crate::common::{is_session_id, names};

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Server;
use common::fake_upstream::FakeUpstream;
use serde_json::Value;

const KEY: &str = "k-ts-1";
/// The service's own provider key (`--upstream-key-env`).
const SERVICE_UPSTREAM_KEY: &str = "sk-service";
/// The key the script's second provider call brings (`upstreamKey`).
const CALLER_UPSTREAM_KEY: &str = "sk-caller";
const MODEL: &str = "gpt-test";
const SETUP: &str = "Run `scripts/setup-test-deps.sh` from the repository root (`bash .ci/run` \
                     does): it installs typescript from npm into ~/.cache/toolsift-ts (or \
                     $TOOLSIFT_TS_PREFIX) and compiles the vendored SDK from \
                     ../shared/vendor/caveman-sdk-ts (or $TOOLSIFT_CAVEMAN_TS_SDK) into \
                     ~/.cache/toolsift-ts/caveman-sdk/dist (or $TOOLSIFT_TS_SDK_DIST).";

/// The compiled SDK's directory; panics, naming the setup script, when it is
/// missing, incomplete, or compiled from another `index.ts` than the
/// vendored one.
fn sdk_dist() -> PathBuf {
    let dist = dist_path();
    let missing = |what: String| -> ! {
        panic!("the compiled Caveman TypeScript SDK for this test is missing: {what}.\n{SETUP}")
    };
    if !dist.join("index.js").is_file() {
        missing(format!("no {}", dist.join("index.js").display()));
    }
    let package = std::fs::read_to_string(dist.join("package.json")).unwrap_or_default();
    if !package.contains(r#""type":"module""#) {
        missing(format!(
            "{} does not say {{\"type\":\"module\"}}",
            dist.join("package.json").display()
        ));
    }
    if let Some(stale) = stale_against_source(&dist) {
        panic!("the compiled Caveman TypeScript SDK is out of date: {stale}.\n{SETUP}");
    }
    dist
}

/// Where the setup script compiles the SDK.
fn dist_path() -> PathBuf {
    match common::env_nonempty("TOOLSIFT_TS_SDK_DIST") {
        Some(d) => PathBuf::from(d),
        None => {
            let prefix = common::env_nonempty("TOOLSIFT_TS_PREFIX").map_or_else(
                || {
                    PathBuf::from(common::env_nonempty("HOME").expect("HOME is set"))
                        .join(".cache/toolsift-ts")
                },
                PathBuf::from,
            );
            prefix.join("caveman-sdk/dist")
        }
    }
}

/// The vendored source's folder.
fn sdk_source() -> PathBuf {
    common::env_nonempty("TOOLSIFT_CAVEMAN_TS_SDK").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vendor/caveman-sdk-ts"),
        PathBuf::from,
    )
}

/// Why `dist` was not compiled from the vendored `index.ts`, when that is
/// at hand (the setup script records its sha256 in `BUILT_FROM`).
fn stale_against_source(dist: &Path) -> Option<String> {
    let index = sdk_source().join("index.ts");
    if !index.is_file() {
        return None;
    }
    let out = Command::new("sha256sum").arg(&index).output().ok()?;
    let sum = String::from_utf8_lossy(&out.stdout);
    let sum = sum.split_whitespace().next()?;
    let built = std::fs::read_to_string(dist.join("BUILT_FROM")).unwrap_or_default();
    (!built.contains(&format!("index.ts sha256 {sum}"))).then(|| {
        format!(
            "{} is not the build of {} (sha256 {sum})",
            dist.display(),
            index.display()
        )
    })
}

/// `TOOLSIFT_NODE`, else `node` on PATH; panics when it does not run.
fn node() -> (PathBuf, String) {
    let node =
        common::env_nonempty("TOOLSIFT_NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from);
    match Command::new(&node).arg("--version").output() {
        Ok(out) if out.status.success() => {
            let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
            (node, version)
        }
        Ok(out) => panic!(
            "`{} --version` failed ({}): {}\nThis test needs Node.js 20 or newer.",
            node.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => panic!(
            "cannot run {}: {e}\nThis test needs Node.js 20 or newer on PATH (or TOOLSIFT_NODE); \
             as root on Debian or Ubuntu `scripts/setup-test-deps.sh` installs it with apt-get.",
            node.display()
        ),
    }
}

/// Runs the script against `url`; returns the one JSON value it prints.
fn run_script(url: &str) -> Value {
    let dist = sdk_dist();
    let (node, version) = node();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/ts/seed_example.mjs");
    let out = Command::new(&node)
        .arg(&script)
        .env("TOOLSIFT_TS_SDK_DIST", &dist)
        .env("TOOLSIFT_URL", url)
        .env("TOOLSIFT_KEY", KEY)
        .env("CAVE_MODEL", MODEL)
        .env_remove("CAVE_WORKFLOW")
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{} failed with node {version} ({}):\nstdout: {stdout}\nstderr: {stderr}",
        script.display(),
        out.status
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("the script printed no JSON ({e}):\n{stdout}\nstderr: {stderr}"))
}

fn count(v: &Value, field: &str) -> u64 {
    v[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} is not a count: {v}"))
}

/// A part that ran to the end (the script reports what a part threw).
fn part<'a>(v: &'a Value, name: &str) -> &'a Value {
    let p = &v[name];
    assert!(p.is_object(), "no part {name}: {v}");
    assert!(p.get("threw").is_none(), "{name} threw: {p:#}");
    p
}

#[test]
fn seed_typescript_example_runs_end_to_end_through_the_real_sdk() {
    if !dist_path().join("index.js").is_file()
        && !sdk_source().join("index.ts").is_file()
        && common::skip_outside_ci(
            "typescript_sdk::seed_typescript_example_runs_end_to_end_through_the_real_sdk",
            "the Caveman TypeScript SDK is not compiled, and its source is not beside the clone (../shared/vendor/caveman-sdk-ts, or $TOOLSIFT_CAVEMAN_TS_SDK)",
        )
    {
        return;
    }
    let up = FakeUpstream::start();
    let srv = Server::start(
        &[
            "--api-key-env",
            "TOOLSIFT_TEST_KEY",
            "--upstream",
            &format!("openai={}/v1", up.url),
            "--upstream-key-env",
            "openai=TOOLSIFT_TEST_UPSTREAM_KEY",
        ],
        &[
            ("TOOLSIFT_TEST_KEY", KEY),
            ("TOOLSIFT_TEST_UPSTREAM_KEY", SERVICE_UPSTREAM_KEY),
        ],
    );
    let v = run_script(&srv.url);

    check_seed(part(&v, "seed"));
    check_token_counts(part(&v, "tokenCounts"));
    check_session(part(&v, "session"));
    check_errors(part(&v, "errors"));
    check_provider(part(&v, "provider"), &up);
    check_retry_loop(part(&v, "retryLoop"));

    let log = srv.log_lines("POST /openai/v1/responses 200", 2);
    assert!(log.contains("POST /sdk/v1/tool-search 200"), "{log}");
    assert!(log.contains("POST /sdk/v1/tool-search 401"), "{log}");
    assert!(log.contains("POST /sdk/v1/tool-search 400"), "{log}");
    for secret in [KEY, SERVICE_UPSTREAM_KEY, CALLER_UPSTREAM_KEY] {
        assert!(
            !log.contains(secret),
            "{secret} is in the access log: {log}"
        );
    }
}

/// The seed's search: one tool, the local descriptor with its handler.
fn check_seed(s: &Value) {
    assert_eq!(s["strategy"], "deferred", "{s}");
    // deferred, initialToolCount 0, nothing alwaysLoad: an empty initial set.
    assert_eq!(names(&s["initial"]), Vec::<&str>::new(), "{s}");
    assert_eq!(names(&s["names"]), ["lookup_status"], "{s}");
    // The SDK hands back the catalog's own object, so the handler is there
    // (the wire carries none) and nothing of the wire's (score, matched) is.
    assert_eq!(s["localDescriptor"], true, "{s}");
    assert_eq!(s["handlerType"], "function", "{s}");
    assert_eq!(s["handler"], serde_json::json!({"status": "ok"}), "{s}");
    assert_eq!(
        names(&s["keys"]),
        [
            "name",
            "description",
            "inputSchema",
            "readOnly",
            "idempotent",
            "handler"
        ],
        "{s}"
    );
    assert!(is_session_id(&s["sessionId"]), "{s}");
    let c = &s["counts"];
    assert_eq!(c["method"], "bm25", "{s}");
    assert_eq!(c["tokenBasis"], "o200k_base", "{s}");
    assert_eq!(c["basis"], "inferred", "{s}");
    // The SDK zeroes both counts when the wire's are bad, so full > 0 shows
    // it took ours. One tool, returned: nothing deferred, nothing saved.
    let (sent, full) = (count(c, "sentSchemaTokens"), count(c, "fullSchemaTokens"));
    assert!(full > 0 && sent == full, "{s}");
    assert_eq!(count(c, "deferredCount"), 0, "{s}");
    assert_eq!(count(c, "savedTokens"), 0, "{s}");
    assert_eq!(c["reductionPct"].as_f64(), Some(0.0), "{s}");
}

/// Six of seven tools deferred: the SDK's counts are the wire's, and its
/// savedTokens and reductionPct follow from them.
fn check_token_counts(t: &Value) {
    assert_eq!(t["catalog"], 7, "{t}");
    assert_eq!(names(&t["names"]), ["lookup_status"], "{t}");
    let (c, w) = (&t["counts"], &t["wire"]);
    assert_eq!(w["status"], 200, "{t}");
    assert_eq!(names(&w["names"]), ["lookup_status"], "{t}");
    let sent = count(w, "sent_schema_tokens");
    let full = count(w, "full_schema_tokens");
    assert!(0 < sent && sent < full, "{t}");
    assert_eq!(count(c, "sentSchemaTokens"), sent, "{t}");
    assert_eq!(count(c, "fullSchemaTokens"), full, "{t}");
    assert_eq!(count(w, "deferred_count"), 6, "{t}");
    assert_eq!(count(c, "deferredCount"), 6, "{t}");
    let saved = full - sent;
    assert_eq!(count(c, "savedTokens"), saved, "{t}");
    // 100 * saved / full, half up to one decimal (the contract's integer form).
    let pct = ((saved * 2000 + full) / (2 * full)) as f64 / 10.0;
    assert_eq!(c["reductionPct"].as_f64(), Some(pct), "{t}");
    assert!(pct > 50.0, "{t}");
    assert_eq!(c["tokenBasis"], w["token_basis"], "{t}");
    assert_eq!(c["method"], w["method"], "{t}");
    assert_eq!(c["basis"], "inferred", "{t}");
}

/// `toolSessionId` continues the session: the same id back, the server's
/// session_tools append-only in first-load order; none mints a new one.
fn check_session(s: &Value) {
    let id = &s["first"]["sessionId"];
    assert!(is_session_id(id), "{s}");
    assert_eq!(names(&s["first"]["names"]), ["lookup_status"], "{s}");
    assert_eq!(&s["second"]["sessionId"], id, "{s}");
    assert_eq!(names(&s["second"]["names"]), ["send_email"], "{s}");
    assert_eq!(s["second"]["localDescriptor"], true, "{s}");
    assert_eq!(s["second"]["handler"]["ran"], "send_email", "{s}");
    let third = &s["third"];
    assert_eq!(third["status"], 200, "{s}");
    assert_eq!(&third["sessionId"], id, "{s}");
    assert_eq!(names(&third["names"]), ["close_ticket"], "{s}");
    assert_eq!(
        names(&third["sessionTools"]),
        ["lookup_status", "send_email", "close_ticket"],
        "{s}"
    );
    assert!(is_session_id(&s["freshSessionId"]), "{s}");
    assert_ne!(&s["freshSessionId"], id, "{s}");
}

/// A non-2xx search is the SDK's Error naming the status (it has no status
/// field and does not read the body; the raw answers show toolsift's JSON
/// error); bad options fail before any request.
fn check_errors(e: &Value) {
    assert_eq!(names(&e["control"]["ok"]), ["lookup_status"], "{e}");
    for (case, status, code) in [
        ("wrongKey", 401, "unauthorized"),
        ("unknownRanker", 400, "unknown_ranker"),
        ("embeddings", 400, "ranker_unavailable"),
    ] {
        let err = &e[case]["error"];
        assert!(e[case].get("ok").is_none(), "{case} gave a result: {e}");
        assert_eq!(err["class"], "Error", "{case}: {e}");
        assert_eq!(err["isError"], true, "{case}: {e}");
        assert_eq!(
            err["message"],
            format!("tool search failed with HTTP {status}"),
            "{case}: {e}"
        );
        let wire = &e[format!("{case}Wire")];
        assert_eq!(wire["status"], status, "{case}: {e}");
        assert_eq!(wire["body"]["error"]["code"], code, "{case}: {e}");
        assert!(
            wire["body"]["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{case}: {e}"
        );
    }
    assert_eq!(
        e["maxToolsZero"]["error"]["message"], "maxTools must be a positive integer",
        "{e}"
    );
    assert_eq!(
        e["emptyKey"]["error"]["message"], "apiKey, baseURL, and agent are required",
        "{e}"
    );
}

/// The seed's provider call went through the pass-through with the session's
/// tools added, the service's provider key, and nothing of Caveman's; a
/// caller's upstreamKey wins over the service's.
fn check_provider(p: &Value, up: &FakeUpstream) {
    let id = &p["sessionId"];
    assert!(is_session_id(id), "{p}");
    assert_eq!(&p["laterSessionId"], id, "{p}");
    assert_eq!(names(&p["names"]), ["lookup_status"], "{p}");
    assert_eq!(names(&p["laterNames"]), ["send_email"], "{p}");
    // The SDK returned the upstream's answer.
    let response = &p["response"];
    assert_eq!(response["id"], "resp_fake", "{p}");
    assert_eq!(
        names(&response["tools_seen"]),
        ["lookup_status", "send_email"],
        "{p}"
    );
    assert_eq!(
        response["authorization"],
        format!("Bearer {SERVICE_UPSTREAM_KEY}"),
        "{p}"
    );
    assert_eq!(
        names(&p["withKey"]["tools_seen"]),
        ["lookup_status", "send_email"],
        "{p}"
    );
    assert_eq!(
        p["withKey"]["authorization"],
        format!("Bearer {CALLER_UPSTREAM_KEY}"),
        "{p}"
    );

    let seen = up.seen();
    assert_eq!(seen.len(), 2, "{seen:#?}");
    for (request, key) in seen.iter().zip([SERVICE_UPSTREAM_KEY, CALLER_UPSTREAM_KEY]) {
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/v1/responses");
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {key}").as_str())
        );
        assert!(
            request
                .headers
                .iter()
                .all(|(n, v)| !n.starts_with("x-cave-") && !v.contains(KEY)),
            "{request:?}"
        );
        assert_eq!(request.tool_names(), ["lookup_status", "send_email"]);
        let body = request.json();
        assert_eq!(body["model"], MODEL);
        assert_eq!(body["input"], "Check service status.");
    }
    // The seed's call: the app's own tool as it sent it, then the session's
    // other one in the Responses shape.
    let body = seen[0].json();
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["parameters"]["type"], "object");
    assert_eq!(body["tools"][1]["type"], "function");
    assert_eq!(
        body["tools"][1]["description"],
        "Send an email message to a recipient"
    );
}

/// threshold 3: three identical calls run the handler, the fourth throws
/// RetryLoopError before it; a fifth still does (repeats 5); reset() clears.
fn check_retry_loop(r: &Value) {
    assert_eq!(r["attempts"], 4, "{r}");
    assert_eq!(r["handlerRuns"], 3, "{r}");
    assert_eq!(
        r["returned"],
        serde_json::json!([{"status": "ok"}, {"status": "ok"}, {"status": "ok"}]),
        "{r}"
    );
    let c = &r["caught"];
    assert_eq!(c["isRetryLoopError"], true, "{r}");
    assert_eq!(c["isError"], true, "{r}");
    assert_eq!(c["name"], "RetryLoopError", "{r}");
    assert_eq!(c["repeats"], 4, "{r}");
    assert_eq!(c["threshold"], 3, "{r}");
    assert_eq!(c["signature"], "lookup_status({})", "{r}");
    assert_eq!(
        c["message"],
        "retry loop interrupted: tool call \"lookup_status({})\" repeated 4 times (threshold 3)",
        "{r}"
    );
    assert_eq!(r["fifth"]["isRetryLoopError"], true, "{r}");
    assert_eq!(r["fifth"]["repeats"], 5, "{r}");
    assert_eq!(r["afterReset"]["returned"]["status"], "ok", "{r}");
}
