//! The config file as `toolsift explore` reads it: a bad value is an error
//! naming the file, line and column, before the terminal is touched.

use crate::common;

use common::{TempFile, assert_usage_error, run};

#[test]
fn bad_values_name_file_line_and_column() {
    let cases = [
        (
            "[explorer]\nstrategy = \"lazy\"\n",
            ":2:12: strategy must be all or deferred",
        ),
        (
            "[explorer]\ninitial_tool_count = 4\ntoken_basis = \"gpt2\"\n",
            ":3:15: unknown token basis \"gpt2\"",
        ),
        ("[explorer]\nranker = \"dense\"\n", ":2:10: "),
        (
            "[explorer]\nstratgy = \"all\"\n",
            ":2:1: unknown field `stratgy`",
        ),
    ];
    for (text, needle) in cases {
        let file = TempFile::new(text);
        let out = run(&["explore", "--config", file.path()]);
        assert_usage_error(&out, &format!("{}{needle}", file.path()));
    }
}

#[test]
fn a_bad_file_value_is_reported_even_when_a_flag_overrides_it() {
    // The file is read whole, as the SDK would refuse a bad option.
    let file = TempFile::new("[explorer]\nstrategy = \"lazy\"\n");
    let out = run(&["explore", "--config", file.path(), "--strategy", "all"]);
    assert_usage_error(&out, ":2:12: strategy must be all or deferred");
}
