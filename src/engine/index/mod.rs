//! A BM25F index over a catalog's tools.
//!
//! Each tool is a document with weighted fields: its name's words, its
//! description, its parameter names, its parameter descriptions with enum
//! values (every nesting level of the schema), and word bigrams of the name and
//! of the description. Query terms are counted once each, so a term's score in
//! a document never changes after the index is built: it is stored in the
//! posting list as an impact, and a query only sums impacts.
//!
//! - [`params`]: the fields and the ranking parameters;
//! - [`build`]: analysing a catalog into posting lists;
//! - [`query`]: analysing a query into weighted terms;
//! - [`exact`]: recognising tool names written in a query;
//! - [`expand`]: the vocabulary's expansions worked into the index;
//! - [`score`]: summing impacts, the multi-sentence blend, top-k;
//! - [`explain`]: why a tool matched.

mod build;
mod exact;
mod expand;
mod explain;
mod params;
mod query;
mod score;
mod sentences;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_expansion;
mod words;

use std::fmt;
use std::ops::Range;

use rustc_hash::FxHashMap as HashMap;

pub use explain::{DenseMatch, Explanation, TermMatch, UsageMatch};
pub use params::{Field, FieldParams, Params, UnknownField};
pub use score::Hit;
pub use sentences::sentence_count;
use words::WordMap;

/// The index. Immutable once built; searches share it across threads.
pub struct Index {
    params: Params,
    n_docs: usize,
    /// Lower-cased word -> unigram term; `None` for query filler. Stop words
    /// are absent.
    words: WordMap<Option<u32>>,
    /// Stem -> unigram term, for query words not seen verbatim.
    stems: WordMap<u32>,
    /// A request word's key (its stem, or the inflected word the
    /// vocabulary expands as written) -> its expanded term (every tool's best
    /// impact among the words it also looks for, see [`expand`]).
    expanded: WordMap<u32>,
    /// The first expanded term; those before it are the catalog's own.
    first_expanded: u32,
    /// Per expanded term (from `first_expanded`): the terms it stands for.
    expanded_members: Vec<Box<[u32]>>,
    bigrams: HashMap<(u32, u32), u32>,
    offsets: Vec<u32>,
    post_docs: Vec<u32>,
    post_impacts: Vec<f32>,
    post_fields: Vec<u8>,
    /// Name key -> tools, and how many words the name has.
    names: HashMap<Box<str>, (Vec<u32>, usize)>,
    /// Per tool: how many distinct terms its name has.
    name_terms: Vec<u8>,
    /// Tools whose name says they destroy or undo (ascending).
    destructive: Vec<u32>,
    /// Terms whose stem asks to destroy or undo (ascending).
    undo_terms: Vec<u32>,
    /// Each tool's server (an id of `server_keys`; `u32::MAX` for none).
    servers: Vec<u32>,
    /// A server's name key -> its id.
    server_keys: HashMap<Box<str>, u32>,
}

impl fmt::Debug for Index {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Index")
            .field("docs", &self.n_docs)
            .field("terms", &(self.offsets.len().saturating_sub(1)))
            .field("postings", &self.post_docs.len())
            .finish()
    }
}

impl Index {
    pub fn len(&self) -> usize {
        self.n_docs
    }

    /// Bytes the index holds (approximate, see [`crate::heap_size`]): its
    /// vocabulary, postings and name keys.
    pub fn heap_bytes(&self) -> usize {
        use crate::heap_size::hash_map;
        let words = self.words.heap_bytes();
        let stems = self.stems.heap_bytes() + self.expanded.heap_bytes();
        let names = hash_map(&self.names)
            + self
                .names
                .iter()
                .map(|(k, (docs, _))| k.len() + docs.capacity() * 4)
                .sum::<usize>();
        let postings = self.offsets.capacity() * 4
            + self.post_docs.capacity() * 4
            + self.post_impacts.capacity() * 4
            + self.post_fields.capacity()
            + self.destructive.capacity() * 4
            + self.undo_terms.capacity() * 4
            + self.servers.capacity() * 4
            + hash_map(&self.server_keys);
        let members: usize = self.expanded_members.iter().map(|m| 16 + m.len() * 4).sum();
        words + stems + names + hash_map(&self.bigrams) + postings + members
    }

    pub fn is_empty(&self) -> bool {
        self.n_docs == 0
    }

    /// How many expanded posting lists the index holds.
    #[cfg(test)]
    fn expanded_terms(&self) -> usize {
        self.expanded.len()
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Where `term`'s postings are in `post_docs`, `post_impacts` and
    /// `post_fields`.
    fn postings(&self, term: u32) -> Range<usize> {
        let t = term as usize;
        self.offsets[t] as usize..self.offsets[t + 1] as usize
    }
}
