//! How many calls one server runs at once, and whose turn is next: at
//! most [`MAX_RUNNING`] calls run on a server, at most
//! [`MAX_RUNNING_PER_KEY`] of them one key's, and the next ones wait their
//! turn in order, the keys taking turns (one key's burst never holds
//! another key behind it). Past [`MAX_WAITING_PER_KEY`] waiting for one key,
//! or [`MAX_WAITING`] in all, a call is refused at once, saying so.
//!
//! A call the server may ask its host about, on a server that cannot say
//! which call it asks for, runs alone: no other call of that server runs
//! beside it, so whatever the server asks is that call's.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use crate::lock::lock;

/// Calls of one server running at once.
pub const MAX_RUNNING: usize = 16;
/// Calls of one server running at once for one key.
pub const MAX_RUNNING_PER_KEY: usize = 8;
/// Calls of one server waiting for a place at once.
pub const MAX_WAITING: usize = 256;
/// Calls of one server waiting for a place at once for one key.
pub const MAX_WAITING_PER_KEY: usize = 64;

/// A call waiting for its turn.
struct Waiter {
    alone: bool,
    turn: oneshot::Sender<Place>,
}

/// One server's calls: those running, and those waiting by key.
#[derive(Default)]
struct Lanes {
    running: usize,
    /// A call that runs alone is running.
    alone: bool,
    by_key: HashMap<String, usize>,
    waiting: HashMap<String, VecDeque<Waiter>>,
    /// The keys with calls waiting, in the order they take turns.
    turns: VecDeque<String>,
    waiting_count: usize,
}

impl Lanes {
    fn can_start(&self, key: &str, alone: bool) -> bool {
        if self.alone {
            return false;
        }
        if alone {
            return self.running == 0;
        }
        self.running < MAX_RUNNING && self.by_key.get(key).copied().unwrap_or(0) < MAX_RUNNING_PER_KEY
    }

    fn start(&mut self, key: &str, alone: bool) {
        self.running += 1;
        self.alone |= alone;
        *self.by_key.entry(key.to_string()).or_default() += 1;
    }

    fn end(&mut self, key: &str, alone: bool) {
        self.running -= 1;
        if alone {
            self.alone = false;
        }
        if let Some(n) = self.by_key.get_mut(key) {
            *n -= 1;
            if *n == 0 {
                self.by_key.remove(key);
            }
        }
    }

    /// The next waiting calls whose turn it is, started: keys in turn, the
    /// first waiter of each. A call that runs alone stops the turns until
    /// the server is free for it.
    fn next(&mut self) -> Vec<(String, bool, oneshot::Sender<Place>)> {
        let mut started = Vec::new();
        // Keys looked at in a row that could not start a call.
        let mut blocked = 0;
        while blocked < self.turns.len() {
            let Some(key) = self.turns.pop_front() else {
                break;
            };
            let queue = self.waiting.entry(key.clone()).or_default();
            // Waiters that gave up are forgotten.
            let before = queue.len();
            queue.retain(|w| !w.turn.is_closed());
            self.waiting_count -= before - queue.len();
            let front = queue.front().map(|w| w.alone);
            let Some(alone) = front else {
                self.waiting.remove(&key);
                continue;
            };
            if !self.can_start(&key, alone) {
                if alone {
                    // A call that runs alone is next: nobody overtakes it.
                    self.turns.push_front(key);
                    break;
                }
                self.turns.push_back(key);
                blocked += 1;
                continue;
            }
            let Some(queue) = self.waiting.get_mut(&key) else {
                continue;
            };
            let Some(waiter) = queue.pop_front() else {
                continue;
            };
            let more = !queue.is_empty();
            self.waiting_count -= 1;
            self.start(&key, alone);
            started.push((key.clone(), alone, waiter.turn));
            if more {
                self.turns.push_back(key);
            } else {
                self.waiting.remove(&key);
            }
            blocked = 0;
        }
        started
    }
}

