//! The catalog files watched while the explorer runs: each is looked at
//! once a second (its size and modification time), and a change is told
//! to the app as [`Msg::CatalogChanged`], which reads them again
//! ([`crate::file_stamps`]).

use std::path::PathBuf;

use tokio::sync::mpsc::UnboundedSender;

use super::effect::Msg;
pub use crate::file_stamps::EVERY;
use crate::file_stamps::FileStamps;

/// The files' stamps as they are now: taken before the first frame is
/// drawn, so an edit made as soon as the catalog shows is a change.
pub fn stamps(paths: Vec<PathBuf>) -> FileStamps {
    FileStamps::new(paths)
}

/// Watches the files of `stamps` until the app stops listening: a message
/// each time one of them changes from how it looked.
pub async fn watch(mut stamps: FileStamps, tx: UnboundedSender<Msg>) {
    if stamps.is_empty() {
        return;
    }
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tick.tick().await;
        if stamps.changed() && tx.send(Msg::CatalogChanged).is_err() {
            return;
        }
    }
}
