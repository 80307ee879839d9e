//! Scoring: summing each query term's impacts over its posting list, the
//! sentence-by-sentence blend for long messages, and the top `k`.

use std::cell::RefCell;

use serde::Serialize;

use super::Index;
use super::query::{AnalyzedQuery, QueryTerm, StemMemo};

/// One ranked tool.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Hit {
    /// Index of the tool in the catalog.
    pub doc: usize,
    pub score: f32,
    /// The query named this tool exactly.
    pub exact: bool,
}

thread_local! {
    /// This thread's search state; nothing in it belongs to one index.
    pub(super) static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
    /// Each tool's best score among the terms of one request word (zero
    /// between words).
    static GROUP_BEST: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

impl Index {
    /// Adds each term's impacts into `scores` (one array entry per tool).
    fn accumulate(&self, q: &AnalyzedQuery, terms: &[usize], scores: &mut [f32]) {
        self.accumulate_terms(terms.iter().map(|&i| &q.terms[i]), scores);
    }

    /// Adds each term's impacts into `scores`; of terms that stand for the
    /// same request word (a word and its expansions), a tool gets the best
    /// one's, not their sum.
    fn accumulate_terms<'a>(
        &self,
        terms: impl Iterator<Item = &'a QueryTerm> + Clone,
        scores: &mut [f32],
    ) {
        let mut groups: Vec<u32> = Vec::new();
        for qt in terms.clone() {
            if qt.grouped {
                if !groups.contains(&qt.origin) {
                    groups.push(qt.origin);
                }
                continue;
            }
            let range = self.postings(qt.term);
            let docs = &self.post_docs[range.clone()];
            let impacts = &self.post_impacts[range];
            for (&d, &impact) in docs.iter().zip(impacts) {
                if let Some(s) = scores.get_mut(d as usize) {
                    *s += qt.weight * impact;
                }
            }
        }
        if groups.is_empty() {
            return;
        }
        GROUP_BEST.with_borrow_mut(|best| {
            best.clear();
            best.resize(scores.len(), 0.0);
            for origin in groups {
                let members = terms.clone().filter(|t| t.grouped && t.origin == origin);
                for qt in members.clone() {
                    let range = self.postings(qt.term);
                    for (&d, &impact) in self.post_docs[range.clone()]
                        .iter()
                        .zip(&self.post_impacts[range])
                    {
                        if let Some(b) = best.get_mut(d as usize) {
                            *b = b.max(qt.weight * impact);
                        }
                    }
                }
                for qt in members {
                    for &d in &self.post_docs[self.postings(qt.term)] {
                        let d = d as usize;
                        if let (Some(b), Some(s)) = (best.get_mut(d), scores.get_mut(d)) {
                            *s += *b;
                            *b = 0.0;
                        }
                    }
                }
            }
        });
    }

    /// The best `k` tools for `query` (and optional `context`), best first.
    /// Exactly named tools come first; tools that match nothing are never
    /// returned; ties break by catalog order.
    pub fn search(&self, query: &str, context: Option<&str>, k: usize) -> Vec<Hit> {
        if k == 0 || self.n_docs == 0 {
            return Vec::new();
        }
        SCRATCH.with_borrow_mut(|scratch| {
            let mut q = std::mem::take(&mut scratch.query);
            self.analyze_into(query, context, false, &mut scratch.stems, &mut q);
            let hits = self.search_analyzed(&q, k, scratch);
            scratch.query = q;
            hits
        })
    }

    /// Every tool that matches `query` (a word of it, in any form the
    /// search counts) at least `share` as well as the best one does, in
    /// catalog order; a tool the query names is always among them.
    pub fn matching(&self, query: &str, context: Option<&str>, share: f32) -> Vec<usize> {
        if self.n_docs == 0 {
            return Vec::new();
        }
        SCRATCH.with_borrow_mut(|scratch| {
            let mut q = std::mem::take(&mut scratch.query);
            self.analyze_into(query, context, false, &mut scratch.stems, &mut q);
            self.score_all(&q, scratch);
            let floor = (max_of(&scratch.scores) * share).max(f32::MIN_POSITIVE);
            let mut docs: Vec<usize> = scratch
                .scores
                .iter()
                .enumerate()
                .filter(|(_, s)| **s >= floor)
                .map(|(d, _)| d)
                .collect();
            for &d in &q.exact {
                if !docs.contains(&d) {
                    docs.push(d);
                }
            }
            docs.sort_unstable();
            scratch.query = q;
            docs
        })
    }

    /// The scores `docs` get for `query`: the same numbers a search ranks
    /// by, without selecting a top k.
    pub fn scores_of(&self, query: &str, context: Option<&str>, docs: &[usize]) -> Vec<f32> {
        if self.n_docs == 0 {
            return vec![0.0; docs.len()];
        }
        SCRATCH.with_borrow_mut(|scratch| {
            let q = self.analyze(query, context, false, &mut scratch.stems);
            self.score_all(&q, scratch);
            docs.iter()
                .map(|&d| scratch.scores.get(d).copied().unwrap_or(0.0))
                .collect()
        })
    }

    /// Fills `scratch.scores` with every document's score for `q`, a tool
    /// whose name destroys or undoes held back when `q` does not ask to.
    fn score_all(&self, q: &AnalyzedQuery, scratch: &mut Scratch) {
        self.score_matches(q, scratch);
        if !q.asks_undo {
            let factor = self.params.unasked_destructive;
            for &d in &self.destructive {
                scratch.scores[d as usize] *= factor;
            }
        }
    }

    /// Fills `scratch.scores` with every document's score from the terms
    /// it matched.
    fn score_matches(&self, q: &AnalyzedQuery, scratch: &mut Scratch) {
        scratch.reset(self.n_docs, !q.sentences.is_empty());
        let Scratch {
            scores,
            best_sentence,
            s_scores,
            owner,
            maxima: _,
            stems: _,
            query: _,
        } = scratch;
        if q.sentences.is_empty() {
            self.accumulate_terms(q.terms.iter(), scores);
            return;
        }
        // Blend: the whole message's score and each sentence's, each
        // normalised by its best document, so every request in a
        // multi-request message can pull its own tool up. The whole
        // message's score is summed from its sentences' (each term counted
        // once, by the first sentence that has it), so a term's postings
        // are walked once per sentence that has it, and no more.
        owner.clear();
        owner.resize(q.terms.len(), u32::MAX);
        for (si, sentence) in q.sentences.iter().enumerate() {
            for &t in sentence {
                if owner[t] == u32::MAX {
                    owner[t] = si as u32;
                }
            }
        }
        // The context's terms are in no sentence.
        self.accumulate_terms(
            q.terms
                .iter()
                .zip(owner.iter())
                .filter(|(_, o)| **o == u32::MAX)
                .map(|(t, _)| t),
            scores,
        );
        for (si, sentence) in q.sentences.iter().enumerate() {
            self.accumulate(q, sentence, s_scores);
            let all_owned = sentence.iter().all(|&t| owner[t] == si as u32);
            if !all_owned {
                let owned = sentence.iter().filter(|&&t| owner[t] == si as u32);
                self.accumulate_terms(owned.map(|&t| &q.terms[t]), scores);
            }
            let max_s = max_of(s_scores);
            let inv = if max_s > 0.0 { 1.0 / max_s } else { 0.0 };
            // Written as compare-and-select so the pass vectorises; it
            // leaves `s_scores` zero for the next sentence.
            let owned = if all_owned { 1.0 } else { 0.0 };
            for ((s, b), v) in scores
                .iter_mut()
                .zip(best_sentence.iter_mut())
                .zip(s_scores.iter_mut())
            {
                let x = *v * inv;
                *s += owned * *v;
                *b = if x > *b { x } else { *b };
                *v = 0.0;
            }
        }
        let max_full = max_of(scores);
        if max_full > 0.0 {
            let w = self.params.sentence_weight;
            let inv = 1.0 / max_full;
            // Compare-and-select, no division: the pass vectorises.
            for (s, &b) in scores.iter_mut().zip(best_sentence.iter()) {
                let blended = *s * inv + w * b;
                *s = if *s > 0.0 { blended } else { *s };
            }
        }
    }

    fn search_analyzed(&self, q: &AnalyzedQuery, k: usize, scratch: &mut Scratch) -> Vec<Hit> {
        self.score_all(q, scratch);
        let scores = &mut scratch.scores;
        let mut hits: Vec<Hit> = q
            .exact
            .iter()
            .map(|&d| Hit {
                doc: d,
                score: scores[d],
                exact: true,
            })
            .collect();
        for &d in &q.exact {
            scores[d] = 0.0;
        }
        let want = k.saturating_sub(hits.len());
        let top = top_k_with(scores, want, &mut scratch.maxima);
        hits.extend(top.into_iter().map(|(score, d)| Hit {
            doc: d as usize,
            score,
            exact: false,
        }));
        hits.truncate(k);
        hits
    }
}

