//! `call_read_tool` runs only reads that stay on this machine: tools their
//! server marks read-only and not open-world. The real mcp-server-fetch
//! marks `fetch` read-only and open-world, so it goes through `call_tool`
//! (which a host asks about) unless a `read` rule vouches for it; the real
//! server-filesystem's reads run. Driven by the official Python SDK as the
//! host, on the handshake revision and on 2026-07-28.

use serde_json::{Value, json};

use crate::gateway::{names, stdio, text};
use crate::mcp_support::*;

fn servers(dir: &TempDir) -> String {
    let files = dir.path("files");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(dir.0.join("files/secret.txt"), "the launch code is 42\n").unwrap();
    mcp_json(
        dir,
        json!({
            "fetch": {"command": fetch_bin()},
            "filesystem": {"command": filesystem_bin(), "args": [files]},
        }),
    )
}

fn read(name: &str, arguments: Value) -> Value {
    json!({"op": "call", "name": "call_read_tool", "arguments": {"name": name, "arguments": arguments}})
}

fn call_with(answer: &Value, tool: &str) -> String {
    answer["structuredContent"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == tool)
        .unwrap_or_else(|| panic!("{tool} not found: {answer}"))["call_with"]
        .as_str()
        .unwrap()
        .to_string()
}

fn open_world_reads_are_refused(mode: &str) {
    let dir = TempDir::new("gw-reads");
    let config = servers(&dir);
    let secret = dir.path("files/secret.txt");
    let steps = json!([
        {"op": "list"},
        read("read_text_file", json!({"path": secret})),
        read("fetch", json!({"url": "http://127.0.0.1:9/?q=the+launch+code+is+42"})),
        {"op": "call", "name": "search_tools", "arguments": {"query": "fetch a url"}},
        {"op": "call", "name": "search_tools", "arguments": {"query": "read a text file"}},
    ]);
    let r = stdio(&["--mcp".into(), config.clone()], mode, &steps);
    let listed = r[0].as_array().unwrap();
    let annotations = &listed
        .iter()
        .find(|t| t["name"] == "call_read_tool")
        .unwrap()["annotations"];
    assert_eq!(annotations["openWorldHint"], false, "{annotations}");
    assert_eq!(r[1]["isError"], false, "{}", r[1]);
    assert!(text(&r[1]).contains("launch code"), "{}", r[1]);
    // fetch is read-only but open-world: never through call_read_tool.
    assert_eq!(r[2]["isError"], true, "{}", r[2]);
    let refusal = text(&r[2]);
    assert!(
        refusal.contains("fetch reaches outside this machine") && refusal.contains("call_tool"),
        "{refusal}"
    );
    // Each found tool names the dispatcher that runs it.
    assert_eq!(call_with(&r[3], "fetch"), "call_tool", "{}", r[3]);
    assert!(
        text(&r[3]).contains("- fetch [fetch, call_tool]"),
        "{}",
        text(&r[3])
    );
    assert_eq!(call_with(&r[4], "read_text_file"), "call_read_tool");

    // A `read` rule vouches for it: call_read_tool runs it (the fetch
    // itself fails: nothing listens on port 9).
    let r = stdio(
        &[
            "--mcp".into(),
            config,
            "--allow-read".into(),
            "fetch/fetch".into(),
        ],
        mode,
        &json!([read("fetch", json!({"url": "http://127.0.0.1:9/"})), {"op": "call", "name": "search_tools", "arguments": {"query": "fetch a url"}}]),
    );
    assert!(!text(&r[0]).contains("does not run it"), "{}", r[0]);
    assert_eq!(
        r[0]["_meta"]["io.toolsift/tool"]["name"], "fetch",
        "{}",
        r[0]
    );
    assert_eq!(call_with(&r[1], "fetch"), "call_read_tool");
    let _ = names;
}

#[test]
fn call_read_tool_refuses_open_world_tools_handshake_revision() {
    open_world_reads_are_refused("legacy");
}

#[test]
fn call_read_tool_refuses_open_world_tools_2026_07_28() {
    open_world_reads_are_refused("2026-07-28");
}

/// The real server-memory behind the gateway, its deletes denied: a text
/// answer shows nested argument fields, a denied tool is named as not
/// available with nothing offered in its place, and an answer with no tool
/// says plainly that nothing fits.
fn memory_answers(mode: &str) {
    let dir = TempDir::new("gw-memory");
    let config = mcp_json(
        &dir,
        json!({"memory": {"command": memory_bin(), "env": {"MEMORY_FILE_PATH": dir.path("memory.jsonl")}}}),
    );
    let steps = json!([
        {"op": "call", "name": "search_tools", "arguments": {"query": "create entities in the knowledge graph"}},
        {"op": "call", "name": "call_tool", "arguments": {"name": "delete_entities", "arguments": {"entityNames": ["Bob"]}}},
        {"op": "call", "name": "search_tools", "arguments": {"query": "zqxv wplk"}},
    ]);
    let r = stdio(
        &[
            "--mcp".into(),
            config,
            "--deny".into(),
            "*delete*".into(),
            "--gate".into(),
            "off".into(),
            "--ranker".into(),
            "bm25".into(),
        ],
        mode,
        &steps,
    );
    let shown = text(&r[0]);
    assert!(
        shown.contains("entities: {entityType: string, name: string, observations: string[]}[]"),
        "{shown}"
    );
    let refusal = text(&r[1]);
    assert!(
        refusal.contains("no tool named \"delete_entities\" is available"),
        "{refusal}"
    );
    assert!(!refusal.contains("create_entities"), "{refusal}");
    let none = &r[2]["structuredContent"];
    assert_eq!(none["tools"], json!([]), "{}", r[2]);
    assert_eq!(none["nothing_fits"], true, "{}", r[2]);
    assert!(
        none["note"]
            .as_str()
            .unwrap()
            .contains("No tool of this gateway matches"),
        "{}",
        r[2]
    );
}

#[test]
fn memory_answers_handshake_revision() {
    memory_answers("legacy");
}

#[test]
fn memory_answers_2026_07_28() {
    memory_answers("auto");
}
