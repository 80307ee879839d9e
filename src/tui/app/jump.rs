//! From a result to its row in the catalog pane (`c`): the row
//! highlighted and the pane given the keys; a filter that hides the row
//! is lifted, and the message says so.

use super::{App, Focus};
use crate::terminal_text::escape;
use crate::tui::pane::catalog::Filter;

impl App {
    pub(super) fn show_in_catalog(&mut self) {
        let Some((index, _)) = self.current_tool() else {
            self.status = Some("no tool is highlighted".into());
            return;
        };
        self.show_index_in_catalog(index);
    }

    /// Tool `index`'s row highlighted in the catalog pane, which gets the
    /// keys.
    pub(super) fn show_index_in_catalog(&mut self, index: usize) {
        let name = escape(&self.catalog.tools()[index].name).into_owned();
        let mut lifted = Vec::new();
        if !self.catalog_view.rows.contains(&index) {
            if self.catalog_view.filter != Filter::All {
                lifted.push(format!("the {} filter", self.catalog_view.filter_label()));
                self.catalog_view.filter = Filter::All;
            }
            if !self.catalog_view.name_filter().is_empty() {
                lifted.push("the name filter".to_string());
                self.catalog_view.name = Default::default();
            }
            self.rebuild_view();
        }
        if let Some(row) = self.catalog_view.rows.iter().position(|&i| i == index) {
            self.catalog_view.list.selected = row;
            self.catalog_view.keep_visible(self.layout.list_rows());
        }
        self.focus = Focus::Catalog;
        self.last_list = Focus::Catalog;
        self.status = Some(if lifted.is_empty() {
            format!("{name}: its row in the catalog")
        } else {
            format!(
                "{name}: its row in the catalog ({} lifted)",
                lifted.join(" and ")
            )
        });
    }
}
