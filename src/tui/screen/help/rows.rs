//! Help's rows, generated from the live keymap: the MCP servers the
//! catalog came from, every context's actions with their keys, then the
//! notes (drawing lays them out; `update` uses their length to scroll).

use crate::sources::mcp::{ServerState, ServerStatus};
use crate::terminal_text::escape;
use crate::tui::action::{Action, Context};
use crate::tui::keymap::Keymap;

/// One row of the help screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelpRow {
    Heading(&'static str),
    Binding {
        keys: String,
        what: &'static str,
    },
    Note(&'static str),
    /// An MCP server's summary (escaped), and whether it failed.
    Server {
        summary: String,
        failed: bool,
    },
    Blank,
}

/// What the keymap does not say.
const NOTES: &[&str] = &[
    "Keys bound to no input_ action type text in a text box.",
    "Marks: ★ always-load, RO (or R) read-only, ID (or I) idempotent, ● initial set, ◆ selected by the search, ! a warning of toolsift check (the detail says what), ◌ hard to find from its own words (toolsift check --findability; the detail says why).",
    "Numbers shorten as numbers on narrow terminals (10.4k, 1.48M); the detail shows them whole.",
    "The header says how search ranks: the ranker and its model, or bm25 keyword-only and why (offline, model off). A search model not built in is fetched once: retry_search fetches it again when the fetch failed or stalled; `toolsift model fetch` fetches it outside the explorer, --embeddings-local DIR ranks with a model folder you have, --offline never fetches.",
];

/// Help: the MCP servers the catalog came from (if any), every context's
/// actions with their keys, then the notes.
///
/// `catalog_servers`: the catalog's tools name servers (sorting and
/// filtering by server are offered); with no live MCP server, the question
/// before a real call is left out.
pub fn help_rows(keymap: &Keymap, servers: &[ServerStatus], catalog_servers: bool) -> Vec<HelpRow> {
    let mut rows = Vec::new();
    if !servers.is_empty() {
        rows.push(HelpRow::Heading("MCP servers"));
        for s in servers {
            let failed = matches!(s.state, ServerState::Failed { .. });
            // In rows that fit the help popup, a server's stderr lines too.
            // Then the warnings about its tools (hidden text), escaped.
            let warnings = s.warnings().into_iter().map(|w| format!("  warning: {w}"));
            let failed = failed || !s.warnings().is_empty();
            // Whole lines: the popup wraps them at words to its width.
            for line in s.summary().lines().map(String::from).chain(warnings) {
                rows.push(HelpRow::Server {
                    summary: escape(&line).into_owned(),
                    failed,
                });
            }
        }
        rows.push(HelpRow::Blank);
    }
    for &context in Context::ALL {
        if context.only_with_mcp_servers() && servers.is_empty() {
            continue;
        }
        rows.push(HelpRow::Heading(context.title()));
        for action in Action::of(context) {
            let what = action.describe();
            rows.push(HelpRow::Binding {
                keys: keymap.label(action),
                what: match what.strip_suffix(", server") {
                    Some(without) if !catalog_servers => without,
                    _ => what,
                },
            });
        }
        rows.push(HelpRow::Blank);
        if context == Context::Main {
            command_rows(&mut rows);
        }
    }
    rows.extend(NOTES.iter().map(|n| HelpRow::Note(n)));
    rows
}

/// The command line's section: what it takes beyond the actions' names.
fn command_rows(rows: &mut Vec<HelpRow>) {
    rows.push(HelpRow::Heading(
        "Command line: any action above by its name (:tune), or these; Tab completes, ↑ ↓ recall, Esc leaves",
    ));
    for (name, arg, what) in crate::tui::cmdline::parse::SETTINGS {
        let keys = if arg.is_empty() {
            format!(":{name}")
        } else {
            format!(":{name} {arg}")
        };
        rows.push(HelpRow::Binding { keys, what });
    }
    rows.push(HelpRow::Blank);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_warnings_follow_its_summary_escaped() {
        let servers = [crate::sources::mcp::fixtures::hiding(
            "sneaky",
            2,
            vec!["tool \"a\u{200b}\": hidden text in name: 1 zero-width".into()],
        )];
        let rows = help_rows(&Keymap::defaults(), &servers, true);
        assert_eq!(
            rows[1..3],
            [
                HelpRow::Server {
                    summary: "sneaky: 2 tools; 1 warning of hidden text".into(),
                    failed: true,
                },
                HelpRow::Server {
                    summary: "  warning: tool \"a\\u{200b}\": hidden text in name: 1 zero-width"
                        .into(),
                    failed: true,
                },
            ]
        );
    }
}
