//! The catalog files watched while the explorer runs: each is looked at
//! once a second (its size and modification time), and a change is told
//! to the app as [`Msg::CatalogChanged`], which reads them again. Polling
//! a few files costs nothing and works on every filesystem (network and
//! container mounts included), where change notifications may not.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc::UnboundedSender;

use super::effect::Msg;

/// How often the files are looked at.
pub const EVERY: Duration = Duration::from_secs(1);

/// What a file looked like: none when it could not be read (removed, or
/// being replaced).
type Stamp = Option<(u64, SystemTime)>;

fn stamp(path: &PathBuf) -> Stamp {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

/// Watches `paths` until the app stops listening: a message each time one
/// of them changes.
pub async fn watch(paths: Vec<PathBuf>, tx: UnboundedSender<Msg>) {
    if paths.is_empty() {
        return;
    }
    let mut seen: Vec<Stamp> = paths.iter().map(stamp).collect();
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tick.tick().await;
        let now: Vec<Stamp> = paths.iter().map(stamp).collect();
        if now != seen {
            seen = now;
            if tx.send(Msg::CatalogChanged).is_err() {
                return;
            }
        }
    }
}
