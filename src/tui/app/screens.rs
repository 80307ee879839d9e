//! The full screens' and popups' keys: the breaker simulator, Tune and
//! the export popup, each asking its state what to do.

use super::App;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::breaker::{BreakerOutcome, Breaking};
use crate::tui::state::export::{ExportOutcome, write_effect};
use crate::tui::state::tune::{TuneOutcome, Tuned};

impl App {
    pub(super) fn on_breaker(&mut self, action: Action) -> Vec<Effect> {
        let Some(pane) = &mut self.breaker else {
            return self.close();
        };
        let on = Breaking {
            catalog: &self.catalog,
            tools: &self.catalog_view.rows,
            host: self.mcp.as_ref(),
        };
        match pane.handle(action, &on) {
            BreakerOutcome::Stay => Vec::new(),
            BreakerOutcome::Close => self.close(),
            BreakerOutcome::Effects(effects) => effects,
        }
    }

    pub(super) fn on_tune(&mut self, action: Action) -> Vec<Effect> {
        let on = Tuned {
            catalog: &self.catalog,
            settings: &self.settings,
            handle: &self.handle,
            keymap: &self.keymap,
        };
        match self.tune.handle(action, &on) {
            TuneOutcome::Stay => Vec::new(),
            TuneOutcome::Close => self.close(),
            TuneOutcome::Effects(effects) => effects,
            TuneOutcome::Apply(edited) => {
                let effects = self.apply_settings(edited);
                if let Some(e) = self.editor.take_error() {
                    self.tune.refused(e);
                }
                effects
            }
        }
    }

    pub(super) fn on_export(&mut self, action: Action) -> Vec<Effect> {
        let Some(b) = &mut self.export else {
            return self.close();
        };
        let (format, path) = match b.handle(action) {
            ExportOutcome::Stay => return Vec::new(),
            ExportOutcome::Close => {
                self.export = None;
                return self.close();
            }
            ExportOutcome::Write { format, path } => (format, path),
        };
        self.tool_format = format;
        self.export = None;
        self.popup = None;
        let Some(indices) = self.export_set() else {
            self.status = Some("nothing to export: no tools are loaded".into());
            return Vec::new();
        };
        let tools: Vec<_> = indices.iter().map(|&i| &self.catalog.tools()[i]).collect();
        match write_effect(format, path, &tools) {
            Ok(effect) => vec![effect],
            Err(why) => {
                self.status = Some(why);
                Vec::new()
            }
        }
    }
}