/// A place among a server's running calls, given back when dropped.
pub(super) struct Place {
    lanes: Arc<Mutex<Lanes>>,
    key: String,
    alone: bool,
}

impl Drop for Place {
    fn drop(&mut self) {
        let started = {
            let mut lanes = lock(&self.lanes);
            lanes.end(&self.key, self.alone);
            lanes.next()
        };
        hand_out(&self.lanes, started);
    }
}

/// Gives each started waiter its place; a waiter that has gone gives it
/// back at once.
fn hand_out(lanes: &Arc<Mutex<Lanes>>, started: Vec<(String, bool, oneshot::Sender<Place>)>) {
    for (key, alone, turn) in started {
        let place = Place {
            lanes: lanes.clone(),
            key,
            alone,
        };
        // A waiter gone since: the place is dropped, and given back.
        let _ = turn.send(place);
    }
}

/// Every server's places, made as each is first called.
#[derive(Default)]
pub(super) struct Admission {
    servers: Mutex<HashMap<String, Arc<Mutex<Lanes>>>>,
}

/// Why a call did not get a place.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// Too many calls already wait for this server.
    Full,
    /// Too many of this key's calls already wait for this server.
    KeyFull,
}

impl Admission {
    fn lanes(&self, server: &str) -> Arc<Mutex<Lanes>> {
        lock(&self.servers)
            .entry(server.to_string())
            .or_default()
            .clone()
    }

    /// A place to run a call of `server` for `key`, waited for in turn;
    /// `alone`, no other call of the server runs beside it. Refused when
    /// too many wait already. The place is given back when dropped, and a
    /// wait given up gives up its turn.
    pub(super) async fn enter(&self, server: &str, key: &str, alone: bool) -> Result<Place, Refused> {
        let lanes = self.lanes(server);
        let (turn, wait) = oneshot::channel();
        let started = {
            let mut l = lock(&lanes);
            let queued = l.waiting.get(key).map_or(0, VecDeque::len);
            if l.waiting_count == 0 && l.can_start(key, alone) {
                l.start(key, alone);
                drop(l);
                return Ok(Place {
                    lanes,
                    key: key.to_string(),
                    alone,
                });
            }
            if queued >= MAX_WAITING_PER_KEY {
                return Err(Refused::KeyFull);
            }
            if l.waiting_count >= MAX_WAITING {
                return Err(Refused::Full);
            }
            l.waiting_count += 1;
            if queued == 0 {
                l.turns.push_back(key.to_string());
            }
            l.waiting
                .entry(key.to_string())
                .or_default()
                .push_back(Waiter { alone, turn });
            l.next()
        };
        hand_out(&lanes, started);
        // The sender lives in the queue until its turn.
        wait.await.map_err(|_| Refused::Full)
    }

