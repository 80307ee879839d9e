//! The explorer's first run, as shipped: the search model is built in, so
//! it ranks with hybrid from the first key, with no fetch, no network and
//! no error, whatever the hub cache holds. The real binary in a pty.

use crate::tty::Tty;

#[test]
fn the_explorer_ranks_with_the_built_in_model_from_the_first_key_offline() {
    let hf_home = tempfile::tempdir().unwrap();
    let home = hf_home.path().to_str().unwrap().to_string();
    let mut tty = Tty::spawn_with(
        &["explore", "@demo"],
        &[
            ("HF_HOME", home.as_str()),
            // A hub that cannot be reached, and fetching allowed: nothing
            // is asked of it.
            ("HF_ENDPOINT", "http://127.0.0.1:9"),
            ("TOOLSIFT_OFFLINE", "0"),
            ("TOOLSIFT_MODEL", "on"),
        ],
    );
    tty.wait_for("toolsift demo");
    tty.wait_for("hybrid");
    tty.send(b"/");
    for c in "give the customer their money back".bytes() {
        tty.send(&[c]);
    }
    tty.wait_for("> give the customer their money back");
    tty.wait_for("refund");
    let screen = tty.contents();
    assert!(!screen.contains("fetching"), "{screen}");
    assert!(!screen.contains("no search model"), "{screen}");
    assert!(
        std::fs::read_dir(hf_home.path()).unwrap().next().is_none(),
        "nothing was written to the hub cache"
    );
    tty.send(b"\x03");
    assert!(tty.wait_exit().success());
}

/// The explorer ranks as `search` and the gateway do (tests/external's
/// shipped_model.rs holds those equal): the time in a city finds the
/// current time first, over the time server's own catalog.
#[test]
fn the_explorer_finds_the_current_time_first_as_the_other_front_ends_do() {
    let catalog = concat!(env!("CARGO_MANIFEST_DIR"), "/eval/mcp-short/catalog.json");
    let mut tty = Tty::spawn_with(&["explore", catalog], &[("TOOLSIFT_MODEL", "on")]);
    tty.wait_for("hybrid");
    tty.send(b"/");
    for c in "what time is it in Tokyo".bytes() {
        tty.send(&[c]);
    }
    tty.wait_for("> what time is it in Tokyo");
    tty.wait_for("1 get_current_time");
    tty.wait_for("2 convert_time");
    tty.send(b"\x03");
    assert!(tty.wait_exit().success());
}
