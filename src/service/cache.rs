//! A small least-recently-used map for the service's caches.

/// A small least-recently-used map (linear scans: it holds a handful).
pub(crate) struct Lru<K, V> {
    entries: Vec<(K, V, u64)>,
    clock: u64,
    capacity: usize,
}

impl<K: PartialEq, V: Clone> Lru<K, V> {
    pub(crate) fn new(capacity: usize) -> Self {
        Lru {
            entries: Vec::new(),
            clock: 0,
            capacity: capacity.max(1),
        }
    }

    pub(crate) fn get(&mut self, key: &K) -> Option<V> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.iter_mut().find(|e| e.0 == *key).map(|e| {
            e.2 = clock;
            e.1.clone()
        })
    }

    pub(crate) fn get_or_insert(&mut self, key: K, make: impl FnOnce() -> V) -> V {
        self.clock += 1;
        if let Some(e) = self.entries.iter_mut().find(|e| e.0 == key) {
            e.2 = self.clock;
            return e.1.clone();
        }
        if self.entries.len() >= self.capacity
            && let Some(oldest) = self
                .entries
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| e.2)
                .map(|(i, _)| i)
        {
            self.entries.swap_remove(oldest);
        }
        let value = make();
        self.entries.push((key, value.clone(), self.clock));
        value
    }
}
