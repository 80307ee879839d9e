//! The token basis through the app: a search names one only when the user
//! chose it.

use crossterm::event::KeyCode;

use super::tests::{key, press, settle, started};
use super::*;

#[test]
fn a_search_names_a_token_basis_only_when_one_was_chosen() {
    let mut app = started();
    let bodies = |app: &App, effects: &[Effect]| -> Vec<serde_json::Value> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Search { request, .. } => {
                    Some(serde_json::to_value(request.body(app.catalog())).unwrap())
                }
                _ => None,
            })
            .collect()
    };
    press(&mut app, KeyCode::Char('/'));
    let effects = app.update(key(KeyCode::Char('x')));
    let sent = bodies(&app, &effects);
    assert_eq!(sent.len(), 1);
    assert!(sent[0].get("token_basis").is_none(), "{}", sent[0]);
    settle(&mut app, effects);
    press(&mut app, KeyCode::Esc);
    // Chosen in the settings: every search names it from then on.
    press(&mut app, KeyCode::Char('s'));
    for _ in 0..5 {
        press(&mut app, KeyCode::Down);
    }
    let effects = app.update(key(KeyCode::Right));
    let sent = bodies(&app, &effects);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["token_basis"], "cl100k_base");
}
