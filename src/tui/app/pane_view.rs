//! The panes' view of the app ([`PaneView`]), built in one place.

use super::{App, Focus, Popup};
use crate::tui::pane::view::{Focused, PaneView};

impl App {
    /// What the main screen's panes read of the app, now.
    pub fn pane_view(&self) -> PaneView<'_> {
        let detail_popup = self.popup() == Some(Popup::Detail);
        let current = self.current_tool();
        PaneView {
            catalog: &self.catalog,
            settings: &self.settings,
            handle: &self.handle,
            keymap: &self.keymap,
            focused: Focused {
                query: self.focus == Focus::Query,
                catalog: self.focus == Focus::Catalog,
                results: self.focus == Focus::Results,
                detail: self.focus == Focus::Detail || detail_popup,
            },
            detail_popup,
            catalog_view: &self.catalog_view,
            query: &self.query,
            search: &self.search,
            detail: &self.detail,
            picked: &self.picked,
            costs: self.costs.as_deref().map(Vec::as_slice),
            lints: &self.lints,
            findability: &self.findability,
            exact: self.exact(),
            servers: &self.mcp_servers,
            servers_starting: self.servers_starting(),
            mcp_live: self.mcp_live(),
            sent_initial: self.sent_initial(),
            full_catalog_offer: self.full_catalog_offer(),
            gateway_answered: self.gateway_answer().is_some(),
            gateway_standing: current.and_then(|(index, _)| self.gateway_standing(index)),
            current,
        }
    }
}
