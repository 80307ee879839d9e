//! The actions of the query history: their names in the keymap, their words in
//! help and the key line, and their default keys.

crate::tui::action::screen_actions! {
    History, "history_", "Query history";
    HistoryDown = "history_down", "down", "the next (older) query",
        ["j", "down"];
    HistoryUp = "history_up", "up", "the previous (newer) query",
        ["k", "up"];
    HistoryPick = "history_pick", "search", "put the query in the query box and search it",
        ["enter"];
    HistoryForget = "history_forget", "forget", "forget the query",
        ["d", "delete"];
    HistoryClose = "history_close", "back", "back to the explorer",
        ["esc", "H", "q"];
}
