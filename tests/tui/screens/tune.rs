//! The Tune screen, the export popup, why a tool was not found, and a
//! request no tool fits.

use crossterm::event::KeyCode;

use toolsift::tui::app::App;

use crate::common::explorer::{demo as app, demo_with as app_with, keys, screen, type_text};
use toolsift::tui::screen::tune::TunePane;

fn tune_screen(width: u16, height: u16) -> App {
    let mut app = app_with(width, height, |s| s.queries = Some("@demo".into()));
    keys(&mut app, &[KeyCode::Char('t')]);
    assert!(app.screen::<TunePane>().unwrap().report().is_some());
    app
}

#[test]
fn tune_at_80x24() {
    let app = tune_screen(80, 24);
    let s = screen(&app);
    // The marks, their figures, and the ways out stay visible.
    assert!(s.contains("█ now") && s.contains("• recommended"), "{s}");
    assert!(s.contains("back"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn tune_at_200x60_with_the_table() {
    let app = tune_screen(200, 60);
    let s = screen(&app);
    assert!(s.contains("cap  loaded  lenient"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn tune_after_applying_the_recommendation() {
    let mut app = tune_screen(120, 35);
    keys(&mut app, &[KeyCode::Char('a')]);
    let s = screen(&app);
    assert!(s.contains("applied: max_loaded_tools"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn tune_prompt_for_a_request_file() {
    let mut app = app(80, 24);
    keys(&mut app, &[KeyCode::Char('t')]);
    type_text(&mut app, "evals/requests.jsonl");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn export_popup_at_80x24() {
    let mut app = app(80, 24);
    keys(&mut app, &[KeyCode::Char('x'), KeyCode::Down]);
    let s = screen(&app);
    assert!(s.contains("openai-chat"), "{s}");
    insta::assert_snapshot!(s);
}

/// A tool the search did not load, its detail saying why; the results
/// pane showing what just missed the cap.
fn why_not_found(width: u16, height: u16) -> App {
    let mut app = app(width, height);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "refund a payment");
    // Esc, not Enter: a committed query opens a session (a random id).
    keys(&mut app, &[KeyCode::Esc, KeyCode::Char('&')]);
    type_text(&mut app, "billing");
    keys(&mut app, &[KeyCode::Enter]);
    if width < 100 {
        keys(&mut app, &[KeyCode::Enter]);
    }
    app
}

#[test]
fn why_not_found_at_80x24_120x35_and_200x60() {
    // What each size must show, beside its snapshot.
    let sizes: [(u16, u16, &[&str]); 3] = [
        (80, 24, &["not loaded: ranked", "below the cap of 8"]),
        (
            120,
            35,
            &[
                "below the cap of 8 (4 always-load), next",
                "get_billing_account",
            ],
        ),
        (
            200,
            60,
            &[
                "standing: not loaded: ranked",
                "matched: payment",
                "not matched: refund",
            ],
        ),
    ];
    for (w, h, shown) in sizes {
        let s = screen(&why_not_found(w, h));
        for text in shown {
            assert!(s.contains(text), "{w}x{h}: {text:?} missing\n{s}");
        }
        insta::assert_snapshot!(format!("why_not_found_at_{w}x{h}"), s);
    }
}

/// A request no demo tool fits: the results pane says so and names the
/// nearest tools the relevance gate held back; a held-back tool's detail
/// says why it was not loaded.
fn no_tool_fits(width: u16, height: u16) -> App {
    let mut app = app(width, height);
    keys(&mut app, &[KeyCode::Char('/')]);
    type_text(&mut app, "show the weather in Paris");
    keys(&mut app, &[KeyCode::Esc, KeyCode::Char('&')]);
    type_text(&mut app, "send_email");
    keys(&mut app, &[KeyCode::Enter]);
    if width < 100 {
        keys(&mut app, &[KeyCode::Enter]);
    }
    app
}

#[test]
fn no_tool_fits_at_80x24_and_200x60() {
    let sizes: [(u16, u16, &[&str]); 2] = [
        (80, 24, &["but no tool fits this request"]),
        (
            200,
            60,
            &[
                "no tool fits this request",
                "nearest, held back",
                "get_billing_account  fit 0.5/1.5",
                "send_email           fit 0.5/1.5",
                "standing: not loaded: ranked 2nd, but no tool fits",
            ],
        ),
    ];
    for (w, h, shown) in sizes {
        let s = screen(&no_tool_fits(w, h));
        for text in shown {
            assert!(s.contains(text), "{w}x{h}: {text:?} missing\n{s}");
        }
        insta::assert_snapshot!(format!("no_tool_fits_at_{w}x{h}"), s);
    }
}

#[test]
fn tune_table_says_which_caps_it_cannot_show() {
    // At 120x35 the table holds fewer rows than the caps measured: a line
    // names the caps below it, and moving the cap moves the window.
    let mut app = tune_screen(120, 35);
    let s = screen(&app);
    if s.contains("cap  loaded  lenient") {
        let last = app
            .screen::<TunePane>()
            .unwrap()
            .report()
            .unwrap()
            .points
            .last()
            .unwrap()
            .max_tools;
        let shown_last = s.contains(&format!(" {last:>4}  "));
        assert!(
            shown_last || s.contains(&format!("-{last} below")),
            "cap {last} is shown or named: {s}"
        );
        keys(&mut app, &[KeyCode::Char('+'); 40]);
        let s = screen(&app);
        assert!(s.contains(&format!(" {last:>4}  ")), "{s}");
    }
}
