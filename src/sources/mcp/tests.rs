//! The MCP source's pure parts: always-load patterns, server summaries, and
//! the catalog built from servers' listings.

use std::sync::Arc;

use super::listed::{build_catalog, matches_pattern};
use super::*;
use crate::catalog::{McpOrigin, Tool};

#[test]
fn patterns() {
    let mut t = Tool::new("a__get_time", "");
    t.mcp = Some(McpOrigin {
        server: Arc::from("a"),
        name: "get_time".into(),
        about: None,
        title: None,
    });
    assert!(matches_pattern("a/*", "a", &t));
    assert!(!matches_pattern("b/*", "a", &t));
    assert!(matches_pattern("a/get_time", "a", &t));
    assert!(matches_pattern("get_time", "a", &t));
    assert!(matches_pattern("a__get_time", "a", &t));
    assert!(!matches_pattern("time", "a", &t));
    assert!(matches_pattern("*", "a", &t) && matches_pattern("*/*", "a", &t));
}

#[test]
fn summaries() {
    let s = fixtures::failed("git", "did not answer within 2 s", "boom\n");
    assert_eq!(
        s.summary(),
        "git: failed: did not answer within 2 s; its stderr ended with: boom"
    );
    assert!(s.warnings().is_empty());
    let hidden = vec!["tool \"a\": hidden text in description: ...".to_string(); 2];
    let s = fixtures::hiding("time", 2, hidden.clone());
    assert_eq!(s.summary(), "time: 2 tools; 2 warnings of hidden text");
    assert_eq!(s.warnings(), hidden);
}

#[test]
fn hidden_text_is_reported_with_its_server() {
    let listed: Vec<rmcp::model::Tool> = serde_json::from_value(serde_json::json!([
        {"name": "clean", "description": "Clean", "inputSchema": {"type": "object"}},
        {"name": "sneaky", "description": "Reads\u{200b} files",
         "inputSchema": {"type": "object", "properties": {"p": {"description": "a\u{202e}b"}}}},
    ]))
    .unwrap();
    let server = config::stdio_server("fake-server").unwrap();
    let mut statuses = vec![fixtures::loaded(&server.name, 2)];
    let (catalog, failed, _) = build_catalog(
        vec![super::listed::Listed {
            server,
            tools: listed,
            skipped: Vec::new(),
            about: None,
        }],
        &[],
        &mut statuses,
        &mut Default::default(),
    );
    assert!(catalog.is_some() && failed.is_empty());
    assert_eq!(
        statuses[0].warnings(),
        [
            "tool \"sneaky\": hidden text in description: 1 zero-width or invisible character (\\u{200b})",
            "tool \"sneaky\": hidden text in input_schema.properties.p.description: 1 bidirectional control (\\u{202e})",
        ]
    );
    assert!(
        statuses[0]
            .summary()
            .ends_with("; 2 warnings of hidden text")
    );
}

/// The catalog names of servers `which` (each listing `tools`), built with
/// the names given so far.
fn names_of(
    which: &[(&str, &[&str])],
    given: &mut std::collections::HashMap<(String, String), String>,
) -> Vec<String> {
    let listed = which
        .iter()
        .map(|(server, tools)| super::listed::Listed {
            server: config::stdio_server(server).unwrap(),
            tools: tools
                .iter()
                .map(|t| {
                    serde_json::from_value(serde_json::json!({"name": t, "description": "d", "inputSchema": {"type": "object"}}))
                        .unwrap()
                })
                .collect(),
            skipped: Vec::new(),
            about: None,
        })
        .collect();
    let mut statuses: Vec<ServerStatus> = which
        .iter()
        .map(|(server, _)| fixtures::starting(server))
        .collect();
    let (catalog, ..) = build_catalog(listed, &[], &mut statuses, given);
    let mut names: Vec<String> = catalog
        .unwrap()
        .tools()
        .iter()
        .map(|t| t.name.clone())
        .collect();
    names.sort();
    names
}

