//! The real binary lends its terminal to `$PAGER` (`e`) and takes it back,
//! and copies through the terminal (`y`, OSC 52).

use std::time::{Duration, Instant};

use base64::Engine as _;

use crate::tty::Tty;

/// A directory of the test's own, removed at the end.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("toolsift-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// An executable shell script.
    fn script(&self, name: &str, body: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let path = self.0.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn wait_file(path: &std::path::Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the pager never saw a file");
}

#[test]
fn e_lends_the_terminal_to_the_pager_and_y_copies_the_same_json() {
    let scratch = Scratch::new("pager");
    let seen = scratch.0.join("seen.json");
    // The pager copies the file it was given, writes to the terminal, and
    // exits: the explorer must draw everything again after it.
    let pager = scratch.script(
        "pager",
        &format!(
            "cp \"$1\" '{}'\necho PAGER WAS HERE\nsleep 0.3",
            seen.display()
        ),
    );
    let mut tty = Tty::spawn_with(
        &["explore", "@demo", "--strategy", "deferred"],
        &[("PAGER", &pager), ("EDITOR", "false")],
    );
    tty.wait_for("Results 4 of 64");
    // The catalog pane has the keyboard, its first tool highlighted.
    tty.send(b"e");
    let text = wait_file(&seen);
    let json: serde_json::Value = serde_json::from_str(&text).expect("the pager got JSON");
    assert_eq!(json["type"], "function");
    let demo = toolsift::catalog::load(&toolsift::catalog::CatalogSource::demo()).unwrap();
    let first = &demo.tools()[0];
    assert_eq!(json["name"], first.name.as_str());
    assert!(json["parameters"].is_object(), "{json}");
    tty.wait_for("PAGER WAS HERE");
    // Back: the whole screen again, and the word of what happened.
    tty.wait_gone("PAGER WAS HERE");
    tty.wait_for("Catalog 1/64");
    tty.wait_for("back from");
    let raw_at_return = tty.raw.lock().unwrap().clone();
    let raw = String::from_utf8_lossy(&raw_at_return);
    let here = raw.find("PAGER WAS HERE").unwrap();
    assert!(
        raw[..here].rfind("\x1b[?1049l") > raw[..here].rfind("\x1b[?1049h"),
        "the alternate screen was left before the pager ran"
    );
    assert!(
        raw[here..].contains("\x1b[?1049h") && raw[here..].contains("\x1b[?1000h"),
        "the alternate screen and mouse reports came back"
    );
    // The keys reach the explorer again.
    tty.send(b"/");
    for c in "refund a payment".bytes() {
        tty.send(&[c]);
    }
    tty.wait_for("1 refund_payment");
    tty.send(b"\x1b");
    // `y` on the same tool: the same JSON, as OSC 52.
    tty.send(b"g");
    tty.send(b"y");
    tty.wait_for(&format!(
        "sent {} (openai-responses JSON) to the terminal as OSC 52",
        first.name
    ));
    let sequence = format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(&text)
    );
    let raw = tty.raw.lock().unwrap().clone();
    assert!(
        String::from_utf8_lossy(&raw).contains(&sequence),
        "the OSC 52 sequence of the tool's JSON was written"
    );
    tty.send(b"q");
    let status = tty.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    let raw = tty.raw.lock().unwrap().clone();
    let text = String::from_utf8_lossy(&raw);
    assert!(text.rfind("\x1b[?1049l") > text.rfind("\x1b[?1049h"));
}

#[test]
fn a_pager_that_fails_is_a_message_and_the_explorer_goes_on() {
    let scratch = Scratch::new("failing-pager");
    let pager = scratch.script("pager", "exit 3");
    let mut tty = Tty::spawn_with(
        &["explore", "@demo", "--initial-tool-count", "8"],
        &[("PAGER", &pager)],
    );
    tty.wait_for("Results 4 of 64");
    tty.send(b"e");
    tty.wait_for("ended with exit status: 3");
    tty.send(b"j");
    tty.send(b"/");
    for c in "refund a payment".bytes() {
        tty.send(&[c]);
    }
    tty.wait_for("1 refund_payment");
    tty.send(b"\x1b");
    tty.send(b"q");
    let status = tty.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn inside_tmux_y_puts_the_json_in_tmuxs_paste_buffer_too() {
    // A stand-in tmux on PATH: `load-buffer -w -` saves what it is given.
    let scratch = Scratch::new("tmux-buffer");
    let got = scratch.0.join("buffer.json");
    scratch.script(
        "tmux",
        &format!(
            "[ \"$1 $2 $3\" = \"load-buffer -w -\" ] || exit 3\ncat > {}",
            got.display()
        ),
    );
    let path = format!(
        "{}:{}",
        scratch.0.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut tty = Tty::spawn_with(
        &["explore", "@demo", "--strategy", "deferred"],
        &[("TMUX", "/tmp/tmux-0/default,1,0"), ("PATH", &path)],
    );
    tty.wait_for("Results 4 of 64");
    tty.send(b"y");
    tty.wait_for("to tmux's paste buffer");
    let text = wait_file(&got);
    let json: serde_json::Value = serde_json::from_str(&text).expect("tmux got the JSON");
    let demo = toolsift::catalog::load(&toolsift::catalog::CatalogSource::demo()).unwrap();
    assert_eq!(json["name"], demo.tools()[0].name.as_str());
    tty.send(b"q");
    assert!(tty.wait_exit().success());
}
