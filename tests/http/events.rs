//! `GET /events` of `toolsift serve`: the searches as they are answered,
//! behind the search's own keys, read by `explore --follow`'s follower.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::Server;
use crate::serve::{good, search};
use toolsift::follow::{Note, Source, follow};
use toolsift::traffic::Event;

fn follower(url: &str, key: Option<&str>) -> (Arc<Mutex<Vec<Note>>>, tokio::runtime::Runtime) {
    let notes = Arc::new(Mutex::new(Vec::new()));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let kept = notes.clone();
    let source = Source::parse(url, key.map(str::to_string)).unwrap();
    runtime.spawn(follow(source, move |note| {
        kept.lock().unwrap().push(note);
        true
    }));
    (notes, runtime)
}

fn wait(notes: &Arc<Mutex<Vec<Note>>>, what: &str, done: impl Fn(&[Note]) -> bool) {
    for _ in 0..300 {
        if done(&notes.lock().unwrap()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{what}: not seen in 15 s: {:?}", notes.lock().unwrap());
}

#[test]
fn the_service_s_searches_are_followed_with_its_key() {
    let server = Server::start(&["--api-key-env", "EV_KEY"], &[("EV_KEY", "ev-secret")]);
    let (refused, _r1) = follower(&server.url, None);
    wait(&refused, "refused", |n| {
        n.iter()
            .any(|n| matches!(n, Note::Lost(w) if w.contains("401")))
    });
    let (notes, _r2) = follower(&server.url, Some("ev-secret"));
    wait(&notes, "connected", |n| {
        n.iter().any(|n| matches!(n, Note::Connected))
    });
    let (status, answer) = search(&server.url, Some("ev-secret"), &good());
    assert_eq!(status, 200, "{answer}");
    wait(&notes, "the search", |n| {
        n.iter().any(|n| matches!(n, Note::Events { .. }))
    });
    let events: Vec<Event> = notes
        .lock()
        .unwrap()
        .iter()
        .filter_map(|n| match n {
            Note::Events { events, .. } => Some(events.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    let Event::Search(s) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(s.query, answer_query());
    let sent: Vec<String> = answer["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(s.tools, sent);
    assert_eq!(s.session, answer["session_id"].as_str().unwrap_or_default());
    // The key never reaches the stream or the log.
    assert!(!format!("{events:?}").contains("ev-secret"));
}

fn answer_query() -> String {
    good()["query"].as_str().unwrap().to_string()
}