#[test]
fn a_name_once_given_never_changes_the_newcomer_takes_the_prefix() {
    let mut given = Default::default();
    let weather: &[&str] = &["weather_lookup", "forecast"];
    let fake: &[&str] = &["weather_lookup"];
    assert_eq!(
        names_of(&[("weather", weather)], &mut given),
        ["forecast", "weather_lookup"]
    );
    // A slower server joins with the same name: only it is prefixed.
    assert_eq!(
        names_of(&[("weather", weather), ("fake", fake)], &mut given),
        ["fake__weather_lookup", "forecast", "weather_lookup"]
    );
    // The first goes down: the newcomer keeps the name it was given.
    assert_eq!(
        names_of(&[("fake", fake)], &mut given),
        ["fake__weather_lookup"]
    );
    // Two servers new together with one name: both prefixed, as ever.
    let mut fresh = Default::default();
    assert_eq!(
        names_of(&[("weather", weather), ("fake", fake)], &mut fresh),
        [
            "fake__weather_lookup",
            "forecast",
            "weather__weather_lookup"
        ]
    );
}

#[test]
fn a_new_servers_file_adds_removes_and_restarts_servers_by_name() {
    let server = |name: &str, line: &str| McpServer {
        name: name.into(),
        ..config::stdio_server(line).unwrap()
    };
    let config = |servers: Vec<McpServer>| McpConfig {
        servers,
        timeout: std::time::Duration::from_secs(1),
        ..McpConfig::default()
    };
    // Commands that cannot start: the servers stay in their retries.
    let host = McpHost::new(std::time::Duration::from_secs(1)).unwrap();
    host.gather_within(
        &config(vec![
            server("a", "/nonexistent/a"),
            server("b", "/nonexistent/b"),
        ]),
        std::time::Duration::ZERO,
    );
    let changed = host.reconfigure(&config(vec![
        server("c", "/nonexistent/c"),
        server("b", "/nonexistent/b --other"),
    ]));
    assert_eq!(
        changed,
        Reconfigured {
            added: vec!["c".into()],
            removed: vec!["a".into()],
            changed: vec!["b".into()],
        }
    );
    assert_eq!(changed.summary(), "added c; removed a; changed b");
    // In the file's order.
    let names: Vec<String> = host.states().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["c", "b"]);
    let same = host.reconfigure(&config(vec![
        server("c", "/nonexistent/c"),
        server("b", "/nonexistent/b --other"),
    ]));
    assert!(same.is_empty(), "{same:?}");
    // A change heard of a server taken out, or still starting, lists
    // nothing and is no failure.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let relist = |name: &str| runtime.block_on(host.relist(name));
    assert_eq!(relist("a"), Ok(false));
    assert_eq!(relist("c"), Ok(false));
}

/// Servers whose tools would take the catalog past its limit wait, named
/// with their count; the ones before them are served.
#[test]
fn a_server_past_the_catalogs_room_is_left_out_and_says_why() {
    let server = |name: &str, n: usize| {
        let tools = (0..n)
            .map(|i| Tool::new(format!("{name}_{i}"), "d"))
            .collect();
        (config::stdio_server(name).unwrap(), tools, Vec::new())
    };
    let mut per_server = vec![server("small", 3), server("big", 8), server("tiny", 2)];
    let mut statuses: Vec<ServerStatus> = ["small", "big", "tiny"]
        .iter()
        .map(|name| fixtures::starting(name))
        .collect();
    let crowded = super::listed::make_room(&mut per_server, &mut statuses, 6);
    let kept: Vec<&str> = per_server.iter().map(|(s, ..)| s.name.as_str()).collect();
    assert_eq!(kept, ["small", "tiny"]);
    assert_eq!(crowded.len(), 1);
    let why = statuses[1].failure().unwrap();
    assert_eq!(why, crowded["big"]);
    assert!(
        why.contains("its 8 tools would take the catalog past 6"),
        "{why}"
    );
}
