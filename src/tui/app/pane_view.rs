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

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    use super::super::tests::{press, started};
    use super::*;
    use crate::tui::effect::Msg;

    #[test]
    fn the_panes_see_the_focus_the_current_tool_and_the_detail_popup() {
        let mut app = started();
        press(&mut app, KeyCode::Tab);
        assert_eq!(app.focus(), Focus::Results);
        let view = app.pane_view();
        let results = Focused {
            results: true,
            ..Focused::default()
        };
        assert_eq!(view.focused, results);
        assert!(!view.detail_popup);
        assert_eq!(view.current, app.current_tool());
        assert!(view.current.is_some());
        // Narrow: the detail stands as a popup, and has the keys.
        app.update(Msg::Resize(90, 30));
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.popup(), Some(Popup::Detail));
        let view = app.pane_view();
        assert!(view.detail_popup && view.focused.detail);
    }
}
