//! The Tune screen's initial set when a cap on loaded tools leaves fewer
//! than asked: the line says the arithmetic at every width.

use crossterm::event::KeyCode;

use super::tests::press;
use super::tests_finish::draw;
use super::tests_tune::tuned;
use super::*;
use crate::tools_handle::{InitialToolCount, MaxTools};

#[test]
fn raising_the_cap_says_why_the_initial_set_shrank_at_every_width() {
    let mut app = tuned();
    // The demo catalog has 4 always-load tools; cap 8 → 9 puts
    // max_loaded_tools 9 in force, which leaves 5 beside them.
    assert_eq!(app.always_load_count(), 4);
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(
        app.tune_current(),
        Some((MaxTools::of(9), InitialToolCount::new(5)))
    );
    for (w, h, said) in [
        (
            200,
            60,
            "initial set: asked 8, in force 5 (max_loaded_tools 9 leaves 5 beside the 4 always-load)",
        ),
        (
            120,
            35,
            "initial set: asked 8, in force 5 (max_loaded_tools 9 leaves 5 beside the 4 always-load)",
        ),
        (
            80,
            24,
            "initial set: asked 8, in force 5 (max_loaded 9 − 4 always-load)",
        ),
    ] {
        app.update(Msg::Resize(w, h));
        let rows = draw(&app);
        assert!(
            rows.iter().any(|r| r.contains(said)),
            "{w}x{h}:\n{}",
            rows.join("\n")
        );
        assert!(
            !rows.iter().any(|r| r.contains("the cap leaves no more")),
            "{w}x{h}: a reason with no figures"
        );
    }
}
