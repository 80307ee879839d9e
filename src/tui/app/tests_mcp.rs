//! The explorer over tools from MCP servers, without a server: the effects
//! `update` asks for, and synthetic answers fed back as messages.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use serde_json::json;

use super::*;
use crate::catalog::{McpOrigin, Tool};
use crate::search::Searcher;
use crate::sources::mcp::fixtures::{failed, loaded_prefixed, waiting_for_login};
use crate::sources::mcp::{CallOutcome, McpCallError, ServerState};
use crate::tui::pane::catalog::{Filter, Sort};
use crate::tui::screen::breaker::BreakerPane;
use crate::tui::screen::breaker::LiveState;

fn tool(server: &str, name: &str, on_server: &str, read_only: bool) -> Tool {
    let mut t = Tool::new(name, format!("{on_server} on {server}"));
    t.read_only = read_only;
    t.input_schema = json!({
        "type": "object",
        "properties": {"value": {"type": "string"}},
        "required": ["value"]
    });
    t.mcp = Some(McpOrigin {
        server: server.into(),
        name: on_server.into(),
        about: None,
        title: None,
    });
    t
}

/// Two servers (one name prefixed on both), a tool from a file, and a
/// third server that failed.
fn mcp_catalog() -> Catalog {
    Catalog::new(
        "mcp",
        vec![
            tool("time", "get_current_time", "get_current_time", true),
            tool("git", "git_status", "git_status", true),
            tool("git", "git_commit", "git_commit", false),
            tool("time", "time__now", "now", true),
            tool("git", "git__now", "now", false),
            Tool::new("from_a_file", "a tool from a catalog file"),
        ],
    )
    .unwrap()
}

fn statuses() -> Vec<ServerStatus> {
    vec![
        loaded_prefixed("time", 2, 1),
        loaded_prefixed("git", 3, 1),
        failed("slow", "did not answer within 20 s", ""),
    ]
}

/// The explorer over [`mcp_catalog`]; `live`: with a host (connected to
/// no server: a call that reaches it fails with "no connection").
fn mcp_app(live: bool) -> App {
    mcp_app_with(live, statuses())
}

fn mcp_app_with(live: bool, servers: Vec<ServerStatus>) -> App {
    let setup = Setup {
        mcp: live.then(|| Arc::new(McpHost::new(Duration::from_secs(5)).unwrap())),
        mcp_servers: servers,
        ..Setup::new(Arc::new(mcp_catalog()), Searcher::embedded())
    };
    let (mut app, effects) = App::new(setup).unwrap();
    app.update(Msg::Resize(120, 35));
    app.settle(effects);
    app
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent {
        code,
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    })
}

/// Opens the breaker on `name` with `args`.
fn breaker_on(app: &mut App, name: &str, args: &str) {
    if app.popup() == Some(Popup::Breaker) {
        app.update(Msg::Action(Action::BreakerClose));
    }
    let index = app.catalog().index_of(name).unwrap();
    let row = app
        .catalog_view()
        .rows
        .iter()
        .position(|&i| i == index)
        .unwrap();
    app.update(Msg::Action(Action::Top));
    for _ in 0..row {
        app.update(Msg::Action(Action::Down));
    }
    app.update(Msg::Action(Action::Breaker));
    assert_eq!(app.popup(), Some(Popup::Breaker));
    type_args(app, args);
}

/// Types `args` over the breaker's arguments.
pub(super) fn type_args(app: &mut App, args: &str) {
    for msg in [
        Msg::Action(Action::BreakerEdit),
        Msg::Action(Action::InputClear),
        Msg::Type(args.into()),
        Msg::Action(Action::InputCancel),
    ] {
        assert!(app.update(msg).is_empty());
    }
    assert_eq!(app.screen::<BreakerPane>().unwrap().args.text, args);
}

fn pane(app: &App) -> &BreakerPane {
    app.screen::<BreakerPane>().unwrap()
}