/// The largest value of `xs` (0 when empty or all negative), eight lanes at a
/// time so the compiler can use vector instructions.
fn max_of(xs: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let chunks = xs.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..8 {
            lanes[i] = if c[i] > lanes[i] { c[i] } else { lanes[i] };
        }
    }
    let mut m = rest.iter().fold(0f32, |m, &v| if v > m { v } else { m });
    for l in lanes {
        m = if l > m { l } else { m };
    }
    m
}

/// The largest of 16 values (0 when all are negative), as a tree of
/// four-lane maxima the compiler keeps in vector registers.
#[inline]
fn max16(c: &[f32; 16]) -> f32 {
    let big = |a: f32, b: f32| if a > b { a } else { b };
    let mut m = [0f32; 4];
    for i in 0..4 {
        m[i] = big(big(c[i], c[i + 4]), big(c[i + 8], c[i + 12]));
    }
    big(big(big(m[0], m[1]), big(m[2], m[3])), 0.0)
}

/// The `k` best positive scores as `(score, doc)`, best first; ties go to
/// the lower catalog index. Scores are non-negative floats, whose bit
/// patterns order like the floats, so each candidate is one integer key and
/// most candidates fail to enter with one comparison.
#[cfg(test)]
pub(super) fn top_k(scores: &[f32], k: usize) -> Vec<(f32, u32)> {
    top_k_with(scores, k, &mut Vec::new())
}

