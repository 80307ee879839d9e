//! The actions of the Tune screen: their names in the keymap, their words in
//! help and the key line, and their default keys.

crate::tui::action::screen_actions! {
    Tune, "tune_", "Tune (caps measured on requests with known answers)";
    TuneCapDown = "tune_cap_down", "cap", "a smaller search cap (the current mark moves)",
        ["-", "left", "h"];
    TuneCapUp = "tune_cap_up", "cap up", "a larger search cap",
        ["+", "=", "right", "l"];
    TuneInitialDown = "tune_initial_down", "initial", "fewer tools in the initial set",
        ["["];
    TuneInitialUp = "tune_initial_up", "initial up", "more tools in the initial set",
        ["]"];
    TuneApply = "tune_apply", "apply", "put the recommendation in force",
        ["a"];
    TuneSave = "tune_save", "save", "save the settings in force to the config file",
        ["s"];
    TuneOpen = "tune_open", "requests", "pick the request file (JSONL: query, expected)",
        ["o"];
    TuneRerun = "tune_rerun", "measure", "measure again (the file may have changed)",
        ["r"];
    TuneClose = "tune_close", "back", "back to the explorer",
        ["esc", "t", "q"];
}
