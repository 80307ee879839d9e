//! The actions of the comparison screen: their names in the keymap, their words in
//! help and the key line, and their default keys.

crate::tui::action::screen_actions! {
    Compare, "compare_", "Compare (the request searched two ways, side by side)";
    CompareNext = "compare_next", "other way", "the right side: the next other way (ranker, strategy, gate)",
        ["right", "l", "tab"];
    ComparePrev = "compare_prev", "previous way", "the right side: the previous other way",
        ["left", "h", "shift-tab"];
    CompareDown = "compare_down", "down", "scroll both lists down",
        ["j", "down"];
    CompareUp = "compare_up", "up", "scroll both lists up",
        ["k", "up"];
    ComparePageDown = "compare_page_down", "page down", "half a page down",
        ["ctrl-d", "pagedown"];
    ComparePageUp = "compare_page_up", "page up", "half a page up",
        ["ctrl-u", "pageup"];
    CompareApply = "compare_apply", "apply", "put the right side's way in force",
        ["a"];
    CompareClose = "compare_close", "back", "back to the explorer",
        ["esc", "v", "q"];
}
