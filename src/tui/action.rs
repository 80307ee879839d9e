//! What a key can ask for. Every key on every screen is an [`Action`]; the
//! keymap names them in snake_case. An action belongs to one [`Context`] (the
//! screen where its keys are looked up), so the same key can mean different
//! things on different screens. Main-screen actions have plain names
//! (`focus_query`); the others carry their context as a prefix
//! (`input_clear`, `settings_up`, `breaker_call`, `confirm_yes`).
//!
//! This file holds the panes', the text boxes' and the global actions. A
//! screen declares its own in its folder (`screen/<name>/actions.rs`, with
//! [`screen_actions!`]: each action's name, words and default keys, and
//! its context's heading and prefix); the registry (`screen/mod.rs`) lists
//! the screens' contexts in help order ([`screen_contexts!`]), and they
//! reach here as [`Action::Screen`] and [`Context::Screen`].

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::tui::screen::{ScreenAction, ScreenContext};

mod declare;
pub(crate) use declare::{screen_actions, screen_contexts};

/// Where an action's keys are looked up.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Context {
    /// The panes (catalog, results, detail) and the help and detail popups.
    Main,
    /// Every text box: the query box, the breaker's arguments and trace path.
    Input,
    /// A screen's own (declared in its folder).
    Screen(ScreenContext),
    /// Every screen, after the screen's own keys.
    Global,
}

impl Context {
    /// Every context, in the order help lists them: the panes, the text
    /// boxes, the screens in the registry's order, then the global keys.
    pub const ALL: &'static [Context] = &{
        let mut all = [Context::Main; 3 + ScreenContext::ALL.len()];
        all[1] = Context::Input;
        let mut i = 0;
        while i < ScreenContext::ALL.len() {
            all[2 + i] = Context::Screen(ScreenContext::ALL[i]);
            i += 1;
        }
        all[2 + i] = Context::Global;
        all
    };

    /// The heading of its section in help.
    pub fn title(self) -> &'static str {
        match self {
            Context::Main => "Panes and popups",
            Context::Input => "Text boxes (query, breaker arguments, paths)",
            Context::Screen(screen) => screen.title(),
            Context::Global => "Everywhere",
        }
    }

    /// The prefix of its actions' names (`""` for the main screen).
    pub fn prefix(self) -> &'static str {
        match self {
            Context::Main | Context::Global => "",
            Context::Input => "input_",
            Context::Screen(screen) => screen.prefix(),
        }
    }

    /// Whether help shows its section only when the catalog has MCP
    /// servers (what a real call to one asks first).
    pub fn only_with_mcp_servers(self) -> bool {
        matches!(self, Context::Screen(screen) if screen.only_with_mcp_servers())
    }
}

/// A context as it was always written (`Main`, `Tune`): a screen's by its
/// name in the registry.
impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Context::Main => f.write_str("Main"),
            Context::Input => f.write_str("Input"),
            Context::Screen(screen) => screen.fmt(f),
            Context::Global => f.write_str("Global"),
        }
    }
}

/// One group of a key line: `(actions, what, short, drop)`: the actions
/// whose keys it shows, what they do, a shorter word for narrow
/// terminals, and how soon it gives way (0: never; higher goes first).
pub type KeyGroup = (&'static [Action], &'static str, &'static str, u8);

macro_rules! actions {
    ($( $variant:ident = $name:literal, $context:ident, $short:literal, $describe:literal; )*) => {
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action {
            $( #[doc = $describe] $variant, )*
            /// A screen's own action (declared in its folder).
            Screen(ScreenAction),
        }

        /// The actions declared here, in help order (within a context).
        const OWN: &[Action] = &[ $( Action::$variant, )* ];

        impl Action {
            /// The name in the keymap (`focus_query`).
            pub fn name(self) -> &'static str {
                match self { $( Action::$variant => $name, )* Action::Screen(a) => a.name() }
            }

            /// The screen where its keys are looked up.
            pub const fn context(self) -> Context {
                match self {
                    $( Action::$variant => Context::$context, )*
                    Action::Screen(a) => Context::Screen(a.context()),
                }
            }

            /// A word or two for a key line (`query`, `pane`).
            pub fn short(self) -> &'static str {
                match self { $( Action::$variant => $short, )* Action::Screen(a) => a.short() }
            }

            /// What it does, for the help screen.
            pub fn describe(self) -> &'static str {
                match self { $( Action::$variant => $describe, )* Action::Screen(a) => a.describe() }
            }
        }

        /// An action as it was always written (`FocusQuery`, `TuneCapDown`).
        impl fmt::Debug for Action {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self { $( Action::$variant => f.write_str(stringify!($variant)), )* Action::Screen(a) => a.fmt(f) }
            }
        }
    };
}

