//! The follower of `explore --follow` on its own sources: a trace file
//! waited for, read as it grows (a line in two parts, a bad line, a start
//! anew) and in chunks, and an address nothing answers at.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolsift::follow::{Note, Source};
use toolsift::traffic::{Call, Event};

use crate::common::follower::{Follower, events};

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

fn call_line(name: &str) -> String {
    let call = Event::Call(Call {
        session: "s".into(),
        at: None,
        name: name.into(),
        server: None,
        outcome: toolsift::traffic::Outcome::Ok,
        ms: 1.0,
        in_a_row: Some(1),
        arguments: serde_json::Value::Null,
    });
    format!("{}\n", toolsift::traffic::to_line(&call))
}

#[test]
fn a_trace_file_is_waited_for_read_as_it_grows_and_read_again_when_started_anew() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let follower = Follower::start(Source::File(path.clone()));
    let notes = &follower.notes;
    wait_for(
        notes,
        |n| matches!(n.first(), Some(Note::Lost(why)) if why.contains("waiting")),
    );
    std::fs::write(&path, call_line("first")).unwrap();
    wait_for(notes, |n| events(n).len() == 1);
    // A line written in two parts is one event, read once it ends.
    let second = call_line("second");
    let (head, tail) = second.split_at(10);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut file, head.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(events(&notes.lock().unwrap()).len(), 1);
    std::io::Write::write_all(&mut file, tail.as_bytes()).unwrap();
    std::io::Write::write_all(&mut file, b"not json\n").unwrap();
    wait_for(notes, |n| events(n).len() == 2);
    wait_for(notes, |n| {
        n.iter()
            .any(|n| matches!(n, Note::BadLine(l) if l.contains("trace.jsonl:3")))
    });
    // The gateway started again: its trace begins anew, shorter.
    std::fs::write(&path, call_line("again")).unwrap();
    wait_for(notes, |n| n.iter().any(|n| matches!(n, Note::Restarted)));
    wait_for(notes, |n| {
        events(n)
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
    let follower = Follower::start(source);
    let notes = &follower.notes;
    wait_for(notes, |n| {
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
    let lines = (toolsift::follow::CHUNK as usize + line.len()) / line.len() + 1000;
    let mut text = line.repeat(lines);
    text.push_str(&call_line("last"));
    std::fs::write(&path, &text).unwrap();
    let follower = Follower::start(Source::File(path));
    let notes = &follower.notes;
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
