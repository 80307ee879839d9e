//! Dense rankers built off the request path: a preview (the explorer's
//! search as you type) does not wait for a catalog's vectors; BM25F answers
//! meanwhile, with the build's progress.
//!
//! At most [`MAX_RUNNING`] builds run at once, each on a thread of its own
//! with a copy of its catalog: a preview of yet another catalog is answered
//! the same way (its progress 0) and starts its build when asked again
//! with a place free. A build that succeeds forgets itself (its ranker is
//! in the cache); one that fails is kept for the next search to report,
//! the last [`MAX_FAILED`] of them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::rankers::build_cached;
use super::{Service, lock};
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

/// Background builds running at once, at most.
pub(super) const MAX_RUNNING: usize = 2;
/// Failed builds remembered (for their searches to report), at most.
pub(super) const MAX_FAILED: usize = 16;

fn finished(b: &Building) -> bool {
    b.1.finished.load(Ordering::Relaxed)
}

impl Service {
    /// `None` when `ranker` over `catalog` is built (or cannot be, which
    /// the search then reports); else starts building it on a thread of its
    /// own, once, when fewer than [`MAX_RUNNING`] builds run, and gives its
    /// progress (texts done, total).
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
        let total = catalog.len() as u64;
        if building.iter().filter(|b| !finished(b)).count() >= MAX_RUNNING {
            // No place: asked again, the build starts once there is one.
            return Some((0, total));
        }
        while building.iter().filter(|b| finished(b)).count() >= MAX_FAILED {
            match building.iter().position(finished) {
                Some(oldest) => building.remove(oldest),
                None => break,
            };
        }
        let progress = Arc::new(BuildProgress::default());
        progress.total.store(total, Ordering::Relaxed);
        building.push((key, progress.clone()));
        drop(building);
        let sink = progress.clone();
        let embeddings = embeddings.also_progress(Arc::new(move |p: crate::embed::Progress| {
            sink.done.store(p.done as u64, Ordering::Relaxed);
            sink.total.store(p.total as u64, Ordering::Relaxed);
        }));
        let rankers = self.rankers.clone();
        let building = self.building.clone();
        let catalog = catalog.clone();
        let spawned = std::thread::Builder::new()
            .name("toolsift-embed".into())
            .spawn(move || {
                let built = build_cached(&rankers, &catalog, ranker, Some(embeddings));
                let mut building = lock(&building);
                if built.is_ok() {
                    building.retain(|(k, _)| *k != key);
                }
                progress.finished.store(true, Ordering::Relaxed);
            });
        if spawned.is_err() {
            lock(&self.building).retain(|(k, _)| *k != key);
            return None;
        }
        Some((0, total))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Condvar, Mutex};
    use std::time::Duration;

    use super::*;
    use crate::catalog::Tool;
    use crate::embed::{EmbedError, Embedder, Embeddings, HashEmbedder, Role, VectorCache};
    use crate::service::{SearchRequest, ServiceConfig, ServiceError};

    /// The hash embedder's vectors (or an error, failing) once the gate is
    /// open; until then every call waits.
    #[derive(Debug, Default)]
    struct Gated {
        open: Mutex<bool>,
        opened: Condvar,
        fail: bool,
        inner: HashEmbedder,
    }

    impl Gated {
        fn open(&self) {
            *self.open.lock().unwrap() = true;
            self.opened.notify_all();
        }
    }

    impl Embedder for Gated {
        fn kind(&self) -> &'static str {
            "test"
        }
        fn model(&self) -> &str {
            "gated"
        }
        fn describe(&self) -> String {
            "gated test embedder".into()
        }
        fn prefix(&self, _role: Role) -> &str {
            ""
        }
        fn dimension(&self) -> Option<usize> {
            Some(64)
        }
        fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>, EmbedError> {
            let mut open = self.open.lock().unwrap();
            while !*open {
                open = self.opened.wait(open).unwrap();
            }
            drop(open);
            if self.fail {
                return Err(EmbedError::new("gated", "down"));
            }
            self.inner.embed(texts, role)
        }
    }

    fn service(provider: Arc<Gated>) -> Service {
        let cache = Arc::new(VectorCache::new(0, None));
        Service::new(ServiceConfig {
            embeddings: Some(Embeddings::new(provider, cache)),
            ..ServiceConfig::default()
        })
    }

    /// Catalog `r` of a stream: three tools no other catalog has.
    fn catalog(r: usize) -> Catalog {
        let tools = (0..3)
            .map(|i| Tool::new(format!("t{r}_{i}"), format!("weather {r} {i}")))
            .collect();
        Catalog::new("t", tools).unwrap()
    }

    /// A hybrid preview of catalog `r`: the ranker that answered, and the
    /// embedding progress it reports.
    fn preview(s: &Service, r: usize) -> Result<(Ranker, Option<(u64, u64)>), ServiceError> {
        let p = SearchRequest {
            query: "weather".into(),
            ranker: Some(Ranker::Hybrid),
            preview: true,
            ..SearchRequest::default()
        };
        s.tool_search(&catalog(r), &p, "")
            .map(|o| (o.method, o.embedding))
    }

    fn hybrid(s: &Service, r: usize) -> bool {
        preview(s, r).unwrap().0 == Ranker::Hybrid
    }

    fn wait_until(what: &str, done: impl Fn() -> bool) {
        for _ in 0..4000 {
            if done() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("timed out waiting until {what}");
    }

    fn running(s: &Service) -> usize {
        lock(&s.building).iter().filter(|b| !finished(b)).count()
    }

    #[test]
    fn at_most_two_builds_run_and_each_forgets_itself_once_built() {
        let gate = Arc::new(Gated::default());
        let s = service(gate.clone());
        for r in 0..5 {
            assert_eq!(preview(&s, r).unwrap(), (Ranker::Bm25, Some((0, 3))));
        }
        assert_eq!(lock(&s.building).len(), MAX_RUNNING);
        gate.open();
        wait_until("both builds are done", || lock(&s.building).is_empty());
        assert!(hybrid(&s, 0) && hybrid(&s, 1));
        // Catalog 2 found no place before; asked again, it is built now.
        assert!(!hybrid(&s, 2));
        wait_until("catalog 2 is built", || hybrid(&s, 2));
        // A stream of catalogs previewed once each leaves nothing behind.
        for r in 10..60 {
            assert!(!hybrid(&s, r));
            wait_until("the build is done", || running(&s) == 0);
        }
        assert!(lock(&s.building).is_empty());
    }

    #[test]
    fn failed_builds_are_reported_the_last_sixteen_remembered() {
        let gate = Arc::new(Gated {
            fail: true,
            ..Gated::default()
        });
        gate.open();
        let s = service(gate);
        for r in 0..40 {
            assert!(!hybrid(&s, r));
            wait_until("the build failed", || running(&s) == 0);
        }
        assert_eq!(lock(&s.building).len(), MAX_FAILED);
        // The next search of a catalog whose build failed says why.
        let e = preview(&s, 39).unwrap_err();
        assert_eq!((e.status, e.code), (502, "ranker_failed"));
        assert!(e.message.contains("down"), "{e}");
    }
}
