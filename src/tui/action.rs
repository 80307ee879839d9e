//! What a key can ask for. Every key on every screen is an [`Action`]; the
//! keymap names them in snake_case. An action belongs to one [`Context`] (the
//! screen where its keys are looked up), so the same key can mean different
//! things on different screens. Main-screen actions have plain names
//! (`focus_query`); the others carry their context as a prefix
//! (`input_clear`, `settings_up`, `breaker_call`, `confirm_yes`).

use serde::{Deserialize, Serialize};

/// Where an action's keys are looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Context {
    /// The panes (catalog, results, detail) and the help and detail popups.
    Main,
    /// Every text box: the query box, the breaker's arguments and trace path.
    Input,
    /// The settings popup.
    Settings,
    /// The breaker simulator.
    Breaker,
    /// The question before a real call to an MCP server that may write.
    Confirm,
    /// The Tune screen.
    Tune,
    /// The comparison screen.
    Compare,
    /// The query history.
    History,
    /// The live screen (a followed gateway's or service's traffic).
    Live,
    /// Every screen, after the screen's own keys.
    Global,
}

impl Context {
    /// Every context, in the order help lists them.
    pub const ALL: [Context; 10] = [
        Context::Main,
        Context::Input,
        Context::Settings,
        Context::Breaker,
        Context::Confirm,
        Context::Tune,
        Context::Compare,
        Context::History,
        Context::Live,
        Context::Global,
    ];

    /// The heading of its section in help.
    pub fn title(self) -> &'static str {
        match self {
            Context::Main => "Panes and popups",
            Context::Input => "Text boxes (query, breaker arguments, paths)",
            Context::Settings => "Settings",
            Context::Breaker => "Breaker simulator",
            Context::Confirm => "Before a real call to an MCP server",
            Context::Tune => "Tune (caps measured on requests with known answers)",
            Context::Compare => "Compare (the request searched two ways, side by side)",
            Context::History => "Query history",
            Context::Live => "Live (a followed gateway's or service's traffic)",
            Context::Global => "Everywhere",
        }
    }

    /// The prefix of its actions' names (`""` for the main screen).
    pub fn prefix(self) -> &'static str {
        match self {
            Context::Main | Context::Global => "",
            Context::Input => "input_",
            Context::Settings => "settings_",
            Context::Breaker => "breaker_",
            Context::Confirm => "confirm_",
            Context::Tune => "tune_",
            Context::Compare => "compare_",
            Context::History => "history_",
            Context::Live => "live_",
        }
    }
}

