//! The catalog pane on real catalogs (the GitHub MCP server's 117 tools,
//! BFCL's 2,101), from 80 to 200 columns: every row keeps its token figure
//! and its flags' column, a cut name ends in `…`, and a number is never
//! cut.

use toolsift::tui::app::App;
use toolsift::tui::effect::Msg;

use crate::common::explorer::{drawn, open, setup_of};

fn explorer(source: &str) -> App {
    open(setup_of(source), 120, 35)
}

/// The catalog pane's rows (inside its borders) at `w` x `h`.
fn catalog_rows(app: &mut App, w: u16, h: u16) -> Vec<String> {
    app.update(Msg::Resize(w, h));
    let buffer = drawn(app);
    let r = app.layout().catalog;
    (r.y + 1..r.bottom() - 1)
        .map(|y| {
            (r.x + 1..r.right() - 1)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect()
}

fn check(source: &str) {
    let mut app = explorer(source);
    let mut failures = Vec::new();
    for (w, h) in (80..=200u16)
        .step_by(8)
        .map(|w| (w, 24))
        .chain([(120, 35), (200, 60)])
    {
        let rows = catalog_rows(&mut app, w, h);
        // The column headers first, the token column's over its figures.
        let header = rows[0].trim_end();
        if !((header.starts_with(" flags") || header.starts_with(" ★RI"))
            && (header.ends_with(" tk") || header.ends_with(" tokens")))
        {
            failures.push(format!(
                "{source} {w}x{h}: no column headers in {:?}",
                rows[0]
            ));
        }
        for row in rows.iter().skip(1).filter(|r| !r.trim().is_empty()) {
            // `› ★RI name…  10.4k ●◆◌`: the marks at the end, a token
            // figure before them (a number, maybe shortened: 268, 10.4k).
            let body = row.trim_end_matches([' ', '●', '◆', '◌', '!']);
            let figure = body.rsplit(' ').next().unwrap_or_default();
            let tk = body.ends_with(" tk");
            let number = if tk {
                body.trim_end_matches(" tk")
                    .rsplit(' ')
                    .next()
                    .unwrap_or_default()
            } else {
                figure
            };
            let is_number = !number.is_empty()
                && number
                    .trim_end_matches(['k', 'M'])
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == ',' || c == '.');
            if !is_number {
                failures.push(format!("{source} {w}x{h}: no token figure in {row:?}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(8)].join("\n")
    );
}

#[test]
fn the_github_catalog_keeps_its_token_column_at_every_width() {
    check("@github-mcp");
}

#[test]
fn bfcl_keeps_its_token_column_at_every_width() {
    check(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/eval/bfcl-dev/catalog.json"
    ));
}
