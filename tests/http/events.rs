//! `GET /events` of `toolsift serve`: the searches as they are answered,
//! behind the search's own keys, read by `explore --follow`'s follower.

use crate::common::Server;
use crate::common::follower::Follower;
use crate::serve::{good, search};
use toolsift::follow::{Note, Source};
use toolsift::traffic::Event;

#[test]
fn the_service_s_searches_are_followed_with_its_key() {
    let server = Server::start(
        &["--api-key-env", "EV_KEY", "--log-queries"],
        &[("EV_KEY", "ev-secret")],
    );
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

/// A follower sees its own key's searches only, and their queries only
/// where they are logged; an operator's key follows every key's.
#[test]
fn a_follower_sees_its_own_keys_searches_and_an_operator_every_keys() {
    let server = Server::start(
        &[
            "--api-key-env",
            "EV_A",
            "--api-key-env",
            "EV_B",
            "--operator-key-env",
            "EV_OP",
        ],
        &[
            ("EV_A", "key-of-a"),
            ("EV_B", "key-of-b"),
            ("EV_OP", "key-of-op"),
        ],
    );
    let follow = |key: &str| {
        let f = Follower::start(Source::parse(&server.url, Some(key.into())).unwrap());
        f.wait("connected", |n| {
            n.iter().any(|n| matches!(n, Note::Connected))
        });
        f
    };
    let (a, b, op) = (follow("key-of-a"), follow("key-of-b"), follow("key-of-op"));
    let (status, answer) = search(&server.url, Some("key-of-b"), &good());
    assert_eq!(status, 200, "{answer}");
    let (status, _) = search(&server.url, Some("key-of-a"), &good());
    assert_eq!(status, 200);
    // Counted from the notes `wait` hands over (its lock is held).
    let searches = |n: &[Note]| {
        crate::common::follower::events(n)
            .iter()
            .filter(|e| matches!(e, Event::Search(_)))
            .count()
    };
    op.wait("both searches", |n| searches(n) == 2);
    a.wait("its own search", |n| searches(n) == 1);
    b.wait("its own search", |n| searches(n) == 1);
    // A never sees B's session, whatever arrives later.
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(searches(&a.notes.lock().unwrap()), 1);
    let b_session = answer["session_id"].as_str().unwrap().to_string();
    assert!(!format!("{:?}", a.events()).contains(&b_session));
    // Queries are not logged here, so no follower gets them.
    for e in op.events() {
        if let Event::Search(s) = e {
            assert_eq!(s.query, "", "{s:?}");
        }
    }
}
