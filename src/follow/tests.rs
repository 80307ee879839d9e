use std::time::Duration;

use super::*;
use crate::traffic::Search;

#[test]
fn an_address_is_followed_at_its_events_path() {
    let cases = [
        ("http://127.0.0.1:9000", "http://127.0.0.1:9000/events"),
        ("http://127.0.0.1:9000/", "http://127.0.0.1:9000/events"),
        ("http://127.0.0.1:9000/mcp", "http://127.0.0.1:9000/events"),
        ("HTTP://host:1/base/mcp/", "http://host:1/base/events"),
        ("http://h:1/events", "http://h:1/events"),
    ];
    for (given, want) in cases {
        match Source::parse(given, None).unwrap() {
            Source::Url { url, key } => {
                assert_eq!(url, want, "{given}");
                assert_eq!(key, None);
            }
            other => panic!("{given}: {other:?}"),
        }
    }
    assert_eq!(
        Source::parse("trace.jsonl", None).unwrap(),
        Source::File("trace.jsonl".into())
    );
    let err = Source::parse("http://[::1", None).unwrap_err();
    assert!(
        matches!(&err, FollowError::NotAnAddress { given, .. } if given == "http://[::1"),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("--follow \"http://[::1\": not an address: "),
        "{err}"
    );
    assert!(matches!(
        Source::parse("  ", None),
        Err(FollowError::Nothing)
    ));
}

fn search(n: usize) -> Event {
    Event::Search(Search {
        session: "s".into(),
        at: None,
        query: format!("q{n}"),
        ranker: "bm25".into(),
        tools: vec![],
        nothing_fits: false,
        ms: 0.1,
    })
}

#[test]
fn a_batch_keeps_the_newest_and_counts_what_it_lost() {
    let mut batch = Batch::default();
    for n in 0..KEPT_EVENTS + 3 {
        batch.push(search(n));
    }
    batch.push(Event::Dropped { count: 7 });
    match batch.take().unwrap() {
        Note::Events { events, dropped } => {
            assert_eq!(events.len(), KEPT_EVENTS);
            assert_eq!(dropped, 3 + 7);
            assert_eq!(events[0], search(3), "the oldest went first");
        }
        other => panic!("{other:?}"),
    }
    assert!(batch.take().is_none(), "an empty batch tells nothing");
}

#[test]
fn reconnect_delays_double_to_five_seconds() {
    let delays: Vec<Duration> = reconnect_delays().take(10).collect();
    assert_eq!(delays[0], Duration::from_millis(500));
    assert_eq!(delays[1], Duration::from_millis(1000));
    assert_eq!(delays[3], Duration::from_millis(4000));
    assert_eq!(delays[9], Duration::from_millis(5000));
}
