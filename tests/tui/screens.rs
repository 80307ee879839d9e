//! Whole screens of the explorer, drawn into ratatui's TestBackend after
//! scripted keys, compared with insta snapshots.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use toolsift::catalog::{CatalogSource, load};
use toolsift::search::Searcher;
use toolsift::tui::Setup;
use toolsift::tui::app::App;
use toolsift::tui::effect::{Effect, Msg, run_effect};
use toolsift::tui::keymap::Keymap;
use toolsift::tui::ui;

/// How long every search takes here, so that the snapshots do not change
/// from run to run.
const LATENCY: Duration = Duration::from_micros(210);

/// Runs `effects` (and those their answers cause) with `searcher`, each
/// search timed at [`LATENCY`].
fn answer_with(searcher: &Searcher, app: &mut App, effects: Vec<Effect>) {
    let mut queue = std::collections::VecDeque::from(effects);
    while let Some(effect) = queue.pop_front() {
        let msg = match run_effect(searcher, effect) {
            Msg::SearchDone(mut answer) => {
                answer.elapsed = LATENCY;
                Msg::SearchDone(answer)
            }
            other => other,
        };
        queue.extend(app.update(msg));
    }
}

pub(crate) fn settle(app: &mut App, effects: Vec<Effect>) {
    let searcher = app.searcher().clone();
    answer_with(&searcher, app, effects);
}

/// The demo explorer at `width` x `height`, as `setup` changes it, its
/// first effects run.
fn app_with(width: u16, height: u16, setup: impl FnOnce(&mut Setup)) -> App {
    let catalog = Arc::new(load(&CatalogSource::demo()).unwrap());
    let mut s = Setup {
        sources: "demo".into(),
        ..Setup::new(catalog, Searcher::embedded())
    };
    setup(&mut s);
    let (mut app, effects) = App::new(s).unwrap();
    app.update(Msg::Resize(width, height));
    settle(&mut app, effects);
    app
}

fn app(width: u16, height: u16) -> App {
    app_with(width, height, |_| {})
}

pub(crate) fn keys(app: &mut App, keys: &[KeyCode]) {
    for &code in keys {
        let effects = app.update(Msg::Key(KeyEvent {
            code,
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }));
        settle(app, effects);
    }
}

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

fn type_text(app: &mut App, text: &str) {
    let codes: Vec<KeyCode> = text.chars().map(KeyCode::Char).collect();
    keys(app, &codes);
}

/// The screen as text.
fn screen(app: &App) -> String {
    let (w, h) = app.size();
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| ui::draw(f, app)).unwrap();
    format!("{}", terminal.backend())
}

#[test]
fn start() {
    let app = app(120, 35);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn query_with_results() {
    let mut app = app(120, 35);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "refund a payment");
    keys(
        &mut app,
        &[
            KeyCode::Esc,
            KeyCode::Tab,
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Down,
        ],
    );
    let s = screen(&app);
    assert!(s.contains("refund_payment"));
    insta::assert_snapshot!(s);
}

#[test]
fn query_matching_nothing() {
    let mut app = app(120, 35);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "zebra xylophone");
    let s = screen(&app);
    assert!(s.contains("note: no tool matches the query"));
    insta::assert_snapshot!(s);
}

#[test]
fn failed_search() {
    // A remote service is asked for ranker embeddings (the explorer lets
    // a remote service judge its rankers) and has no embedding model: the
    // search fails, and says why.
    let (mut app, effects) = remote_app(120, 35);
    answer_embedded(&mut app, effects);
    for code in [
        KeyCode::Char('s'),
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Right,
        KeyCode::Esc,
        KeyCode::Char('/'),
    ] {
        let effects = app.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
        answer_embedded(&mut app, effects);
    }
    assert_eq!(app.settings().ranker, toolsift::engine::Ranker::Embeddings);
    let effects = app.update(Msg::Type("status".into()));
    answer_embedded(&mut app, effects);
    let s = screen(&app);
    assert!(s.contains("search failed"));
    insta::assert_snapshot!(s);
}

#[test]
fn invalid_setting() {
    let mut app = app(120, 35);
    keys(
        &mut app,
        &[
            KeyCode::Char('s'),
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Right,
        ],
    );
    let s = screen(&app);
    assert!(s.contains("max_loaded_tools must be at least the always_load tool count"));
    insta::assert_snapshot!(s);
}

