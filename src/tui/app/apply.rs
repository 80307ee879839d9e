//! What crosses screens: settings put in force, an always-load flag
//! toggled, the catalog pane's rows rebuilt from the search and the costs.

use std::sync::Arc;

use super::App;
use crate::settings::Settings;
use crate::tui::effect::Effect;
use crate::tui::pane::catalog::ViewSource;
use crate::tui::screen::NothingToExport;

/// Why edited settings were not put in force.
#[derive(Debug, thiserror::Error)]
pub(super) enum Refused {
    /// The SDK's check of the settings on the catalog.
    #[error(transparent)]
    Invalid(#[from] crate::tools_handle::SelectError),
    /// A ranker this explorer cannot run, and why.
    #[error("{0}")]
    Ranker(String),
}

impl App {
    /// Why there is nothing to export, as the search stands.
    pub(super) fn nothing_to_export(&self) -> NothingToExport {
        use crate::tui::pane::results::Results;
        match &self.search.results {
            Results::Waiting => NothingToExport::Waiting,
            Results::Failed(_) => NothingToExport::Failed {
                retry: self.keymap.label(crate::tui::action::Action::RetrySearch),
            },
            Results::Found(_) if self.query.text().trim().is_empty() => NothingToExport::EmptyQuery,
            Results::Found(_) => NothingToExport::NoneMatched,
        }
    }

    /// Recomputes the catalog pane's rows.
    pub(super) fn rebuild_view(&mut self) {
        let search = &self.search;
        let selected = |i: usize| search.hit(i).is_some();
        let src = ViewSource {
            catalog: &self.catalog,
            handle: &self.handle,
            costs: self.costs.as_deref().map(Vec::as_slice),
            selected: &selected,
            height: self.layout.list_rows(),
        };
        self.catalog_view.rebuild(&src);
    }

    pub(super) fn toggle_always_load(&mut self) -> Vec<Effect> {
        if !self.picked.is_empty() {
            return self.toggle_always_load_picked();
        }
        // The tool the detail shows, whichever pane leads to it.
        let Some((index, _)) = self.current_tool() else {
            return Vec::new();
        };
        if self.search.row_of(index).is_some() && self.shows_results_tool() {
            // The list re-sorts (always-load tools first): the highlight
            // stays on this tool, so a second press undoes the first.
            self.search.follow = Some(index);
        }
        let value = !self.catalog.tools()[index].always_load;
        let toggled = self.catalog.with_always_load(index, value);
        let name = toggled.tools()[index].name.clone();
        let said = format!("{name}: always-load {}", if value { "on" } else { "off" });
        self.put_always_load(toggled, said, format!("{name} stays as it was"))
    }

    /// Puts `toggled` (the catalog with always-load flags changed) in
    /// force when the settings still validate on it (the initial set,
    /// caps and their validation follow at once), saying `said`, and
    /// searches again; a change the SDK would refuse is refused, the
    /// bottom line saying `refused: ` and the SDK's message.
    pub(super) fn put_always_load(
        &mut self,
        toggled: crate::catalog::Catalog,
        said: String,
        refused: String,
    ) -> Vec<Effect> {
        let toggled = Arc::new(toggled);
        match self.settings.validate(&toggled) {
            Ok(handle) => {
                self.catalog = toggled;
                self.rejudge();
                self.handle = handle;
                self.status = Some(said);
                self.rebuild_view();
                vec![self.search_effect(true)]
            }
            Err(e) => {
                self.status = Some(format!("{refused}: {e}"));
                Vec::new()
            }
        }
    }

    /// Validates edited settings: valid ones take effect at once (what
    /// they run is returned); invalid ones are refused with the SDK's
    /// message and the last valid ones stay in force.
    pub(super) fn apply_settings(&mut self, edited: Settings) -> Result<Vec<Effect>, Refused> {
        let handle = edited.validate(&self.catalog)?;
        // A ranker this explorer cannot run is refused here, not by every
        // search after.
        if let Some(why) = self.searcher.ranker_unavailable(edited.ranker) {
            return Err(Refused::Ranker(why));
        }
        let basis_changed = edited.basis() != self.settings.basis();
        self.settings = edited;
        self.handle = handle;
        self.rebuild_view();
        let mut effects = Vec::new();
        if basis_changed {
            self.costs = None;
            effects.push(self.costs_effect());
        }
        effects.push(self.search_effect(true));
        // The screen in front runs what these settings change for it.
        effects.extend(self.with_screens(|screens, on| {
            screens
                .front_screen_mut()
                .map_or_else(Vec::new, |screen| screen.settings_changed(on))
        }));
        Ok(effects)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::started;

    #[test]
    fn always_load_put_in_force_says_so_and_searches_again() {
        let mut app = started();
        let toggled = app.catalog.with_always_load(0, true);
        let effects = app.put_always_load(toggled, "said".into(), "refused".into());
        assert!(app.tool(0).always_load);
        assert_eq!(app.status(), Some("said"));
        assert_eq!(effects.len(), 1, "the search again");
    }

    #[test]
    fn always_load_the_settings_refuse_stays_as_it_was() {
        let mut app = started();
        let mut settings = app.settings().clone();
        settings.max_loaded_tools = crate::tools_handle::MaxTools::new(4);
        app.apply_settings(settings).expect("valid settings");
        let toggled = app.catalog.with_always_load(0, true);
        let effects = app.put_always_load(toggled, "said".into(), "refused".into());
        assert!(!app.tool(0).always_load);
        assert!(effects.is_empty());
        let status = app.status().unwrap();
        assert!(status.starts_with("refused: "), "{status}");
        assert!(
            status.contains("max_loaded_tools must be at least"),
            "{status}"
        );
    }
}
