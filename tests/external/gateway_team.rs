//! docs/gateway-team.md's config, as written: its keys, groups, sandboxed
//! servers and per-user hosted server read by `toolsift gateway`, its
//! login and start commands run as the page gives them. Only what cannot
//! run here is put in place: the local servers' commands (the installed
//! mcp-server-time and server-everything, not `uvx`/`npx` fetching them),
//! the tracker's address (the OAuth fixture, a real MCP Python SDK
//! authorization and resource server) and the traces' receiver (a real
//! OTLP receiver on loopback). The host is the official MCP Python SDK.
//! Each part's own behaviour, on both revisions, is tested in its own
//! file (gateway_access, gateway_logins, gateway_sandbox, gateway_otel).

use std::time::Duration;

use serde_json::{Value, json};

use crate::gateway::{HttpGateway, host, search_tools_description, text};
use crate::gateway_access::servers_of;
use crate::gateway_logins::{calls, person_of};
use crate::gateway_otel::{hex, host_span, request_span, traceparent, under};
use crate::mcp_support::*;
use crate::oauth_fixture::{OAuthServer, browser, run_env};
use crate::otlp_receiver::{Receiver, attr};

const PAGE: &str = include_str!("../../docs/gateway-team.md");

/// Where the page keeps its files.
const SRV: &str = "/srv/toolsift/";

const KEYS: [(&str, &str); 3] = [
    ("ALICE_KEY", "alice-secret"),
    ("BOB_KEY", "bob-secret"),
    ("CAROL_KEY", "carol-secret"),
];

/// The page's fenced blocks in `lang`, as written, in order.
fn blocks(lang: &str) -> Vec<String> {
    let fence = format!("```{lang}\n");
    PAGE.split(&fence)
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap().to_string())
        .collect()
}

fn block(lang: &str) -> String {
    blocks(lang).remove(0)
}

/// The page's servers file, its local servers' commands those installed
/// and the tracker at `tracker`.
fn page_servers(dir: &TempDir, tracker: &str) -> String {
    let mut doc: Value = serde_json::from_str(&block("json")).expect("the page's JSON parses");
    let servers = &mut doc["mcpServers"];
    servers["time"]["command"] = time_bin().into();
    servers["time"]["args"] = json!(["--local-timezone", "Etc/UTC"]);
    servers["everything"]["command"] = everything_bin().into();
    servers["everything"]["args"] = json!([]);
    servers["tracker"]["url"] = tracker.into();
    dir.write("servers.json", &doc.to_string())
}

/// A command of the page's `sh` blocks (the one that runs `toolsift
/// verb`), its variables and its arguments, the page's files those of
/// `dir`.
fn command(dir: &TempDir, verb: &str) -> (Vec<(String, String)>, Vec<String>) {
    let start = format!("toolsift {verb} ");
    let joined = blocks("sh")
        .into_iter()
        .map(|b| b.replace("\\\n", " "))
        .find(|b| b.contains(&start))
        .unwrap_or_else(|| panic!("the page runs `{start}`"));
    let local = dir.path("");
    let words: Vec<String> = joined
        .replace(SRV, &local)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let at = words.iter().position(|w| w == "toolsift").unwrap();
    let vars = words[..at]
        .iter()
        .map(|w| w.split_once('=').expect("NAME=value"))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    (vars, words[at + 1..].to_vec())
}

fn dry_run_as_written(config: &str, dir: &TempDir) -> std::process::Output {
    let config = dir.write("config.toml", config);
    let mut cmd = crate::common::bin();
    cmd.arg("gateway").arg("--offline").args([
        "--config",
        &config,
        "--mcp",
        &page_servers(dir, "http://127.0.0.1:9/mcp"),
        "--mcp-timeout",
        "60",
        "--dry-run",
    ]);
    cmd.envs(KEYS);
    cmd.output().unwrap()
}

/// The start-up line of a server in what the gateway said.
fn start_line(said: &str, server: &str) -> String {
    said.lines()
        .find(|l| l.contains(&format!("toolsift: MCP server \"{server}\": ")))
        .unwrap_or_else(|| panic!("no start-up line for {server}:\n{said}"))
        .to_string()
}

/// Both local servers sandboxed as the page has it.
fn sandboxed_as_written(said: &str) {
    for server in ["time", "everything"] {
        assert!(
            start_line(said, server).contains("sandboxed (Landlock ABI"),
            "{said}"
        );
    }
    let time = start_line(said, "time");
    assert!(time.contains("net: TCP to port 443"), "{time}");
}

