//! Query analysis: a query (and optional context) into weighted terms of the
//! index, each term once, with the terms of each sentence for long messages.

use rustc_hash::FxHashMap as HashMap;

use super::Index;
use super::sentences::split_sentences;
use crate::engine::analyzer::{Stemmer, for_each_word};
use words::{Analysis, Behind};

mod words;

/// A query term: its id, weight, and the words it came from (for explain).
#[derive(Debug, Clone)]
pub(super) struct QueryTerm {
    pub(super) term: u32,
    pub(super) weight: f32,
    pub(super) text: String,
    /// The request word this term stands for (its position among the
    /// query's words): a word and its expansions share it.
    pub(super) origin: u32,
    /// Other terms share this one's origin: a tool scores the best of
    /// them, not their sum (a word found in two forms is one word).
    pub(super) grouped: bool,
    /// A general synonym (WordNet's) stands for the request's word: weak
    /// evidence that a tool fits.
    pub(super) weak: bool,
}

#[derive(Debug, Default)]
pub(super) struct AnalyzedQuery {
    pub(super) terms: Vec<QueryTerm>,
    /// Term indices (into `terms`) per sentence, when the query is long enough
    /// to be scored sentence by sentence.
    pub(super) sentences: Vec<Vec<usize>>,
    /// Tools the query names exactly, in the order it names them.
    pub(super) exact: Vec<usize>,
    /// The query asks to destroy or undo something: a tool whose name says
    /// it does is not held back.
    pub(super) asks_undo: bool,
    /// Walk each expansion of a request word, as an explanation does,
    /// not its list in the index (see [`Index::analyze_into`]).
    walk: bool,
    /// Room for one lower-cased word (kept between queries).
    buf: String,
    /// Where each term is in `terms`: `slots[term]` holds this analysis's
    /// generation and the position (a stale generation: not there), so a
    /// term met again is found at once, not by a walk of the terms.
    slots: Vec<u64>,
    generation: u32,
}

impl AnalyzedQuery {
    /// The position of `term` in `terms`, if this analysis has it.
    fn slot(&self, term: u32) -> Option<usize> {
        let s = *self.slots.get(term as usize)?;
        ((s >> 32) as u32 == self.generation).then_some(s as u32 as usize)
    }

    /// Remembers that `term` is at `at` in `terms`.
    fn set_slot(&mut self, term: u32, at: usize) {
        let t = term as usize;
        if t >= self.slots.len() {
            self.slots.resize(t + 1, 0);
        }
        self.slots[t] = (u64::from(self.generation) << 32) | at as u64;
    }
}

impl AnalyzedQuery {
    fn clear(&mut self) {
        self.terms.clear();
        self.sentences.clear();
        self.exact.clear();
        self.asks_undo = false;
        self.walk = false;
        // A new generation forgets every slot at once (after 2^32 of them,
        // the slots are cleared: none may pass for this generation's).
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.iter_mut().for_each(|s| *s = 0);
            self.generation = 1;
        }
    }
}

/// A memo of the stemmer: word -> stem. A word's stem does not depend on the
/// index, so one memo serves every index; typing a query repeats its words
/// at every keystroke, and stemming is the costly part of an unseen word.
#[derive(Debug, Default)]
pub(super) struct StemMemo {
    stemmer: Stemmer,
    stems: HashMap<Box<str>, Box<str>>,
}

impl StemMemo {
    /// Entries kept before the memo starts over.
    const CAPACITY: usize = 8192;
    /// Longer words (a query word may be of any length) are stemmed each
    /// time, not kept: the memo holds at most `CAPACITY` words of this many
    /// bytes and their stems, about 1 MiB.
    const MAX_WORD_BYTES: usize = 64;

    /// Calls `f` with the stem of `word`.
    fn with_stem<R>(&mut self, word: &str, f: impl FnOnce(&str) -> R) -> R {
        if let Some(stem) = self.stems.get(word) {
            return f(stem);
        }
        let stem = self.stemmer.stem(word);
        let r = f(&stem);
        if word.len() <= Self::MAX_WORD_BYTES {
            if self.stems.len() >= Self::CAPACITY {
                self.stems.clear();
            }
            self.stems.insert(Box::from(word), Box::from(stem.as_ref()));
        }
        r
    }

