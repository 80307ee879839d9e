//! The explorer in front of a remote service: its header, a failed
//! search, a service's error and the retry key.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use toolsift::catalog::{CatalogSource, load};
use toolsift::search::Searcher;
use toolsift::tui::Setup;
use toolsift::tui::app::App;
use toolsift::tui::effect::{Effect, Msg};

use crate::common::explorer::{LATENCY, keys, screen, settle_by};

/// Runs `effects` (and those their answers cause) with `searcher`.
fn answer_with(searcher: &Searcher, app: &mut App, effects: Vec<Effect>) {
    settle_by(searcher, app, effects, |_| false);
}

/// The explorer with a remote searcher (`URL` is never reached: answers
/// are fed in by the test).
fn remote_app(width: u16, height: u16) -> (App, Vec<Effect>) {
    use toolsift::client::{Client, ClientConfig, ClientSettings};
    let settings = ClientSettings {
        service: Some("http://127.0.0.1:8787".into()),
        ..ClientSettings::default()
    };
    let config = ClientConfig::resolve(&settings, &|_| None)
        .unwrap()
        .unwrap();
    let catalog = Arc::new(load(&CatalogSource::demo()).unwrap());
    let (mut app, effects) = App::new(Setup {
        sources: "demo".into(),
        ..Setup::new(catalog, Searcher::remote(Client::new(config).unwrap()))
    })
    .unwrap();
    app.update(Msg::Resize(width, height));
    (app, effects)
}

/// Runs `effects` with the embedded searcher, as if the service answered.
fn answer_embedded(app: &mut App, effects: Vec<Effect>) {
    answer_with(&Searcher::embedded(), app, effects);
}

#[test]
fn remote_header_at_80x24() {
    let (mut app, effects) = remote_app(80, 24);
    answer_embedded(&mut app, effects);
    let effects = app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('/'),
        KeyModifiers::NONE,
    )));
    answer_embedded(&mut app, effects);
    let effects = app.update(Msg::Type("schedule a meeting".into()));
    answer_embedded(&mut app, effects);
    let s = screen(&app);
    let header = s.lines().next().unwrap();
    assert!(
        header.contains("remote 127.0.0.1:8787 · 0.2 ms"),
        "{header}"
    );
    assert!(header.contains("? F1 help"), "{header}");
    assert!(s.contains("quit"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn remote_error_with_the_retry_key() {
    use toolsift::client::{RemoteError, RemoteFailure};
    use toolsift::search::SearchError;
    use toolsift::tui::effect::SearchAnswer;
    let (mut app, effects) = remote_app(80, 24);
    answer_embedded(&mut app, effects);
    keys(&mut app, &[KeyCode::Tab]);
    assert_eq!(app.focus(), toolsift::tui::app::Focus::Results);
    // `r` in the results pane re-sends the last search; the service is down.
    let effects = app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('r'),
        KeyModifiers::NONE,
    )));
    let [
        Effect::Search {
            generation,
            catalog,
            request,
            interim: false,
        },
    ] = effects.as_slice()
    else {
        panic!("retry sends one search: {effects:?}");
    };
    let error = SearchError::Remote(RemoteError {
        service: "http://127.0.0.1:8787".into(),
        failure: RemoteFailure::Unreachable("Connection refused (os error 111)".into()),
    });
    app.update(Msg::SearchDone(SearchAnswer {
        generation: *generation,
        interim: false,
        catalog: catalog.clone(),
        query: request.query.clone(),
        preview: request.preview,
        result: Box::new(Err(error)),
        elapsed: LATENCY,
        query_cached: false,
        standing: None,
    }));
    let s = screen(&app);
    assert!(s.contains("search failed: cave_unreachable"), "{s}");
    assert!(s.contains("cannot reach the tool-search service"), "{s}");
    assert!(s.contains("r Ctrl-R retries the search"), "{s}");
    insta::assert_snapshot!(s);
    // The retry key sends it again; a newer answer replaces the error.
    let effects = app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('r'),
        KeyModifiers::NONE,
    )));
    assert_eq!(effects.len(), 1);
    answer_embedded(&mut app, effects);
    assert!(!screen(&app).contains("search failed"));
}

#[test]
fn failed_search() {
    // A remote service is asked for ranker embeddings (the explorer lets
    // a remote service judge its rankers) and has no embedding model: the
    // search fails, and says why.
    let (mut app, effects) = remote_app(120, 35);
    answer_embedded(&mut app, effects);
    for code in [
        KeyCode::Char('s'),
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Right,
        KeyCode::Esc,
        KeyCode::Char('/'),
    ] {
        let effects = app.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
        answer_embedded(&mut app, effects);
    }
    assert_eq!(app.settings().ranker, toolsift::engine::Ranker::Embeddings);
    let effects = app.update(Msg::Type("status".into()));
    answer_embedded(&mut app, effects);
    let s = screen(&app);
    assert!(s.contains("search failed"));
    insta::assert_snapshot!(s);
}
