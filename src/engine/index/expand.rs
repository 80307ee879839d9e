//! Document expansion: the vocabulary's expansions worked into the index
//! once, at build time, so a query pays for a request word one lookup and
//! one posting list, not one per word it also looks for.
//!
//! For each request word of the vocabulary ([`crate::engine::vocabulary`],
//! keyed by stem) whose expansions some tool has, the index keeps one more
//! posting list: each tool's best impact among those expansions, already
//! weighted as the query would weigh it (the table's weight, less for a
//! generic word, [`Params::known_word_expansion`] when the catalog has the
//! word itself). A query then adds that list at the request word's own
//! weight times the expansion scale of its length, as the best of the
//! word's forms ([`super::query`]), which is what walking each expansion
//! gave. Explanations still walk each expansion, to say which word matched.

use rustc_hash::FxHashMap as HashMap;

use super::Params;
use super::words::WordMap;
use crate::engine::analyzer::Stemmer;
use crate::engine::vocabulary::{FORM_KEY, Source, is_generic_stem, vocabulary};

/// Expanded posting lists, appended after the index's own terms.
#[derive(Debug, Default)]
pub(super) struct Expanded {
    /// Request word's key ([`crate::engine::vocabulary::Vocabulary::key`])
    /// -> its expanded term.
    pub(super) by_stem: WordMap<u32>,
    /// Per expanded term (in order from the first free id): docs ascending,
    /// with their weighted impacts and the fields the best one came from.
    pub(super) lists: Vec<Vec<(u32, f32, u8)>>,
    /// Per expanded term: the terms it was built from, ascending.
    pub(super) members: Vec<Box<[u32]>>,
}

/// The weight the query gave an expansion of a request word (before its
/// length's scale): the source's weight, times `known_word_expansion` when
/// the catalog has the request word, times `generic_expansion` when either
/// word is generic.
pub(super) fn expansion_factor(params: &Params, source: Source, known: bool, generic: bool) -> f32 {
    let mut factor = match source {
        Source::Tools => params.expansion_weight,
        Source::WordNet => params.wordnet_weight,
    };
    if known {
        factor *= params.known_word_expansion;
    }
    if generic {
        factor *= params.generic_expansion;
    }
    factor
}

/// Builds the expanded lists of a catalog's index. `lookup` gives the term
/// a word is found by (`None` for a word no tool has, a stop word or
/// filler), `known` whether a request word of this stem is in the catalog,
/// `postings` a term's docs, impacts and fields, `first_id` the first free
/// term id.
pub(super) fn build<'a>(
    params: &Params,
    n_docs: usize,
    lookup: impl Fn(&str, &Stemmer) -> Option<u32>,
    known: impl Fn(&str) -> bool,
    postings: impl Fn(u32) -> (&'a [u32], &'a [f32], &'a [u8]),
    first_id: u32,
) -> Expanded {
    let mut out = Expanded::default();
    if !params.expansion || n_docs == 0 {
        return out;
    }
    let stemmer = Stemmer::default();
    // Each tool's best so far for the request word at hand, and where it
    // came from; `touched` lists the tools to reset.
    let mut best: Vec<(f32, u8)> = vec![(0.0, 0); n_docs];
    let mut touched: Vec<u32> = Vec::new();
    // Expansion words met again under many request words are looked up once.
    let mut terms: HashMap<&str, Option<u32>> = HashMap::default();
    let mut stems: Vec<(&str, &[crate::engine::vocabulary::Expansion])> =
        vocabulary().entries().collect();
    // Term ids in a fixed order, whatever the table's hash order.
    stems.sort_unstable_by_key(|(s, _)| *s);
    let mut members: Vec<u32> = Vec::new();
    for (key, expansions) in stems {
        members.clear();
        // An inflected word's key ([`FORM_KEY`]) is the word: its stem
        // says whether the catalog has it.
        let stem = match key.strip_prefix(FORM_KEY) {
            Some(word) => stemmer.stem(word),
            None => key.into(),
        };
        let known = known(&stem);
        let generic = is_generic_stem(&stem);
        for e in expansions {
            let Some(term) = *terms
                .entry(&e.word)
                .or_insert_with(|| lookup(&e.word, &stemmer))
            else {
                continue;
            };
            let factor = expansion_factor(params, e.source, known, generic || e.generic);
            if factor <= 0.0 {
                continue;
            }
            members.push(term);
            let (docs, impacts, fields) = postings(term);
            for ((&d, &impact), &mask) in docs.iter().zip(impacts).zip(fields) {
                let b = &mut best[d as usize];
                if b.0 == 0.0 {
                    touched.push(d);
                }
                let w = factor * impact;
                if w > b.0 {
                    *b = (w, mask);
                }
            }
        }
        if touched.is_empty() {
            continue;
        }
        touched.sort_unstable();
        let list = touched
            .drain(..)
            .map(|d| {
                let (w, mask) = std::mem::take(&mut best[d as usize]);
                (d, w, mask)
            })
            .collect();
        out.by_stem.insert(key, first_id + out.lists.len() as u32);
        out.lists.push(list);
        members.sort_unstable();
        members.dedup();
        out.members.push(members.as_slice().into());
    }
    out
}
