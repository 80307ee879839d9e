//! The catalog files watched while the explorer runs: each is looked at
//! once a second (its size and modification time), and a change is told
//! to the app as [`Msg::CatalogChanged`], which reads them again
//! ([`crate::file_stamps`]).

use std::path::PathBuf;

use tokio::sync::mpsc::UnboundedSender;

use super::effect::Msg;
pub use crate::file_stamps::EVERY;
use crate::file_stamps::FileStamps;

/// Watches `paths` until the app stops listening: a message each time one
/// of them changes.
pub async fn watch(paths: Vec<PathBuf>, tx: UnboundedSender<Msg>) {
    if paths.is_empty() {
        return;
    }
    let mut stamps = FileStamps::new(paths);
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tick.tick().await;
        if stamps.changed() && tx.send(Msg::CatalogChanged).is_err() {
            return;
        }
    }
}
