//! The actions of the live screen (a followed gateway's or service's traffic): their names in the keymap, their words in
//! help and the key line, and their default keys.

crate::tui::action::screen_actions! {
    Live, "live_", "Live (a followed gateway's or service's traffic)";
    LiveDown = "live_down", "down", "the next (newer) event",
        ["j", "down"];
    LiveUp = "live_up", "up", "the previous (older) event",
        ["k", "up"];
    LivePageDown = "live_page_down", "page down", "half a page down",
        ["ctrl-d", "pagedown"];
    LivePageUp = "live_page_up", "page up", "half a page up",
        ["ctrl-u", "pageup"];
    LiveTop = "live_top", "oldest", "the oldest event kept",
        ["g", "home"];
    LiveBottom = "live_bottom", "newest", "the newest event, and keep it in view as events come",
        ["G", "end"];
    LiveMisses = "live_misses", "misses", "show the misses alone, or every event",
        ["m"];
    LiveOpen = "live_open", "why", "a miss: search its request and show why the tool the agent wanted was not found; a search: search it again; a call: its tool in the catalog",
        ["enter"];
    LiveSave = "live_save", "eval", "add the miss to the request file, the tool the agent wanted as its answer (toolsift eval reads it)",
        ["e"];
    LiveFilter = "live_filter", "filter", "show the events (or misses) holding the words typed: request, session, tools, outcome; Enter keeps the filter, Esc drops it",
        ["/"];
    LivePause = "live_pause", "pause", "the view stays where it is as events come (they are kept and counted); again to follow the newest",
        ["p", "space"];
    LiveClose = "live_close", "back", "back to the explorer (following goes on)",
        ["esc", "L", "q"];
}