    /// Words held, and their bytes with their stems'.
    #[cfg(test)]
    pub(super) fn held(&self) -> (usize, usize) {
        let bytes = self.stems.iter().map(|(w, s)| w.len() + s.len()).sum();
        (self.stems.len(), bytes)
    }
}

impl Index {
    /// `Some(None)`: a word to skip (stop word, filler); `None`: unknown.
    /// Every stop word is in `words` (as `None`).
    fn lookup_word(&self, word: &str, memo: &mut StemMemo) -> Option<Option<u32>> {
        if let Some(&t) = self.words.get(word) {
            return Some(t);
        }
        // Words not seen verbatim are looked up by their stem.
        memo.with_stem(word, |stem| self.stems.get(stem).map(|&t| Some(t)))
    }

    /// Adds the query terms of `text` (weight `weight`) to `q`, each term
    /// once, and returns which terms (indices into `q.terms`) each sentence
    /// has.
    ///
    /// With `by_sentence` false, no sentence's terms are kept (an empty
    /// list is returned).
    #[allow(clippy::too_many_arguments)]
    fn analyze_query(
        &self,
        text: &str,
        weight: f32,
        q: &mut AnalyzedQuery,
        memo: &mut StemMemo,
        with_text: bool,
        by_sentence: bool,
        origin_base: u32,
    ) -> Vec<Vec<usize>> {
        let mut sentences = Vec::new();
        let mut buf = std::mem::take(&mut q.buf);
        let mut analysis = Analysis {
            index: self,
            q,
            memo,
            weight,
            with_text,
            by_sentence,
            expansion_scale: self.expansion_scale(text),
            // The request's own words (not its context's) say whether it
            // asks to destroy or undo, when a tool's name says it does.
            track_undo: origin_base == 0
                && !self.destructive.is_empty()
                && self.params.unasked_destructive < 1.0,
            word_no: origin_base,
            phrase_no: u32::MAX - origin_base,
            in_sentence: Vec::new(),
        };
        for sentence in split_sentences(text) {
            analysis.add_shapes(sentence);
            let mut behind = Behind::default();
            for_each_word(sentence, &mut buf, |w| analysis.add_word(w, &mut behind));
            if !analysis.in_sentence.is_empty() {
                sentences.push(std::mem::take(&mut analysis.in_sentence));
            }
        }
        analysis.q.buf = buf;
        sentences
    }

    /// The share of a word's weight its expansions get: all of it up to
    /// `expansion_words` words, less for longer requests, none past
    /// `expansion_max_words` (counted no further: a long request is not
    /// expanded whatever its length).
    fn expansion_scale(&self, text: &str) -> f32 {
        let limit = self.params.expansion_max_words.saturating_add(1);
        let words = text.split_whitespace().take(limit).count().max(1);
        if self.params.expansion && words <= self.params.expansion_max_words {
            (self.params.expansion_words as f32 / words as f32).min(1.0)
        } else {
            0.0
        }
    }

    /// The query's terms, its sentences (when there are enough to blend), the
    /// context's terms, and the tools it names exactly. `with_text` keeps
    /// each term's words, for explanations.
    pub(super) fn analyze(
        &self,
        query: &str,
        context: Option<&str>,
        with_text: bool,
        memo: &mut StemMemo,
    ) -> AnalyzedQuery {
        let mut q = AnalyzedQuery::default();
        self.analyze_into(query, context, with_text, memo, &mut q);
        q
    }

    /// [`Index::analyze`] into `q` (cleared first), whose room is reused.
    pub(super) fn analyze_into(
        &self,
        query: &str,
        context: Option<&str>,
        with_text: bool,
        memo: &mut StemMemo,
        q: &mut AnalyzedQuery,
    ) {
        q.clear();
        self.analyze_words(query, context, with_text, memo, q);
        if !with_text && self.lists_overlap(q) {
            // A tool word two of the request's words stand for (or one
            // the request has itself) counts once, for the word that
            // weighs it most: the lists cannot say which, so each
            // expansion is walked.
            q.clear();
            q.walk = true;
            self.analyze_words(query, context, with_text, memo, q);
        }
    }

