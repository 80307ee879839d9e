//! `--offline` before the command: the explorer's when none is given (a
//! pty test in tests/tui), else the command's own flag; a command that
//! fetches no model says which do.

use crate::common::{assert_usage_error, run};

#[test]
fn offline_before_a_command_is_that_commands_flag() {
    let out = run(&["--offline", "search", "@demo", "refund a payment", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v = crate::common::json(&out);
    let names = crate::common::names(&v["tools"]);
    assert!(names.iter().any(|n| n == "refund_payment"), "{v}");
}

#[test]
fn offline_before_a_command_that_fetches_nothing_says_which_do() {
    let out = run(&["--offline", "replay", "nothing.jsonl"]);
    assert_usage_error(&out, "--offline is for the explorer");
}
