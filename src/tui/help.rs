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

/// What the keymap does not say.
const NOTES: &[&str] = &[
    "Keys bound to no input_ action type text in a text box.",
    "Marks: ★ always-load, RO (or R) read-only, ID (or I) idempotent, ● initial set, ◆ selected by the search, ! a warning of toolsift check (the detail says what), ? hard to find from its own words (toolsift check --findability; the detail says why).",
    "Numbers shorten as numbers on narrow terminals (10.4k, 1.48M); the detail shows them whole.",
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
    /// The catalog's name filter has the keyboard.
    NameFilter,
    /// The help popup.
    Help,
    /// The detail popup (narrow terminals).
    Detail,
    Settings,
    Breaker,
    /// A text box of the breaker.
    BreakerInput,
    /// The question before a real call.
    Confirm,
    /// A breaker call's whole result, opened.
    CallView,
    Tune,
    /// The Tune screen's request-file prompt.
    TuneInput,
    /// The export popup.
    Export,
    /// The comparison screen.
    Compare,
    /// The detail pane while it has the keys.
    DetailPane,
    /// The find box of the detail or help.
    Find,
    /// The query history.
    History,
}

impl KeyLine {
    /// Every key line.
    pub const ALL: [KeyLine; 17] = [
        KeyLine::Main,
        KeyLine::Query,
        KeyLine::NameFilter,
        KeyLine::Help,
        KeyLine::Detail,
        KeyLine::Settings,
        KeyLine::Breaker,
        KeyLine::BreakerInput,
        KeyLine::Confirm,
        KeyLine::CallView,
        KeyLine::Tune,
        KeyLine::TuneInput,
        KeyLine::Export,
        KeyLine::Compare,
        KeyLine::DetailPane,
        KeyLine::Find,
        KeyLine::History,
    ];
}

/// One pair of a key line: the keys, what they do, a shorter word for
/// narrow terminals, and how soon it gives way (0: never; higher goes
/// first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyHint {
    pub keys: String,
    pub what: &'static str,
    pub short: &'static str,
    pub drop: u8,
}

use super::action::KeyGroup as Group;