#[test]
fn the_team_page_s_config_runs_as_written() {
    let dir = TempDir::new("gw-team-page");
    let out = dry_run_as_written(&block("toml"), &dir);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    sandboxed_as_written(&err);
    // Each local server listed its tools under the sandbox.
    let listed = crate::common::stdout_text(&out);
    let by_server = listed
        .lines()
        .find(|l| l.starts_with("direct, by server:"))
        .unwrap_or_else(|| panic!("{listed}\n{err}"));
    assert!(by_server.contains("everything 17 tools"), "{by_server}");
    assert!(by_server.contains("time 2 tools"), "{by_server}");
}

#[test]
fn a_slip_in_the_team_page_s_config_is_named_with_its_key_and_line() {
    let dir = TempDir::new("gw-team-slip");
    let written = block("toml");
    let slipped = written.replacen("group = \"support\"", "group = \"ops\"", 1);
    assert_ne!(slipped, written, "bob's group is on the page");
    let out = dry_run_as_written(&slipped, &dir);
    let err = stderr(&out);
    assert_ne!(out.status.code(), Some(0), "{err}");
    let bob = written
        .lines()
        .position(|l| l == "[gateway.keys.bob]")
        .unwrap();
    let line = bob
        + written
            .lines()
            .skip(bob)
            .position(|l| l.starts_with("group"))
            .unwrap()
        + 1;
    let named = format!(
        "config.toml:{line}:1: [gateway.keys.bob] group \"ops\" does not exist (the groups: dev, support)"
    );
    assert!(err.contains(&named), "{err}");
    // The page quotes the same words.
    assert!(
        PAGE.replace('\n', " ").contains(&named),
        "the page's words: {named}"
    );
}

