//! The actions of the breaker simulator: their names in the keymap, their words in
//! help and the key line, and their default keys.

crate::tui::action::screen_actions! {
    Breaker, "breaker_", "Breaker simulator";
    BreakerCall = "breaker_call", "call", "call the tool once (an MCP tool for real)",
        ["enter", "c"];
    BreakerEdit = "breaker_edit", "edit args", "edit the arguments (JSON)",
        ["e", "i"];
    BreakerLoop = "breaker_loop", "loop", "call the tool in a loop",
        ["L"];
    BreakerThresholdUp = "breaker_threshold_up", "threshold", "raise the threshold",
        ["+", "="];
    BreakerThresholdDown = "breaker_threshold_down", "threshold down", "lower the threshold",
        ["-"];
    BreakerLoopMore = "breaker_loop_more", "loop count", "more calls per loop",
        ["]"];
    BreakerLoopLess = "breaker_loop_less", "fewer", "fewer calls per loop",
        ["["];
    BreakerReset = "breaker_reset", "reset", "reset the breaker (a new streak)",
        ["r"];
    BreakerNextTool = "breaker_next_tool", "tool", "call the next tool of the catalog pane",
        ["t"];
    BreakerPrevTool = "breaker_prev_tool", "prev tool", "call the previous tool",
        ["T"];
    BreakerOpenTrace = "breaker_open_trace", "open trace", "open a trace (JSONL path or @example)",
        ["o"];
    BreakerStep = "breaker_step", "step", "run the trace's next call",
        ["n"];
    BreakerRunTrace = "breaker_run_trace", "run", "run the rest of the trace",
        ["R"];
    BreakerLogUp = "breaker_log_up", "older call", "pick an older call in the log (scrolls an opened call)",
        ["k", "up"];
    BreakerLogDown = "breaker_log_down", "newer call", "pick a newer call in the log (scrolls an opened call)",
        ["j", "down"];
    BreakerViewCall = "breaker_view_call", "open call", "open the picked call whole: signature, result or error",
        ["v"];
    BreakerClose = "breaker_close", "back", "back to the explorer (the log is kept)",
        ["esc", "b", "q"];
}

/// The question before a real call to an MCP server that may write: a
/// context of its own, so that its keys mean only yes or no.
pub mod confirm {
    crate::tui::action::screen_actions! {
        Confirm, "confirm_", "Before a real call to an MCP server", only_with_mcp_servers = true;
        ConfirmYes = "confirm_yes", "call", "make the real call",
            ["y", "enter"];
        ConfirmNo = "confirm_no", "cancel", "cancel: nothing is sent",
            ["n", "esc"];
    }
}
