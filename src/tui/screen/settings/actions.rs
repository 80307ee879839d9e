//! The actions of the settings popup: their names in the keymap, their words in
//! help and the key line, and their default keys.

crate::tui::action::screen_actions! {
    Settings, "settings_", "Settings";
    SettingsUp = "settings_up", "choose", "previous setting",
        ["up", "k"];
    SettingsDown = "settings_down", "next", "next setting",
        ["down", "j"];
    SettingsDecrease = "settings_decrease", "change", "previous value (valid values apply at once)",
        ["left", "h", "-"];
    SettingsIncrease = "settings_increase", "more", "next value (valid values apply at once)",
        ["right", "l", "+", "space"];
    SettingsClose = "settings_close", "close", "close the settings",
        ["esc", "enter", "s", "q"];
}
