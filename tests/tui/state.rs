//! The search's state and what went wrong, on screen in the real binary:
//! `toolsift --offline` opens the explorer, its header says search is
//! keyword-only and why, after the first message too; a followed gateway
//! that refuses the key says why on screen, not on a hidden stderr.

use crate::common;
use crate::tty::Tty;

#[test]
fn offline_with_no_command_opens_the_explorer_saying_search_is_keyword_only() {
    let mut tty = Tty::spawn_with(&["--offline"], &[]);
    tty.wait_for("toolsift demo");
    tty.wait_for("bm25 keyword-only");
    tty.send(b"\x1b");
    tty.send(b"/refund");
    tty.wait_for("> refund");
    let header = tty
        .contents()
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(header.contains("keyword-only"), "{header}");
    assert!(header.contains("model off"), "{header}");
    tty.send(b"\x03");
    assert!(tty.wait_exit().success());
}

#[test]
fn a_followed_service_refusing_the_key_says_why_on_screen() {
    let server = common::Server::start(&["--api-key-env", "E2E_KEY"], &[("E2E_KEY", "right")]);
    let mut tty = Tty::spawn_with(
        &[
            "explore",
            "--follow",
            &server.url,
            "--follow-key-env",
            "FOLLOW_KEY",
        ],
        &[("FOLLOW_KEY", "wrong")],
    );
    tty.wait_for("could not be read as the explorer started");
    tty.wait_for("401");
    let screen = tty.contents();
    assert!(!screen.contains("stderr says why"), "{screen}");
    tty.send(b"\x03");
    tty.wait_exit();
}
