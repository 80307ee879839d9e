//! What crosses screens: settings put in force, an always-load flag
//! toggled, the catalog pane's rows rebuilt from the search and the costs.

use std::sync::Arc;

use super::App;
use crate::settings::Settings;
use crate::tui::effect::Effect;
use crate::tui::pane::catalog::ViewSource;

impl App {
    /// Why there is nothing to export, as the search stands.
    pub(super) fn nothing_to_export(&self) -> String {
        use crate::tui::pane::results::Results;
        match &self.search.results {
            Results::Waiting => "nothing to export yet: the first search has not come back".into(),
            Results::Failed(_) => format!(
                "nothing to export: the search failed, so no tools are loaded ({} retries)",
                self.keymap.label(crate::tui::action::Action::RetrySearch)
            ),
            Results::Found(_) if self.query.text().trim().is_empty() => {
                "nothing to export: an empty query loads only the always-load tools, and this catalog has none; type a query first".into()
            }
            Results::Found(_) => {
                "nothing to export: the search loaded no tools (none matched the query)".into()
            }
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
        let toggled = Arc::new(self.catalog.with_always_load(index, value));
        let name = toggled.tools()[index].name.clone();
        // The initial set, caps and their validation follow at once; a change
        // the SDK would refuse is refused, with its message.
        match self.settings.validate(&toggled) {
            Ok(handle) => {
                self.catalog = toggled;
                self.rejudge();
                self.handle = handle;
                self.status = Some(format!(
                    "{name}: always-load {}",
                    if value { "on" } else { "off" }
                ));
            }
            Err(e) => {
                self.status = Some(format!("{name} stays as it was: {e}"));
                return Vec::new();
            }
        }
        self.rebuild_view();
        vec![self.search_effect(true)]
    }

    /// Validates edited settings: valid ones take effect at once; invalid ones
    /// are shown with the SDK's message and the last valid ones stay in force.
    pub(super) fn apply_settings(&mut self, edited: Settings) -> Vec<Effect> {
        let handle = match edited.validate(&self.catalog) {
            Err(e) => {
                self.editor_mut().show(edited, Some(e.to_string()));
                return Vec::new();
            }
            Ok(handle) => handle,
        };
        // A ranker this explorer cannot run is refused here, not by every
        // search after.
        if let Some(why) = self.searcher.ranker_unavailable(edited.ranker) {
            self.editor_mut().show(edited, Some(why));
            return Vec::new();
        }
        self.editor_mut().show(edited.clone(), None);
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
        effects
    }
}
