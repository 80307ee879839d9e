//! Tools from live MCP servers (no server: answers are fed back as
//! messages, as the loop would after the real call).

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::json;

use toolsift::search::Searcher;
use toolsift::tui::Setup;
use toolsift::tui::app::App;
use toolsift::tui::app::Popup;
use toolsift::tui::effect::{Effect, Msg};
use toolsift::tui::screen::breaker::jobs::{CallTool, Called};
use toolsift::tui::screen::job::Answer;

use super::{keys, settle};
use crate::common::explorer::{highlight, screen};

/// Types `args` over the breaker's arguments.
fn type_args(app: &mut App, args: &str) {
    use toolsift::tui::action::Action;
    for msg in [
        Msg::Action(Action::BreakerEdit),
        Msg::Action(Action::InputClear),
        Msg::Type(args.into()),
        Msg::Action(Action::InputCancel),
    ] {
        app.update(msg);
    }
}
use toolsift::catalog::{Catalog, McpOrigin, Tool};
use toolsift::sources::mcp::{CallOutcome, McpHost, ServerState, ServerStatus};

fn tool(server: &str, name: &str, on_server: &str, read_only: bool, about: &str) -> Tool {
    let mut t = Tool::new(name, about);
    t.read_only = read_only;
    t.input_schema = json!({
        "type": "object",
        "properties": {"value": {"type": "string", "description": "what to act on"}},
        "required": ["value"]
    });
    t.mcp = Some(McpOrigin {
        server: server.into(),
        name: on_server.into(),
        about: None,
        title: (on_server == "get_current_time").then(|| "Get current time".to_string()),
    });
    t
}

fn catalog() -> Catalog {
    Catalog::new(
        "mcp",
        vec![
            tool(
                "time",
                "get_current_time",
                "get_current_time",
                true,
                "Get the current time in a timezone.",
            ),
            tool(
                "time",
                "convert_time",
                "convert_time",
                true,
                "Convert a time between timezones.",
            ),
            tool(
                "time",
                "time__now",
                "now",
                true,
                "Now, as the time server says.",
            ),
            tool(
                "git",
                "git_status",
                "git_status",
                true,
                "Show the working tree status.",
            ),
            tool("git", "git_log", "git_log", true, "Show the commit logs."),
            tool(
                "git",
                "git_commit",
                "git_commit",
                false,
                "Record changes to the repository.",
            ),
            tool(
                "git",
                "git__now",
                "now",
                false,
                "Now, as the git server says.",
            ),
        ],
    )
    .unwrap()
}

fn statuses() -> Vec<ServerStatus> {
    vec![
        ServerStatus {
            name: "time".into(),
            state: ServerState::Loaded {
                tools: 3,
                prefixed: 1,
                hidden_text: Vec::new(),
                skipped: Vec::new(),
            },
        },
        ServerStatus {
            name: "git".into(),
            state: ServerState::Loaded {
                tools: 4,
                prefixed: 1,
                hidden_text: Vec::new(),
                skipped: Vec::new(),
            },
        },
        ServerStatus {
            name: "slow".into(),
            state: ServerState::Failed {
                why: "did not answer within 20 s".into(),
                stderr_tail: String::new(),
            },
        },
    ]
}

fn mcp_app(width: u16, height: u16) -> App {
    let (mut app, effects) = App::new(Setup {
        sources: "time, git, slow".into(),
        mcp: Some(Arc::new(McpHost::new(Duration::from_secs(5)).unwrap())),
        mcp_servers: statuses(),
        ..Setup::new(Arc::new(catalog()), Searcher::embedded())
    })
    .unwrap();
    app.update(Msg::Resize(width, height));
    settle(&mut app, effects);
    app
}

fn catalog_screen(width: u16, height: u16) -> String {
    let mut app = mcp_app(width, height);
    highlight(&mut app, "git__now");
    let s = screen(&app);
    assert!(s.contains("? F1 help"), "{s}");
    assert!(s.contains("slow failed"), "{s}");
    s
}

#[test]
fn mcp_catalog_at_80x24() {
    let s = catalog_screen(80, 24);
    assert!(s.contains("q quit"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn mcp_catalog_at_200x60() {
    let s = catalog_screen(200, 60);
    assert!(s.contains("slow failed: did not answer within 20 s"), "{s}");
    assert!(
        s.contains("named now on server git; prefixed because"),
        "{s}"
    );
    insta::assert_snapshot!(s);
}

#[test]
fn mcp_catalog_by_server_filtered_at_80x24() {
    let mut app = mcp_app(80, 24);
    keys(&mut app, &[KeyCode::Char('f'); 5]);
    let s = screen(&app);
    assert!(s.contains("server git only"), "{s}");
    insta::assert_snapshot!(s);
}

/// The breaker on git_commit with `{"value":"x"}`, the question open.
fn confirm_screen(width: u16, height: u16) -> String {
    let mut app = mcp_app(width, height);
    highlight(&mut app, "git_commit");
    keys(&mut app, &[KeyCode::Char('b')]);
    type_args(&mut app, r#"{"value":"x"}"#);
    let effects = app.update(Msg::Action(toolsift::tui::action::Action::BreakerCall));
    assert!(effects.is_empty(), "nothing is sent before a yes");
    let s = screen(&app);
    assert!(
        s.contains(r#"Call git_commit on server git with {"value":"x"}? y/n"#),
        "{s}"
    );
    s
}

#[test]
fn mcp_confirm_at_80x24() {
    insta::assert_snapshot!(confirm_screen(80, 24));
}

#[test]
fn mcp_confirm_at_200x60() {
    insta::assert_snapshot!(confirm_screen(200, 60));
}

/// The breaker after a real call to get_current_time (answered with
/// escape sequences in it), and one in flight.
fn result_screen(width: u16, height: u16) -> String {
    let mut app = mcp_app(width, height);
    highlight(&mut app, "get_current_time");
    keys(&mut app, &[KeyCode::Char('b')]);
    type_args(&mut app, r#"{"value":"Europe/Paris"}"#);
    let call = |app: &mut App| -> u64 {
        match app
            .update(Msg::Action(toolsift::tui::action::Action::BreakerCall))
            .as_slice()
        {
            [Effect::Screen(job)] if job.get::<CallTool>().is_some() => {
                job.get::<CallTool>().unwrap().id
            }
            other => panic!("{other:?}"),
        }
    };
    let id = call(&mut app);
    let text = "{\n  \"timezone\": \"Europe/Paris\",\n  \"datetime\": \"2025-01-01T12:00:00+01:00\"\n}\u{1b}]52;c;SGk=\u{7}";
    app.update(Msg::Screen(Answer::new(
        Popup::Breaker,
        Called {
            id,
            result: Ok(CallOutcome {
                is_error: false,
                text: text.into(),
                raw: json!({}),
            }),
        },
    )));
    call(&mut app);
    let s = screen(&app);
    assert!(s.contains("calling…"), "{s}");
    assert!(s.contains(r"\u{1b}]52;c;SGk=\u{7}"), "escaped: {s}");
    assert!(!s.contains('\u{1b}'));
    s
}

#[test]
fn mcp_call_result_at_80x24() {
    insta::assert_snapshot!(result_screen(80, 24));
}

#[test]
fn mcp_call_result_at_200x60() {
    insta::assert_snapshot!(result_screen(200, 60));
}
