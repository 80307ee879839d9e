//! What `toolsift gateway` passes on beside tools, driven by the official
//! Python SDK as the host (tests/interop/gateway_host.py): the resources,
//! resource templates and prompts of the real server-everything (with
//! mcp-server-git beside it, which offers none), a name two servers share,
//! a long call's progress reports over stdio and HTTP, and a call the host
//! gives up, cancelled on the server.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::gateway::{HttpGateway, gateway_cmd, host, host_with_stderr, text};
use crate::mcp_support::*;

fn run(args: &[String], steps: &Value) -> (Vec<Value>, Value) {
    let doc = host(&["--stdio", &gateway_cmd(args)], "legacy", steps, 1);
    (doc["sessions"][0].as_array().unwrap().clone(), doc)
}

fn everything_and_git(dir: &TempDir) -> Vec<String> {
    let repo = git_repo(dir);
    vec![
        "--mcp-stdio".into(),
        everything_bin(),
        "--mcp-stdio".into(),
        format!("{} --repository {repo}", git_bin()),
    ]
}

fn field<'a>(items: &'a Value, key: &str) -> Vec<&'a str> {
    items
        .as_array()
        .unwrap_or_else(|| panic!("a list: {items}"))
        .iter()
        .map(|i| i[key].as_str().unwrap())
        .collect()
}

fn long_call(steps: u32) -> Value {
    json!({"op": "call", "name": "call_read_tool", "progress": true, "arguments": {
        "name": "trigger-long-running-operation",
        "arguments": {"duration": 0.3 * f64::from(steps), "steps": steps}}})
}

