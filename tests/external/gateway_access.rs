//! What each API key may reach over HTTP: three named keys in two groups
//! (the config of docs/gateway.md, "Keys, groups and what each may
//! reach", as written), in front of the real mcp-server-time and
//! server-everything. Each key's first view, search, calls, prompts,
//! resources and `/catalog` hold what it reaches alone, on both protocol
//! revisions; what it cannot reach is answered as a name no server has,
//! byte for byte as a gateway without that server answers. The hosts are
//! the official MCP Python SDK (tests/interop/gateway_host.py).

use serde_json::{Value, json};

use crate::gateway::{HttpGateway, call, found, get, host, names, search, text};
use crate::gateway_sessions::{open, post};
use crate::mcp_support::*;

const KEYS: [(&str, &str); 4] = [
    ("ALICE_KEY", "alice-secret"),
    ("BOB_KEY", "bob-secret"),
    ("CAROL_KEY", "carol-secret"),
    ("GATEWAY_KEY", "plain-secret"),
];

/// The config block of docs/gateway.md's section on keys, as written.
fn docs_config() -> String {
    let page = include_str!("../../docs/gateway.md");
    let section = page
        .split("## Keys, groups and what each may reach")
        .nth(1)
        .expect("the section is in docs/gateway.md");
    let block = section.split("```toml\n").nth(1).unwrap();
    block.split("```").next().unwrap().to_string()
}

/// The servers file: time and everything, their two tools always listed.
fn servers(dir: &TempDir, with_everything: bool) -> String {
    let mut text = format!(
        "[mcp]\nalways_load = [\"time/get_current_time\", \"everything/echo\"]\n\n[mcp.servers.time]\ncommand = {:?}\nargs = [\"--local-timezone\", \"Etc/UTC\"]\n",
        time_bin()
    );
    if with_everything {
        text.push_str(&format!(
            "\n[mcp.servers.everything]\ncommand = {:?}\n",
            everything_bin()
        ));
    }
    dir.write(
        if with_everything {
            "both.toml"
        } else {
            "time.toml"
        },
        &text,
    )
}

fn start(dir: &TempDir, config: &str, with_everything: bool) -> HttpGateway {
    let config = dir.write("config.toml", config);
    HttpGateway::start(
        &[
            "--config".into(),
            config,
            "--mcp".into(),
            servers(dir, with_everything),
        ],
        &KEYS,
    )
}

fn as_key(gw: &HttpGateway, mode: &str, key: &str, steps: &Value) -> Vec<Value> {
    let header = format!("Authorization: Bearer {key}");
    let doc = host(&["--url", &gw.url, "--header", &header], mode, steps, 1);
    doc["sessions"][0].as_array().unwrap().clone()
}

/// What each key does, in order.
fn steps() -> Value {
    json!([
        {"op": "list"},
        search("add two numbers"),
        search("what time is it in Tokyo"),
        call("get_current_time", json!({"timezone": "Asia/Tokyo"})),
        call("echo", json!({"message": "hi"})),
        call("get-env", json!({})),
        {"op": "prompts"},
        {"op": "resources"},
        {"op": "templates"},
        {"op": "prompt", "name": "simple-prompt"},
        {"op": "read", "uri": "demo://resource/static/document/features.md"},
        search("print the environment variables"),
    ])
}

const META: [&str; 3] = ["search_tools", "call_read_tool", "call_tool"];

fn first_view(with: &[&str]) -> Vec<String> {
    with.iter().chain(&META).map(|s| s.to_string()).collect()
}

fn not_found(result: &Value, name: &str) {
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        text(result).starts_with(&format!("no tool is named \"{name}\" on this gateway")),
        "{result}"
    );
}

