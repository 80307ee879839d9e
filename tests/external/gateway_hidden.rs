//! `toolsift gateway` in front of a server that hides text (terminal
//! escapes, tag characters, bidirectional controls) in its tools, its call
//! results, its prompts and its resources: `--hidden-text` and
//! `--hidden-text-results` decide what the host sees, and the gateway's
//! stderr never carries the raw controls.

use crate::gateway::{call, found, host_with_stderr, names, search, text, toolsift};
use crate::gateway_faults::{fake_stdio, time_stdio};
use crate::mcp_support::*;

use std::time::Duration;

use serde_json::{Value, json};

/// What the hostile server's results, prompt and resource hold once
/// cleaned: its text as a reader sees it.
const SEEN: &str = "Read me done";

/// The URI of the hostile resource whose URI itself hides a tag character.
fn hidden_uri() -> String {
    format!("note://hidden{}", char::from_u32(0xE0078).unwrap())
}

/// The hostile server behind the gateway with `extra` flags: a search, a
/// call, the lists, a prompt got and resources read; what the gateway
/// wrote on stderr.
fn hostile_session(tag: &str, extra: &[&str]) -> (Vec<Value>, String) {
    let m = marker(tag);
    let mut cmd = vec![
        toolsift().to_string(),
        "gateway".into(),
        "--offline".into(),
        "--log-calls".into(),
        "--start-wait".into(),
        "60".into(),
    ];
    cmd.extend(extra.iter().map(|s| s.to_string()));
    cmd.extend(fake_stdio("hostile", &m, &[]));
    let steps = json!([
        search("hostile echo"),
        call("hostile_echo", json!({"text": "\u{1b}[2Jhi"})),
        {"op": "list"},
        {"op": "prompts"},
        {"op": "prompt", "name": "hostile_prompt", "arguments": {"text": "x"}},
        {"op": "resources"},
        {"op": "read", "uri": "note://hostile"},
        {"op": "read", "uri": hidden_uri()},
    ]);
    let (doc, stderr) = host_with_stderr(
        &["--stdio", &crate::gateway::command_line(&cmd)],
        "legacy",
        &steps,
        1,
    );
    assert_gone(&m, Duration::from_secs(10));
    (doc["sessions"][0].as_array().unwrap().clone(), stderr)
}

/// The URIs of a `resources` step.
fn uris(listed: &Value) -> Vec<&str> {
    listed
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect()
}

