//! The real binary in a real pseudo-terminal: start, search, help, quit, and
//! the terminal left as it was found.

use crate::common;

use std::time::Duration;

use crate::tty::Tty;

#[test]
fn search_help_and_quit_in_a_real_terminal() {
    let mut tty = Tty::spawn(&[]);
    tty.wait_for("64 tools · 4 always-load · deferred · bm25 keyword-only");
    tty.wait_for("Results 4 of 64");
    tty.send(b"/");
    for c in "refund a payment".bytes() {
        tty.send(&[c]);
    }
    tty.wait_for("1 refund_payment");
    // Leave the query box, open and close help. Each key waits for the
    // screen to show the one before it: Esc and a key that arrive together
    // read as Alt and the key.
    tty.send(b"\x1b");
    tty.wait_for("╭ Query");
    tty.send(b"?");
    tty.wait_for("Help: keys from your keymap");
    tty.send(b"\x1b");
    tty.wait_gone("Help: keys from your keymap");
    // Settings: an invalid cap shows the SDK's message.
    tty.send(b"s");
    tty.send(b"\x1b[B");
    tty.send(b"\x1b[B");
    tty.send(b"\x1b[C");
    tty.wait_for("max_loaded_tools must be at least the always_load tool count");
    tty.send(b"\x1b");
    tty.wait_gone(" Settings ");
    // The breaker: four identical calls at threshold 3, the fourth blocked.
    tty.send(b"b");
    tty.wait_for("Breaker simulator · threshold 3");
    for _ in 0..4 {
        tty.send(b"\r");
    }
    tty.wait_for("BLOCKED 4/3");
    tty.wait_for("streak 4 > 3: BLOCKED");
    tty.send(b"\x1b");
    tty.wait_gone("Breaker simulator");
    tty.send(b"q");
    let status = tty.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    let raw = tty.raw.lock().unwrap().clone();
    let text = String::from_utf8_lossy(&raw);
    let entered = text
        .find("\x1b[?1049h")
        .expect("entered the alternate screen");
    let left = text
        .rfind("\x1b[?1049l")
        .expect("left the alternate screen");
    assert!(left > entered);
    assert!(
        text[left..].contains("\x1b[?25h")
            || text[..left].rfind("\x1b[?25h") > text[..left].rfind("\x1b[?25l"),
        "cursor shown again"
    );
}

#[test]
fn a_remote_service_that_goes_away_and_comes_back() {
    let server = common::Server::start(&[], &[]);
    let url = server.url.clone();
    let addr = server.addr().to_string();
    let mut tty = Tty::spawn(&["explore", "--service", &url]);
    // The header names the service and the last search's latency.
    tty.wait_for(&format!("remote {addr} · "));
    tty.wait_for(" ms ");
    tty.wait_for("Results 4 of 64");
    tty.send(b"/");
    for c in "refund".bytes() {
        tty.send(&[c]);
    }
    tty.wait_for("1 refund_payment");
    // The service stops: typing goes on, and the error says how to retry.
    let mut server = server;
    let _ = server.child.kill();
    let _ = server.child.wait();
    for c in " a payment".bytes() {
        tty.send(&[c]);
    }
    tty.wait_for("search failed: cave_unreachable");
    tty.wait_for("cannot reach the");
    tty.wait_for("Ctrl-R retries the search");
    tty.wait_for("> refund a payment");
    // A new service on the same port: the retry key brings the results back.
    let again = common::Server::start_at(&addr, &[], &[]);
    assert_eq!(again.url, url);
    tty.send(b"\x12");
    tty.wait_gone("search failed");
    tty.wait_for("1 refund_payment");
    tty.send(b"\x1b");
    tty.send(b"q");
    let status = tty.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn ctrl_c_quits_from_the_query_box() {
    let mut tty = Tty::spawn(&["explore", "@github-mcp", "--strategy", "all"]);
    tty.wait_for("117 tools");
    tty.send(b"/");
    tty.send(b"q");
    tty.wait_for("> q");
    tty.send(b"\x03");
    assert!(tty.wait_exit().success());
}

#[test]
fn bad_catalog_fails_before_the_terminal_is_touched() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .args(["explore", "/no/such/catalog.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "nothing drawn");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("/no/such/catalog.json: cannot read"),
        "{stderr}"
    );
    // The same through the pty: the message, and no alternate screen.
    let mut tty = Tty::spawn(&["explore", "/no/such/catalog.json"]);
    tty.wait_for("cannot read");
    assert_eq!(tty.wait_exit().exit_code(), 2);
    assert!(!String::from_utf8_lossy(&tty.raw.lock().unwrap()).contains("\x1b[?1049h"));
}

#[test]
fn not_a_terminal_is_a_clear_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("needs a terminal"), "{stderr}");
}

