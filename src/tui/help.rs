//! What help and the key lines say, as data generated from the live keymap
//! (drawing lays it out; `update` uses its length to scroll help).

use super::action::{Action, Context};
use super::keymap::Keymap;
use crate::sources::mcp::{ServerState, ServerStatus};
use crate::terminal_text::escape;

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

/// The widest row of a server's summary in help (the popup is 86 wide).
const SERVER_ROW_WIDTH: usize = 78;

/// What the keymap does not say.
const NOTES: &[&str] = &[
    "Keys bound to no input_ action type text in a text box.",
    "Marks: ★ always-load, RO read-only, ID idempotent, ● initial set,",
    "◆ selected by the search.",
];

/// Help: the MCP servers the catalog came from (if any), every context's
/// actions with their keys, then the notes.
pub fn help_rows(keymap: &Keymap, servers: &[ServerStatus]) -> Vec<HelpRow> {
    let mut rows = Vec::new();
    if !servers.is_empty() {
        rows.push(HelpRow::Heading("MCP servers"));
        for s in servers {
            let failed = matches!(s.state, ServerState::Failed { .. });
            // In rows that fit the help popup, a server's stderr lines too.
            // Then the warnings about its tools (hidden text), escaped.
            let warnings = s.warnings().iter().map(|w| format!("  warning: {w}"));
            let failed = failed || !s.warnings().is_empty();
            for line in s.summary().lines().map(String::from).chain(warnings) {
                let chars: Vec<char> = escape(&line).chars().collect();
                for chunk in chars.chunks(SERVER_ROW_WIDTH) {
                    rows.push(HelpRow::Server {
                        summary: chunk.iter().collect(),
                        failed,
                    });
                }
            }
        }
        rows.push(HelpRow::Blank);
    }
    for context in Context::ALL {
        rows.push(HelpRow::Heading(context.title()));
        for action in Action::of(context) {
            rows.push(HelpRow::Binding {
                keys: keymap.label(action),
                what: action.describe(),
            });
        }
        rows.push(HelpRow::Blank);
    }
    rows.extend(NOTES.iter().map(|n| HelpRow::Note(n)));
    rows
}

/// The screens with a key line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyLine {
    /// The panes.
    Main,
    /// The query box has the keyboard.
    Query,
    Settings,
    Breaker,
    /// A text box of the breaker.
    BreakerInput,
    /// The question before a real call.
    Confirm,
    Tune,
    /// The Tune screen's request-file prompt.
    TuneInput,
    /// The export popup.
    Export,
}

/// `(keys, what)` pairs of a key line, most useful first, from the live
/// keymap. Actions bound to no key are left out.
pub fn key_line(keymap: &Keymap, line: KeyLine) -> Vec<(String, &'static str)> {
    use Action::*;
    let groups: &[(&[Action], &'static str)] = match line {
        KeyLine::Main => &[
            (&[FocusQuery], "query"),
            (&[NextPane], "pane"),
            (&[OpenDetail], "detail"),
            (&[ToggleAlwaysLoad], "always-load"),
            (&[CycleSort], "sort"),
            (&[CycleFilter], "filter"),
            (&[Settings], "settings"),
            (&[Breaker], "breaker"),
            (&[Tune], "tune"),
            (&[Export], "export"),
            (&[Help], "help"),
            (&[Quit], "quit"),
        ],
        KeyLine::Query => &[
            (&[InputSubmit], "commit"),
            (&[InputCancel], "leave"),
            (&[InputHistoryPrev, InputHistoryNext], "history"),
            (&[InputClear], "clear"),
            (&[InputDeleteWord], "delete word"),
            (&[Help], "help"),
            (&[QuitNow], "quit"),
        ],
        KeyLine::Settings => &[
            (&[SettingsUp, SettingsDown], "choose"),
            (&[SettingsDecrease, SettingsIncrease], "change"),
            (&[SettingsClose], "close"),
        ],
        KeyLine::Breaker => &[
            (&[BreakerCall], "call"),
            (&[BreakerEdit], "edit args"),
            (&[BreakerLoop], "loop"),
            (&[BreakerThresholdUp, BreakerThresholdDown], "threshold"),
            (&[BreakerLoopLess, BreakerLoopMore], "loop count"),
            (&[BreakerReset], "reset"),
            (&[BreakerNextTool, BreakerPrevTool], "tool"),
            (&[BreakerOpenTrace], "open trace"),
            (&[BreakerStep], "step"),
            (&[BreakerRunTrace], "run"),
            (&[BreakerClose], "back"),
        ],
        KeyLine::Confirm => &[
            (&[ConfirmYes], "call"),
            (&[ConfirmNo], "cancel"),
            (&[QuitNow], "quit"),
        ],
        KeyLine::Tune => &[
            (&[TuneCapDown, TuneCapUp], "cap"),
            (&[TuneInitialDown, TuneInitialUp], "initial"),
            (&[TuneApply], "apply best"),
            (&[TuneSave], "save"),
            (&[TuneOpen], "requests"),
            (&[TuneRerun], "measure"),
            (&[TuneClose], "back"),
        ],
        KeyLine::TuneInput => &[
            (&[InputSubmit], "measure"),
            (&[InputCancel], "cancel"),
            (&[InputClear], "clear"),
            (&[QuitNow], "quit"),
        ],
        KeyLine::Export => &[
            (&[InputHistoryPrev, InputHistoryNext], "format"),
            (&[InputSubmit], "write"),
            (&[InputCancel], "cancel"),
            (&[QuitNow], "quit"),
        ],
        KeyLine::BreakerInput => &[
            (&[InputSubmit], "send / load"),
            (&[InputCancel], "leave the text box"),
            (&[InputClear], "clear"),
            (&[InputDeleteWord], "delete word"),
            (&[QuitNow], "quit"),
        ],
    };
    // In a text box, only keys that type nothing can reach actions
    // outside it.
    let typing = matches!(
        line,
        KeyLine::Query | KeyLine::BreakerInput | KeyLine::TuneInput | KeyLine::Export
    );
    groups
        .iter()
        .filter_map(|(actions, what)| {
            let keys: Vec<String> = actions
                .iter()
                .filter_map(|&a| {
                    if typing && a.context() == Context::Main {
                        keymap.first_non_text(a)
                    } else {
                        keymap.first(a)
                    }
                })
                .map(|k| k.to_string())
                .collect();
            (!keys.is_empty()).then(|| (keys.join(" "), *what))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_warnings_follow_its_summary_escaped() {
        let servers = [ServerStatus {
            name: "sneaky".into(),
            state: ServerState::Loaded {
                tools: 2,
                prefixed: 0,
                hidden_text: vec!["tool \"a\u{200b}\": hidden text in name: 1 zero-width".into()],
            },
        }];
        let rows = help_rows(&Keymap::defaults(), &servers);
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
