//! A catalog file that changed on disk, read again: the new catalog takes
//! the old one's place if the settings in force fit it; everything that
//! pointed into the old one (results, the breaker's tool, picks, the
//! comparison, counts, audits) starts afresh, and the query is searched
//! again. A file that no longer reads leaves the last good catalog in
//! place, and says why (file, line, tool).

use std::path::PathBuf;
use std::sync::Arc;

use super::App;
use crate::catalog::{Catalog, CatalogSource};
use crate::tui::effect::Effect;
use crate::tui::pane::catalog::CatalogView;
use crate::tui::pane::detail::DetailState;
use crate::tui::pane::results::SearchState;

impl App {
    /// The files the explorer watches (none: nothing is read again).
    pub fn watched_files(&self) -> Vec<PathBuf> {
        self.reload
            .iter()
            .filter_map(|s| match s {
                CatalogSource::Path(p) => Some(p.clone()),
                _ => None,
            })
            .collect()
    }

    /// A watched file changed: read the catalog again.
    pub(super) fn catalog_changed(&mut self) -> Vec<Effect> {
        if self.reload.is_empty() {
            return Vec::new();
        }
        vec![Effect::LoadCatalog {
            sources: self.reload.clone(),
        }]
    }

    /// The catalog read again, or why it could not be.
    pub(super) fn catalog_loaded(
        &mut self,
        loaded: Result<Arc<Catalog>, Arc<crate::catalog::CatalogError>>,
    ) -> Vec<Effect> {
        let catalog = match loaded {
            Ok(c) => c,
            Err(e) if self.opening.is_some() => {
                let (name, _) = self.opening.take().unwrap_or_default();
                self.status = Some(format!(
                    "{e} (:open {}: the catalog in view stays)",
                    crate::terminal_text::escape(&name)
                ));
                return Vec::new();
            }
            Err(e) => {
                // The error first: on a narrow line what gives way is the
                // reminder, not where the file is wrong.
                self.status = Some(format!(
                    "{e} (the catalog changed but does not read: the last good one stays)"
                ));
                return Vec::new();
            }
        };
        let opened = self.opening.take();
        let handle = match self.settings.validate(&catalog) {
            Ok(h) => h,
            Err(e) if opened.is_some() => {
                self.status = Some(format!(
                    "{e} (the settings in force do not fit the catalog opened: the one in view stays)"
                ));
                return Vec::new();
            }
            Err(e) => {
                self.status = Some(format!(
                    "{e} (the catalog changed, but the settings in force do not fit it: the last good one stays)"
                ));
                return Vec::new();
            }
        };
        let before = self.catalog.len();
        self.catalog = catalog;
        self.handle = handle;
        // What pointed into the old catalog starts afresh.
        let (sort, filter) = (self.catalog_view.sort, self.catalog_view.filter);
        self.catalog_view = CatalogView::new(&self.catalog);
        self.catalog_view.sort = sort;
        self.catalog_view.filter = filter;
        self.search = SearchState::new(self.search.context_budget());
        self.detail = DetailState::default();
        self.costs = None;
        self.lints.clear();
        self.findability.clear();
        self.screens.drop_of_catalog();
        self.picked.clear();
        self.exact = self.exact.as_ref().map(|e| e.afresh());
        self.warming = super::warm::Warming::start();
        self.rebuild_view();
        self.rejudge();
        self.status = Some(match opened {
            Some((name, sources)) => {
                self.reload = sources;
                self.sources = name;
                format!(
                    "opened {}: {} tools (were {before})",
                    crate::terminal_text::escape(&self.sources),
                    self.catalog.len()
                )
            }
            None => format!(
                "the catalog changed on disk: read again, {} tools (were {before})",
                self.catalog.len()
            ),
        });
        let mut effects = self.start_effects();
        // The query in the box, searched again once the new catalog is
        // warm (the start's search is of the query box's text).
        effects.extend(self.exact_next());
        effects
    }
}
