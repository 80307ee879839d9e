//! What the key lines say, as data generated from the live keymap: each
//! screen's groups of keys (drawing lays them out, shortest first on a
//! narrow terminal).

use super::action::{Action, Context};
use super::keymap::Keymap;
pub use super::paint::KeyHint;

/// The main screen's key lines (each screen's own is its
/// [`Screen::keys`](super::screen::Screen::keys), through [`screen_line`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyLine {
    /// The panes.
    Main,
    /// The query box has the keyboard.
    Query,
    /// The catalog's name filter has the keyboard.
    NameFilter,
    /// The detail popup (narrow terminals).
    Detail,
    /// The detail pane while it has the keys.
    DetailPane,
    /// The find box of the detail or help.
    Find,
}

impl KeyLine {
    /// Every key line.
    pub const ALL: [KeyLine; 6] = [
        KeyLine::Main,
        KeyLine::Query,
        KeyLine::NameFilter,
        KeyLine::Detail,
        KeyLine::DetailPane,
        KeyLine::Find,
    ];

    /// Whether a text box has the keyboard (only keys that type nothing
    /// reach actions outside it).
    fn typing(self) -> bool {
        matches!(self, KeyLine::Query | KeyLine::Find | KeyLine::NameFilter)
    }
}

use super::action::KeyGroup as Group;

const HELP: Group = (&[Action::Help], "help", "help", 0);
const QUIT: Group = (&[Action::Quit], "quit", "quit", 0);
const QUIT_NOW: Group = (&[Action::QuitNow], "quit", "quit", 0);

/// `(keys, what)` hints of a key line in the order shown, from the live
/// keymap; each line ends with help and quit (or the key that leaves).
/// Actions bound to no key are left out.
pub fn key_line(keymap: &Keymap, line: KeyLine) -> Vec<KeyHint> {
    let groups = match line {
        KeyLine::Main => main_groups(),
        KeyLine::Query => query_groups(),
        KeyLine::NameFilter => filter_groups("keep filter", "clear filter"),
        KeyLine::Find => filter_groups("keep", "clear"),
        KeyLine::Detail => detail_popup_groups(),
        KeyLine::DetailPane => detail_pane_groups(),
    };
    hints(keymap, &groups, line.typing())
}

/// The panes' keys: search, move, flag, sort, and the screens opened.
fn main_groups() -> Vec<Group> {
    use Action::*;
    vec![
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
        HELP,
        QUIT,
    ]
}

/// The query box's keys.
fn query_groups() -> Vec<Group> {
    use Action::*;
    vec![
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
        HELP,
        QUIT_NOW,
    ]
}

/// A filter's or find box's keys: Enter keeps (`keep`), Esc clears.
fn filter_groups(keep: &'static str, clear: &'static str) -> Vec<Group> {
    use Action::*;
    vec![
        (&[InputSubmit], keep, "keep", 0),
        (&[InputCancel], clear, "clear", 0),
        (&[InputDeleteWord], "delete word", "del word", 2),
        HELP,
        QUIT_NOW,
    ]
}

/// The detail popup's keys (narrow terminals).
fn detail_popup_groups() -> Vec<Group> {
    use Action::*;
    vec![
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
        HELP,
        QUIT_NOW,
    ]
}

/// The detail pane's keys while it has them.
fn detail_pane_groups() -> Vec<Group> {
    use Action::*;
    vec![
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
        HELP,
        QUIT,
    ]
}

/// A screen's key line: its own groups (`typing`: a text box of its has
/// the keyboard), then help (unless it is help) and quit.
pub fn screen_line(keymap: &Keymap, own: &[Group], typing: bool, help: bool) -> Vec<KeyHint> {
    let ends: &[Group] = if help { &[HELP, QUIT_NOW] } else { &[QUIT_NOW] };
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
