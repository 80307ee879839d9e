//! The search's state on screen at every width, and the search model's
//! fetch: a stall said, a failure said with what else to do, `r` fetching
//! again.

use std::sync::Arc;

use crossterm::event::KeyCode;

use super::tests_finish::draw;
use super::{App, Msg};
use crate::search::Searcher;
use crate::service::{Service, ServiceConfig};

/// The explorer as a first run without the model at hand leaves it:
/// BM25F, saying why (`plain`), or fetching the model (`fetch`).
fn first_run(plain: Option<&str>, fetch: bool, sources: &str) -> App {
    let plain = plain.map(str::to_string);
    let (mut app, effects) = super::tests::demo_setup(|s| {
        s.searcher = Searcher::Embedded(Arc::new(Service::new(ServiceConfig {
            plain_because: plain,
            ..ServiceConfig::default()
        })));
        s.sources = sources.into();
        if fetch {
            s.model_later = Some(Arc::new(|_| {
                Err(crate::embed::NoDefaultModel::NothingToLoad)
            }));
        }
    });
    super::tests::settle(&mut app, effects);
    app
}

/// No number in `row` is cut: none runs into the ellipsis.
fn no_number_cut(row: &str) -> bool {
    let chars: Vec<char> = row.chars().collect();
    !chars
        .windows(2)
        .any(|w| w[0].is_ascii_digit() && w[1] == '…')
}

/// The header at every width from 80 to 200 (and far beyond), on the demo
/// catalog and on seven MCP servers' names: `words` always there whole,
/// the help key too, no number cut.
fn header_everywhere(app: &mut App, words: &[&str]) {
    for width in (80..=200).chain([320]) {
        app.update(Msg::Resize(width, 24));
        let header = draw(app)[0].clone();
        for word in words {
            assert!(header.contains(word), "{width}: {word:?} in {header:?}");
        }
        assert!(header.contains("help"), "{width}: {header:?}");
        assert!(no_number_cut(&header), "{width}: {header:?}");
    }
}

const SERVERS: &str = "time, git, fetch, memory, filesystem, everything, github";

#[test]
fn keyword_only_search_is_said_in_the_header_at_every_width() {
    for sources in ["demo", SERVERS] {
        let mut app = first_run(
            Some("the search model is off (TOOLSIFT_MODEL=off)"),
            false,
            sources,
        );
        header_everywhere(&mut app, &["bm25 keyword-only", "model off"]);
        let mut app = first_run(
            Some("x is not in the hub cache and fetching is off (--offline)"),
            false,
            sources,
        );
        header_everywhere(&mut app, &["bm25 keyword-only", "offline"]);
        // After the first message is gone, the header still says it.
        app.update(super::tests::key(KeyCode::Esc));
        assert!(draw(&app)[0].contains("keyword-only"));
    }
}

#[test]
fn a_fetch_its_stall_and_its_failure_are_in_the_header_at_every_width() {
    let mut app = first_run(None, true, SERVERS);
    let (run, _) = app.take_model_job().expect("the loop takes the job");
    app.update(Msg::ModelFetching {
        run,
        done: 45,
        total: 100,
    });
    header_everywhere(&mut app, &["bm25", "model 45%"]);
    app.update(Msg::ModelStalled { run, secs: 12 });
    header_everywhere(&mut app, &["bm25", "model stalled"]);
    app.update(Msg::Resize(260, 35));
    assert!(
        draw(&app)[0].contains("stalled at 45%, nothing for 12 s: r retries"),
        "{:?}",
        draw(&app)[0]
    );
    app.update(Msg::ModelReady {
        run,
        ready: Err(crate::tui::effect::ModelNotReady::Fetch(
            "the hub sent nothing for 60 s".into(),
        )),
    });
    header_everywhere(&mut app, &["bm25 keyword-only"]);
}

#[test]
fn a_failed_fetch_says_what_else_to_do_and_r_fetches_again() {
    let mut app = first_run(None, true, "demo");
    let (run, _) = app.take_model_job().unwrap();
    assert!(app.take_model_job().is_none(), "taken once");
    app.update(Msg::ModelReady {
        run,
        ready: Err(crate::tui::effect::ModelNotReady::Fetch(
            "cannot reach the hub".into(),
        )),
    });
    let status = app.status().unwrap().to_string();
    for words in [
        "cannot reach the hub",
        "r fetches again",
        "toolsift model fetch",
        "--embeddings-local DIR",
    ] {
        assert!(status.contains(words), "{words:?} in {status:?}");
    }
    // `r`: a new run, under way, said.
    super::tests::press(&mut app, KeyCode::Char('r'));
    let (again, _) = app.take_model_job().expect("r fetches again");
    assert_eq!(again, run + 1);
    assert_eq!(app.fetching(), Some((0, 0)));
    assert!(
        app.status()
            .unwrap()
            .contains("fetching the search model again")
    );
    // The old run's word is not heard; the new one's is.
    app.update(Msg::ModelReady {
        run,
        ready: Err(crate::tui::effect::ModelNotReady::Fetch("late".into())),
    });
    assert_eq!(app.fetching(), Some((0, 0)));
    app.update(Msg::ModelFetching {
        run: again,
        done: 10,
        total: 100,
    });
    assert_eq!(app.fetching(), Some((10, 100)));
}

#[test]
fn r_starts_a_stalled_fetch_again_and_a_steady_one_is_left_alone() {
    let mut app = first_run(None, true, "demo");
    let (run, _) = app.take_model_job().unwrap();
    app.update(Msg::ModelFetching {
        run,
        done: 5,
        total: 100,
    });
    // Under way and not stalled: `r` searches again, as it always did.
    super::tests::press(&mut app, KeyCode::Char('r'));
    assert!(app.take_model_job().is_none());
    assert!(app.status().unwrap().contains("searched again"));
    app.update(Msg::ModelStalled { run, secs: 11 });
    super::tests::press(&mut app, KeyCode::Char('r'));
    assert_eq!(app.take_model_job().map(|(r, _)| r), Some(run + 1));
    // Bytes of the stalled run, come late, are not heard.
    app.update(Msg::ModelFetching {
        run,
        done: 50,
        total: 100,
    });
    assert_eq!(app.fetching(), Some((0, 0)));
}
