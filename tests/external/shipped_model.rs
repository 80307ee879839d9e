//! Search as users get it: the model built into toolsift ranks by default,
//! offline, with nothing fetched. Over real MCP servers (time, git,
//! everything, memory, filesystem), the gateway's `search_tools`, `search`
//! and `serve` give the same tools for the same request and settings, and
//! requests people's own words once got wrong through the gateway find
//! their tool.

use serde_json::{Value, json};

use crate::common;
use crate::gateway::{found, gateway_cmd, host_in_env, search};
use crate::mcp_support::*;

/// The tools every front end is asked for.
const LIMIT: u64 = 5;

/// The requests held equal across the front ends.
const REQUESTS: [&str; 8] = [
    "what time is it in Tokyo",
    "remember that Alice prefers tea",
    "show me the last few commits",
    "what files are in the project folder",
    "convert 9am London time to New York",
    "stage my changes and commit them",
    "forget everything you know about Bob",
    "add two numbers",
];

/// time, git, everything, memory and filesystem, as a servers file.
fn servers(dir: &TempDir) -> String {
    let repo = git_repo(dir);
    let files = dir.path("files");
    std::fs::create_dir_all(&files).unwrap();
    dir.write(
        "mcp.toml",
        &format!(
            "[mcp.servers.time]\ncommand = {time:?}\nargs = [\"--local-timezone\", \"Etc/UTC\"]\n\n\
             [mcp.servers.git]\ncommand = {git:?}\nargs = [\"--repository\", {repo:?}]\n\n\
             [mcp.servers.everything]\ncommand = {every:?}\n\n\
             [mcp.servers.memory]\ncommand = {memory:?}\nenv = {{ MEMORY_FILE_PATH = {mem:?} }}\n\n\
             [mcp.servers.filesystem]\ncommand = {fs:?}\nargs = [{files:?}]\n",
            time = time_bin(),
            git = git_bin(),
            every = everything_bin(),
            memory = memory_bin(),
            mem = dir.path("memory.jsonl"),
            fs = filesystem_bin(),
        ),
    )
}

/// The gateway's answers to `requests`, as shipped (the host's
/// environment turns nothing off), and what it said on stderr.
fn gateway_finds(config: &str, requests: &[&str], mode: &str) -> (Vec<Vec<String>>, String) {
    let mut steps = vec![json!({"op": "list"})];
    for r in requests {
        let mut s = search(r);
        s["arguments"]["limit"] = json!(LIMIT);
        steps.push(s);
    }
    let (doc, stderr) = host_in_env(
        &["--stdio", &gateway_cmd(&["--mcp".into(), config.into()])],
        mode,
        &Value::Array(steps),
        1,
        &[
            ("TOOLSIFT_MODEL", "on"),
            ("HF_HOME", &common::no_hub().display().to_string()),
        ],
    );
    let results = doc["sessions"][0].as_array().unwrap();
    let finds = results[1..].iter().map(found).collect();
    (finds, stderr)
}

/// `toolsift search CATALOG REQUEST --json --max-tools LIMIT`, as shipped.
fn search_finds(catalog: &str, request: &str) -> Value {
    // The wheel's test builds into the same target directory and may
    // re-link the binary meanwhile: a moment without it is waited out.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        match common::bin_as_shipped()
            .args(["search", catalog, request, "--json", "--max-tools"])
            .arg(LIMIT.to_string())
            .output()
        {
            Ok(out) => return common::json(&out),
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            Err(e) => panic!("toolsift search: {e}"),
        }
    }
}

#[test]
fn the_gateway_search_and_serve_give_the_same_tools_with_the_built_in_model() {
    let dir = TempDir::new("shipped-same");
    let config = servers(&dir);
    // The gateway's catalog, as `export-catalog` records it.
    let out = common::run(&["export-catalog", "--mcp", &config, "--format", "mcp"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let catalog = dir.write("catalog.json", &String::from_utf8_lossy(&out.stdout));
    let (gateway, stderr) = gateway_finds(&config, &REQUESTS, "auto");
    assert!(
        stderr.contains("ranks with hybrid: toolsift-tools-minilm (built in)"),
        "{stderr}"
    );
    let tools: Value = serde_json::from_str(&std::fs::read_to_string(&catalog).unwrap()).unwrap();
    let server = common::Server::start(
        &["--api-key-env", "TOOLSIFT_TEST_KEY"],
        &[("TOOLSIFT_TEST_KEY", "k-shipped"), ("TOOLSIFT_MODEL", "on")],
    );
    for (request, from_gateway) in REQUESTS.iter().zip(&gateway) {
        let v = search_finds(&catalog, request);
        assert_eq!(v["method"], "hybrid", "{v}");
        assert_eq!(
            &common::answer_names(&v),
            from_gateway,
            "search vs gateway: {request:?}"
        );
        let body = json!({"tools": tools["tools"], "query": request, "ranker": "hybrid", "max_tools": LIMIT, "gate": true});
        let r = common::http_client()
            .post(format!("{}/sdk/v1/tool-search", server.url))
            .bearer_auth("k-shipped")
            .json(&body)
            .send()
            .unwrap();
        let v: Value = r.json().unwrap();
        assert_eq!(v["method"], "hybrid", "{v}");
        assert_eq!(
            &common::answer_names(&v),
            from_gateway,
            "serve vs gateway: {request:?}"
        );
    }
}

#[test]
fn peoples_words_the_gateway_once_got_wrong_find_their_tool_as_shipped() {
    let dir = TempDir::new("shipped-words");
    let config = servers(&dir);
    // The host's own revision, and the older one.
    for mode in ["auto", "legacy"] {
        let (finds, _) = gateway_finds(
            &config,
            &[
                "what time is it in Tokyo",
                "remember that Alice prefers tea",
            ],
            mode,
        );
        the_right_tools(&finds);
    }
}

fn the_right_tools(finds: &[Vec<String>]) {
    // The time in a city: the current time, first.
    assert_eq!(
        finds[0].first().map(String::as_str),
        Some("get_current_time"),
        "{finds:?}"
    );
    // Something to remember: the memory graph's writing tools, never only
    // its deleting ones.
    let writes = ["create_entities", "add_observations", "create_relations"];
    assert!(
        finds[1]
            .iter()
            .take(3)
            .any(|n| writes.contains(&n.as_str())),
        "{finds:?}"
    );
    assert!(
        !finds[1].first().is_some_and(|n| n.starts_with("delete_")),
        "{finds:?}"
    );
}
