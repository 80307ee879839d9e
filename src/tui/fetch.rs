//! The search model's fetch run off the UI thread (a first run without
//! the model built in): its progress told at most a hundred times, and at
//! once when bytes come again after a stall; a silence of
//! [`STALL_SAID_AFTER`] told as a stall, each second until bytes come or
//! the hub gives up; then the searcher that uses the model, or why not.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;

use super::app::App;
use super::effect::{ModelNotReady, Msg};
use crate::embed::{FetchProgress, ModelJob};
use crate::search::Searcher;

/// Silence after which a fetch is said to be stalled (the hub gives up
/// after a minute: `embed::hub::STALL`).
pub const STALL_SAID_AFTER: Duration = Duration::from_secs(10);

/// Starts the fetch the app asks for, if it asks (at the start, after `r`).
pub fn start_if_asked(app: &mut App, tx: &UnboundedSender<Msg>) {
    if let Some((run, job)) = app.take_model_job() {
        let send = {
            let tx = tx.clone();
            move |msg| tx.send(msg).is_ok()
        };
        start(run, job, app.searcher().clone(), STALL_SAID_AFTER, send);
    }
}

/// Runs fetch `run` on its own thread, a watcher of its silence on another;
/// every word goes to `send` (false: no one listens).
pub fn start(
    run: u64,
    job: ModelJob,
    base: Searcher,
    stall_after: Duration,
    send: impl Fn(Msg) -> bool + Send + Sync + 'static,
) {
    let send = Arc::new(send);
    let last_byte = Arc::new(Mutex::new(Instant::now()));
    let stalled = Arc::new(AtomicBool::new(false));
    let over = Arc::new(AtomicBool::new(false));
    {
        let (send, last_byte, stalled, over) = (
            send.clone(),
            last_byte.clone(),
            stalled.clone(),
            over.clone(),
        );
        std::thread::spawn(move || {
            let tick = (stall_after / 10).clamp(Duration::from_millis(10), Duration::from_secs(1));
            while !over.load(Ordering::SeqCst) {
                std::thread::sleep(tick);
                let silent = crate::lock::lock(&last_byte).elapsed();
                if silent >= stall_after && !over.load(Ordering::SeqCst) {
                    stalled.store(true, Ordering::SeqCst);
                    if !send(Msg::ModelStalled {
                        run,
                        secs: silent.as_secs(),
                    }) {
                        break;
                    }
                }
            }
        });
    }
    std::thread::spawn(move || {
        let told = AtomicU64::new(u64::MAX);
        let progress: FetchProgress = {
            let send = send.clone();
            Arc::new(move |done, total| {
                *crate::lock::lock(&last_byte) = Instant::now();
                let step = (done * 100).checked_div(total).unwrap_or(0);
                let again = stalled.swap(false, Ordering::SeqCst);
                if again || (total > 1_000_000 && told.swap(step, Ordering::Relaxed) != step) {
                    send(Msg::ModelFetching { run, done, total });
                }
            })
        };
        let ready = job(progress)
            .map_err(|e| ModelNotReady::Fetch(e.to_string()))
            .and_then(|e| base.with_embeddings(e).ok_or(ModelNotReady::RemoteRanks));
        over.store(true, Ordering::SeqCst);
        send(Msg::ModelReady { run, ready });
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::NoDefaultModel;

    fn searcher() -> Searcher {
        Searcher::Embedded(Arc::new(crate::service::Service::new(
            crate::service::ServiceConfig::default(),
        )))
    }

    /// A job that sends a few bytes, then nothing for `silent`, then fails.
    fn job(silent: Duration) -> ModelJob {
        Arc::new(move |progress: FetchProgress| {
            progress(1_000_000, 90_000_000);
            std::thread::sleep(silent);
            progress(2_000_000, 90_000_000);
            Err(NoDefaultModel::NothingToLoad)
        })
    }

    fn words(stall_after: Duration, silent: Duration) -> Vec<Msg> {
        let (tx, rx) = std::sync::mpsc::channel();
        start(7, job(silent), searcher(), stall_after, move |m| {
            tx.send(m).is_ok()
        });
        let mut words = Vec::new();
        while let Ok(m) = rx.recv_timeout(Duration::from_secs(10)) {
            let done = matches!(m, Msg::ModelReady { .. });
            words.push(m);
            if done {
                break;
            }
        }
        words
    }

    #[test]
    fn a_silence_is_told_as_a_stall_and_bytes_after_it_at_once() {
        let words = words(Duration::from_millis(200), Duration::from_millis(700));
        let stalls: Vec<u64> = words
            .iter()
            .filter_map(|m| match m {
                Msg::ModelStalled { run: 7, secs } => Some(*secs),
                _ => None,
            })
            .collect();
        assert!(!stalls.is_empty(), "{words:?}");
        let after = words
            .iter()
            .skip_while(|m| !matches!(m, Msg::ModelStalled { .. }))
            .find(|m| matches!(m, Msg::ModelFetching { .. }));
        assert!(
            matches!(
                after,
                Some(Msg::ModelFetching {
                    run: 7,
                    done: 2_000_000,
                    ..
                })
            ),
            "the bytes after the stall are told, in the same percent: {words:?}"
        );
        assert!(
            matches!(words.last(), Some(Msg::ModelReady { run: 7, ready: Err(why) }) if why.to_string() == "no model to load"),
            "{words:?}"
        );
    }

    #[test]
    fn a_steady_fetch_is_never_said_stalled() {
        let words = words(Duration::from_secs(5), Duration::from_millis(100));
        assert!(
            !words.iter().any(|m| matches!(m, Msg::ModelStalled { .. })),
            "{words:?}"
        );
    }
}