#[test]
fn bad_flags_and_config_fail_with_the_message() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
            .args(args)
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .output()
            .unwrap()
    };
    let out = run(&["explore", "--max-loaded-tools", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("max_loaded_tools must be at least the always_load tool count")
    );
    let out = run(&["explore", "--config", "/no/such.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such.toml: cannot read"));
    let dir = std::env::temp_dir().join(format!("toolsift-badcfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("c.toml");
    std::fs::write(&cfg, "[keys]\nquit = [\"hyper-q\"]\n").unwrap();
    let out = run(&["explore", "--config", cfg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown key \"hyper-q\""));
    // The Tune screen's requests are read before the terminal is touched:
    // a missing file, or one naming a tool the catalog lacks.
    let out = run(&["explore", "--queries", "/no/such/requests.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/requests.jsonl"));
    let q = dir.join("q.jsonl");
    std::fs::write(
        &q,
        "{\"id\":\"x\",\"query\":\"hi\",\"expected\":[\"no_such_tool\"]}\n",
    )
    .unwrap();
    let out = run(&["explore", "--queries", q.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no_such_tool"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_catalogs_defining_one_name_is_an_error_naming_both() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogs");
    let a = fixtures.join("caveman.json");
    let b = fixtures.join("native.toml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .args(["explore", a.to_str().unwrap(), b.to_str().unwrap()])
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("duplicate tool name \"lookup_status\""),
        "{stderr}"
    );
    assert!(
        stderr.contains("caveman.json: tool #1") && stderr.contains("native.toml: tool #1"),
        "{stderr}"
    );
}

#[test]
fn a_service_refusing_the_key_shows_its_message_and_the_retry() {
    let server = common::Server::start(&["--api-key-env", "E2E_KEY"], &[("E2E_KEY", "right")]);
    let mut tty = Tty::spawn_with(
        &[
            "explore",
            "--service",
            &server.url,
            "--context-budget",
            "100",
        ],
        &[("CAVE_API_KEY", "wrong")],
    );
    tty.wait_for("search failed");
    tty.wait_for("401");
    tty.wait_for("retries the search");
    // The full catalog does not fit a budget of 100 tokens: said, with why.
    tty.wait_for("full catalog not offered");
    tty.send(b"q");
    let status = tty.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn the_demo_plays_its_tour_to_the_end_and_exits_0() {
    let mut tty = Tty::spawn(&["demo", "--speed", "8"]);
    // Each part of the tour shows, in order (the screen is read as it
    // plays; the captions stay long enough at this speed).
    for step in [
        "toolsift: what a tool catalog costs",
        "Strategy all sends every tool",
        "initial only",
        "> refund the duplicate charge",
        "> who is on call for payments",
        "Tune · requests from @demo",
        "applied: max_loaded_tools",
        "BLOCKED",
        "That's toolsift.",
    ] {
        tty.wait_for(step);
        if step.starts_with("Strategy all") {
            // The Tokens box never claims a saving while that caption
            // shows (it says the turn sends all, once the first search is
            // in), and no popup covers it.
            let screen = tty.contents();
            assert!(
                screen.contains("this turn sends all")
                    || screen.contains("waiting for the first search"),
                "{screen}"
            );
            assert!(!screen.contains("95.6"), "{screen}");
            assert!(!screen.contains("Settings"), "{screen}");
        }
    }
    let status = tty.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    let raw = tty.raw.lock().unwrap().clone();
    let text = String::from_utf8_lossy(&raw);
    // The terminal is given back: mouse reports off, main screen back.
    let left = text
        .rfind("\x1b[?1049l")
        .expect("left the alternate screen");
    assert!(text.contains("\x1b[?1000l") || text[..left].contains("\x1b[?1000l"));
}

#[test]
fn the_viewer_steps_pauses_and_quits_a_demo() {
    let dir = std::env::temp_dir().join(format!("toolsift-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("tour.toml");
    std::fs::write(
        &script,
        "[[step]]\ncaption = \"first caption\"\npause = 60\n\n[[step]]\ncaption = \"second caption\"\npause = 60\n",
    )
    .unwrap();
    let mut tty = Tty::spawn(&["demo", "--script", script.to_str().unwrap()]);
    tty.wait_for("first caption");
    tty.wait_for("Space pause");
    // → ends the pause at once.
    tty.send(b"\x1b[C");
    tty.wait_for("second caption");
    tty.send(b" ");
    tty.wait_for("paused · Space resumes");
    tty.send(b"q");
    let status = tty.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_demo_script_fails_before_the_terminal_is_touched() {
    let dir = std::env::temp_dir().join(format!("toolsift-demo-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("bad.toml");
    std::fs::write(
        &script,
        "[[step]]\ncaption = \"ok\"\n\n[[step]]\naction = \"jump\"\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .args(["demo", "--script", script.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.toml:4: step 2: unknown action \"jump\""),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "the terminal was touched");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_click_selects_a_row_in_a_real_terminal() {
    let mut tty = Tty::spawn(&[]);
    tty.wait_for("Results 4 of 64");
    // SGR mouse: left press and release on the catalog pane's third row
    // (columns and rows are 1-based; the pane starts under the query box).
    tty.send(b"\x1b[<0;10;8M");
    tty.send(b"\x1b[<0;10;8m");
    // The detail pane follows the selected tool: the catalog's third tool.
    tty.wait_for("search_tickets");
    tty.send(b"q");
    let status = tty.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn typing_with_hybrid_in_a_real_terminal_ends_on_the_fused_answer() {
    let model = common::minilm_dir();
    let cache = tempfile::tempdir().unwrap();
    let catalog = common::fixture("paraphrase.json");
    let mut tty = Tty::spawn_with(
        &[
            "explore",
            catalog.to_str().unwrap(),
            "--ranker",
            "hybrid",
            "--embeddings-local",
            model.to_str().unwrap(),
        ],
        &[("XDG_CACHE_HOME", cache.path().to_str().unwrap())],
    );
    // The catalog's vectors are computed in the background, then the
    // header says plain "hybrid" and the model.
    tty.wait_for("hybrid · all-MiniLM-L6-v2 · no session");
    tty.send(b"/");
    for c in "what hour is it in Tokyo".bytes() {
        tty.send(&[c]);
    }
    // BM25F finds nothing for this paraphrase; the fused answer does, and
    // replaces BM25F's interim one and its note.
    tty.wait_for("1 get_current_time");
    tty.wait_gone("searching");
    tty.wait_gone("while the query is embedded");
    tty.send(b"\x03");
    assert!(tty.wait_exit().success());
}

#[test]
fn the_detail_scrolls_to_its_end_and_back_in_a_real_terminal() {
    let mut tty = Tty::spawn(&[]);
    tty.wait_for("Results 4 of 64");
    // The detail pane of the first tool, focused (its border thick).
    tty.send(b"\r");
    tty.wait_for("┃Open a new support ticket");
    // The detail settled: the findability audit (off the UI thread, late
    // on a loaded machine) adds its lines.
    tty.wait_for("findability");
    // End: the schema's closing brace on the pane's last rows, never a
    // blank pane; more presses stay there.
    tty.send(b"G");
    tty.wait_for("┃}");
    for _ in 0..30 {
        tty.send(b"j");
    }
    tty.send(&[0x1b, b'[', b'6', b'~']);
    std::thread::sleep(Duration::from_millis(200));
    assert!(tty.contents().contains("┃}"), "{}", tty.contents());
    assert!(!tty.contents().contains("┃Open a new support ticket"));
    // One k shows the line above at once; g goes back to the top.
    tty.send(b"k");
    tty.wait_gone("┃}");
    tty.send(b"g");
    tty.wait_for("┃Open a new support ticket");
    tty.send(b"q");
    tty.send(b"q");
    let status = tty.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn with_the_model_built_in_the_explorer_ranks_with_hybrid_and_keeps_a_ranker_named() {
    let home = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let catalog = common::fixture("paraphrase.json");
    let mut tty = Tty::spawn_with(
        &["explore", catalog.to_str().unwrap()],
        &[
            ("HF_HOME", home.path().to_str().unwrap()),
            ("XDG_CACHE_HOME", cache.path().to_str().unwrap()),
            ("TOOLSIFT_MODEL", "on"),
        ],
    );
    // No ranker named: the header says which one answers, and its model.
    tty.wait_for("hybrid · built-in model · no session");
    tty.send(b"/");
    for c in "what hour is it in Tokyo".bytes() {
        tty.send(&[c]);
    }
    tty.wait_for("1 get_current_time");
    tty.send(b"\x03");
    assert!(tty.wait_exit().success());
    // A ranker named is kept.
    let mut tty = Tty::spawn_with(
        &["explore", catalog.to_str().unwrap(), "--ranker", "bm25"],
        &[
            ("HF_HOME", home.path().to_str().unwrap()),
            ("XDG_CACHE_HOME", cache.path().to_str().unwrap()),
            ("TOOLSIFT_MODEL", "on"),
        ],
    );
    tty.wait_for("bm25 · no session");
    tty.send(b"\x03");
    assert!(tty.wait_exit().success());
}

#[test]
fn config_may_name_a_file_that_tune_creates() {
    let dir = std::env::temp_dir().join(format!("toolsift-newconf-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("toolsift.toml");
    let mut tty = Tty::spawn(&["explore", "--config", path.to_str().unwrap()]);
    tty.wait_for("Results 4 of 64");
    tty.send(b"t");
    tty.wait_for("Tune ·");
    tty.wait_for("█ now");
    tty.send(b"s");
    tty.wait_for("saved the settings to");
    let text = std::fs::read_to_string(&path).expect("Tune's save created the file");
    assert!(text.contains("[explorer]"), "{text}");
    tty.send(b"q");
    tty.send(b"q");
    assert!(tty.wait_exit().success());
    // A directory that does not exist is still an error, naming the file.
    let missing = dir.join("no/such/dir/toolsift.toml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .args(["explore", "--config", missing.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    let _ = std::fs::remove_dir_all(&dir);
}
