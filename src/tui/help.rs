//! What the key lines say, as data generated from the live keymap: each
//! screen's groups of keys (drawing lays them out, shortest first on a
//! narrow terminal).

use super::action::{Action, Context};
use super::keymap::Keymap;
pub use super::paint::KeyHint;

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
    /// The live screen.
    Live,
}

impl KeyLine {
    /// Every key line.
    pub const ALL: [KeyLine; 18] = [
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
        KeyLine::Live,
    ];
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
            (&[Live], "live", "live", 7),
            (&[CommandLine], "command", "cmd", 15),
            help,
            quit,
        ],
        KeyLine::Query => vec![
            (&[InputSubmit], "search", "search", 1),
            (&[InputCancel], "to the list", "list", 1),
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
        KeyLine::Live => with(crate::tui::screen::live::KEYS, &[help, quit_now]),
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
    hints(keymap, &groups, typing)
}

/// A screen's key line: its own groups (`typing`: a text box of its has
/// the keyboard), then help (unless it is help) and quit.
pub fn screen_line(keymap: &Keymap, own: &[Group], typing: bool, help: bool) -> Vec<KeyHint> {
    let help_key: Group = (&[Action::Help], "help", "help", 0);
    let quit_now: Group = (&[Action::QuitNow], "quit", "quit", 0);
    let ends: &[Group] = if help {
        &[help_key, quit_now]
    } else {
        &[quit_now]
    };
    let groups: Vec<Group> = own.iter().chain(ends).copied().collect();
    hints(keymap, &groups, typing)
}

/// The hints of `groups` from the live keymap; actions bound to no key
/// are left out.
fn hints(keymap: &Keymap, groups: &[Group], typing: bool) -> Vec<KeyHint> {
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
