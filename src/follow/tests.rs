use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::*;
use crate::traffic::{Call, Search};

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
    assert!(err.contains("not an address"), "{err}");
    assert!(Source::parse("  ", None).is_err());
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
fn backoff_doubles_to_five_seconds() {
    assert_eq!(backoff(0), Duration::from_millis(500));
    assert_eq!(backoff(1), Duration::from_millis(1000));
    assert_eq!(backoff(3), Duration::from_millis(4000));
    assert_eq!(backoff(9), Duration::from_millis(5000));
}

/// Follows `source` on a runtime of its own, collecting the notes.
fn collect(source: Source) -> (Arc<Mutex<Vec<Note>>>, tokio::runtime::Runtime) {
    let notes = Arc::new(Mutex::new(Vec::new()));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let kept = notes.clone();
    runtime.spawn(follow(source, move |note| {
        kept.lock().unwrap().push(note);
        true
    }));
    (notes, runtime)
}

/// Waits (bounded) until `notes` satisfy `done`.
fn wait_for(notes: &Arc<Mutex<Vec<Note>>>, done: impl Fn(&[Note]) -> bool) {
    for _ in 0..100 {
        if done(&notes.lock().unwrap()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("not seen in 5 s: {:?}", notes.lock().unwrap());
}

fn events_seen(notes: &[Note]) -> Vec<Event> {
    notes
        .iter()
        .filter_map(|n| match n {
            Note::Events { events, .. } => Some(events.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn call_line(name: &str) -> String {
    let call = Event::Call(Call {
        session: "s".into(),
        at: None,
        name: name.into(),
        server: None,
        outcome: crate::traffic::Outcome::Ok,
        ms: 1.0,
        in_a_row: Some(1),
        arguments: serde_json::Value::Null,
    });
    format!("{}\n", crate::traffic::to_line(&call))
}

#[test]
fn a_trace_file_is_waited_for_read_as_it_grows_and_read_again_when_started_anew() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let (notes, _runtime) = collect(Source::File(path.clone()));
    wait_for(
        &notes,
        |n| matches!(n.first(), Some(Note::Lost(why)) if why.contains("waiting")),
    );
    std::fs::write(&path, call_line("first")).unwrap();
    wait_for(&notes, |n| events_seen(n).len() == 1);
    // A line written in two parts is one event, read once it ends.
    let second = call_line("second");
    let (head, tail) = second.split_at(10);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut file, head.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(events_seen(&notes.lock().unwrap()).len(), 1);
    std::io::Write::write_all(&mut file, tail.as_bytes()).unwrap();
    std::io::Write::write_all(&mut file, b"not json\n").unwrap();
    wait_for(&notes, |n| events_seen(n).len() == 2);
    wait_for(&notes, |n| {
        n.iter()
            .any(|n| matches!(n, Note::BadLine(l) if l.contains("trace.jsonl:3")))
    });
    // The gateway started again: its trace begins anew, shorter.
    std::fs::write(&path, call_line("again")).unwrap();
    wait_for(&notes, |n| n.iter().any(|n| matches!(n, Note::Restarted)));
    wait_for(&notes, |n| {
        events_seen(n)
            .iter()
            .any(|e| matches!(e, Event::Call(c) if c.name == "again"))
    });
}

#[test]
fn a_server_that_is_not_there_is_told_and_tried_again() {
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let source = Source::parse(&format!("http://127.0.0.1:{port}"), None).unwrap();
    let (notes, _runtime) = collect(source);
    wait_for(&notes, |n| {
        n.iter().filter(|n| matches!(n, Note::Lost(_))).count() >= 2
    });
    let notes = notes.lock().unwrap();
    let Note::Lost(why) = &notes[0] else {
        panic!("{notes:?}")
    };
    assert!(why.contains(&format!("127.0.0.1:{port}/events")), "{why}");
}

#[test]
fn a_large_append_is_read_whole_across_chunks_and_its_last_event_told() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    // Over one read's chunk, so a line straddles the cut.
    let line = call_line("middle");
    let lines = (super::tail::CHUNK as usize + line.len()) / line.len() + 1000;
    let mut text = line.repeat(lines);
    text.push_str(&call_line("last"));
    std::fs::write(&path, &text).unwrap();
    let (notes, _runtime) = collect(Source::File(path));
    let told = |n: &[Note]| -> (u64, bool) {
        let mut count = 0;
        let mut last = false;
        for note in n {
            if let Note::Events { events, dropped } = note {
                count += events.len() as u64 + dropped;
                last |= events
                    .iter()
                    .any(|e| matches!(e, Event::Call(c) if c.name == "last"));
            }
        }
        (count, last)
    };
    for _ in 0..1200 {
        if told(&notes.lock().unwrap()).1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let (count, last) = told(&notes.lock().unwrap());
    assert!(last, "the last event never came");
    assert_eq!(count, lines as u64 + 1);
    assert!(
        !notes
            .lock()
            .unwrap()
            .iter()
            .any(|n| matches!(n, Note::BadLine(_))),
        "a line cut between chunks read as a bad line"
    );
}
