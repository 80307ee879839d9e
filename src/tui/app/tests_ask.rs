//! What a screen asks of the app ([`Ask`]) answered as the panes show it:
//! the highlighted tool, the catalog's rows, the export's tools and where
//! they come from, the query box.

use crossterm::event::KeyCode;

use super::App;
use super::tests_finish::{key, sized};
use crate::tui::screen::{Ask, NothingToExport, ToolsFrom};

#[test]
fn a_screen_asks_what_the_panes_show() {
    let mut app = sized(120, 35);
    let highlighted = App::current_tool(&app).map(|(index, _)| index);
    assert!(highlighted.is_some());
    assert_eq!(Ask::current_tool(&app), highlighted);
    assert_eq!(Ask::rows(&app), app.catalog_view().rows.as_slice());
    assert_eq!((Ask::query(&app), Ask::regex(&app)), ("", false));
    let out = Ask::export(&app).expect("the always-load tools are loaded");
    assert_eq!(out.from, ToolsFrom::Loaded);
    assert!(!out.tools.is_empty());
    // Picked by hand: the export writes the pick.
    key(&mut app, KeyCode::Char(' '));
    let out = Ask::export(&app).expect("one tool picked");
    assert_eq!(out.from, ToolsFrom::Picked);
    let picked = &app.catalog().tools()[highlighted.unwrap()];
    assert_eq!(
        out.tools.iter().map(|t| &t.name).collect::<Vec<_>>(),
        [&picked.name]
    );
}

#[test]
fn the_export_says_why_there_is_nothing_before_the_first_search() {
    let (app, _effects) = super::tests::demo_setup(|_| {});
    assert_eq!(Ask::export(&app).unwrap_err(), NothingToExport::Waiting);
}