actions! {
    FocusQuery = "focus_query", Main, "query", "type a query: search runs on every keystroke (in the detail and help: find words in the text)";
    Escape = "escape", Main, "back", "close a popup / leave the detail pane";
    NextPane = "next_pane", Main, "pane", "next pane";
    PrevPane = "prev_pane", Main, "prev pane", "previous pane";
    FocusCatalog = "focus_catalog", Main, "catalog", "the catalog pane ([1] in its title)";
    FocusResults = "focus_results", Main, "results", "the results pane ([2] in its title)";
    FocusDetail = "focus_detail", Main, "detail", "the detail pane ([3] in its title; a popup on narrow terminals)";
    Zoom = "zoom", Main, "zoom", "zoom the focused pane to the whole width (again: back); Tab moves the zoom to the next pane";
    Down = "down", Main, "down", "move down (scrolls help and detail)";
    Up = "up", Main, "up", "move up";
    Top = "top", Main, "top", "go to the top";
    Bottom = "bottom", Main, "bottom", "go to the bottom";
    HalfPageDown = "half_page_down", Main, "page down", "half a page down";
    HalfPageUp = "half_page_up", Main, "page up", "half a page up";
    OpenDetail = "open_detail", Main, "detail", "detail of the highlighted tool";
    ToggleWrap = "toggle_wrap", Main, "wrap", "the detail: wrap long lines, or let them run past the edge and scroll sideways";
    ScrollLeft = "scroll_left", Main, "left", "the detail, unwrapped: scroll left";
    ScrollRight = "scroll_right", Main, "right", "the detail, unwrapped: scroll right";
    FoldSchema = "fold_schema", Main, "fold", "fold the detail's schema: its properties' names only, one level more, all open";
    ShowInCatalog = "show_in_catalog", Main, "in catalog", "the highlighted result's row in the catalog pane (a filter hiding it is lifted)";
    ToggleAlwaysLoad = "toggle_always_load", Main, "always-load", "toggle always-load on the highlighted tool (on every picked tool, when some are picked)";
    TogglePick = "toggle_pick", Main, "pick", "pick the highlighted tool by hand (again: unpick it); the picked tools are what always-load toggles and export writes; Esc unpicks them all";
    CycleSort = "cycle_sort", Main, "sort", "sort the catalog by the next column (the title says which): catalog order, name, tokens, flags, server";
    ReverseSort = "reverse_sort", Main, "reverse", "reverse the catalog's sort";
    CycleFilter = "cycle_filter", Main, "filter", "catalog filter: all, always-load, initial, selected, server";
    NameFilter = "name_filter", Main, "name filter", "filter the catalog pane by name (type to narrow; Enter keeps, Esc clears)";
    NextMatch = "next_match", Main, "next match", "the next tool matching the name filter (in the detail and help: the next line with the words found)";
    PrevMatch = "prev_match", Main, "previous match", "the previous tool matching the name filter (in the detail and help: the previous line found)";
    Settings = "settings", Main, "settings", "settings: strategy, initial count, caps, ranker, token basis";
    Breaker = "breaker", Main, "breaker", "breaker simulator: call the highlighted tool, replay traces";
    RetrySearch = "retry_search", Main, "retry", "re-send the last search (the service may be back); fetch the search model again when its fetch failed or stalled";
    SendFullCatalog = "send_full_catalog", Main, "full catalog", "after a failed search: send the full catalog instead (if it fits the context budget)";
    Tune = "tune", Main, "tune", "Tune screen: loaded share against tokens sent for every cap, on requests with known answers";
    QueryHistory = "query_history", Main, "history", "the queries committed this run, newest first: pick one to search it again";
    Compare = "compare", Main, "compare", "compare screen: the query searched two ways side by side (another ranker, strategy or gate)";
    CachingCosts = "caching_costs", Main, "caching", "the Tokens box: what a session costs with prompt caching (Anthropic, then OpenAI, then off): all tools up front, found tools in the conversation, found tools added to the tool list";
    LogIn = "log_in", Main, "log in", "log in to the MCP server that waits for a login (the header names it): its page opens in the browser, and its tools join the catalog";
    Live = "live", Main, "live", "live screen: the followed gateway's or service's searches and calls, and the searches that failed the agent (explore --follow)";
    Export = "export", Main, "export", "export the loaded tools as a provider payload, to a file";
    CopyTool = "copy_tool", Main, "copy", "copy the highlighted tool's JSON to the clipboard (OSC 52)";
    OpenTool = "open_tool", Main, "open", "open the highlighted tool's JSON in $PAGER (else $EDITOR, less)";
    CommandLine = "command_line", Main, "command", "the command line: any action of this section by its name, or a setting (:cap 8, :ranker hybrid, :sort tokens, :q); Tab completes";
    Help = "help", Main, "help", "this help";
    Quit = "quit", Main, "quit", "quit (closes a popup first)";
    InputLeft = "input_left", Input, "left", "cursor left";
    InputRight = "input_right", Input, "right", "cursor right";
    InputHome = "input_home", Input, "home", "cursor to the start";
    InputEnd = "input_end", Input, "end", "cursor to the end";
    InputBackspace = "input_backspace", Input, "backspace", "delete the character before the cursor";
    InputDelete = "input_delete", Input, "delete", "delete the character under the cursor";
    InputClear = "input_clear", Input, "clear", "clear the line";
    InputDeleteWord = "input_delete_word", Input, "delete word", "delete the word before the cursor";
    InputHistoryPrev = "input_history_prev", Input, "history", "query box: an earlier query; export: the previous format";
    InputHistoryNext = "input_history_next", Input, "later", "query box: a later query; export: the next format";
    InputSubmit = "input_submit", Input, "commit", "commit the query (to the session) / send the call / load the trace";
    InputCancel = "input_cancel", Input, "leave", "leave the text box";
    InputRegex = "input_regex", Input, "regex", "query box: read the query as words or as a regular expression (the regex ranker; (?i) for any case)";
    QuitNow = "quit_now", Global, "quit", "quit at once, from any screen";
    Suspend = "suspend", Global, "suspend", "suspend to the shell, as any full-screen program does (fg brings it back)";
}