    /// How many calls of `server` run, and how many wait.
    #[cfg(test)]
    fn counts(&self, server: &str) -> (usize, usize) {
        let lanes = self.lanes(server);
        let l = lock(&lanes);
        (l.running, l.waiting_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    async fn until(admission: &Admission, server: &str, want: (usize, usize)) {
        for _ in 0..1000 {
            if admission.counts(server) == want {
                return;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        panic!("{:?} never became {want:?}", admission.counts(server));
    }

    #[tokio::test]
    async fn a_server_runs_a_bounded_number_of_calls_and_queues_a_bounded_number() {
        let admission = Arc::new(Admission::default());
        let mut running = Vec::new();
        for k in 0..MAX_RUNNING {
            running.push(admission.enter("s", &format!("k{}", k % 2), false).await.unwrap());
        }
        // Another server is not held up by this one.
        drop(admission.enter("other", "k0", false).await.unwrap());
        let mut waiting = Vec::new();
        for n in 0..MAX_WAITING {
            let a = admission.clone();
            let key = format!("w{}", n % 8);
            waiting.push(tokio::spawn(async move { a.enter("s", &key, false).await.map(|_| ()) }));
        }
        until(&admission, "s", (MAX_RUNNING, MAX_WAITING)).await;
        assert_eq!(admission.enter("s", "z", false).await.err(), Some(Refused::Full));
        drop(running);
        for w in waiting {
            assert_eq!(w.await.unwrap(), Ok(()));
        }
        assert_eq!(admission.counts("s"), (0, 0));
    }

    #[tokio::test]
    async fn one_keys_burst_does_not_hold_another_key_behind_it() {
        let admission = Arc::new(Admission::default());
        // Key a fills its share and queues a burst.
        let mut held = Vec::new();
        for _ in 0..MAX_RUNNING_PER_KEY {
            held.push(admission.enter("s", "a", false).await.unwrap());
        }
        let mut burst = Vec::new();
        for _ in 0..MAX_WAITING_PER_KEY {
            let a = admission.clone();
            burst.push(tokio::spawn(async move { a.enter("s", "a", false).await.map(drop) }));
        }
        until(&admission, "s", (MAX_RUNNING_PER_KEY, MAX_WAITING_PER_KEY)).await;
        assert_eq!(admission.enter("s", "a", false).await.err(), Some(Refused::KeyFull));
        // Key b runs at once, beside a's share.
        let b = tokio::time::timeout(Duration::from_secs(1), admission.enter("s", "b", false))
            .await
            .expect("b waited behind a");
        assert!(b.is_ok());
        drop(b);
        drop(held);
        for w in burst {
            assert_eq!(w.await.unwrap(), Ok(()));
        }
    }

    #[tokio::test]
    async fn keys_take_turns_when_the_server_is_full() {
        let admission = Arc::new(Admission::default());
        let held: Vec<Place> = {
            let mut v = Vec::new();
            for _ in 0..MAX_RUNNING_PER_KEY {
                v.push(admission.enter("s", "a", false).await.unwrap());
                v.push(admission.enter("s", "c", false).await.unwrap());
            }
            v
        };
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for (n, key) in ["a", "a", "a", "b"].into_iter().enumerate() {
            let (a, order) = (admission.clone(), order.clone());
            tasks.push(tokio::spawn(async move {
                let place = a.enter("s", key, false).await.unwrap();
                lock(&order).push(key);
                place
            }));
            until(&admission, "s", (MAX_RUNNING, n + 1)).await;
        }
        // One place frees: b's turn comes before a's second and third.
        let mut held = held;
        held.truncate(held.len() - 2);
        until(&admission, "s", (MAX_RUNNING, 2)).await;
        for _ in 0..1000 {
            if lock(&order).len() == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let got = lock(&order).clone();
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.contains(&"b"), "{got:?}");
        drop(held);
        for t in tasks {
            drop(t.await.unwrap());
        }
    }

    #[tokio::test]
    async fn a_call_that_runs_alone_waits_for_the_others_and_holds_them_off() {
        let admission = Arc::new(Admission::default());
        let first = admission.enter("s", "a", false).await.unwrap();
        let a = admission.clone();
        let alone = tokio::spawn(async move { a.enter("s", "b", true).await });
        until(&admission, "s", (1, 1)).await;
        // A later ordinary call does not overtake it.
        let a = admission.clone();
        let later = tokio::spawn(async move { a.enter("s", "c", false).await });
        until(&admission, "s", (1, 2)).await;
        drop(first);
        let alone = alone.await.unwrap().unwrap();
        until(&admission, "s", (1, 1)).await;
        assert!(!later.is_finished());
        drop(alone);
        assert!(later.await.unwrap().is_ok());
    }

    #[tokio::test]
    async fn a_wait_given_up_gives_up_its_turn() {
        let admission = Arc::new(Admission::default());
        let only = admission.enter("s", "a", true).await.unwrap();
        let gave_up = tokio::time::timeout(Duration::from_millis(20), admission.enter("s", "b", false)).await;
        assert!(gave_up.is_err());
        drop(only);
        assert_eq!(admission.counts("s"), (0, 0));
        let next = admission.enter("s", "c", false).await.unwrap();
        assert_eq!(admission.counts("s"), (1, 0));
        drop(next);
    }
}