/// `(keys, what)` hints of a key line in the order shown, from the live
/// keymap; each line ends with help and quit (or the key that leaves).
/// Actions bound to no key are left out.
pub fn key_line(keymap: &Keymap, line: KeyLine) -> Vec<KeyHint> {
    use Action::*;
    let help: Group = (&[Help], "help", "help", 0);
    let quit: Group = (&[Quit], "quit", "quit", 0);
    let quit_now: Group = (&[QuitNow], "quit", "quit", 0);
    // A screen's own groups, then the ones every line ends with.
    let with =
        |own: &[Group], ends: &[Group]| -> Vec<Group> { own.iter().chain(ends).copied().collect() };
    let groups: Vec<Group> = match line {
        KeyLine::Main => vec![
            (&[FocusQuery], "search", "search", 1),
            (&[NextPane], "pane", "pane", 9),
            (&[OpenDetail], "detail", "detail", 2),
            (&[ShowInCatalog], "in catalog", "in cat", 13),
            (&[ToggleAlwaysLoad], "always-load", "always", 10),
            (&[TogglePick], "pick", "pick", 13),
            (&[CycleSort], "sort", "sort", 11),
            (&[CopyTool], "copy", "copy", 12),
            (&[OpenTool], "open", "open", 12),
            (&[CycleFilter], "filter", "filter", 3),
            (&[NameFilter], "name", "name", 8),
            (&[Settings], "settings", "settings", 4),
            (&[Breaker], "breaker", "breaker", 5),
            (&[Tune], "tune", "tune", 6),
            (&[Export], "export", "export", 7),
            (&[Compare], "compare", "compare", 7),
            (&[QueryHistory], "history", "history", 14),
            help,
            quit,
        ],
        KeyLine::Query => vec![
            (&[InputSubmit], "search", "search", 1),
            (&[InputCancel], "leave", "leave", 1),
            (
                &[InputHistoryPrev, InputHistoryNext],
                "history",
                "history",
                2,
            ),
            (&[InputClear], "clear", "clear", 3),
            (&[InputDeleteWord], "delete word", "del word", 4),
            (&[InputRegex], "words/regex", "regex", 2),
            help,
            quit_now,
        ],
        KeyLine::NameFilter => vec![
            (&[InputSubmit], "keep filter", "keep", 0),
            (&[InputCancel], "clear filter", "clear", 0),
            (&[InputDeleteWord], "delete word", "del word", 2),
            help,
            quit_now,
        ],
        KeyLine::Help => with(crate::tui::screen::help::KEYS, &[quit_now]),
        KeyLine::Detail => vec![
            (&[Down, Up], "scroll", "scroll", 1),
            (&[FocusQuery], "find", "find", 2),
            (&[FoldSchema], "fold", "fold", 5),
            (&[ToggleWrap], "wrap", "wrap", 6),
            (&[ScrollLeft, ScrollRight], "sideways", "sideways", 7),
            (&[NextMatch, PrevMatch], "next/prev found", "next", 4),
            (&[HalfPageDown, HalfPageUp], "page", "page", 2),
            (&[Top, Bottom], "top/end", "top/end", 3),
            (&[CopyTool], "copy JSON", "copy", 2),
            (&[OpenTool], "open in pager", "open", 3),
            (&[Escape], "close", "close", 0),
            help,
            quit_now,
        ],
        KeyLine::DetailPane => vec![
            (&[Down, Up], "scroll", "scroll", 1),
            (&[FocusQuery], "find", "find", 2),
            (&[FoldSchema], "fold", "fold", 5),
            (&[ToggleWrap], "wrap", "wrap", 6),
            (&[ScrollLeft, ScrollRight], "sideways", "sideways", 7),
            (&[NextMatch, PrevMatch], "next/prev found", "next", 5),
            (&[HalfPageDown, HalfPageUp], "page", "page", 4),
            (&[CopyTool], "copy JSON", "copy", 3),
            (&[OpenTool], "open in pager", "open", 4),
            (&[NextPane], "pane", "pane", 6),
            (&[Escape], "back", "back", 0),
            help,
            quit,
        ],
        KeyLine::History => with(crate::tui::screen::history::KEYS, &[help, quit_now]),
        KeyLine::Find => vec![
            (&[InputSubmit], "keep", "keep", 0),
            (&[InputCancel], "clear", "clear", 0),
            (&[InputDeleteWord], "delete word", "del word", 2),
            help,
            quit_now,
        ],
        KeyLine::Settings => with(crate::tui::screen::settings::KEYS, &[help, quit_now]),
        KeyLine::Breaker => with(crate::tui::screen::breaker::KEYS, &[help, quit_now]),
        KeyLine::Confirm => with(crate::tui::screen::breaker::CONFIRM_KEYS, &[help, quit_now]),
        KeyLine::CallView => with(crate::tui::screen::breaker::CALL_KEYS, &[help, quit_now]),
        KeyLine::Tune => with(crate::tui::screen::tune::KEYS, &[help, quit_now]),
        KeyLine::Compare => with(crate::tui::screen::compare::KEYS, &[help, quit_now]),
        KeyLine::TuneInput => with(crate::tui::screen::tune::INPUT_KEYS, &[help, quit_now]),
        KeyLine::Export => with(crate::tui::screen::export::KEYS, &[help, quit_now]),
        KeyLine::BreakerInput => with(crate::tui::screen::breaker::INPUT_KEYS, &[help, quit_now]),
    };
    // In a text box, only keys that type nothing can reach actions
    // outside it.
    let typing = matches!(
        line,
        KeyLine::Query
            | KeyLine::Find
            | KeyLine::NameFilter
            | KeyLine::BreakerInput
            | KeyLine::TuneInput
            | KeyLine::Export
    );
    groups
        .iter()
        .filter_map(|&(actions, what, short, drop)| {
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
            (!keys.is_empty()).then(|| KeyHint {
                keys: keys.join(" "),
                what,
                short,
                drop,
            })
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