/// One group of a key line: `(actions, what, short, drop)`: the actions
/// whose keys it shows, what they do, a shorter word for narrow
/// terminals, and how soon it gives way (0: never; higher goes first).
pub type KeyGroup = (&'static [Action], &'static str, &'static str, u8);

macro_rules! actions {
    ($( $variant:ident = $name:literal, $context:ident, $short:literal, $describe:literal; )*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Action {
            $( $variant, )*
        }

        impl Action {
            /// Every action, in the order help lists them (within a context).
            pub const ALL: &'static [Action] = &[ $( Action::$variant, )* ];

            /// The name in the keymap (`focus_query`).
            pub fn name(self) -> &'static str {
                match self { $( Action::$variant => $name, )* }
            }

            /// The screen where its keys are looked up.
            pub fn context(self) -> Context {
                match self { $( Action::$variant => Context::$context, )* }
            }

            /// A word or two for a key line (`query`, `pane`).
            pub fn short(self) -> &'static str {
                match self { $( Action::$variant => $short, )* }
            }

            /// What it does, for the help screen.
            pub fn describe(self) -> &'static str {
                match self { $( Action::$variant => $describe, )* }
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
    SettingsUp = "settings_up", Settings, "choose", "previous setting";
    SettingsDown = "settings_down", Settings, "next", "next setting";
    SettingsDecrease = "settings_decrease", Settings, "change", "previous value (valid values apply at once)";
    SettingsIncrease = "settings_increase", Settings, "more", "next value (valid values apply at once)";
    SettingsClose = "settings_close", Settings, "close", "close the settings";
    BreakerCall = "breaker_call", Breaker, "call", "call the tool once (an MCP tool for real)";
    BreakerEdit = "breaker_edit", Breaker, "edit args", "edit the arguments (JSON)";
    BreakerLoop = "breaker_loop", Breaker, "loop", "call the tool in a loop";
    BreakerThresholdUp = "breaker_threshold_up", Breaker, "threshold", "raise the threshold";
    BreakerThresholdDown = "breaker_threshold_down", Breaker, "threshold down", "lower the threshold";
    BreakerLoopMore = "breaker_loop_more", Breaker, "loop count", "more calls per loop";
    BreakerLoopLess = "breaker_loop_less", Breaker, "fewer", "fewer calls per loop";
    BreakerReset = "breaker_reset", Breaker, "reset", "reset the breaker (a new streak)";
    BreakerNextTool = "breaker_next_tool", Breaker, "tool", "call the next tool of the catalog pane";
    BreakerPrevTool = "breaker_prev_tool", Breaker, "prev tool", "call the previous tool";
    BreakerOpenTrace = "breaker_open_trace", Breaker, "open trace", "open a trace (JSONL path or @example)";
    BreakerStep = "breaker_step", Breaker, "step", "run the trace's next call";
    BreakerRunTrace = "breaker_run_trace", Breaker, "run", "run the rest of the trace";
    BreakerLogUp = "breaker_log_up", Breaker, "older call", "pick an older call in the log (scrolls an opened call)";
    BreakerLogDown = "breaker_log_down", Breaker, "newer call", "pick a newer call in the log (scrolls an opened call)";
    BreakerViewCall = "breaker_view_call", Breaker, "open call", "open the picked call whole: signature, result or error";
    BreakerClose = "breaker_close", Breaker, "back", "back to the explorer (the log is kept)";
    ConfirmYes = "confirm_yes", Confirm, "call", "make the real call";
    ConfirmNo = "confirm_no", Confirm, "cancel", "cancel: nothing is sent";
    TuneCapDown = "tune_cap_down", Tune, "cap", "a smaller search cap (the current mark moves)";
    TuneCapUp = "tune_cap_up", Tune, "cap up", "a larger search cap";
    TuneInitialDown = "tune_initial_down", Tune, "initial", "fewer tools in the initial set";
    TuneInitialUp = "tune_initial_up", Tune, "initial up", "more tools in the initial set";
    TuneApply = "tune_apply", Tune, "apply", "put the recommendation in force";
    TuneSave = "tune_save", Tune, "save", "save the settings in force to the config file";
    TuneOpen = "tune_open", Tune, "requests", "pick the request file (JSONL: query, expected)";
    TuneRerun = "tune_rerun", Tune, "measure", "measure again (the file may have changed)";
    TuneClose = "tune_close", Tune, "back", "back to the explorer";
    CompareNext = "compare_next", Compare, "other way", "the right side: the next other way (ranker, strategy, gate)";
    ComparePrev = "compare_prev", Compare, "previous way", "the right side: the previous other way";
    CompareDown = "compare_down", Compare, "down", "scroll both lists down";
    CompareUp = "compare_up", Compare, "up", "scroll both lists up";
    ComparePageDown = "compare_page_down", Compare, "page down", "half a page down";
    ComparePageUp = "compare_page_up", Compare, "page up", "half a page up";
    CompareApply = "compare_apply", Compare, "apply", "put the right side's way in force";
    CompareClose = "compare_close", Compare, "back", "back to the explorer";
    HistoryDown = "history_down", History, "down", "the next (older) query";
    HistoryUp = "history_up", History, "up", "the previous (newer) query";
    HistoryPick = "history_pick", History, "search", "put the query in the query box and search it";
    HistoryForget = "history_forget", History, "forget", "forget the query";
    HistoryClose = "history_close", History, "back", "back to the explorer";
    LiveDown = "live_down", Live, "down", "the next (newer) event";
    LiveUp = "live_up", Live, "up", "the previous (older) event";
    LivePageDown = "live_page_down", Live, "page down", "half a page down";
    LivePageUp = "live_page_up", Live, "page up", "half a page up";
    LiveTop = "live_top", Live, "oldest", "the oldest event kept";
    LiveBottom = "live_bottom", Live, "newest", "the newest event, and keep it in view as events come";
    LiveMisses = "live_misses", Live, "misses", "show the misses alone, or every event";
    LiveOpen = "live_open", Live, "why", "a miss: search its request and show why the tool the agent wanted was not found; a search: search it again; a call: its tool in the catalog";
    LiveSave = "live_save", Live, "eval", "add the miss to the request file, the tool the agent wanted as its answer (toolsift eval reads it)";
    LiveFilter = "live_filter", Live, "filter", "show the events (or misses) holding the words typed: request, session, tools, outcome; Enter keeps the filter, Esc drops it";
    LivePause = "live_pause", Live, "pause", "the view stays where it is as events come (they are kept and counted); again to follow the newest";
    LiveClose = "live_close", Live, "back", "back to the explorer (following goes on)";
    QuitNow = "quit_now", Global, "quit", "quit at once, from any screen";
    Suspend = "suspend", Global, "suspend", "suspend to the shell, as any full-screen program does (fg brings it back)";
}

impl Action {
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
}
