//! A map from words to values, made for the lookups of every query word:
//! a word of at most 15 bytes (nearly all of them) is one 128-bit key,
//! its bytes and its length, so a lookup hashes two integers and compares
//! one, with no call to compare bytes; longer words are kept as text.

use rustc_hash::FxHashMap as HashMap;

/// Words of at most this many bytes are packed into one key.
const PACKED: usize = 15;

#[derive(Debug, Clone)]
pub(super) struct WordMap<V> {
    short: HashMap<u128, V>,
    long: HashMap<Box<str>, V>,
}

impl<V> Default for WordMap<V> {
    fn default() -> Self {
        WordMap {
            short: HashMap::default(),
            long: HashMap::default(),
        }
    }
}

/// The key of a word of at most [`PACKED`] bytes: its bytes, then zeros,
/// its length in the last byte (so no two words share a key).
fn pack(word: &str) -> Option<u128> {
    let bytes = word.as_bytes();
    if bytes.len() > PACKED {
        return None;
    }
    let mut key = [0u8; 16];
    key[..bytes.len()].copy_from_slice(bytes);
    key[15] = bytes.len() as u8;
    Some(u128::from_le_bytes(key))
}

impl<V> WordMap<V> {
    pub(super) fn get(&self, word: &str) -> Option<&V> {
        match pack(word) {
            Some(key) => self.short.get(&key),
            None => self.long.get(word),
        }
    }

    pub(super) fn insert(&mut self, word: &str, value: V) {
        match pack(word) {
            Some(key) => {
                self.short.insert(key, value);
            }
            None => {
                self.long.insert(Box::from(word), value);
            }
        }
    }

    /// The value of `word`, made by `make` if absent.
    pub(super) fn get_or_insert_with(&mut self, word: &str, make: impl FnOnce() -> V) -> &mut V {
        match pack(word) {
            Some(key) => self.short.entry(key).or_insert_with(make),
            None => self.long.entry(Box::from(word)).or_insert_with(make),
        }
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    /// Bytes the map holds (approximate, see [`crate::heap_size`]).
    pub(super) fn heap_bytes(&self) -> usize {
        use crate::heap_size::hash_map;
        hash_map(&self.short)
            + hash_map(&self.long)
            + self.long.keys().map(|k| k.len()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_and_long_words_are_apart_and_whole() {
        let mut m = WordMap::default();
        for (i, w) in [
            "",
            "a",
            "a\0",
            "ab",
            "fifteen_bytes__",
            "sixteen_bytes___",
            "é",
        ]
        .iter()
        .enumerate()
        {
            m.insert(w, i);
        }
        assert_eq!(m.len(), 7);
        assert_eq!(m.get("a"), Some(&1));
        assert_eq!(m.get("a\0"), Some(&2));
        assert_eq!(m.get("fifteen_bytes__"), Some(&4));
        assert_eq!(m.get("sixteen_bytes___"), Some(&5));
        assert_eq!(m.get("sixteen_bytes__"), None);
        assert_eq!(m.get("é"), Some(&6));
        assert_eq!(*m.get_or_insert_with("ab", || 99), 3);
        assert_eq!(*m.get_or_insert_with("abc", || 99), 99);
    }

    proptest! {
        /// The same answers as a map of the words' text.
        #[test]
        fn agrees_with_a_map_of_text(
            words in proptest::collection::vec("[a-c\\x00é]{0,18}", 0..40),
            probes in proptest::collection::vec("[a-c\\x00é]{0,18}", 0..40),
        ) {
            let mut m = WordMap::default();
            let mut plain = std::collections::HashMap::new();
            for (i, w) in words.iter().enumerate() {
                m.insert(w, i);
                plain.insert(w.clone(), i);
            }
            prop_assert_eq!(m.len(), plain.len());
            for w in words.iter().chain(&probes) {
                prop_assert_eq!(m.get(w), plain.get(w));
            }
        }
    }
}
