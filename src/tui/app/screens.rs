//! The screens' keys: the screen in front says what a key asks of the app
//! (one [`Outcome`] for every screen), and this carries it out: effects
//! run, the screen closed, settings put in force, a query searched, an
//! export written.

use super::{App, Popup};
use crate::settings::Settings;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::screen::Outcome;
use crate::tui::screen::breaker::Breaking;
use crate::tui::screen::export::write_effect;
use crate::tui::screen::{compare, history};

impl App {
    /// Hands `action` to the screen in front and carries out its outcome.
    pub(super) fn on_screen(&mut self, action: Action) -> Vec<Effect> {
        let outcome = match self.popup {
            Some(Popup::Settings) => self.editor.handle(action),
            Some(Popup::Tune) => self.with_tune(|tune, on| tune.handle(action, on)),
            Some(Popup::Breaker) => match &mut self.breaker {
                Some(pane) => {
                    let on = Breaking {
                        catalog: &self.catalog,
                        tools: &self.catalog_view.rows,
                        host: self.mcp.as_ref(),
                    };
                    pane.handle(action, &on)
                }
                None => Outcome::Close,
            },
            Some(Popup::Export) => match &mut self.export {
                Some(b) => b.handle(action),
                None => Outcome::Close,
            },
            Some(Popup::Compare) => {
                let rows = compare::draw::list_rows(self.layout.compare, self.caching.is_some());
                match &mut self.compare {
                    Some(pane) => pane.handle(action, rows),
                    None => Outcome::Close,
                }
            }
            Some(Popup::Live) => {
                let rows = self.live_rows();
                match &mut self.live {
                    Some(live) => live.handle(action, rows),
                    None => Outcome::Close,
                }
            }
            Some(Popup::History) => match &mut self.history {
                Some(list) => {
                    let area = history::draw::area_for(self.layout.area, list);
                    list.handle(action, history::draw::list_rows(area))
                }
                None => Outcome::Close,
            },
            _ => Outcome::Stay,
        };
        self.carry_out(outcome)
    }

    fn carry_out(&mut self, outcome: Outcome) -> Vec<Effect> {
        match outcome {
            Outcome::Stay => Vec::new(),
            Outcome::Effects(effects) => effects,
            Outcome::Close => {
                // A screen opened on something (a request, the loaded
                // tools) goes; the breaker and Tune keep theirs.
                match self.popup {
                    Some(Popup::Export) => self.export = None,
                    Some(Popup::Compare) => self.compare = None,
                    Some(Popup::History) => self.history = None,
                    _ => {}
                }
                self.close()
            }
            Outcome::Apply(settings) => self.apply_from_screen(settings),
            Outcome::Search(query) => {
                self.history = None;
                self.popup = None;
                self.query.input.set(&query);
                let outcome = self.query.handle(Action::InputSubmit);
                self.on_query(outcome)
            }
            Outcome::Forget(left) => {
                self.query.history = left;
                if self.query.history.is_empty() {
                    self.history = None;
                    self.popup = None;
                    self.status = Some("the query history is empty now".into());
                }
                Vec::new()
            }
            Outcome::Export { format, path } => self.write_export(format, path),
            Outcome::Explain(explain) => self.explain(explain),
        }
    }

    /// Settings a screen puts in force; a refusal is told where the screen
    /// shows it.
    fn apply_from_screen(&mut self, settings: Settings) -> Vec<Effect> {
        match self.popup {
            Some(Popup::Tune) => {
                let effects = self.apply_settings(settings);
                if let Some(e) = self.editor.take_error() {
                    self.tune.refused(e);
                }
                effects
            }
            Some(Popup::Compare) => {
                let label = self
                    .compare
                    .as_ref()
                    .map_or(String::new(), |c| c.right().way.label.clone());
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
            // The settings popup shows its own refusals.
            _ => self.apply_settings(settings),
        }
    }

    /// The export written: the picked tools, else the loaded ones.
    fn write_export(
        &mut self,
        format: crate::provider::PayloadFormat,
        path: String,
    ) -> Vec<Effect> {
        self.tool_format = format;
        // The popup stays until the write is done: a failed one keeps the
        // path typed, to fix.
        let Some(indices) = self.export_set() else {
            self.export = None;
            self.popup = None;
            self.status = Some("nothing to export: no tools are loaded".into());
            return Vec::new();
        };
        let tools: Vec<_> = indices.iter().map(|&i| &self.catalog.tools()[i]).collect();
        match write_effect(format, path, &tools) {
            Ok(effect) => vec![effect],
            Err(why) => {
                if let Some(b) = &mut self.export {
                    b.message = Some(why);
                }
                Vec::new()
            }
        }
    }

    /// A file written (or not): said where the screen in front shows it;
    /// a failed export keeps its popup and path.
    pub(super) fn written(&mut self, result: Result<String, String>) -> Vec<Effect> {
        let failed = result.is_err();
        let message = result.unwrap_or_else(|e| format!("not written: {e}"));
        if self.popup == Some(Popup::Export) && failed {
            // The popup stays with the path typed, to fix.
            if let Some(b) = &mut self.export {
                b.message = Some(message);
            }
        } else if self.popup == Some(Popup::Export) {
            self.export = None;
            self.popup = None;
            self.status = Some(message);
        } else if self.popup == Some(Popup::Tune) {
            self.tune.message = Some(message);
        } else if self.popup == Some(Popup::Live)
            && let Some(live) = &mut self.live
        {
            live.message = Some(message);
        } else {
            self.status = Some(message);
        }
        Vec::new()
    }
}