#[test]
fn resources_templates_and_prompts_of_the_servers_are_listed_read_and_got() {
    let dir = TempDir::new("gw-offered");
    let steps = json!([
        {"op": "resources"},
        {"op": "templates"},
        {"op": "read", "uri": "demo://resource/static/document/features.md"},
        {"op": "read", "uri": "demo://resource/dynamic/text/3"},
        {"op": "read", "uri": "nowhere://at/all"},
        {"op": "prompts"},
        {"op": "prompt", "name": "args-prompt", "arguments": {"city": "Oslo"}},
        {"op": "prompt", "name": "no-such-prompt"},
        long_call(3),
    ]);
    let (r, doc) = run(&everything_and_git(&dir), &steps);
    let caps = &doc["capabilities"];
    assert!(
        caps["resources"].is_object() && caps["prompts"].is_object(),
        "{caps}"
    );

    let uris = field(&r[0], "uri");
    assert!(
        uris.contains(&"demo://resource/static/document/features.md"),
        "{uris:?}"
    );
    assert!(uris.iter().all(|u| u.starts_with("demo://")), "{uris:?}");
    assert_eq!(
        field(&r[1], "uriTemplate"),
        [
            "demo://resource/dynamic/text/{resourceId}",
            "demo://resource/dynamic/blob/{resourceId}"
        ]
    );
    // A listed resource, and one only a template names.
    let doc_text = r[2]["contents"][0]["text"].as_str().unwrap_or_default();
    assert!(doc_text.contains("Everything Server"), "{}", r[2]);
    assert!(
        r[3]["contents"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Resource 3:"),
        "{}",
        r[3]
    );
    let unknown = r[4]["exception"].as_str().unwrap_or_default();
    assert!(
        unknown.contains("no MCP server behind this gateway lists resource nowhere://at/all"),
        "{}",
        r[4]
    );

    let prompts = field(&r[5], "name");
    assert!(
        prompts.contains(&"args-prompt") && prompts.contains(&"simple-prompt"),
        "{prompts:?}"
    );
    assert_eq!(
        r[6]["messages"][0]["content"]["text"], "What's weather in Oslo?",
        "{}",
        r[6]
    );
    assert!(
        r[7]["exception"]
            .as_str()
            .unwrap_or_default()
            .contains("no MCP server behind this gateway has a prompt named no-such-prompt"),
        "{}",
        r[7]
    );

    // The long call's progress, as the server reported it, under the
    // host's own token.
    assert_eq!(r[8]["isError"], false, "{}", r[8]);
    let progress: Vec<f64> = r[8]["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0], "{}", r[8]);
    assert!(
        r[8]["progress"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["total"] == 3.0)
    );
}

#[test]
fn a_prompt_name_two_servers_share_is_prefixed_and_a_shared_uri_read_from_the_first() {
    let file = TempDir::new("gw-offered-two");
    let servers = file.write(
        "mcp.toml",
        &format!(
            "[mcp.servers.first]\ncommand = {e:?}\n\n[mcp.servers.second]\ncommand = {e:?}\n",
            e = everything_bin()
        ),
    );
    let steps = json!([
        {"op": "prompts"},
        {"op": "prompt", "name": "second__args-prompt", "arguments": {"city": "Bergen"}},
        {"op": "resources"},
    ]);
    let cmd = gateway_cmd(&["--mcp".into(), servers]);
    let (doc, stderr) = host_with_stderr(&["--stdio", &cmd], "legacy", &steps, 1);
    let r = doc["sessions"][0].as_array().unwrap();
    let prompts = field(&r[0], "name");
    assert!(
        prompts.contains(&"first__args-prompt") && prompts.contains(&"second__args-prompt"),
        "{prompts:?}"
    );
    assert!(!prompts.contains(&"args-prompt"), "{prompts:?}");
    assert_eq!(
        r[1]["messages"][0]["content"]["text"], "What's weather in Bergen?",
        "{}",
        r[1]
    );
    // Each URI once; the log says the second server's copies are not read.
    let uris = field(&r[2], "uri");
    let mut unique = uris.clone();
    unique.dedup();
    assert_eq!(uris, unique, "{uris:?}");
    assert!(
        stderr.contains("second: resource demo://resource/static/document/features.md is listed by first too; reads go to first"),
        "{stderr}"
    );
}

#[test]
fn a_server_denied_whole_lists_no_prompts_or_resources_and_answers_none() {
    let file = TempDir::new("gw-offered-denied");
    let servers = file.write(
        "mcp.toml",
        &format!(
            "[mcp.servers.first]\ncommand = {e:?}\n\n[mcp.servers.second]\ncommand = {e:?}\n",
            e = everything_bin()
        ),
    );
    let steps = json!([
        {"op": "prompts"},
        {"op": "prompt", "name": "second__args-prompt", "arguments": {"city": "Bergen"}},
        {"op": "complete", "prompt": "second__args-prompt", "argument": "city", "value": "B"},
        {"op": "resources"},
    ]);
    let cmd = gateway_cmd(&["--mcp".into(), servers, "--deny".into(), "second/*".into()]);
    let (doc, stderr) = host_with_stderr(&["--stdio", &cmd], "legacy", &steps, 1);
    let r = doc["sessions"][0].as_array().unwrap();
    // Only the first server's prompts, so no name is shared and prefixed.
    let prompts = field(&r[0], "name");
    assert!(prompts.contains(&"args-prompt"), "{prompts:?}");
    assert!(
        !prompts
            .iter()
            .any(|p| p.starts_with("second__") || p.starts_with("first__")),
        "{prompts:?}"
    );
    for refused in [&r[1], &r[2]] {
        assert!(
            refused["exception"]
                .as_str()
                .unwrap_or_default()
                .contains("has a prompt named second__args-prompt"),
            "{refused}"
        );
    }
    assert!(!field(&r[3], "uri").is_empty(), "{}", r[3]);
    assert!(!stderr.contains("listed by first too"), "{stderr}");
}

#[test]
fn progress_reaches_a_host_over_http_too() {
    let dir = TempDir::new("gw-offered-http");
    let gateway = HttpGateway::start(&everything_and_git(&dir), &[]);
    let doc = host(&["--url", &gateway.url], "auto", &json!([long_call(2)]), 1);
    let r = &doc["sessions"][0][0];
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["progress"].as_array().map(Vec::len), Some(2), "{r}");
    assert!(text(r).contains("Steps: 2"), "{r}");
}

#[test]
fn a_call_the_host_gives_up_is_cancelled_on_its_server() {
    let dir = TempDir::new("gw-cancel");
    let record = dir.path("cancelled.txt");
    let m = marker("gw-cancel");
    let line = format!(
        "{} {} hang-call --pages 1 --per-page 2 --record {record} --marker {m}",
        python(),
        mcp_fixture("fake_server.py")
    );
    let steps = json!([
        {"op": "call", "name": "call_tool", "timeout": 1,
         "arguments": {"name": "paged_tool_00", "arguments": {"n": 1}}},
        {"op": "sleep", "seconds": 1},
    ]);
    let (r, _) = run(&["--mcp-stdio".into(), line], &steps);
    assert!(
        r[0]["exception"]
            .as_str()
            .unwrap_or_default()
            .contains("timed out"),
        "{}",
        r[0]
    );
    // The server heard that its call was given up (well before the
    // gateway's own 60 s limit).
    let started = Instant::now();
    let heard = loop {
        let heard = std::fs::read_to_string(&record).unwrap_or_default();
        if heard.contains("cancelled") || started.elapsed() > Duration::from_secs(10) {
            break heard;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(heard.starts_with("cancelled "), "{heard:?}");
    assert_gone(&m, Duration::from_secs(10));
}