/// The one real call among `effects`: (id, server, tool, arguments).
fn the_call(effects: &[Effect]) -> (u64, String, String, serde_json::Value) {
    use crate::tui::screen::breaker::jobs::CallTool;
    match effects {
        [Effect::Screen(job)] if job.get::<CallTool>().is_some() => {
            let call = job.get::<CallTool>().unwrap();
            (
                call.id,
                call.server.clone(),
                call.tool.clone(),
                serde_json::Value::Object(call.arguments.clone()),
            )
        }
        other => panic!("expected one real call, got {other:?}"),
    }
}

fn answer(id: u64, is_error: bool, text: &str) -> Msg {
    called(
        id,
        Ok(CallOutcome {
            is_error,
            text: text.into(),
            raw: json!({"content": [{"type": "text", "text": text}]}),
        }),
    )
}

/// Real call `id`'s answer, as the loop brings it back.
fn called(id: u64, result: Result<CallOutcome, McpCallError>) -> Msg {
    use crate::tui::screen::breaker::jobs::Called;
    Msg::Screen(crate::tui::screen::job::Answer::new(
        Popup::Breaker,
        Called { id, result },
    ))
}

#[test]
fn a_read_only_tool_is_called_for_real_at_once() {
    let mut app = mcp_app(true);
    breaker_on(&mut app, "get_current_time", r#"{"value":"UTC"}"#);
    let effects = app.update(key(KeyCode::Enter));
    let (id, server, tool, args) = the_call(&effects);
    assert_eq!(
        (server.as_str(), tool.as_str()),
        ("time", "get_current_time")
    );
    assert_eq!(args, json!({"value": "UTC"}));
    assert_eq!(pane(&app).in_flight(), 1, "calling…");
    assert_eq!(pane(&app).breaker.repeats(), 1, "the breaker recorded it");
    app.update(answer(id, false, "12:00\nUTC"));
    let p = pane(&app);
    assert_eq!(p.in_flight(), 0);
    let last = p.last_answer().unwrap();
    assert_eq!(last.live.as_ref().unwrap().state, LiveState::Answered);
    assert_eq!(last.outcome, "12:00\nUTC");
    // An answer for no call (or a second one) changes nothing.
    app.update(answer(id, true, "late"));
    assert_eq!(pane(&app).last_answer().unwrap().outcome, "12:00\nUTC");
}

#[test]
fn prefixed_tools_are_called_by_their_name_on_the_server() {
    let mut app = mcp_app(true);
    breaker_on(&mut app, "time__now", r#"{"value":"x"}"#);
    let effects = app.update(Msg::Action(Action::BreakerCall));
    let (_, server, tool, _) = the_call(&effects);
    assert_eq!((server.as_str(), tool.as_str()), ("time", "now"));
}

#[test]
fn a_tool_that_may_write_asks_every_time() {
    let mut app = mcp_app(true);
    breaker_on(&mut app, "git_commit", r#"{"value":"x"}"#);
    // Asked, nothing sent, nothing recorded.
    assert!(app.update(key(KeyCode::Enter)).is_empty());
    let c = pane(&app).confirm.clone().unwrap();
    assert_eq!((c.server.as_str(), c.tool.as_str()), ("git", "git_commit"));
    assert_eq!(c.arguments, json!({"value": "x"}));
    assert_eq!(app.context(), Context::Confirm);
    assert_eq!(pane(&app).breaker.repeats(), 0);
    // n cancels: nothing sent, nothing recorded.
    assert!(app.update(key(KeyCode::Char('n'))).is_empty());
    assert!(!pane(&app).confirming());
    assert!(pane(&app).log.is_empty());
    assert_eq!(pane(&app).breaker.repeats(), 0);
    assert!(
        pane(&app)
            .message
            .as_deref()
            .unwrap()
            .contains("nothing was sent")
    );
    // Esc cancels too, and the breaker stays open.
    app.update(key(KeyCode::Char('c')));
    assert!(app.update(key(KeyCode::Esc)).is_empty());
    assert_eq!(app.popup(), Some(Popup::Breaker));
    assert!(pane(&app).log.is_empty());
    // y sends it, through the breaker.
    app.update(key(KeyCode::Enter));
    let effects = app.update(key(KeyCode::Char('y')));
    let (_, server, tool, _) = the_call(&effects);
    assert_eq!((server.as_str(), tool.as_str()), ("git", "git_commit"));
    assert_eq!(pane(&app).breaker.repeats(), 1);
    // The next call asks again; Enter says yes.
    assert!(app.update(key(KeyCode::Char('c'))).is_empty());
    assert!(pane(&app).confirming());
    the_call(&app.update(key(KeyCode::Enter)));
    // Other keys do nothing while the question is open.
    app.update(key(KeyCode::Char('c')));
    assert!(app.update(key(KeyCode::Char('q'))).is_empty());
    assert!(app.update(key(KeyCode::Char('L'))).is_empty());
    assert!(pane(&app).confirming());
    assert_eq!(app.popup(), Some(Popup::Breaker));
    // A loop never makes real calls to a tool that may write.
    app.update(key(KeyCode::Char('n')));
    assert!(app.update(key(KeyCode::Char('L'))).is_empty());
    assert!(!pane(&app).confirming());
    assert!(pane(&app).message.as_deref().unwrap().contains("no loop"));
}

#[test]
fn the_fourth_identical_call_is_blocked_before_the_server() {
    let mut app = mcp_app(true);
    breaker_on(&mut app, "git_status", r#"{"value":"x"}"#);
    for _ in 0..3 {
        the_call(&app.update(Msg::Action(Action::BreakerCall)));
    }
    assert!(app.update(Msg::Action(Action::BreakerCall)).is_empty());
    let last = pane(&app).log.last().unwrap();
    assert!(!last.ran);
    assert_eq!(last.repeats, 4);
    assert!(last.outcome.contains("nothing was sent to server git"));
    // Its row in the call log names the server, as the calls made do.
    app.update(Msg::Resize(120, 35));
    let rows = super::tests_finish::draw(&app);
    let blocked = rows
        .iter()
        .find(|r| r.contains("BLOCKED"))
        .unwrap_or_else(|| panic!("{rows:#?}"));
    assert!(blocked.contains("[git] git_status"), "{blocked}");
    // A tool that may write: a blocked call is not even asked about.
    breaker_on(&mut app, "git_commit", r#"{"value":"y"}"#);
    for _ in 0..3 {
        app.update(Msg::Action(Action::BreakerCall));
        the_call(&app.update(Msg::Action(Action::ConfirmYes)));
    }
    assert!(app.update(Msg::Action(Action::BreakerCall)).is_empty());
    assert!(!pane(&app).confirming());
    assert!(!pane(&app).log.last().unwrap().ran);
}

#[test]
fn a_loop_of_a_read_only_tool_sends_what_the_breaker_lets_through() {
    let mut app = mcp_app(true);
    breaker_on(&mut app, "get_current_time", r#"{"value":"x"}"#);
    let effects = app.update(key(KeyCode::Char('L')));
    assert_eq!(effects.len(), 3, "threshold 3 of a loop of 5");
    assert_eq!(pane(&app).log.len(), 5);
    assert_eq!(pane(&app).in_flight(), 3);
}

#[test]
fn answers_are_sanitised_and_errors_shown_as_errors() {
    let mut app = mcp_app(true);
    breaker_on(&mut app, "get_current_time", r#"{"value":"x"}"#);
    let (id, ..) = the_call(&app.update(Msg::Action(Action::BreakerCall)));
    app.update(answer(
        id,
        false,
        "ok\u{1b}]52;c;SGVsbG8=\u{7}\u{1b}[2J\r\n\u{202e}evil\tend",
    ));
    let out = &pane(&app).last_answer().unwrap().outcome;
    assert!(
        !out.chars()
            .any(|c| c != '\n' && crate::terminal_text::is_unsafe(c)),
        "{out:?}"
    );
    assert_eq!(
        out,
        "ok\\u{1b}]52;c;SGVsbG8=\\u{7}\\u{1b}[2J\n\\u{202e}evil    end"
    );
    // isError: the tool ran and failed.
    let (id, ..) = the_call(&app.update(Msg::Action(Action::BreakerCall)));
    app.update(answer(id, true, "no such timezone"));
    let last = pane(&app).last_answer().unwrap();
    assert_eq!(last.live.as_ref().unwrap().state, LiveState::ToolError);
    assert_eq!(last.outcome, "no such timezone");
    // A transport error.
    let (id, ..) = the_call(&app.update(Msg::Action(Action::BreakerCall)));
    app.update(called(
        id,
        Err(McpCallError::Timeout {
            server: "time".into(),
            secs: 60,
        }),
    ));
    let last = pane(&app).last_answer().unwrap();
    assert_eq!(last.live.as_ref().unwrap().state, LiveState::Failed);
    assert!(last.outcome.contains("did not answer within 60 s"));
}

#[test]
fn the_effect_goes_through_the_host() {
    // The host has no connection to "time": the answer is a transport
    // error, as a message.
    let mut app = mcp_app(true);
    breaker_on(&mut app, "get_current_time", r#"{"value":"x"}"#);
    let effects = app.update(Msg::Action(Action::BreakerCall));
    app.settle(effects);
    let last = pane(&app).last_answer().unwrap();
    assert_eq!(last.live.as_ref().unwrap().state, LiveState::Failed);
    assert!(last.outcome.contains("no connection to MCP server"));
}

#[test]
fn without_a_host_mcp_tools_are_simulated() {
    let mut app = mcp_app(false);
    breaker_on(&mut app, "git_commit", r#"{"value":"x"}"#);
    assert!(app.update(Msg::Action(Action::BreakerCall)).is_empty());
    let p = pane(&app);
    assert!(!p.confirming());
    assert!(p.log[0].ran && p.log[0].live.is_none());
}

#[test]
fn the_catalog_filters_and_sorts_by_server() {
    let mut app = mcp_app(true);
    let names = |app: &App| -> Vec<String> {
        app.catalog_view()
            .rows
            .iter()
            .map(|&i| app.tool(i).name.clone())
            .collect()
    };
    assert_eq!(app.catalog_view().servers.len(), 2);
    for _ in 0..4 {
        app.update(Msg::Action(Action::CycleFilter));
    }
    assert_eq!(app.catalog_view().filter, Filter::Server(0));
    assert_eq!(app.catalog_view().filter_label(), "server time");
    assert_eq!(names(&app), ["get_current_time", "time__now"]);
    app.update(Msg::Action(Action::CycleFilter));
    assert_eq!(app.catalog_view().filter_label(), "server git");
    assert_eq!(names(&app), ["git_status", "git_commit", "git__now"]);
    app.update(Msg::Action(Action::CycleFilter));
    assert_eq!(app.catalog_view().filter, Filter::All);
    for _ in 0..4 {
        app.update(Msg::Action(Action::CycleSort));
    }
    assert_eq!(app.catalog_view().sort, Sort::Server);
    assert_eq!(
        names(&app),
        [
            "get_current_time",
            "time__now",
            "git_status",
            "git_commit",
            "git__now",
            "from_a_file"
        ]
    );
    app.update(Msg::Action(Action::CycleSort));
    assert_eq!(app.catalog_view().sort, Sort::Catalog);
}

#[test]
fn servers_have_a_line_and_help_has_their_summaries() {
    let app = mcp_app(true);
    assert!(app.layout().servers.is_some());
    assert!(mcp_app_with(true, Vec::new()).layout().servers.is_none());
    let rows = crate::tui::screen::help::rows::help_rows(
        app.keymap(),
        app.mcp_servers(),
        !app.catalog_view().servers.is_empty(),
    );
    assert!(rows.iter().any(|r| matches!(r,
        crate::tui::screen::help::rows::HelpRow::Server { summary, failed: true }
            if summary == "slow: failed: did not answer within 20 s")));
}

#[test]
fn i_logs_in_to_the_server_waiting_for_a_login_and_its_tools_join() {
    // Nothing waits: i says so.
    let mut app = mcp_app(true);
    app.update(key(KeyCode::Char('i')));
    assert_eq!(app.status(), Some("no MCP server waits for a login"));

    let mut servers = statuses();
    servers.push(waiting_for_login(
        "hosted",
        "log in with `toolsift login hosted`",
    ));
    let mut app = mcp_app_with(true, servers.clone());
    let effects = app.update(key(KeyCode::Char('i')));
    assert!(
        matches!(effects.as_slice(), [Effect::McpLogIn { server, .. }] if server == "hosted"),
        "{effects:?}"
    );
    assert_eq!(app.status(), Some("logging in to hosted..."));
    // A second i while it is under way starts no second login.
    assert!(app.update(key(KeyCode::Char('i'))).is_empty());
    assert!(
        app.status().unwrap().contains("under way"),
        "{:?}",
        app.status()
    );
    // The page's address is said whole.
    app.update(Msg::LoginPage {
        server: "hosted".into(),
        url: "https://auth.example/authorize?state=abc".into(),
        opened: false,
    });
    assert_eq!(
        app.status(),
        Some("logging in to hosted: open https://auth.example/authorize?state=abc in a browser")
    );
    // Done: the servers' catalog takes the old one's place.
    let mut tools = mcp_catalog().tools().to_vec();
    tools.retain(|t| t.mcp.is_some());
    tools.push(tool("hosted", "whoami", "whoami", true));
    let mut now = servers;
    now.last_mut().unwrap().state = ServerState::Loaded {
        tools: 1,
        prefixed: 0,
        hidden_text: Vec::new(),
        skipped: Vec::new(),
    };
    // (This catalog mixes a file's tool: the login says when it joins.)
    app.update(Msg::LoggedIn {
        server: "hosted".into(),
        result: Ok(Box::new(crate::sources::mcp::LoggedIn {
            kept_in: "/home/u/.config/toolsift/logins/hosted.json".into(),
            catalog: Some(Catalog::new("mcp", tools.clone()).unwrap()),
            servers: now.clone(),
        })),
    });
    assert!(
        app.status()
            .unwrap()
            .contains("its tools join when the explorer starts again"),
        "{:?}",
        app.status()
    );
    assert!(app.waiting_for_login().is_empty());

    // Servers alone: the tools join now.
    let only_servers: Vec<Tool> = mcp_catalog()
        .tools()
        .iter()
        .filter(|t| t.mcp.is_some())
        .cloned()
        .collect();
    let setup = Setup {
        mcp: Some(Arc::new(McpHost::new(Duration::from_secs(5)).unwrap())),
        mcp_servers: statuses(),
        ..Setup::new(
            Arc::new(Catalog::new("mcp", only_servers).unwrap()),
            Searcher::embedded(),
        )
    };
    let (mut app, effects) = App::new(setup).unwrap();
    app.update(Msg::Resize(120, 35));
    app.settle(effects);
    app.update(Msg::LoggedIn {
        server: "hosted".into(),
        result: Ok(Box::new(crate::sources::mcp::LoggedIn {
            kept_in: "/k/hosted.json".into(),
            catalog: Some(Catalog::new("mcp", tools).unwrap()),
            servers: now,
        })),
    });
    assert!(app.catalog().index_of("whoami").is_some());
    assert_eq!(
        app.status(),
        Some(
            "logged in to hosted (the tokens are kept in /k/hosted.json): its tools joined the catalog"
        )
    );
    // A login that did not complete says why, and how to try again.
    app.update(Msg::LoggedIn {
        server: "hosted".into(),
        result: Err(crate::sources::mcp::login::LoginError::TimedOut(300).into()),
    });
    assert_eq!(
        app.status(),
        Some(
            "the login to hosted did not complete: no answer came back from the browser within 300 s (i tries again)"
        )
    );
}

#[test]
fn the_servers_line_names_a_server_waiting_for_a_login_and_the_key_that_logs_in() {
    let mut servers = statuses();
    servers.push(waiting_for_login(
        "hosted",
        "log in with `toolsift login hosted`",
    ));
    let text = |parts: Vec<(String, bool)>| -> (String, bool) {
        parts
            .iter()
            .find(|(t, _)| t.contains("hosted"))
            .cloned()
            .unwrap_or_default()
    };
    let (wide, marked) = text(crate::tui::ui::servers::server_parts(
        &servers,
        200,
        Some("i"),
    ));
    assert!(
        wide.ends_with("hosted waiting for login (i logs in)"),
        "{wide}"
    );
    assert!(marked, "shown in the error style");
    // Narrower, the hint gives way first.
    let (narrow, _) = text(crate::tui::ui::servers::server_parts(
        &servers,
        70,
        Some("i"),
    ));
    assert!(narrow.ends_with("hosted waiting for login"), "{narrow}");
}