impl Action {
    /// Every action, in the order help lists them (within a context): the
    /// panes' and the text boxes', every screen's in the registry's order,
    /// then the global ones.
    pub const ALL: &'static [Action] = &{
        let mut all = [Action::Quit; OWN.len() + ScreenAction::COUNT];
        let mut at = 0;
        let mut i = 0;
        while i < OWN.len() {
            if !matches!(OWN[i].context(), Context::Global) {
                all[at] = OWN[i];
                at += 1;
            }
            i += 1;
        }
        let mut i = 0;
        while i < ScreenAction::COUNT {
            all[at] = Action::Screen(ScreenAction::nth(i));
            at += 1;
            i += 1;
        }
        let mut i = 0;
        while i < OWN.len() {
            if matches!(OWN[i].context(), Context::Global) {
                all[at] = OWN[i];
                at += 1;
            }
            i += 1;
        }
        all
    };

    pub fn from_name(name: &str) -> Option<Action> {
        Action::ALL.iter().copied().find(|a| a.name() == name)
    }

    /// The actions of one context, in help order.
    pub fn of(context: Context) -> impl Iterator<Item = Action> {
        Action::ALL
            .iter()
            .copied()
            .filter(move |a| a.context() == context)
    }

    /// The keys it has when the config file sets none: a screen's own
    /// declare theirs; the others' are in `assets/config.toml`.
    pub fn declared_keys(self) -> &'static [&'static str] {
        match self {
            Action::Screen(a) => a.default_keys(),
            _ => &[],
        }
    }
}

/// An action is written by its name (`"tune_cap_down"`).
impl Serialize for Action {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Action, D::Error> {
        let name = String::deserialize(d)?;
        Action::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown action {name:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_serde_and_prefixes() {
        for &a in Action::ALL {
            let json = serde_json::to_string(&a).unwrap();
            assert_eq!(json, format!("\"{}\"", a.name()));
            assert_eq!(Action::from_name(a.name()), Some(a));
            let prefix = a.context().prefix();
            assert!(a.name().starts_with(prefix), "{a:?}");
        }
    }

    #[test]
    fn the_screens_contexts_come_from_the_registry_in_help_order() {
        let names: Vec<String> = Context::ALL.iter().map(|c| format!("{c:?}")).collect();
        assert_eq!(
            names,
            [
                "Main", "Input", "Settings", "Breaker", "Confirm", "Tune", "Compare", "History",
                "Live", "Global"
            ]
        );
        assert_eq!(
            Context::Tune.title(),
            "Tune (caps measured on requests with known answers)"
        );
        assert_eq!(Context::Confirm.prefix(), "confirm_");
        // Every action once, its context's section in help order.
        let mut seen = std::collections::HashSet::new();
        let mut section = 0;
        for &a in Action::ALL {
            assert!(seen.insert(a.name()), "{} twice", a.name());
            let at = Context::ALL.iter().position(|&c| c == a.context()).unwrap();
            assert!(at >= section, "{a:?} out of help order");
            section = at;
        }
        assert_eq!(Action::ALL.first(), Some(&Action::FocusQuery));
        assert_eq!(Action::ALL.last(), Some(&Action::Suspend));
        // A screen's action is spelled as it always was.
        assert_eq!(format!("{:?}", Action::TuneCapDown), "TuneCapDown");
        assert_eq!(
            Action::from_name("tune_cap_down"),
            Some(Action::TuneCapDown)
        );
        assert_eq!(Action::TuneCapDown.context(), Context::Tune);
        assert_eq!(Action::TuneCapDown.declared_keys(), ["-", "left", "h"]);
        assert!(Action::Quit.declared_keys().is_empty());
        assert!(
            serde_json::from_str::<Action>("\"tune_cap_dwn\"").is_err(),
            "an unknown name is refused"
        );
    }
}