#[test]
fn help() {
    let mut app = app(120, 35);
    keys(&mut app, &[KeyCode::Char('?')]);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn small_terminal_80x24() {
    let mut app = app(80, 24);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "schedule a meeting");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn detail_popup_when_narrow() {
    let mut app = app(90, 30);
    keys(&mut app, &[KeyCode::Enter]);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn too_small() {
    let app = app(70, 20);
    insta::assert_snapshot!(screen(&app));
}

/// The breaker simulator on `get_payment` after `keys`.
fn breaker_screen(keys_after: &[KeyCode]) -> String {
    let mut app = app(120, 35);
    // Highlight get_payment in the catalog, open the simulator.
    let index = app.catalog().index_of("get_payment").unwrap();
    let row = app
        .catalog_view()
        .rows
        .iter()
        .position(|&i| i == index)
        .unwrap();
    keys(&mut app, &vec![KeyCode::Char('j'); row]);
    keys(&mut app, &[KeyCode::Char('b')]);
    keys(&mut app, keys_after);
    screen(&app)
}

#[test]
fn breaker_fresh() {
    insta::assert_snapshot!(breaker_screen(&[]));
}

#[test]
fn breaker_streak() {
    let s = breaker_screen(&[KeyCode::Enter, KeyCode::Enter]);
    assert!(s.contains("streak 2 of 3"));
    insta::assert_snapshot!(s);
}

#[test]
fn breaker_blocked() {
    let s = breaker_screen(&[KeyCode::Enter; 4]);
    assert!(s.contains("BLOCKED 4/3"));
    insta::assert_snapshot!(s);
}

#[test]
fn breaker_threshold_changed() {
    let s = breaker_screen(&[
        KeyCode::Enter,
        KeyCode::Enter,
        KeyCode::Enter,
        KeyCode::Char('+'),
        KeyCode::Char('+'),
        KeyCode::Enter,
    ]);
    assert!(s.contains("4/5"));
    insta::assert_snapshot!(s);
}

#[test]
fn breaker_reset() {
    let s = breaker_screen(&[
        KeyCode::Enter,
        KeyCode::Enter,
        KeyCode::Enter,
        KeyCode::Enter,
        KeyCode::Char('r'),
        KeyCode::Enter,
    ]);
    assert!(s.contains("breaker reset") || s.contains("1/3"));
    insta::assert_snapshot!(s);
}

#[test]
fn breaker_replay_tripped() {
    let s = breaker_screen(&[KeyCode::Char('o'), KeyCode::Enter, KeyCode::Char('R')]);
    assert!(s.contains("trips at call 10 (trace line 10)"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn breaker_invalid_json() {
    let s = breaker_screen(&[
        KeyCode::Char('e'),
        KeyCode::Backspace,
        KeyCode::Char(','),
        KeyCode::Esc,
        KeyCode::Enter,
    ]);
    assert!(s.contains("invalid JSON"));
    assert!(s.contains("no calls yet"), "invalid JSON was not sent");
    insta::assert_snapshot!(s);
}

#[test]
fn no_color_reads_the_same() {
    let mut colored = app(120, 35);
    keys(&mut colored, &[KeyCode::Char('/')]);
    type_text(&mut colored, "refund a payment");
    let mut plain = app_with(120, 35, |s| s.no_color = true);
    keys(&mut plain, &[KeyCode::Char('/')]);
    type_text(&mut plain, "refund a payment");
    // The text is the same; only styles differ, and without colour.
    assert_eq!(screen(&colored), screen(&plain));
    let (w, h) = plain.size();
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| ui::draw(f, &plain)).unwrap();
    let buffer = terminal.backend().buffer();
    assert!(
        buffer
            .content()
            .iter()
            .all(|c| c.fg == ratatui::style::Color::Reset && c.bg == ratatui::style::Color::Reset),
        "NO_COLOR draws no colour"
    );
}

#[test]
fn breaker_at_80x24() {
    let mut app = app(80, 24);
    keys(
        &mut app,
        &[
            KeyCode::Char('b'),
            KeyCode::Char('o'),
            KeyCode::Enter,
            KeyCode::Char('n'),
            KeyCode::Char('n'),
            KeyCode::Enter,
        ],
    );
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn help_at_80x24_shows_how_to_scroll_and_close() {
    let mut app = app(80, 24);
    keys(
        &mut app,
        &[KeyCode::Char('?'), KeyCode::Char('j'), KeyCode::Char('j')],
    );
    let s = screen(&app);
    assert!(s.contains("j k scroll · Esc close"), "{s}");
    insta::assert_snapshot!(s);
}

/// The explorer driven through its swappable message source: a script of
/// actions, typed text and pauses, on a TestBackend, without knowing the
/// keymap (here a remapped one, where the default keys would do nothing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_drives_the_explorer_to_a_clean_exit() {
    use toolsift::tui::action::Action;
    use toolsift::tui::event::{Script, ScriptStep};

    let catalog = Arc::new(load(&CatalogSource::demo()).unwrap());
    let user = toolsift::config::parse(
        "[keys]\nfocus_query = \"ctrl-f\"\nsettings = \"S\"\nquit = \"Q\"\n",
        "script.toml",
    )
    .unwrap();
    let keymap = Keymap::build(
        &Keymap::default_table(),
        &Keymap::table_of(&user),
        "script.toml",
    )
    .unwrap();
    let (mut app, initial) = App::new(Setup {
        keymap,
        ..Setup::new(catalog, Searcher::embedded())
    })
    .unwrap();
    let pause = ScriptStep::Pause(Duration::from_millis(300));
    let script = Script::new([
        ScriptStep::Action(Action::FocusQuery),
        ScriptStep::Type("refund a payment".into()),
        pause.clone(),
        ScriptStep::Action(Action::InputSubmit),
        // The committed search's answer (off the UI thread) must be back
        // before the quit below; generous, for a loaded CI machine.
        ScriptStep::Pause(Duration::from_secs(3)),
        // Enter kept the keys in the query box: Esc takes them to the
        // results.
        ScriptStep::Action(Action::InputCancel),
        ScriptStep::Action(Action::Settings),
        ScriptStep::Action(Action::SettingsDown),
        ScriptStep::Action(Action::SettingsIncrease),
        pause.clone(),
        ScriptStep::Action(Action::SettingsClose),
        pause,
        ScriptStep::Action(Action::Quit),
        // Never reached: the explorer has quit.
        ScriptStep::Type("ignored".into()),
    ])
    .with_key_delay(Duration::from_millis(1));
    let mut terminal = Terminal::new(TestBackend::new(120, 35)).unwrap();
    toolsift::tui::run_with(&mut terminal, &mut app, initial, script.into_stream())
        .await
        .expect("the loop ends cleanly");
    assert!(app.should_quit());
    assert_eq!(app.query().text(), "refund a payment");
    assert_eq!(app.query().history, ["refund a payment"]);
    assert_eq!(app.settings().initial_tool_count, 9);
    assert_eq!(app.popup(), None);
    assert!(
        app.search().session.is_some(),
        "the committed query opened a session"
    );
    assert_eq!(app.search().query, "refund a payment");
    let screen = format!("{}", terminal.backend());
    assert!(screen.contains("> refund a payment"), "{screen}");
    assert!(screen.contains("init 9"), "{screen}");
    assert!(screen.contains("refund_payment"), "{screen}");
    assert!(
        screen.contains("S settings"),
        "the key line follows the keymap"
    );
}

#[tokio::test]
async fn a_script_that_ends_without_quitting_closes_the_explorer() {
    use toolsift::tui::event::{Script, ScriptStep};
    let catalog = Arc::new(load(&CatalogSource::demo()).unwrap());
    let (mut app, initial) = App::new(Setup::new(catalog, Searcher::embedded())).unwrap();
    let script = Script::new([ScriptStep::Resize(90, 30)]);
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    toolsift::tui::run_with(&mut terminal, &mut app, initial, script.into_stream())
        .await
        .unwrap();
    assert!(app.should_quit());
    assert_eq!(app.size(), (90, 30));
}

#[test]
fn large_terminal_200x60() {
    let mut app = app(200, 60);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "refund a payment");
    keys(&mut app, &[KeyCode::Enter, KeyCode::Esc]);
    let s = screen(&app);
    assert!(s.contains("? F1 help") && s.contains("q quit"), "{s}");
    // The session id is random: check its shape, then pin it.
    let id = app.search().session.clone().unwrap();
    let short = toolsift::tui::ui::short_id(&id);
    assert!(s.contains(&format!("session {short}")), "{s}");
    insta::assert_snapshot!(s.replace(&short, "SESSION"));
}

// ---- Tools from live MCP servers (no server: answers are fed back as
// messages, as the loop would after the real call).

mod mcp {
    use super::*;
    use serde_json::json;
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

    /// Highlights `name` in the catalog pane.
    fn highlight(app: &mut App, name: &str) {
        let index = app.catalog().index_of(name).unwrap();
        let row = app
            .catalog_view()
            .rows
            .iter()
            .position(|&i| i == index)
            .unwrap();
        keys(app, &vec![KeyCode::Char('j'); row]);
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
                [Effect::McpCall { id, .. }] => *id,
                other => panic!("{other:?}"),
            }
        };
        let id = call(&mut app);
        let text = "{\n  \"timezone\": \"Europe/Paris\",\n  \"datetime\": \"2025-01-01T12:00:00+01:00\"\n}\u{1b}]52;c;SGk=\u{7}";
        app.update(Msg::McpCallDone {
            id,
            result: Ok(CallOutcome {
                is_error: false,
                text: text.into(),
                raw: json!({}),
            }),
        });
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
}

/// The explorer with a remote searcher (`URL` is never reached: answers
/// are fed in by the test).
fn remote_app(width: u16, height: u16) -> (App, Vec<Effect>) {
    use toolsift::client::{Client, ClientConfig, ClientSettings};
    let settings = ClientSettings {
        service: Some("http://127.0.0.1:8787".into()),
        ..ClientSettings::default()
    };
    let config = ClientConfig::resolve(&settings, &|_| None)
        .unwrap()
        .unwrap();
    let catalog = Arc::new(load(&CatalogSource::demo()).unwrap());
    let (mut app, effects) = App::new(Setup {
        sources: "demo".into(),
        ..Setup::new(catalog, Searcher::remote(Client::new(config).unwrap()))
    })
    .unwrap();
    app.update(Msg::Resize(width, height));
    (app, effects)
}

/// Runs `effects` with the embedded searcher, as if the service answered.
fn answer_embedded(app: &mut App, effects: Vec<Effect>) {
    answer_with(&Searcher::embedded(), app, effects);
}

#[test]
fn remote_header_at_80x24() {
    let (mut app, effects) = remote_app(80, 24);
    answer_embedded(&mut app, effects);
    let effects = app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('/'),
        KeyModifiers::NONE,
    )));
    answer_embedded(&mut app, effects);
    let effects = app.update(Msg::Type("schedule a meeting".into()));
    answer_embedded(&mut app, effects);
    let s = screen(&app);
    let header = s.lines().next().unwrap();
    assert!(
        header.contains("remote 127.0.0.1:8787 · 0.2 ms"),
        "{header}"
    );
    assert!(header.contains("? F1 help"), "{header}");
    assert!(s.contains("quit"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn remote_error_with_the_retry_key() {
    use toolsift::client::{RemoteError, RemoteFailure};
    use toolsift::search::SearchError;
    use toolsift::tui::effect::SearchAnswer;
    let (mut app, effects) = remote_app(80, 24);
    answer_embedded(&mut app, effects);
    keys(&mut app, &[KeyCode::Tab]);
    assert_eq!(app.focus(), toolsift::tui::app::Focus::Results);
    // `r` in the results pane re-sends the last search; the service is down.
    let effects = app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('r'),
        KeyModifiers::NONE,
    )));
    let [
        Effect::Search {
            generation,
            catalog,
            request,
            interim: false,
        },
    ] = effects.as_slice()
    else {
        panic!("retry sends one search: {effects:?}");
    };
    let error = SearchError::Remote(RemoteError {
        service: "http://127.0.0.1:8787".into(),
        failure: RemoteFailure::Unreachable("Connection refused (os error 111)".into()),
    });
    app.update(Msg::SearchDone(SearchAnswer {
        generation: *generation,
        interim: false,
        catalog: catalog.clone(),
        query: request.query.clone(),
        preview: request.preview,
        result: Box::new(Err(error)),
        elapsed: LATENCY,
        query_cached: false,
        standing: None,
    }));
    let s = screen(&app);
    assert!(s.contains("search failed: cave_unreachable"), "{s}");
    assert!(s.contains("cannot reach the tool-search service"), "{s}");
    assert!(s.contains("r Ctrl-R retries the search"), "{s}");
    insta::assert_snapshot!(s);
    // The retry key sends it again; a newer answer replaces the error.
    let effects = app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('r'),
        KeyModifiers::NONE,
    )));
    assert_eq!(effects.len(), 1);
    answer_embedded(&mut app, effects);
    assert!(!screen(&app).contains("search failed"));
}

