//! The bottom line's messages: one longer than the line is read whole, its
//! first lines over the rows above, at every size; one that fits stays on
//! the line alone.

use crossterm::event::KeyCode;

use crate::common::explorer::{demo as app, press, rows, words};

#[test]
fn a_message_longer_than_the_line_is_shown_whole() {
    for (w, h) in [(80, 24), (120, 35), (200, 60)] {
        let mut app = app(w, h);
        // Esc with nothing to leave says what Esc does: a long sentence.
        press(&mut app, KeyCode::Esc);
        let message = app
            .status()
            .expect("Esc says why it did nothing")
            .to_string();
        let screen = rows(&app);
        // From the rule over the message's first lines, if it has any.
        let from = screen
            .iter()
            .rposition(|r| r.chars().all(|c| c == '─'))
            .map_or(screen.len() - 1, |rule| rule + 1);
        let shown = words(&screen[from..]).join(" ");
        assert!(
            shown.contains(&message),
            "{w}x{h}: {message:?} not whole in {:#?}",
            &screen[from..]
        );
        // Help and quit stay on the bottom line.
        let last = screen.last().unwrap();
        assert!(
            last.contains("? help") && last.contains("q quit"),
            "{w}x{h}: {last:?}"
        );
        // The next key clears it, and the rows above are the panes again.
        press(&mut app, KeyCode::Char('j'));
        let after = rows(&app);
        assert!(
            !words(&after).join(" ").contains("nothing to leave"),
            "{w}x{h}"
        );
    }
}
