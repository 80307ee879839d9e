//! Dense rankers built off the request path: a preview (the explorer's
//! search as you type) does not wait for a catalog's vectors; BM25F answers
//! meanwhile, with the build's progress.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Service, build_cached, lock};
use crate::catalog::Catalog;
use crate::engine::Ranker;

/// A background build's progress (texts embedded of all).
#[derive(Debug, Default)]
pub(super) struct BuildProgress {
    done: AtomicU64,
    total: AtomicU64,
    /// The build ended (built, or failed: the next search reports why).
    finished: std::sync::atomic::AtomicBool,
}

/// A background build: its ranker's key and progress.
pub(super) type Building = ((u128, Ranker), Arc<BuildProgress>);

impl Service {
    /// `None` when `ranker` over `catalog` is built (or cannot be, which
    /// the search then reports); else starts building it on a thread of its
    /// own, once, and gives its progress (texts done, total).
    pub(super) fn build_in_background(
        &self,
        catalog: &Catalog,
        ranker: Ranker,
    ) -> Option<(u64, u64)> {
        let embeddings = self.config.embeddings.clone()?;
        let key = (catalog.fingerprint(), ranker);
        let built = lock(&self.rankers)
            .get(&key)
            .is_some_and(|cell| cell.try_lock().is_ok_and(|slot| slot.is_some()));
        let mut building = lock(&self.building);
        if built {
            building.retain(|(k, _)| *k != key);
            return None;
        }
        if let Some((_, p)) = building.iter().find(|(k, _)| *k == key) {
            if p.finished.load(Ordering::Relaxed) {
                // Ended without a ranker (failed, or evicted already): the
                // search builds it itself and reports what happens.
                building.retain(|(k, _)| *k != key);
                return None;
            }
            return Some((
                p.done.load(Ordering::Relaxed),
                p.total.load(Ordering::Relaxed),
            ));
        }
        let progress = Arc::new(BuildProgress::default());
        progress
            .total
            .store(catalog.len() as u64, Ordering::Relaxed);
        building.push((key, progress.clone()));
        drop(building);
        let sink = progress.clone();
        let embeddings = embeddings.also_progress(Arc::new(move |p: crate::embed::Progress| {
            sink.done.store(p.done as u64, Ordering::Relaxed);
            sink.total.store(p.total as u64, Ordering::Relaxed);
        }));
        let rankers = self.rankers.clone();
        let total = catalog.len() as u64;
        let catalog = catalog.clone();
        let spawned = std::thread::Builder::new()
            .name("toolsift-embed".into())
            .spawn(move || {
                let _ = build_cached(&rankers, &catalog, ranker, Some(embeddings));
                progress.finished.store(true, Ordering::Relaxed);
            });
        if spawned.is_err() {
            lock(&self.building).retain(|(k, _)| *k != key);
            return None;
        }
        Some((0, total))
    }
}
