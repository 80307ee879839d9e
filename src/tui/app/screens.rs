//! The screens through their registry: what the screens see of the app
//! ([`On`]), a screen opened, the action handed to the screen in front and
//! its [`Outcome`] carried out (effects run, the screen closed, settings
//! put in force, a query searched, an export written), and a message told
//! where the screen in front shows it. No screen is named here.

use super::App;
use crate::settings::Settings;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::layout::ScreenLayout;
use crate::tui::screen::job::Answer;
use crate::tui::screen::{On, Open, Outcome, Screens, Told};

impl App {
    /// What the screens see of the app, laid out as `layout` says (the
    /// rest they ask of it, `app/ask.rs`).
    pub fn on<'a>(&'a self, layout: &'a ScreenLayout) -> On<'a> {
        On {
            catalog: &self.catalog,
            settings: &self.settings,
            handle: &self.handle,
            keymap: &self.keymap,
            layout,
            ask: self,
        }
    }

    /// What the screen (or popup) in front covers, if one is.
    pub fn front_area(&self) -> Option<ratatui::layout::Rect> {
        match self.screens.front()? {
            super::Popup::Detail => Some(self.layout.detail_popup),
            _ => Some(self.screens.front_screen()?.area(&self.on(&self.layout))),
        }
    }

    /// `f` on the registry, with what the screens see of the app.
    pub(super) fn with_screens<R>(&mut self, f: impl FnOnce(&mut Screens, &On) -> R) -> R {
        let mut screens = std::mem::take(&mut self.screens);
        let result = f(&mut screens, &self.on(&self.layout));
        self.screens = screens;
        result
    }

    /// Opens a screen, or says why it cannot open.
    pub(super) fn open_screen(&mut self, open: Open) -> Vec<Effect> {
        match self.with_screens(|screens, on| open(on, screens)) {
            Ok(effects) => effects,
            Err(why) => {
                self.status = Some(why.to_string());
                Vec::new()
            }
        }
    }

    /// Hands `action` to the screen in front and carries out its outcome.
    pub(super) fn on_screen(&mut self, action: Action) -> Vec<Effect> {
        let outcome = self.with_screens(|screens, on| {
            screens
                .front_screen_mut()
                .map(|screen| screen.handle(action, on))
        });
        self.carry_out(outcome.unwrap_or(Outcome::Close))
    }

    /// A job's answer, for the screen that asked (if it is still held).
    pub(super) fn screen_answered(&mut self, answer: &Answer) -> Vec<Effect> {
        self.with_screens(|screens, on| {
            screens
                .held_mut(answer.screen)
                .map_or_else(Vec::new, |screen| screen.receive(answer, on))
        })
    }

    /// A key no action of the screen in front has: the screen may say so.
    pub(super) fn unbound(&mut self, key: &crossterm::event::KeyEvent) -> Vec<Effect> {
        let name = crate::tui::keymap::Key::from_event(key)
            .map_or_else(|| "that key".to_string(), |k| k.to_string());
        if self.screens.front_screen().is_none() {
            self.unbound_here(key);
            return Vec::new();
        }
        self.with_screens(|screens, on| {
            if let Some(screen) = screens.front_screen_mut() {
                screen.unbound(&name, on);
            }
        });
        Vec::new()
    }

    fn carry_out(&mut self, outcome: Outcome) -> Vec<Effect> {
        match outcome {
            Outcome::Stay => Vec::new(),
            Outcome::Effects(effects) => effects,
            Outcome::Close => {
                self.screens.close();
                Vec::new()
            }
            Outcome::Apply(settings) => self.apply_from_screen(settings),
            Outcome::Search(query) => {
                self.screens.close_all();
                self.query.input.set(&query);
                let outcome = self.query.handle(Action::InputSubmit);
                self.on_query(outcome)
            }
            Outcome::Forget(left) => {
                self.query.history = left;
                if self.query.history.is_empty() {
                    self.screens.close();
                    self.status = Some("the query history is empty now".into());
                }
                Vec::new()
            }
            Outcome::Export { format, write } => self.write_export(format, write),
            Outcome::Explain(explain) => self.explain(explain),
        }
    }

    /// Settings a screen puts in force; the screen says where a refusal
    /// (or the success) shows.
    fn apply_from_screen(&mut self, settings: Settings) -> Vec<Effect> {
        let (effects, refused) = match self.apply_settings(settings) {
            Ok(effects) => (effects, None),
            Err(why) => (Vec::new(), Some(why.to_string())),
        };
        let told = self
            .screens
            .front_screen_mut()
            .map(|screen| screen.applied(refused));
        self.told(told);
        effects
    }

    /// A message where the screen in front said it goes.
    pub(super) fn told(&mut self, told: Option<Told>) {
        match told {
            Some(Told::Close(message)) => {
                self.screens.close();
                self.status = Some(message);
            }
            Some(Told::Elsewhere(message)) => self.status = Some(message),
            Some(Told::Shown) | None => {}
        }
    }

    /// The export's write (the popup stays until it is done: a failed
    /// one keeps the path typed, to fix), on the format it chose.
    fn write_export(
        &mut self,
        format: crate::provider::PayloadFormat,
        write: Result<Effect, Told>,
    ) -> Vec<Effect> {
        self.tool_format = format;
        match write {
            Ok(effect) => vec![effect],
            Err(told) => {
                self.told(Some(told));
                Vec::new()
            }
        }
    }

    /// A file written (or not): said where the screen in front shows it.
    pub(super) fn written(
        &mut self,
        result: Result<String, crate::tui::effect::NotWritten>,
    ) -> Vec<Effect> {
        let failed = result.is_err();
        let message = result.unwrap_or_else(|e| format!("not written: {e}"));
        let told = match self.screens.front_screen_mut() {
            Some(screen) => screen.tell(message, failed),
            None => Told::Elsewhere(message),
        };
        self.told(Some(told));
        Vec::new()
    }
}