    /// Whether an expanded list of `q` was built from a term `q` has in
    /// its own right or through another list.
    fn lists_overlap(&self, q: &AnalyzedQuery) -> bool {
        let first = self.first_expanded;
        if !q.terms.iter().any(|t| t.term >= first) {
            return false;
        }
        let mut seen: Vec<u32> = q
            .terms
            .iter()
            .filter(|t| t.term < first)
            .map(|t| t.term)
            .collect();
        for t in q.terms.iter().filter(|t| t.term >= first) {
            for &m in &*self.expanded_members[(t.term - first) as usize] {
                if seen.contains(&m) {
                    return true;
                }
                seen.push(m);
            }
        }
        false
    }

    /// The analysis of [`Index::analyze_into`], once.
    fn analyze_words(
        &self,
        query: &str,
        context: Option<&str>,
        with_text: bool,
        memo: &mut StemMemo,
        q: &mut AnalyzedQuery,
    ) {
        // A message scored sentence by sentence keeps each sentence's
        // terms; most requests have too few sentences to be.
        let min = self.params.min_sentences.max(2);
        let by_sentence = split_sentences(query).nth(min - 1).is_some();
        let sentences = self.analyze_query(query, 1.0, q, memo, with_text, by_sentence, 0);
        if sentences.len() >= min {
            q.sentences = sentences;
        }
        if let Some(context) = context {
            self.analyze_query(
                context,
                self.params.context_weight,
                q,
                memo,
                with_text,
                false,
                CONTEXT_ORIGINS,
            );
        }
        if self.params.exact_names {
            q.exact = self.exact_names(query);
        }
        // Only expansions (URLs and file names among them) and
        // abbreviations give two terms one origin: a request too long to
        // expand has no groups to mark, and the walk is quadratic.
        let words = query
            .split_whitespace()
            .take(self.params.expansion_max_words.saturating_add(1))
            .count();
        let expands = self.params.expansion && words <= self.params.expansion_max_words;
        if expands || self.params.abbreviations || context.is_some() {
            mark_groups(&mut q.terms);
        }
    }
}

/// Where a context's words start counting origins: past any query's
/// words, below any phrase's.
const CONTEXT_ORIGINS: u32 = 1 << 30;

/// Marks the terms that share their origin with another (a word and the
/// expansions it found).
fn mark_groups(terms: &mut [QueryTerm]) {
    for i in 0..terms.len() {
        let origin = terms[i].origin;
        terms[i].grouped = terms
            .iter()
            .enumerate()
            .any(|(j, t)| j != i && t.origin == origin);
    }
}

#[cfg(test)]
mod tests {
    use super::StemMemo;

    #[test]
    fn the_stem_memo_is_bounded_in_bytes_whatever_the_words() {
        let mut memo = StemMemo::default();
        assert_eq!(memo.with_stem("running", str::to_string), "run");
        assert_eq!(memo.held(), (1, "running".len() + "run".len()));
        // Long words are stemmed, not kept.
        for i in 0..50 {
            let word = format!("{i}{}ing", "x".repeat(4_000));
            assert!(memo.with_stem(&word, str::len) > 4_000);
        }
        assert_eq!(memo.held().0, 1);
        let word = "x".repeat(StemMemo::MAX_WORD_BYTES);
        memo.with_stem(&word, |_| ());
        assert_eq!(memo.held().0, 2);
        for i in 0..20_000 {
            memo.with_stem(&format!("w{i}{word}"), |_| ());
            memo.with_stem(&format!("w{i}"), |_| ());
        }
        let (words, bytes) = memo.held();
        assert!(words <= StemMemo::CAPACITY, "{words}");
        assert!(
            bytes <= StemMemo::CAPACITY * 2 * StemMemo::MAX_WORD_BYTES,
            "{bytes}"
        );
    }
}
