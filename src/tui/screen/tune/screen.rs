//! The Tune screen as a [`Screen`]: kept from the start (its measurement
//! and request file survive closing), opened on the settings in force.

use ratatui::Frame;

use super::{INPUT_KEYS, KEYS, TunePane, Tuned, current, draw};
use crate::tui::action::{Action, Context, KeyGroup};
use crate::tui::effect::Effect;
use crate::tui::paint::Theme;
use crate::tui::screen::job::Answer;
use crate::tui::screen::{On, Outcome, Popup, Screen, Screens, Told, Unopened};
use crate::tui::setup::Setup;

/// What the screen measures and applies against.
fn tuned<'a>(on: &'a On) -> Tuned<'a> {
    Tuned {
        catalog: on.catalog,
        settings: on.settings,
        ranker_chosen: on.ask.ranker_chosen(),
        handle: on.handle,
        keymap: on.keymap,
    }
}

/// Held from the start, on the request file and config the explorer was
/// given.
pub fn start(setup: &Setup, screens: &mut Screens) {
    let tune = TunePane::new(setup.queries.clone(), setup.config_path.clone());
    screens.hold(Box::new(tune));
}

/// The screen opens on the settings in force: the prompt for a request
/// file if there is none yet, else a measurement if the one shown is not
/// for them.
pub fn open(on: &On, screens: &mut Screens) -> Result<Vec<Effect>, Unopened> {
    let tune = screens.kept_mut(|| TunePane::new(None, None));
    let effects = tune.open(&tuned(on));
    screens.show(Popup::Tune);
    Ok(effects)
}

impl Screen for TunePane {
    fn id(&self) -> Popup {
        Popup::Tune
    }

    fn context(&self) -> Context {
        if self.is_typing() {
            Context::Input
        } else {
            Context::Tune
        }
    }

    fn keys(&self) -> &'static [KeyGroup] {
        if self.is_typing() { INPUT_KEYS } else { KEYS }
    }

    fn handle(&mut self, action: Action, on: &On) -> Outcome {
        TunePane::handle(self, action, &tuned(on))
    }

    fn draw(&self, f: &mut Frame, on: &On, theme: &Theme) {
        let seen = draw::Seen {
            tune: self,
            keymap: on.keymap,
            settings: on.settings,
            handle: on.handle,
            current: current(on.catalog, on.settings, on.handle),
            always_load: on.catalog.always_load_indices().len(),
        };
        draw::draw(f, &super::layout::layout(on.layout.body), &seen, theme);
    }

    fn type_text(&mut self, text: &str) {
        TunePane::type_text(self, text);
    }

    fn receive(&mut self, answer: &Answer, _on: &On) -> Vec<Effect> {
        self.measured(answer);
        Vec::new()
    }

    fn tell(&mut self, message: String, _failed: bool) -> Told {
        self.message = Some(message);
        Told::Shown
    }

    fn applied(&mut self, refused: Option<String>) -> Told {
        if let Some(e) = refused {
            self.refused(e);
        }
        Told::Shown
    }

    /// A measurement for the settings now in force, if the one shown is
    /// not for them.
    fn settings_changed(&mut self, on: &On) -> Vec<Effect> {
        self.effects(on.catalog, on.settings)
    }

    fn kept(&self) -> bool {
        true
    }
}