/// From a `k` of one in this many scores on, [`top_k_with`] sorts.
const LARGE_K: usize = 8;

/// [`top_k`] with a buffer for the chunks' maxima (reused across searches).
fn top_k_with(scores: &[f32], k: usize, maxima: &mut Vec<f32>) -> Vec<(f32, u32)> {
    if k == 0 {
        return Vec::new();
    }
    let key = |d: usize, s: f32| (u64::from(s.to_bits()) << 32) | u64::from(!(d as u32));
    if k.saturating_mul(LARGE_K) >= scores.len() {
        // Most of the list wanted (a whole ranking: the explorer's standing,
        // hybrid's lexical list): one sort of the positive scores, not an
        // insertion per candidate into a list of k.
        let mut all: Vec<u64> = scores
            .iter()
            .enumerate()
            .filter(|(_, s)| **s > 0.0)
            .map(|(d, &s)| key(d, s))
            .collect();
        all.sort_unstable_by(|a, b| b.cmp(a));
        all.truncate(k);
        return all
            .into_iter()
            .map(|kk| (f32::from_bits((kk >> 32) as u32), !(kk as u32)))
            .collect();
    }
    let mut top: Vec<u64> = Vec::with_capacity(k + 1);
    // Below this nothing enters: while the list is not full, any positive score.
    let mut floor = u64::from(u32::MAX);
    const CHUNK: usize = 16;
    // Each chunk's maximum, vectorised. The k-th largest of them bounds the
    // k-th best score from below (the k chunks above it hold k tools at least
    // that good), so most chunks and most tools are passed over at once.
    maxima.clear();
    let whole = scores.chunks_exact(CHUNK);
    let rest = whole.remainder();
    maxima.extend(whole.map(|c| max16(c.try_into().expect("a chunk of 16"))));
    if !rest.is_empty() {
        maxima.push(max_of(rest));
    }
    let mut floor_score = kth_largest(maxima, k);
    for (c, chunk) in scores.chunks(CHUNK).enumerate() {
        let chunk_max = maxima[c];
        if chunk_max < floor_score || chunk_max <= 0.0 {
            continue;
        }
        for (j, &s) in chunk.iter().enumerate() {
            if s < floor_score {
                continue;
            }
            let kk = key(c * CHUNK + j, s);
            if kk <= floor {
                continue;
            }
            let at = top.partition_point(|&t| t > kk);
            top.insert(at, kk);
            if top.len() > k {
                top.pop();
            }
            if top.len() == k {
                floor = top[k - 1];
                floor_score = f32::from_bits((floor >> 32) as u32);
            }
        }
    }
    top.into_iter()
        .map(|kk| (f32::from_bits((kk >> 32) as u32), !(kk as u32)))
        .collect()
}

/// The `k`-th largest of `xs` (non-negative), 0 when it has fewer; a small
/// `k` by insertion into the `k` best so far (most values fail the first
/// comparison).
pub(super) fn kth_largest(xs: &[f32], k: usize) -> f32 {
    const SMALL: usize = 32;
    if k == 0 || xs.len() < k {
        return 0.0;
    }
    if k > SMALL {
        let mut m = xs.to_vec();
        return *m.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a)).1;
    }
    let mut best = [f32::NEG_INFINITY; SMALL];
    for &x in xs {
        if x > best[k - 1] {
            let mut i = k - 1;
            while i > 0 && best[i - 1] < x {
                best[i] = best[i - 1];
                i -= 1;
            }
            best[i] = x;
        }
    }
    best[k - 1]
}

/// Per-thread state reused by every search, whatever the index, so a query
/// allocates little: score buffers, and the stemmer's memo for query words
/// that no index has seen verbatim.
#[derive(Default)]
pub(super) struct Scratch {
    scores: Vec<f32>,
    best_sentence: Vec<f32>,
    /// Zero between sentences.
    s_scores: Vec<f32>,
    /// The sentence that counts each query term in the whole message's
    /// score.
    owner: Vec<u32>,
    /// The chunks' maxima of a top k.
    maxima: Vec<f32>,
    pub(super) stems: StemMemo,
    /// A query's analysis, its room kept for the next.
    query: AnalyzedQuery,
}

impl Scratch {
    /// Zeroed buffers for `n` documents (the sentence buffers only when
    /// `sentences`).
    fn reset(&mut self, n: usize, sentences: bool) {
        let bufs: &mut [&mut Vec<f32>] = if sentences {
            &mut [
                &mut self.scores,
                &mut self.best_sentence,
                &mut self.s_scores,
            ]
        } else {
            &mut [&mut self.scores]
        };
        for buf in bufs {
            buf.clear();
            buf.resize(n, 0.0);
        }
    }
}