/// What the logins and the gateway share: the folder the logins are kept
/// in, the keys; a login's browser is signed in as `person`, the
/// gateway's (`None`) opens nothing.
fn team_env(dir: &TempDir, person: Option<&str>) -> Vec<(String, String)> {
    let browsing = match person {
        Some(person) => [
            ("BROWSER", browser()),
            ("TOOLSIFT_TEST_BROWSER_USER", person.into()),
        ],
        None => [
            ("TOOLSIFT_NO_BROWSER", "1".into()),
            ("BROWSER", "false".into()),
        ],
    };
    let shared = [
        ("XDG_CONFIG_HOME", dir.path("xdg")),
        ("TOOLSIFT_TOKEN_STORE", "file".into()),
    ];
    let keys = KEYS.map(|(k, v)| (k, v.to_string()));
    shared
        .into_iter()
        .chain(browsing)
        .chain(keys)
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

fn borrowed(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

/// The page's login command, as `key`, the browser signed in as `person`.
fn log_in_as_written(dir: &TempDir, key: &str, person: &str) {
    let (_, mut args) = command(dir, "login");
    assert_eq!(
        args.pop().as_deref(),
        Some("alice"),
        "the page logs alice in"
    );
    args.push(key.to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, said) = run_env(&args, &borrowed(&team_env(dir, Some(person))));
    assert!(ok, "{said}");
    assert!(said.contains(&format!("as key {key}")), "{said}");
}

/// The page's start command, its keys set and its traces sent to
/// `receiver`.
fn start_as_written(dir: &TempDir, receiver: &Receiver) -> HttpGateway {
    let (vars, args) = command(dir, "gateway");
    let mut env = team_env(dir, None);
    for (var, value) in vars {
        match var.as_str() {
            "OTEL_EXPORTER_OTLP_ENDPOINT" => env.push((var, receiver.endpoint())),
            _ if value == "…" => assert!(env.iter().any(|(k, _)| *k == var), "{var}"),
            _ => env.push((var, value)),
        }
    }
    HttpGateway::start(&args[1..], &borrowed(&env))
}

fn call_tool_step(name: &str, arguments: Value, meta: Value) -> Value {
    json!({"op": "call", "name": "call_tool",
           "arguments": {"name": name, "arguments": arguments}, "meta": meta})
}

/// One session of `key`: its first view, two searches, its call of the
/// tracker (with `meta`), its call of everything's echo.
fn session(gw: &HttpGateway, key: &str, meta: Value) -> Vec<Value> {
    let steps = json!([
        {"op": "list"},
        {"op": "call", "name": "search_tools", "arguments": {"query": "echo a message back"}},
        {"op": "call", "name": "search_tools", "arguments": {"query": "the current time"}},
        call_tool_step("whoami", json!({}), meta),
        call_tool_step("echo", json!({"message": "hi"}), json!({})),
    ]);
    let header = format!("Authorization: Bearer {key}");
    let doc = host(&["--url", &gw.url, "--header", &header], "auto", &steps, 1);
    doc["sessions"][0].as_array().unwrap().clone()
}

/// The servers a key's first view and searches show.
fn reach_of(steps: &[Value]) -> (String, Vec<String>) {
    let mut found = servers_of(&steps[1]);
    found.extend(servers_of(&steps[2]));
    found.sort();
    found.dedup();
    (search_tools_description(&steps[0]), found)
}

#[test]
fn the_team_page_serves_three_people_as_written() {
    let dir = TempDir::new("gw-team-run");
    let tracker = OAuthServer::start(&dir, 600, &dir.path("never"));
    let receiver = Receiver::start();
    dir.write("config.toml", &block("toml"));
    let servers = page_servers(&dir, &tracker.url);
    log_in_as_written(&dir, "alice", "person-a");
    log_in_as_written(&dir, "bob", "person-b");
    let gw = start_as_written(&dir, &receiver);
    let said = gw.stderr();
    sandboxed_as_written(&said);
    assert!(
        said.contains("OpenTelemetry: traces and metrics sent over OTLP/HTTP"),
        "{said}"
    );

    let (trace, parent) = host_span(7);
    let tp = json!({"traceparent": traceparent(&trace, &parent)});
    let alice = session(&gw, "alice-secret", tp);
    let bob = session(&gw, "bob-secret", json!({}));
    let carol = session(&gw, "carol-secret", json!({}));
    let all = format!(
        "alice {alice:?}\nbob {bob:?}\ncarol {carol:?}\n{}",
        gw.stderr()
    );

    // What each reaches: dev all three servers, support the clock and the
    // tracker; everything's echo is a name no tool has for bob.
    let has = |found: &[String], server: &str| found.iter().any(|s| s == server);
    for steps in [&alice, &carol] {
        let (described, found) = reach_of(steps);
        assert!(described.contains("everything"), "{described}");
        assert!(has(&found, "everything") && has(&found, "time"), "{all}");
        assert_eq!(steps[4]["isError"], false, "{all}");
    }
    let (described, found) = reach_of(&bob);
    assert!(!described.contains("everything"), "{described}");
    assert!(described.contains("tracker"), "{described}");
    assert!(!has(&found, "everything") && has(&found, "time"), "{all}");
    assert!(
        text(&bob[4]).starts_with("no tool is named \"echo\" on this gateway"),
        "{all}"
    );

    // alice and bob call the tracker as themselves; carol is told how to
    // log in as herself, and her call is not sent.
    assert!(
        text(&alice[3]).contains("called with a login of person-a"),
        "{all}"
    );
    assert!(
        text(&bob[3]).contains("called with a login of person-b"),
        "{all}"
    );
    assert_eq!(carol[3]["isError"], true, "{all}");
    let config = dir.path("config.toml");
    let hint = format!("toolsift login tracker --mcp {servers} --config {config} --as carol");
    assert!(text(&carol[3]).contains(&hint), "{all}");
    let made = calls(&tracker);
    let people: Vec<&str> = made.iter().map(|(_, u)| u.as_str()).collect();
    assert_eq!(people, ["person-a", "person-b"], "{made:?}");
    for (token, user) in &made {
        assert_eq!(person_of(&tracker, token).as_deref(), Some(user.as_str()));
    }

    // alice's call of the tracker, in the trace her host began.
    let arrived = |r: &Receiver| {
        r.spans()
            .iter()
            .any(|s| hex(&s.trace_id) == trace && s.name == "toolsift.call")
    };
    assert!(
        receiver.wait_until(Duration::from_secs(20), arrived),
        "{:#?}\n{}",
        receiver.spans(),
        gw.stderr()
    );
    let spans = receiver.spans();
    let request = request_span(&spans, &trace, "call_tool", &parent);
    assert_eq!(
        attr(&request.attributes, "toolsift.key").as_deref(),
        Some("alice")
    );
    let called = under(&spans, request, "toolsift.call");
    assert_eq!(
        attr(&called.attributes, "toolsift.server").as_deref(),
        Some("tracker")
    );
    assert_eq!(
        attr(&called.attributes, "toolsift.outcome").as_deref(),
        Some("ok")
    );
    assert!(
        receiver.services().iter().all(|s| s == "team-gateway"),
        "{:?}",
        receiver.services()
    );
}
