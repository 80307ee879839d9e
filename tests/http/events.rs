//! `GET /events` of `toolsift serve`: the searches as they are answered,
//! behind the search's own keys, read by `explore --follow`'s follower.

use crate::common::Server;
use crate::common::follower::Follower;
use crate::serve::{good, search};
use toolsift::follow::{Note, Source};
use toolsift::traffic::Event;

#[test]
fn the_service_s_searches_are_followed_with_its_key() {
    let server = Server::start(&["--api-key-env", "EV_KEY"], &[("EV_KEY", "ev-secret")]);
    let refused = Follower::start(Source::parse(&server.url, None).unwrap());
    refused.wait("refused", |n| {
        n.iter()
            .any(|n| matches!(n, Note::Lost(w) if w.contains("401")))
    });
    let follower = Follower::start(Source::parse(&server.url, Some("ev-secret".into())).unwrap());
    follower.wait("connected", |n| {
        n.iter().any(|n| matches!(n, Note::Connected))
    });
    let (status, answer) = search(&server.url, Some("ev-secret"), &good());
    assert_eq!(status, 200, "{answer}");
    follower.wait("the search", |n| {
        n.iter().any(|n| matches!(n, Note::Events { .. }))
    });
    let events: Vec<Event> = follower.events();
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
