//! The command line and the panes' numbers in the real binary: `:` opens
//! a prompt on the bottom line, Tab completes, Enter runs; a digit takes
//! the keyboard to a pane; a key that does nothing says so.

use crate::tty::Tty;

#[test]
fn colon_and_a_digit_in_a_real_terminal() {
    let mut tty = Tty::spawn_with(&[], &[]);
    tty.wait_for("Results 4 of 64");
    tty.wait_for("[1] Catalog");
    // A key bound to nothing says so, naming help's key and the command
    // line's.
    tty.send(b"Z");
    tty.wait_for("Z does nothing here");
    // `:` opens the prompt; Tab completes a setting's name and its value.
    tty.send(b":");
    tty.send(b"so");
    tty.wait_for(":so");
    tty.send(b"\t");
    tty.wait_for(":sort ");
    tty.send(b"tok\t");
    tty.wait_for(":sort tokens");
    tty.send(b" reverse\r");
    tty.wait_for("by tokens, reversed");
    // A bad value is named.
    tty.send(b":");
    for c in "cap many\r".bytes() {
        tty.send(&[c]);
    }
    tty.wait_for("not \"many\"");
    // 2 takes the keyboard to the results: j moves its highlight.
    tty.send(b"2");
    tty.send(b"j");
    tty.wait_for("Results 4 of 64 · ");
    tty.wait_for(" 2/4 ");
    // :q quits.
    tty.send(b":");
    tty.send(b"q\r");
    assert!(tty.wait_exit().success());
}
