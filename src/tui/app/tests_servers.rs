//! `explore --mcp` as its servers start: the explorer opens on no tools,
//! and each server's tools join as it lists them (the loop's
//! `Msg::Servers`), searched over what is there, with what is still
//! starting said.

use std::sync::Arc;

use super::tests_finish::draw;
use super::*;
use crate::catalog::{McpOrigin, Tool};
use crate::sources::mcp::ServerState;
use crate::sources::mcp::fixtures::{loaded, starting, status};

fn tool(server: &str, name: &str, description: &str) -> Tool {
    let mut t = Tool::new(name, description);
    t.mcp = Some(McpOrigin {
        server: server.into(),
        name: name.into(),
        about: None,
        title: None,
    });
    t
}

fn time_tools() -> Vec<Tool> {
    vec![
        tool(
            "time",
            "get_current_time",
            "the current time in a time zone",
        ),
        tool("time", "convert_time", "convert a time between time zones"),
    ]
}

fn git_tools() -> Vec<Tool> {
    vec![
        tool("git", "git_status", "the working tree's status"),
        tool("git", "git_commit", "record changes to the repository"),
        tool("git", "git_log", "show the commit logs"),
    ]
}

fn catalog(tools: Vec<Tool>) -> Option<Arc<Catalog>> {
    Some(Arc::new(
        Catalog::new("mcp: time, git", tools).expect("a catalog"),
    ))
}

/// The explorer as `explore --mcp` opens it: no tools yet, three servers
/// starting.
fn opening() -> App {
    let setup = Setup {
        sources: "mcp".into(),
        mcp_servers: vec![starting("time"), starting("git"), starting("slow")],
        ..Setup::new(Arc::new(Catalog::empty("mcp")), Searcher::embedded())
    };
    let (mut app, effects) = App::new(setup).unwrap();
    app.update(Msg::Resize(80, 24));
    app.settle(effects);
    app
}

fn screen(app: &App) -> String {
    draw(app).join("\n")
}

#[test]
fn the_explorer_opens_on_no_tools_and_says_the_servers_are_starting() {
    let app = opening();
    assert!(app.catalog().is_empty());
    assert_eq!(app.servers_starting(), 3);
    let shown = screen(&app);
    assert!(shown.contains("no tools yet: 3 servers"), "{shown}");
    assert!(
        shown.contains("MCP time starting · git starting · slow starting"),
        "{shown}"
    );
}

#[test]
fn each_server_s_tools_join_as_it_lists_them_and_the_query_is_searched_again() {
    let mut app = opening();
    app.update(Msg::Action(Action::FocusQuery));
    let effects = app.update(Msg::Type("time zone".into()));
    app.settle(effects);

    // The first server: its tools join, the query is searched over them.
    let effects = app.update(Msg::Servers {
        catalog: catalog(time_tools()),
        servers: vec![loaded("time", 2), starting("git"), starting("slow")],
    });
    app.settle(effects);
    assert_eq!(app.catalog().len(), 2);
    assert_eq!(app.sources(), "mcp: time, git");
    let loaded_names = |app: &App| -> Vec<String> {
        app.loaded_tools()
            .unwrap_or_default()
            .iter()
            .map(|&i| app.catalog().tools()[i].name.clone())
            .collect()
    };
    assert!(
        loaded_names(&app).contains(&"get_current_time".to_string()),
        "{:?}",
        loaded_names(&app)
    );
    let said = app.status().unwrap_or_default().to_string();
    assert!(
        said.contains("2 servers still starting"),
        "a search says what is still on its way: {said}"
    );

    // The second: the catalog grows, what is typed stays.
    let mut tools = time_tools();
    tools.extend(git_tools());
    let effects = app.update(Msg::Servers {
        catalog: catalog(tools),
        servers: vec![loaded("time", 2), loaded("git", 3), starting("slow")],
    });
    assert_eq!(
        app.status(),
        Some("git joined: 5 tools in all; 1 server still starting")
    );
    app.settle(effects);
    assert_eq!(app.catalog().len(), 5);
    assert_eq!(app.query().text(), "time zone");
    assert_eq!(app.servers_starting(), 1);
}

#[test]
fn a_server_that_fails_is_said_and_the_others_tools_stay() {
    let mut app = opening();
    let effects = app.update(Msg::Servers {
        catalog: catalog(time_tools()),
        servers: vec![loaded("time", 2), starting("git"), starting("slow")],
    });
    app.settle(effects);
    let effects = app.update(Msg::Servers {
        catalog: catalog(time_tools()),
        servers: vec![
            loaded("time", 2),
            starting("git"),
            status(
                "slow",
                ServerState::Failed {
                    why: "did not answer within 20 s".into(),
                    stderr_tail: String::new(),
                },
            ),
        ],
    });
    // The same tools: nothing pointing into them starts afresh.
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(app.catalog().len(), 2);
    assert_eq!(
        app.status(),
        Some("slow failed (retrying); 1 server still starting")
    );
    assert!(screen(&app).contains("slow failed"), "{}", screen(&app));
}

#[test]
fn no_server_listing_a_tool_says_so_in_the_catalog_pane() {
    let mut app = opening();
    let failed = |name: &str| {
        status(
            name,
            ServerState::Failed {
                why: "it exited".into(),
                stderr_tail: String::new(),
            },
        )
    };
    app.update(Msg::Servers {
        catalog: Some(Arc::new(Catalog::empty("mcp"))),
        servers: vec![failed("time"), failed("git"), failed("slow")],
    });
    let shown = screen(&app);
    assert!(
        shown.contains("no tools: no MCP server listed any"),
        "{shown}"
    );
}

#[test]
fn the_servers_line_counts_those_starting_when_narrow() {
    let servers = vec![
        loaded("time", 2),
        starting("git"),
        starting("fetch"),
        starting("everything"),
        status(
            "broken",
            ServerState::Failed {
                why: "cannot start".into(),
                stderr_tail: String::new(),
            },
        ),
    ];
    let parts = crate::tui::ui::servers::server_parts(&servers, 50, None);
    let line: String = parts.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(line, "5 servers, 3 starting, 1 failed (broken)");
}
