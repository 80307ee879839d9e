//! `explore --follow`'s reader run on a runtime of its own, its notes
//! collected, for the tests of a real gateway's or service's `/events`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolsift::follow::{Note, Source, follow};
use toolsift::traffic::Event;

pub struct Follower {
    pub notes: Arc<Mutex<Vec<Note>>>,
    _runtime: tokio::runtime::Runtime,
}

impl Follower {
    pub fn start(source: Source) -> Follower {
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
        Follower {
            notes,
            _runtime: runtime,
        }
    }

    /// Waits (up to 60 s) until the notes satisfy `done`.
    pub fn wait(&self, what: &str, done: impl Fn(&[Note]) -> bool) {
        for _ in 0..600 {
            if done(&self.notes.lock().unwrap()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("{what}: not seen in 60 s: {:?}", self.notes.lock().unwrap());
    }

    /// Every event told so far, oldest first.
    pub fn events(&self) -> Vec<Event> {
        events(&self.notes.lock().unwrap())
    }
}

/// The events of `notes`, oldest first.
pub fn events(notes: &[Note]) -> Vec<Event> {
    notes
        .iter()
        .filter_map(|n| match n {
            Note::Events { events, .. } => Some(events.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}
