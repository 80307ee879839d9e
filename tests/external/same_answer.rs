//! One request, one answer, whichever door it comes through: the gateway
//! (an MCP host over stdio, in front of a server listing GitHub's tools),
//! `toolsift search`, `toolsift serve` over HTTP, `toolsift eval` and
//! `toolsift tune`, all on the catalog `export-catalog` gathers from the
//! same server, give the same tools in the same order and the same
//! figures, the gate included. (The explorer searches through the same
//! embedded searcher as `toolsift search`.) And the gateway's learning from
//! use, across two runs.

use crate::common::{self, Server, TempFile, http_client, names};
use crate::gateway::{found, github_catalog, search, stdio, toolsift};
use crate::mcp_support::*;

use serde_json::{Value, json};

const REQUESTS: &[&str] = &[
    "list the issues of a repository",
    "open a pull request",
    "who am I logged in as",
    "search code for a function name",
];
const CAP: usize = 5;

fn stub() -> String {
    format!(
        "{} {} {}",
        python(),
        mcp_fixture("stub_server.py"),
        github_catalog()
    )
}

#[test]
fn one_request_gets_the_same_tools_and_figures_through_every_front_end() {
    // The catalog as the gateway sees it: the server's tools, with the
    // server's name and what it says of itself.
    let out = std::process::Command::new(toolsift())
        .env("TOOLSIFT_MODEL", "off")
        .args(["export-catalog", "--mcp-stdio", &stub()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let catalog_text = String::from_utf8(out.stdout).unwrap();
    let catalog = TempFile::new(&catalog_text);
    let tools: Value = serde_json::from_str::<Value>(&catalog_text).unwrap();
    let tools = tools.get("tools").cloned().unwrap_or(tools);

    // The gateway, asked through a real MCP host.
    let steps: Vec<Value> = REQUESTS
        .iter()
        .map(|q| {
            let mut s = search(q);
            s["arguments"]["limit"] = json!(CAP);
            s
        })
        .collect();
    // The host's own revision and the newest: the same answers.
    let answers = stdio(&["--mcp-stdio".into(), stub()], "auto", &json!(steps));
    let newest = stdio(&["--mcp-stdio".into(), stub()], "2026-07-28", &json!(steps));
    for (a, b) in answers.iter().zip(&newest) {
        assert_eq!(found(a), found(b), "{a}\n{b}");
    }

    let server = Server::start(&["--gate", "on"], &[]);
    let client = http_client();
    for (q, answer) in REQUESTS.iter().zip(&answers) {
        let via_gateway = found(answer);
        let gateway_matching = &answer["structuredContent"]["matching"];

        let out = common::run(&[
            "search",
            catalog.path(),
            q,
            "--max-tools",
            &CAP.to_string(),
            "--json",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let cli = common::json(&out);
        let via_search = names(&cli["tools"]);

        let ask = |gate: &str| -> Value {
            let body = json!({"tools": tools, "query": q, "max_tools": CAP, "gate": gate});
            client
                .post(format!("http://{}/sdk/v1/tool-search", server.addr()))
                .json(&body)
                .send()
                .unwrap()
                .json()
                .unwrap()
        };
        // One gate for every front end: the loaded set stands when its
        // best tool fits.
        let http = ask("any");
        let via_http = names(&http["tools"]);

        assert!(!via_search.is_empty(), "{q}: {cli}");
        assert_eq!(via_http, via_search, "{q}: serve {http} vs search {cli}");
        assert_eq!(
            via_gateway, via_search,
            "{q}: gateway {answer} vs search {cli}"
        );
        // The same figures: tokens sent, and what matched beyond the cap.
        assert_eq!(http["sent_schema_tokens"], cli["sent_schema_tokens"], "{q}");
        assert_eq!(http["matching"], cli["matching"], "{q}");
        assert_eq!(gateway_matching, &cli["matching"]["total"], "{q}: {answer}");

        // eval and tune rank the request as search does: its first tool
        // is found first, its third within three and not first.
        let third = &via_search[2.min(via_search.len() - 1)];
        let queries = TempFile::new(&format!(
            "{}\n{}\n",
            json!({"id": "first", "query": q, "expected": [via_search[0]]}),
            json!({"id": "third", "query": q, "expected": [third]}),
        ));
        let out = common::run(&[
            "eval",
            catalog.path(),
            queries.path(),
            "--json",
            "--time-budget-ms",
            "0",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let eval = common::json(&out);
        assert_eq!(eval["strict"]["all@1"], 50.0, "{q}: {eval}");
        assert_eq!(eval["strict"]["all@3"], 100.0, "{q}: {eval}");

        let out = common::run(&["tune", catalog.path(), queries.path(), "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let tune = common::json(&out);
        let at = |cap: usize| {
            tune["points"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["max_tools"] == cap)
                .map(|p| p["all_loaded_pct"].clone())
                .unwrap_or_else(|| panic!("{q}: no cap {cap} in {tune}"))
        };
        assert_eq!(at(1), 50.0, "{q}: {tune}");
        assert_eq!(at(3), 100.0, "{q}: {tune}");
    }
}

/// The git tools of `eval/mcp-short`, as a stub server lists them.
fn git_tools(dir: &TempDir) -> String {
    let catalog: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/eval/mcp-short/catalog.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let tools: Vec<Value> = catalog["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"].as_str().unwrap().starts_with("git_"))
        .map(|t| json!({"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]}))
        .collect();
    dir.write("git-tools.json", &json!({ "tools": tools }).to_string())
}

#[test]
fn the_gateway_learns_which_tool_a_search_led_to_and_finds_it_first_next_time() {
    let dir = TempDir::new("learn");
    let stub = format!(
        "{} {} {}",
        python(),
        mcp_fixture("stub_server.py"),
        git_tools(&dir)
    );
    let learn = dir.path("pairs.jsonl");
    let args = |learn: &str| -> Vec<String> {
        vec![
            "--mcp-stdio".into(),
            stub.clone(),
            "--learn".into(),
            learn.into(),
        ]
    };
    // Without a past, "what did I change today" is not the unstaged diff.
    let fresh = stdio(
        &args(&dir.path("none.jsonl")),
        "auto",
        &json!([search("what did I change today")]),
    );
    assert_ne!(
        found(&fresh[0]).first().map(String::as_str),
        Some("git_diff_unstaged"),
        "{}",
        fresh[0]
    );
    // Monday: a search, then the call the agent made.
    let monday = stdio(
        &args(&learn),
        "auto",
        &json!([
            search("what did I change so far"),
            crate::gateway::call("git_diff_unstaged", json!({"repo_path": "."})),
        ]),
    );
    assert_eq!(monday[1]["isError"], false, "{}", monday[1]);
    let pairs = std::fs::read_to_string(&learn).unwrap();
    assert!(
        pairs.contains("\"query\":\"what did I change so far\"")
            && pairs.contains("git_diff_unstaged"),
        "{pairs}"
    );
    // Tuesday, a new gateway on the same file, named in its config file
    // (beside it): the like request finds it first, and says why.
    let config = dir.write("config.toml", "[gateway]\nlearn = \"pairs.jsonl\"\n");
    let tuesday = stdio(
        &[
            "--mcp-stdio".into(),
            stub.clone(),
            "--config".into(),
            config,
        ],
        "2026-07-28",
        &json!([search("what did I change today")]),
    );
    let tools = &tuesday[0]["structuredContent"]["tools"];
    assert_eq!(tools[0]["name"], "git_diff_unstaged", "{}", tuesday[0]);
    assert!(
        tools[0]["why"]
            .as_str()
            .unwrap()
            .contains("called after 1 like request before"),
        "{}",
        tuesday[0]
    );
}
