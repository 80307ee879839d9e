//! The breaker simulator as a [`Screen`]: opened on the highlighted tool,
//! kept while closed (its log and streak survive), dropped when the
//! catalog is read again.

use ratatui::Frame;

use super::{BreakerPane, Breaking, CALL_KEYS, CONFIRM_KEYS, INPUT_KEYS, KEYS, draw};
use crate::tui::action::{Action, Context, KeyGroup};
use crate::tui::effect::Effect;
use crate::tui::paint::Theme;
use crate::tui::screen::job::Answer;
use crate::tui::screen::{On, Outcome, Popup, Screen, Screens, Unopened};

/// The screen opens on the highlighted tool (results or catalog), or says
/// there is none.
pub fn open(on: &On, screens: &mut Screens) -> Result<Vec<Effect>, Unopened> {
    let Some(index) = on.ask.current_tool() else {
        return Err(Unopened::NoTool);
    };
    match screens.get_mut::<BreakerPane>() {
        Some(pane) if pane.tool != index => pane.pick(on.catalog, index),
        Some(_) => {}
        None => screens.hold(Box::new(BreakerPane::new(on.catalog, index))),
    }
    screens.show(Popup::Breaker);
    Ok(Vec::new())
}

impl Screen for BreakerPane {
    fn id(&self) -> Popup {
        Popup::Breaker
    }

    fn context(&self) -> Context {
        if self.confirming() {
            Context::Confirm
        } else if self.is_typing() {
            Context::Input
        } else {
            Context::Breaker
        }
    }

    fn keys(&self) -> &'static [KeyGroup] {
        if self.confirming() {
            CONFIRM_KEYS
        } else if self.is_typing() {
            INPUT_KEYS
        } else if self.viewing().is_some() {
            CALL_KEYS
        } else {
            KEYS
        }
    }

    fn handle(&mut self, action: Action, on: &On) -> Outcome {
        let on = Breaking {
            catalog: on.catalog,
            tools: on.ask.rows(),
            host: on.ask.host(),
        };
        BreakerPane::handle(self, action, &on)
    }

    fn draw(&self, f: &mut Frame, on: &On, theme: &Theme) {
        let seen = draw::Seen {
            pane: self,
            catalog: on.catalog,
            keymap: on.keymap,
            mcp_live: on.ask.host().is_some(),
        };
        draw::draw(f, &self.layout(on.layout.body), &seen, theme);
    }

    fn type_text(&mut self, text: &str) {
        BreakerPane::type_text(self, text);
    }

    fn receive(&mut self, answer: &Answer, _on: &On) -> Vec<Effect> {
        self.answered(answer);
        Vec::new()
    }

    fn kept(&self) -> bool {
        true
    }

    fn of_catalog(&self) -> bool {
        true
    }
}
