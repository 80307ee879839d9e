//! The popup that edits the settings.

pub mod actions;
pub mod draw;

use ratatui::Frame;

use super::{On, Outcome, Popup, Screen, Screens, Told, Unopened};
use crate::settings::{Setting, Settings};
use crate::tools_handle::MaxTools;
use crate::tui::action::{Action, Context, KeyGroup};
use crate::tui::effect::Effect;
use crate::tui::paint::Theme;
use crate::tui::setup::Setup;

/// The rows of the settings popup: every setting, by name.
pub const SETTINGS_ROWS: [Setting; 7] = Setting::ALL;

/// The settings popup: the settings as edited (maybe invalid), the SDK's
/// message when they are, and the highlighted row.
/// The key line's own keys (help and quit follow).
pub const KEYS: &[KeyGroup] = &[
    (
        &[Action::SettingsUp, Action::SettingsDown],
        "choose",
        "choose",
        1,
    ),
    (
        &[Action::SettingsDecrease, Action::SettingsIncrease],
        "change",
        "change",
        1,
    ),
    (&[Action::SettingsClose], "close", "close", 0),
];

#[derive(Debug, Clone, PartialEq)]
pub struct SettingsEditor {
    pub edited: Settings,
    pub error: Option<String>,
    pub row: usize,
    /// What the last key did when it could not step (a setting at its
    /// end).
    pub note: Option<String>,
}

impl SettingsEditor {
    pub fn new(settings: &Settings) -> SettingsEditor {
        SettingsEditor {
            edited: settings.clone(),
            error: None,
            row: 0,
            note: None,
        }
    }

    /// Opens on the settings in force (the row is kept).
    pub fn open(&mut self, settings: &Settings) {
        self.edited = settings.clone();
        self.error = None;
    }

    /// The setting on the highlighted row.
    pub fn setting(&self) -> Setting {
        SETTINGS_ROWS[self.row.min(SETTINGS_ROWS.len() - 1)]
    }

    /// The popup's keys (`settings_*` actions).
    pub fn handle(&mut self, action: Action) -> Outcome {
        self.note = None;
        let step: i64 = match action {
            Action::SettingsClose => return Outcome::Close,
            Action::SettingsUp => {
                self.row = self.row.saturating_sub(1);
                return Outcome::Stay;
            }
            Action::SettingsDown => {
                self.row = (self.row + 1).min(SETTINGS_ROWS.len() - 1);
                return Outcome::Stay;
            }
            Action::SettingsDecrease => -1,
            Action::SettingsIncrease => 1,
            _ => return Outcome::Stay,
        };
        let mut e = self.edited.clone();
        let least = |name: &str, value: &str| {
            format!("{name} is at its least ({value}); the other arrow raises it")
        };
        let setting = self.setting();
        let name = setting.name();
        match setting {
            Setting::Strategy => e.strategy = e.strategy.toggled(),
            Setting::InitialToolCount if step < 0 && e.initial_tool_count.get() == 0 => {
                self.note = Some(least(name, "0"));
                return Outcome::Stay;
            }
            Setting::InitialToolCount => e.initial_tool_count = e.initial_tool_count.stepped(step),
            Setting::MaxLoadedTools if step < 0 && e.max_loaded_tools.is_none() => {
                self.note = Some(least(name, "none: no cap"));
                return Outcome::Stay;
            }
            Setting::MaxLoadedTools => e.max_loaded_tools = step_optional(e.max_loaded_tools, step),
            Setting::MaxTools if step < 0 && e.max_tools.is_some_and(|v| v.get() <= 1) => {
                self.note = Some(least(name, "1"));
                return Outcome::Stay;
            }
            Setting::MaxTools => e.max_tools = step_max_tools(e.max_tools, step),
            Setting::Ranker => e.ranker = e.ranker.cycle(step < 0),
            Setting::Gate => e.gate = !e.gate,
            Setting::TokenBasis => {
                let basis = e.basis();
                e.token_basis = Some(if step > 0 { basis.next() } else { basis.prev() });
            }
        }
        // Shown as edited, put in force or refused (`Screen::applied`).
        self.edited = e.clone();
        Outcome::Apply(e)
    }
}

/// `max_tools` steps through the service's default: ... 7, default (not
/// set), 9 ...; never below 1.
fn step_max_tools(value: Option<MaxTools>, step: i64) -> Option<MaxTools> {
    let default = crate::service::DEFAULT_MAX_TOOLS;
    let next = value.unwrap_or(default).stepped(step.signum());
    (next != default).then_some(next)
}

/// `None` (no cap) -> 1 -> 2 ... and back the same way: down from 1
/// gives `None`.
fn step_optional(value: Option<MaxTools>, step: i64) -> Option<MaxTools> {
    match (value, step > 0) {
        (None, true) => MaxTools::new(1),
        (None, false) => None,
        (Some(v), true) => Some(v.stepped(1)),
        (Some(v), false) if v.get() <= 1 => None,
        (Some(v), false) => Some(v.stepped(-1)),
    }
}

/// Held from the start, on the settings in force.
pub fn start(setup: &Setup, screens: &mut Screens) {
    screens.hold(Box::new(SettingsEditor::new(&setup.settings)));
}

/// The popup opens on the settings in force (its row kept).
pub fn open(on: &On, screens: &mut Screens) -> Result<Vec<Effect>, Unopened> {
    screens
        .kept_mut(|| SettingsEditor::new(on.settings))
        .open(on.settings);
    screens.show(Popup::Settings);
    Ok(Vec::new())
}

impl Screen for SettingsEditor {
    fn id(&self) -> Popup {
        Popup::Settings
    }

    fn context(&self) -> Context {
        Context::Settings
    }

    fn keys(&self) -> &'static [KeyGroup] {
        KEYS
    }

    fn handle(&mut self, action: Action, _on: &On) -> Outcome {
        SettingsEditor::handle(self, action)
    }

    fn area(&self, on: &On) -> ratatui::layout::Rect {
        on.layout.settings_popup
    }

    fn draw(&self, f: &mut Frame, on: &On, theme: &Theme) {
        draw::draw(
            f,
            on.layout.settings_popup,
            self,
            on.settings,
            on.handle.initial_besides_always_load(),
            theme,
        );
    }

    /// The popup shows its own refusals.
    fn applied(&mut self, refused: Option<String>) -> Told {
        self.error = refused;
        Told::Shown
    }

    /// Closed, it opens afresh on the settings now in force.
    fn settings_replaced(&mut self, settings: &Settings) {
        *self = SettingsEditor::new(settings);
    }

    fn kept(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_shown_as_edited_and_a_replacement_opens_afresh() {
        let settings = Settings::default();
        let mut editor = SettingsEditor::new(&settings);
        editor.handle(Action::SettingsDown);
        let Outcome::Apply(asked) = editor.handle(Action::SettingsIncrease) else {
            panic!("a change asks for its settings in force");
        };
        assert_eq!(editor.edited, asked, "shown as edited, in force or not");
        assert_ne!(asked, settings);
        // Refused: the popup shows why; replaced while closed: afresh.
        assert_eq!(Screen::applied(&mut editor, Some("no".into())), Told::Shown);
        assert_eq!(editor.error.as_deref(), Some("no"));
        Screen::settings_replaced(&mut editor, &settings);
        assert_eq!(editor, SettingsEditor::new(&settings));
    }
}