pub(crate) fn servers_of(found_tools: &Value) -> Vec<String> {
    found_tools["structuredContent"]["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| t["server"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn three_keys_in_two_groups_each_see_search_and_call_only_what_they_reach() {
    let dir = TempDir::new("gw-access");
    let gw = start(&dir, &docs_config(), true);
    for mode in ["legacy", "2026-07-28"] {
        // alice (dev, echo allowed): both servers, get-env denied to dev.
        let r = as_key(&gw, mode, "alice-secret", &steps());
        assert_eq!(
            names(&r[0]),
            first_view(&["echo", "get_current_time"]),
            "{mode}: {}",
            r[0]
        );
        assert!(
            found(&r[1]).contains(&"get-sum".to_string()),
            "{mode}: {}",
            r[1]
        );
        assert!(
            found(&r[2]).contains(&"convert_time".to_string()),
            "{mode}: {}",
            r[2]
        );
        assert_eq!(r[3]["isError"], false, "{mode}: {}", r[3]);
        assert_eq!(r[4]["isError"], false, "{mode}: {}", r[4]);
        assert!(text(&r[4]).contains("hi"), "{mode}: {}", r[4]);
        not_found(&r[5], "get-env");
        assert!(!r[11].to_string().contains("get-env"), "{mode}: {}", r[11]);
        assert!(
            names(&r[6]).contains(&"simple-prompt".to_string()),
            "{mode}: {}",
            r[6]
        );
        assert!(!r[7].as_array().unwrap().is_empty(), "{mode}: {}", r[7]);

        // bob (clock): time alone; everything is nowhere.
        let r = as_key(&gw, mode, "bob-secret", &steps());
        assert_eq!(
            names(&r[0]),
            first_view(&["get_current_time"]),
            "{mode}: {}",
            r[0]
        );
        let description = r[0]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "search_tools")
            .unwrap()["description"]
            .to_string();
        assert!(!description.contains("everything"), "{mode}: {description}");
        for s in [&r[1], &r[2], &r[11]] {
            assert!(servers_of(s).iter().all(|s| s == "time"), "{mode}: {s}");
            assert!(!s.to_string().contains("everything"), "{mode}: {s}");
        }
        assert!(
            found(&r[2]).contains(&"convert_time".to_string()),
            "{mode}: {}",
            r[2]
        );
        assert_eq!(r[3]["isError"], false, "{mode}: {}", r[3]);
        not_found(&r[4], "echo");
        not_found(&r[5], "get-env");
        assert_eq!(r[6], json!([]), "{mode}: {}", r[6]);
        assert_eq!(r[7], json!([]), "{mode}: {}", r[7]);
        assert_eq!(r[8], json!([]), "{mode}: {}", r[8]);
        assert!(
            r[9]["exception"]
                .as_str()
                .unwrap_or_default()
                .contains("has a prompt named simple-prompt"),
            "{mode}: {}",
            r[9]
        );
        // Read where a gateway of time alone reads it (time offers
        // resources, and says it has no such one).
        assert!(
            r[10]["exception"]
                .as_str()
                .is_some_and(|e| !e.contains("everything")),
            "{mode}: {}",
            r[10]
        );

        // carol (dev, its own servers): everything alone; echo asks (dev's rule).
        let r = as_key(&gw, mode, "carol-secret", &steps());
        assert_eq!(names(&r[0]), first_view(&["echo"]), "{mode}: {}", r[0]);
        assert!(
            found(&r[1]).contains(&"get-sum".to_string()),
            "{mode}: {}",
            r[1]
        );
        assert!(
            servers_of(&r[2]).iter().all(|s| s == "everything"),
            "{mode}: {}",
            r[2]
        );
        not_found(&r[3], "get_current_time");
        assert!(!r[11].to_string().contains("get-env"), "{mode}: {}", r[11]);
        assert!(
            !r[4].to_string().contains("no tool is named"),
            "{mode}: {}",
            r[4]
        );
        not_found(&r[5], "get-env");
        assert!(
            names(&r[6]).contains(&"simple-prompt".to_string()),
            "{mode}: {}",
            r[6]
        );

        // A key with no name (api_key_env) reaches everything, get-env too.
        let r = as_key(
            &gw,
            mode,
            "plain-secret",
            &json!([
                {"op": "list"},
                call("get-env", json!({})),
                search("print the environment variables")
            ]),
        );
        assert!(
            found(&r[2]).contains(&"get-env".to_string()),
            "{mode}: {}",
            r[2]
        );
        assert_eq!(
            names(&r[0]),
            first_view(&["echo", "get_current_time"]),
            "{mode}: {}",
            r[0]
        );
        assert_eq!(r[1]["isError"], false, "{mode}: {}", r[1]);
    }
    // /catalog: each key's own.
    let catalog = |key: &str| -> Vec<String> {
        let (status, body) = get(&format!("{}/catalog", gw.base()), Some(key));
        assert_eq!(status, 200, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        names(&v["tools"])
    };
    let bob = catalog("bob-secret");
    assert!(
        bob.contains(&"get_current_time".to_string()) && !bob.contains(&"echo".to_string()),
        "{bob:?}"
    );
    let carol = catalog("carol-secret");
    assert!(
        carol.contains(&"echo".to_string()) && !carol.contains(&"get_current_time".to_string()),
        "{carol:?}"
    );
    assert!(!carol.contains(&"get-env".to_string()), "{carol:?}");
    assert!(catalog("plain-secret").contains(&"get-env".to_string()));
    // The log names the keys by name.
    let log = gw.stderr();
    assert!(log.contains("bob"), "{log}");
}

/// The JSON-RPC messages of an answer (its SSE `data:` lines, or the body).
fn messages(body: &str) -> Vec<String> {
    let data: Vec<String> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    if data.is_empty() {
        vec![body.trim().to_string()]
    } else {
        data
    }
}

#[test]
fn what_a_key_cannot_reach_is_answered_byte_for_byte_as_a_name_no_server_has() {
    toolsift::http::client::install_tls();
    let (one, two) = (TempDir::new("gw-access-a"), TempDir::new("gw-access-b"));
    // bob reaches time alone; the other gateway has no other server.
    let limited = start(&one, &docs_config(), true);
    let plain = start(&two, "[gateway.keys.bob]\nenv = \"BOB_KEY\"\n", false);
    let client = reqwest::blocking::Client::new();
    let requests = [
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "call_tool", "arguments": {"name": "echo", "arguments": {"message": "hi"}}}}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}),
        json!({"jsonrpc": "2.0", "id": 9, "method": "prompts/get", "params": {"name": "simple-prompt"}}),
        json!({"jsonrpc": "2.0", "id": 10, "method": "resources/read", "params": {"uri": "demo://resource/static/document/features.md"}}),
        json!({"jsonrpc": "2.0", "id": 11, "method": "completion/complete", "params": {"ref": {"type": "ref/prompt", "name": "completable-prompt"}, "argument": {"name": "department", "value": "E"}}}),
    ];
    let answers = |gw: &HttpGateway| -> Vec<Vec<String>> {
        let session = open(&client, &gw.url, "bob-secret");
        requests
            .iter()
            .map(|r| {
                let (status, _, body) =
                    post(&client, &gw.url, "bob-secret", Some(&session), r.clone());
                assert_eq!(status, 200, "{body}");
                messages(&body)
            })
            .collect()
    };
    let (a, b) = (answers(&limited), answers(&plain));
    for (n, (a, b)) in a.iter().zip(&b).enumerate() {
        assert_eq!(a, b, "request {n}: out of reach and no such name differ");
    }
    // They are refusals: a tool result of no such tool, and JSON-RPC errors.
    assert!(a[0][0].contains("no tool is named"), "{:?}", a[0]);
    for answer in &a[2..] {
        assert!(answer[0].contains("\"error\""), "{answer:?}");
    }
    // Through the SDK on both revisions, the same.
    for mode in ["legacy", "2026-07-28"] {
        let steps = json!([
            call("echo", json!({"message": "hi"})),
            {"op": "prompt", "name": "simple-prompt"},
            {"op": "read", "uri": "demo://resource/static/document/features.md"},
        ]);
        assert_eq!(
            as_key(&limited, mode, "bob-secret", &steps),
            as_key(&plain, mode, "bob-secret", &steps),
            "{mode}"
        );
    }
}

#[test]
fn two_keys_at_the_same_moment_each_get_only_their_own_reach() {
    let dir = TempDir::new("gw-access-both");
    let gw = start(&dir, &docs_config(), true);
    let steps = json!([
        {"op": "list"},
        search("add two numbers"),
        call("echo", json!({"message": "at once"})),
        search("what time is it in Tokyo"),
    ]);
    // Several rounds of both hosts at once, on the host's default revision.
    for _ in 0..3 {
        let (alice, bob) = std::thread::scope(|s| {
            let a = s.spawn(|| as_key(&gw, "2026-07-28", "alice-secret", &steps));
            let b = s.spawn(|| as_key(&gw, "2026-07-28", "bob-secret", &steps));
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!(names(&alice[0]), first_view(&["echo", "get_current_time"]));
        assert!(
            found(&alice[1]).contains(&"get-sum".to_string()),
            "{}",
            alice[1]
        );
        assert!(text(&alice[2]).contains("at once"), "{}", alice[2]);
        assert_eq!(names(&bob[0]), first_view(&["get_current_time"]));
        for s in [&bob[1], &bob[3]] {
            assert!(servers_of(s).iter().all(|s| s == "time"), "{s}");
        }
        not_found(&bob[2], "echo");
    }
}
