//! A catalog file that changes while the explorer runs is read again: the
//! new tools show and the query is searched again; a file that no longer
//! reads keeps the last good catalog and says where it is wrong.

use std::sync::Arc;

use crossterm::event::KeyCode;

use super::tests::press;
use super::tests_finish::{draw, key};
use super::*;
use crate::catalog::{CatalogSource, load_all};

const TWO: &str = r#"
[[tool]]
name = "lookup_status"
description = "Look up the current service status"
read_only = true

[tool.input_schema]
type = "object"

[[tool]]
name = "send_invoice"
description = "Send an invoice to a customer"

[tool.input_schema]
type = "object"
"#;

const THIRD: &str = r#"
[[tool]]
name = "refund_payment"
description = "Refund a customer's payment"

[tool.input_schema]
type = "object"
"#;

/// The explorer on a catalog file it watches, drawn at 120x35.
fn watching(path: &std::path::Path) -> App {
    let sources = vec![CatalogSource::Path(path.to_path_buf())];
    let catalog = Arc::new(load_all(&sources).unwrap());
    let setup = Setup {
        reload: sources,
        ..Setup::new(catalog, Searcher::embedded())
    };
    let (mut app, effects) = App::new(setup).unwrap();
    app.update(Msg::Resize(120, 35));
    app.settle(effects);
    app
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolsift-reload-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("tools.toml")
}

#[test]
fn a_changed_file_is_read_again_and_the_query_searched_again() {
    let path = temp("grow");
    std::fs::write(&path, TWO).unwrap();
    let mut app = watching(&path);
    assert_eq!(app.watched_files(), std::slice::from_ref(&path));
    press(&mut app, KeyCode::Char('/'));
    for c in "refund the payment".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    press(&mut app, KeyCode::Esc);
    // A tool picked and the breaker opened on the old catalog.
    press(&mut app, KeyCode::Char(' '));
    assert_eq!(app.picked().len(), 1);
    std::fs::write(&path, format!("{TWO}{THIRD}")).unwrap();
    let effects = app.update(Msg::CatalogChanged);
    app.settle(effects);
    assert_eq!(app.catalog().len(), 3);
    assert!(
        app.picked().is_empty(),
        "picks pointed into the old catalog"
    );
    let rows = draw(&app);
    let text = rows.join("\n");
    assert!(text.contains("read again, 3 tools (were 2)"), "{text}");
    // The query in the box was searched on the new catalog.
    assert_eq!(app.search().query, "refund the payment");
    let found: Vec<&str> = match &app.search().results {
        crate::tui::pane::results::Results::Found(r) => r
            .tools
            .iter()
            .map(|h| app.catalog().tools()[h.index].name.as_str())
            .collect(),
        other => panic!("{other:?}"),
    };
    assert!(found.contains(&"refund_payment"), "{found:?}");
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

#[test]
fn a_file_that_no_longer_reads_keeps_the_last_good_catalog() {
    let path = temp("break");
    std::fs::write(&path, TWO).unwrap();
    let mut app = watching(&path);
    std::fs::write(&path, "[[tool]]\nname = \"half").unwrap();
    let effects = app.update(Msg::CatalogChanged);
    app.settle(effects);
    assert_eq!(app.catalog().len(), 2);
    let status = app.status().unwrap_or_default().to_string();
    assert!(status.contains("the last good one stays"), "{status}");
    assert!(status.contains("tools.toml"), "names the file: {status}");
    // At 120 columns the bottom line gives where the file is wrong whole.
    app.update(Msg::Resize(120, 35));
    let rows = super::tests_finish::draw(&app);
    let bottom = super::tests_finish::message(&rows);
    let at = status.split(" (the catalog").next().unwrap();
    assert!(bottom.contains(at), "{bottom:?} lacks {at:?}");
    // Still usable: a key draws the explorer on the old catalog.
    let rows = key(&mut app, KeyCode::Char('j'));
    assert!(rows.join("\n").contains("send_invoice"));
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

#[test]
fn a_catalog_not_from_files_is_not_watched() {
    let app = super::tests::started();
    assert!(app.watched_files().is_empty());
}