fn tune_screen(width: u16, height: u16) -> App {
    let mut app = app_with(width, height, |s| s.queries = Some("@demo".into()));
    keys(&mut app, &[KeyCode::Char('t')]);
    assert!(app.tune().report().is_some());
    app
}

#[test]
fn tune_at_80x24() {
    let app = tune_screen(80, 24);
    let s = screen(&app);
    // The marks, their figures, and the ways out stay visible.
    assert!(s.contains("█ now") && s.contains("• recommended"), "{s}");
    assert!(s.contains("back"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn tune_at_200x60_with_the_table() {
    let app = tune_screen(200, 60);
    let s = screen(&app);
    assert!(s.contains("cap  loaded  lenient"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn tune_after_applying_the_recommendation() {
    let mut app = tune_screen(120, 35);
    keys(&mut app, &[KeyCode::Char('a')]);
    let s = screen(&app);
    assert!(s.contains("applied: max_loaded_tools"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn tune_prompt_for_a_request_file() {
    let mut app = app(80, 24);
    keys(&mut app, &[KeyCode::Char('t')]);
    type_text(&mut app, "evals/requests.jsonl");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn export_popup_at_80x24() {
    let mut app = app(80, 24);
    keys(&mut app, &[KeyCode::Char('x'), KeyCode::Down]);
    let s = screen(&app);
    assert!(s.contains("openai-chat"), "{s}");
    insta::assert_snapshot!(s);
}

/// A tool the search did not load, its detail saying why; the results
/// pane showing what just missed the cap.
fn why_not_found(width: u16, height: u16) -> App {
    let mut app = app(width, height);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "refund a payment");
    // Esc, not Enter: a committed query opens a session (a random id).
    keys(&mut app, &[KeyCode::Esc, KeyCode::Char('&')]);
    type_text(&mut app, "billing");
    keys(&mut app, &[KeyCode::Enter]);
    if width < 100 {
        keys(&mut app, &[KeyCode::Enter]);
    }
    app
}

#[test]
fn why_not_found_at_80x24_120x35_and_200x60() {
    // What each size must show, beside its snapshot.
    let sizes: [(u16, u16, &[&str]); 3] = [
        (80, 24, &["not loaded: ranked", "below the cap of 8"]),
        (
            120,
            35,
            &["below the cap of 8, next", "get_billing_account"],
        ),
        (
            200,
            60,
            &[
                "standing: not loaded: ranked",
                "matched: payment",
                "not matched: refund",
            ],
        ),
    ];
    for (w, h, shown) in sizes {
        let s = screen(&why_not_found(w, h));
        for text in shown {
            assert!(s.contains(text), "{w}x{h}: {text:?} missing\n{s}");
        }
        insta::assert_snapshot!(format!("why_not_found_at_{w}x{h}"), s);
    }
}

/// A request no demo tool fits: the results pane says so and names the
/// nearest tools the relevance gate held back; a held-back tool's detail
/// says why it was not loaded.
fn no_tool_fits(width: u16, height: u16) -> App {
    let mut app = app(width, height);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "show the weather in Paris");
    keys(&mut app, &[KeyCode::Esc, KeyCode::Char('&')]);
    type_text(&mut app, "send_email");
    keys(&mut app, &[KeyCode::Enter]);
    if width < 100 {
        keys(&mut app, &[KeyCode::Enter]);
    }
    app
}

#[test]
fn no_tool_fits_at_80x24_and_200x60() {
    let sizes: [(u16, u16, &[&str]); 2] = [
        (80, 24, &["but no tool fits this request"]),
        (
            200,
            60,
            &[
                "no tool fits this request",
                "nearest, held back",
                "get_billing_account  fit 0.5/1.5",
                "send_email           fit 0.5/1.5",
                "standing: not loaded: ranked 6th, but no tool fits",
            ],
        ),
    ];
    for (w, h, shown) in sizes {
        let s = screen(&no_tool_fits(w, h));
        for text in shown {
            assert!(s.contains(text), "{w}x{h}: {text:?} missing\n{s}");
        }
        insta::assert_snapshot!(format!("no_tool_fits_at_{w}x{h}"), s);
    }
}

#[test]
fn tune_table_says_which_caps_it_cannot_show() {
    // At 120x35 the table holds fewer rows than the caps measured: a line
    // names the caps below it, and moving the cap moves the window.
    let mut app = tune_screen(120, 35);
    let s = screen(&app);
    if s.contains("cap  loaded  lenient") {
        let last = app
            .tune()
            .report()
            .unwrap()
            .points
            .last()
            .unwrap()
            .max_tools;
        let shown_last = s.contains(&format!(" {last:>4}  "));
        assert!(
            shown_last || s.contains(&format!("-{last} below")),
            "cap {last} is shown or named: {s}"
        );
        keys(&mut app, &[KeyCode::Char('+'); 40]);
        let s = screen(&app);
        assert!(s.contains(&format!(" {last:>4}  ")), "{s}");
    }
}
