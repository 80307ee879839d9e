//! The config file as `toolsift explore` reads it: a bad value is an error
//! naming the file, line and column and what was found, before the
//! terminal is touched.

use crate::common;

use common::{TempFile, assert_usage_error, run};

#[test]
fn bad_values_name_file_line_and_column() {
    let cases = [
        (
            "[explorer]\nstrategy = \"lazy\"\n",
            ":2:12: strategy must be all or deferred, not \"lazy\"",
        ),
        (
            "[explorer]\ninitial_tool_count = 4\ntoken_basis = \"gpt2\"\n",
            ":3:15: token_basis must be o200k_base, cl100k_base, estimated_bytes_div_4, openai, openai:MODEL, anthropic or anthropic:MODEL (:any after an Anthropic basis for tool_choice any or tool), not \"gpt2\"",
        ),
        (
            "[explorer]\nranker = \"dense\"\n",
            ":2:10: ranker must be bm25, embeddings or hybrid, not \"dense\"",
        ),
        (
            "[explorer]\nstratgy = \"all\"\n",
            ":2:1: unknown field `stratgy`",
        ),
        (
            "[gateway.tools]\n\"git/*\" = \"maybe\"\n",
            ":2:11: a tool rule must be read, allow, ask or deny, not \"maybe\"",
        ),
        // The SDK's rules for the integers, with the value found.
        (
            "[explorer]\ninitial_tool_count = -1\n",
            ":2:22: initial_tool_count must be a non-negative integer, not -1",
        ),
        (
            "[explorer]\nmax_loaded_tools = 0\n",
            ":2:20: max_loaded_tools must be a positive integer, not 0",
        ),
        (
            "[explorer]\nmax_tools = \"five\"\n",
            ":2:13: max_tools must be a positive integer, not \"five\"",
        ),
        (
            "[explorer]\ncontext_budget = -5\n",
            ":2:18: context_budget must be a non-negative integer, not -5",
        ),
        (
            "[gateway]\nshutdown_grace_secs = -1\n",
            ":2:23: shutdown_grace_secs must be a non-negative integer, not -1",
        ),
        (
            "[embeddings]\ntimeout_ms = \"soon\"\n",
            ":2:14: timeout_ms must be a non-negative integer, not \"soon\"",
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
    assert_usage_error(
        &out,
        ":2:12: strategy must be all or deferred, not \"lazy\"",
    );
}

#[test]
fn the_gateway_reads_the_learn_file_its_config_names_beside_it() {
    // A relative path is the config file's directory's: a bad pair there
    // is named with the key that named the file, its line and what was
    // wrong, and skipped (a torn line must not stop the gateway).
    let pairs = TempFile::new("{\"query\": \"what changed\", \"tool\": \"git_diff\"}\nnot json\n");
    let name = pairs.0.file_name().unwrap().to_str().unwrap().to_string();
    let config = TempFile::new(&format!("[gateway]\nlearn = \"{name}\"\n"));
    let catalog = concat!(env!("CARGO_MANIFEST_DIR"), "/eval/mcp-short/catalog.json");
    let out = run(&["gateway", "--config", config.path(), catalog]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "warning: {}: [gateway] learn {}: line 2: skipped: not a pair",
            config.path(),
            pairs.path()
        )),
        "{err}"
    );
    // A value that is not a path names the file, line and column.
    let config = TempFile::new("[gateway]\nlearn = 5\n");
    let out = run(&["gateway", "--config", config.path(), catalog]);
    assert_usage_error(
        &out,
        &format!("{}:2:9: invalid type: integer `5`", config.path()),
    );
}
