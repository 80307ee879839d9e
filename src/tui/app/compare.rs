//! The comparison screen's part of the app: opened on the query box's
//! request, its keys and answers handed to it, a way it puts in force
//! applied as the settings popup would.

use std::sync::Arc;

use super::{App, Popup};
use crate::catalog::Catalog;
use crate::tui::action::Action;
use crate::tui::effect::{Effect, SearchRun};
use crate::tui::screen::Outcome;
use crate::tui::screen::compare::{ComparePane, Compared, draw};

impl App {
    /// Opens the comparison on the query box's request, or says why not.
    pub(super) fn open_compare(&mut self) -> Vec<Effect> {
        let on = Compared {
            catalog: &self.catalog,
            searcher: &self.searcher,
            settings: &self.settings,
            handle: &self.handle,
            query: self.query.text(),
            regex: self.query.is_regex(),
        };
        match ComparePane::open(&on) {
            Ok((pane, effects)) => {
                self.compare = Some(pane);
                self.popup = Some(Popup::Compare);
                effects
            }
            Err(why) => {
                self.status = Some(why);
                Vec::new()
            }
        }
    }

    pub(super) fn on_compare(&mut self, action: Action) -> Vec<Effect> {
        let rows = draw::list_rows(self.layout.compare);
        let Some(pane) = &mut self.compare else {
            return self.close();
        };
        match pane.handle(action, rows) {
            Outcome::Stay | Outcome::Search(_) | Outcome::Forget(_) => Vec::new(),
            Outcome::Effects(effects) => effects,
            Outcome::Close => {
                self.compare = None;
                self.close()
            }
            Outcome::Apply(settings) => {
                let label = pane.right().way.label.clone();
                let effects = self.apply_settings(settings);
                self.status = Some(match self.editor.take_error() {
                    Some(e) => format!("{label} not put in force: {e}"),
                    None => {
                        self.compare = None;
                        self.popup = None;
                        format!("{label} is in force (s: the settings)")
                    }
                });
                effects
            }
        }
    }

    /// A side's answer, for the comparison if it is still open.
    pub(super) fn compared(
        &mut self,
        generation: u64,
        right: bool,
        catalog: &Arc<Catalog>,
        run: SearchRun,
    ) -> Vec<Effect> {
        let Some(pane) = &mut self.compare else {
            return Vec::new();
        };
        if !pane.receive(generation, right, catalog, run) {
            return Vec::new();
        }
        pane.again(right).into_iter().collect()
    }

    /// The comparison screen, while open.
    pub fn compare(&self) -> Option<&ComparePane> {
        self.compare.as_ref()
    }
}
