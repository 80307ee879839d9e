//! A small least-recently-used map for the service's caches, bounded in
//! entries and in bytes: the `lru` crate keeps the order of use, this adds
//! the weight bound.

use std::hash::Hash;

use lru::LruCache;

/// A least-recently-used map. Each entry has a weight (its approximate
/// size in bytes); inserting evicts the least recently used entries until
/// both the count and the total weight fit. An entry heavier than the whole
/// budget is still kept, alone.
pub(crate) struct Lru<K, V> {
    /// Each value with its weight, in order of use.
    entries: LruCache<K, (V, usize)>,
    capacity: usize,
    max_weight: usize,
    weight: usize,
}

impl<K: Hash + Eq + Clone, V: Clone> Lru<K, V> {
    pub(crate) fn new(capacity: usize, max_weight: usize) -> Self {
        Lru {
            entries: LruCache::unbounded(),
            capacity: capacity.max(1),
            max_weight,
            weight: 0,
        }
    }

    pub(crate) fn get(&mut self, key: &K) -> Option<V> {
        self.entries.get(key).map(|(v, _)| v.clone())
    }

    /// The first value `matches` accepts, marked used.
    pub(crate) fn find(&mut self, matches: impl Fn(&V) -> bool) -> Option<V> {
        let key = self
            .entries
            .iter()
            .find(|(_, (v, _))| matches(v))
            .map(|(k, _)| k.clone())?;
        self.get(&key)
    }

    /// The value under `key`, made (and weighed `weight`) if absent.
    pub(crate) fn get_or_insert(&mut self, key: K, weight: usize, make: impl FnOnce() -> V) -> V {
        if let Some(v) = self.get(&key) {
            return v;
        }
        while !self.entries.is_empty()
            && (self.entries.len() >= self.capacity
                || self.weight.saturating_add(weight) > self.max_weight)
        {
            self.evict_oldest();
        }
        let value = make();
        self.weight = self.weight.saturating_add(weight);
        self.entries.put(key, (value.clone(), weight));
        value
    }

    /// Sets the weight of the entry under `key` (its value measured once
    /// made), evicting the least recently used entries until the total
    /// fits again.
    pub(crate) fn reweigh(&mut self, key: &K, weight: usize) {
        let Some((_, held)) = self.entries.peek_mut(key) else {
            return;
        };
        let was = std::mem::replace(held, weight);
        self.weight = self.weight.saturating_sub(was).saturating_add(weight);
        while self.entries.len() > 1 && self.weight > self.max_weight {
            self.evict_oldest();
        }
    }

    fn evict_oldest(&mut self) {
        if let Some((_, (_, weight))) = self.entries.pop_lru() {
            self.weight = self.weight.saturating_sub(weight);
        }
    }

    /// Every value held, with its weight.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&V, usize)> {
        self.entries.iter().map(|(_, (v, w))| (v, *w))
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Total weight of the entries held.
    pub(crate) fn weight(&self) -> usize {
        self.weight
    }
}

#[cfg(test)]
mod tests {
    use super::Lru;

    #[test]
    fn bounded_by_count_and_weight() {
        let mut lru: Lru<u32, u32> = Lru::new(3, 100);
        for k in 0..3 {
            lru.get_or_insert(k, 10, || k);
        }
        assert_eq!(lru.get(&0), Some(0));
        lru.get_or_insert(3, 10, || 3); // evicts 1, the least recently used
        assert_eq!(lru.get(&1), None);
        assert_eq!(lru.len(), 3);
        lru.get_or_insert(4, 90, || 4); // over the weight: evicts until it fits
        assert_eq!(lru.len(), 2);
        assert_eq!(lru.weight(), 100);
        assert_eq!(lru.get(&3), Some(3), "the most recent one stays");
        lru.get_or_insert(5, 500, || 5); // heavier than the budget: kept alone
        assert_eq!((lru.len(), lru.weight()), (1, 500));
        assert_eq!(lru.get_or_insert(5, 500, || 99), 5);
    }

    #[test]
    fn reweighing_evicts_the_least_recently_used_to_fit() {
        let mut lru: Lru<u32, u32> = Lru::new(10, 100);
        for k in 0..4 {
            lru.get_or_insert(k, 10, || k);
        }
        lru.get(&0);
        lru.reweigh(&3, 30);
        assert_eq!((lru.len(), lru.weight()), (4, 60));
        // Measured heavier: 1 and 2 go (the least recently used), 0 stays.
        lru.reweigh(&3, 85);
        assert_eq!((lru.len(), lru.weight()), (2, 95));
        assert_eq!(lru.get(&0), Some(0));
        assert_eq!(lru.get(&1), None);
        lru.reweigh(&9, 1000); // absent: nothing happens
        assert_eq!(lru.weight(), 95);
    }
}