#[test]
fn hostile_text_is_stripped_by_default_kept_when_asked_and_never_raw_on_stderr() {
    let server = [python(), mcp_fixture("fake_server.py"), "hostile".into()];
    let truth = raw_tools(&server.iter().map(String::as_str).collect::<Vec<_>>());
    // By default the host sees the text a reader sees, nothing more.
    let (r, stderr) = hostile_session("gw-hostile-strip", &[]);
    let hit = &r[0]["structuredContent"]["tools"][0];
    assert_eq!(hit["name"], "hostile_echo", "{}", r[0]);
    assert_eq!(
        hit["description"],
        "Echoes the text it is given. Red text and reversed text."
    );
    assert_eq!(
        hit["inputSchema"]["properties"]["text"]["description"],
        "The text to echo txt.exe"
    );
    assert_eq!(hit["inputSchema"]["required"], json!(["text"]));
    assert!(!r[0].to_string().contains("\\u001b"), "{}", r[0]);
    assert!(
        stderr.contains("tool \"hostile_echo\": hidden text taken out of description, input_schema.properties.text.description (--hidden-text strip)"),
        "{stderr}"
    );
    // The tool is still served, and its result reaches the host cleaned
    // too (--hidden-text-results strip, the default): its text, and its
    // structured content's strings and keys.
    assert_eq!(r[1]["isError"], false, "{}", r[1]);
    assert!(!text(&r[1]).contains('\u{1b}'), "{}", r[1]);
    assert_eq!(
        r[1]["structuredContent"],
        json!({"echo": SEEN, "key": ["", "plain"]}),
        "{}",
        r[1]
    );
    assert!(
        stderr.contains(
            "hostile_echo: hidden text taken out of its result (--hidden-text-results strip)"
        ),
        "{stderr}"
    );
    // A prompt's text is cleaned the same way, listed and got.
    assert_eq!(r[3][0]["name"], "hostile_prompt", "{}", r[3]);
    assert_eq!(r[3][0]["description"], "Summarises a text. Red words.");
    assert!(
        stderr.contains("prompt \"hostile_prompt\": hidden text taken out (--hidden-text strip)"),
        "{stderr}"
    );
    assert_eq!(
        r[4]["description"], "Summarises a text. Red words.",
        "{}",
        r[4]
    );
    assert_eq!(r[4]["messages"][0]["content"]["text"], SEEN, "{}", r[4]);
    // A resource whose name hides text is cleaned and served; one whose
    // URI does cannot be (its server needs the URI back): it is left out,
    // and reading it is refused.
    assert_eq!(uris(&r[5]), ["note://hostile"], "{}", r[5]);
    assert_eq!(r[5][0]["name"], "hostile note", "{}", r[5]);
    assert_eq!(r[5][0]["description"], "A note. Plain.", "{}", r[5]);
    assert_eq!(r[6]["contents"][0]["text"], SEEN, "{}", r[6]);
    assert_eq!(r[6]["contents"][0]["uri"], "note://hostile", "{}", r[6]);
    assert!(
        r[7]["exception"]
            .as_str()
            .is_some_and(|e| e.contains("left out of the list")),
        "{}",
        r[7]
    );
    // Kept when asked: exactly the server's text, as JSON data.
    let (r, stderr) = hostile_session(
        "gw-hostile-keep",
        &["--hidden-text", "keep", "--hidden-text-results", "keep"],
    );
    let hit = &r[0]["structuredContent"]["tools"][0];
    assert_eq!(hit["description"], truth[0]["description"]);
    assert_eq!(hit["inputSchema"], truth[0]["inputSchema"]);
    assert!(hit["description"].as_str().unwrap().contains('\u{1b}'));
    assert!(r[3][0]["description"].as_str().unwrap().contains('\u{1b}'));
    assert!(
        text(&r[1]).contains('\u{1b}'),
        "the result as the server gave it"
    );
    assert!(r[1]["structuredContent"].to_string().contains("\\u001b"));
    let raw = r[4]["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(
        raw.contains('\u{1b}') && raw.contains('\u{E0063}'),
        "{raw:?}"
    );
    assert_eq!(uris(&r[5]), ["note://hostile".to_string(), hidden_uri()]);
    assert!(
        r[6]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains('\u{1b}')
    );
    // The gateway's stderr (here with --log-calls: arguments and results
    // logged) never carries the raw controls.
    assert!(stderr.contains("call hostile_echo"), "{stderr}");
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\u{9b}'),
        "{stderr:?}"
    );
}

#[test]
fn hostile_text_drops_the_tool_prompt_and_resources_when_asked() {
    // With the time server beside it: a gateway of no tools would not start.
    let time = time_stdio();
    let (r, stderr) = hostile_session(
        "gw-hostile-drop",
        &["--hidden-text", "drop", &time[0], &time[1]],
    );
    assert!(
        !found(&r[0]).contains(&"hostile_echo".to_string()),
        "{}",
        r[0]
    );
    assert!(!names(&r[2]).contains(&"hostile_echo".to_string()));
    assert!(text(&r[1]).contains("no tool is named"), "{}", r[1]);
    assert!(
        stderr.contains("tool \"hostile_echo\" left out: hidden text in description"),
        "{stderr}"
    );
    assert_eq!(r[3], json!([]), "the hostile prompt is left out too");
    // What the lists left out cannot be got or read.
    for (i, what) in [(4, "prompt"), (6, "resource"), (7, "resource")] {
        let e = r[i]["exception"].as_str().unwrap_or_default();
        assert!(
            e.contains(&format!("the {what} ")) && e.contains("--hidden-text drop"),
            "{}",
            r[i]
        );
    }
    assert_eq!(r[5], json!([]), "{}", r[5]);
}
