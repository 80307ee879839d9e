//! One text's words into query terms: each word, its other forms (an
//! abbreviation's, two words a tool writes as one, its expansions), the
//! word pairs the index knows, and the shapes (a URL, a file name) that
//! say what a tool works on.

use super::super::Index;
use super::super::expand::expansion_factor;
use super::super::sentences::shapes;
use super::{AnalyzedQuery, QueryTerm, StemMemo};
use crate::engine::vocabulary::{ARROW, Source, asks_undo_stem, is_generic_stem, vocabulary};

/// One text's analysis under way: the index and memo it reads, the query
/// it fills, and the counters its words share.
pub(super) struct Analysis<'a> {
    pub(super) index: &'a Index,
    pub(super) q: &'a mut AnalyzedQuery,
    pub(super) memo: &'a mut StemMemo,
    /// The text's weight.
    pub(super) weight: f32,
    /// Keep each term's words, for explanations.
    pub(super) with_text: bool,
    /// Keep each sentence's terms.
    pub(super) by_sentence: bool,
    /// The share of a word's weight its expansions get (0: not expanded).
    pub(super) expansion_scale: f32,
    /// Whether the request asks to destroy or undo is to be found out.
    pub(super) track_undo: bool,
    /// Each word's position, the origin of its terms.
    pub(super) word_no: u32,
    /// A phrase's terms are origins of their own, counted down from the top.
    pub(super) phrase_no: u32,
    /// The terms (indices into `q.terms`) of the sentence under way.
    pub(super) in_sentence: Vec<usize>,
}

/// The words just before the one under way, in its sentence.
#[derive(Default)]
pub(super) struct Behind {
    /// The previous word's term (none after a word the index lacks).
    prev: Option<u32>,
    /// The previous word, for a word pair's text.
    prev_word: String,
    /// The previous word whatever it was, for a two-word abbreviation.
    prev_raw: String,
    /// The previous word, for two words written as one.
    last: String,
    /// The previous word was a stop word.
    last_stop: bool,
    /// Room for two words written as one.
    joined: String,
}

/// A word made of digits alone.
fn is_number(w: &str) -> bool {
    w.bytes().all(|b| b.is_ascii_digit())
}

impl Analysis<'_> {
    /// Adds `term` at `weight`, once: a term met again at a higher weight
    /// (the request's own word after an expansion found it) takes that
    /// weight, its text and its origin. Returns the term this call gave its
    /// weight, if any.
    fn add(
        &mut self,
        term: u32,
        weight: f32,
        origin: u32,
        text: &dyn Fn() -> String,
    ) -> Option<usize> {
        let q = &mut *self.q;
        let (idx, set) = match q.slot(term) {
            Some(i) if q.terms[i].weight < weight => {
                q.terms[i].weight = weight;
                q.terms[i].origin = origin;
                q.terms[i].weak = false;
                if self.with_text {
                    q.terms[i].text = text();
                }
                (i, true)
            }
            Some(i) => (i, false),
            None => {
                let text = if self.with_text {
                    text()
                } else {
                    String::new()
                };
                q.terms.push(QueryTerm {
                    term,
                    weight,
                    text,
                    origin,
                    grouped: false,
                    weak: false,
                });
                let at = q.terms.len() - 1;
                q.set_slot(term, at);
                (at, true)
            }
        };
        if self.by_sentence && !self.in_sentence.contains(&idx) {
            self.in_sentence.push(idx);
        }
        set.then_some(idx)
    }

    /// `Some(None)`: a word to skip; `None`: unknown (see
    /// [`Index::lookup_word`]).
    fn lookup(&mut self, word: &str) -> Option<Option<u32>> {
        self.index.lookup_word(word, self.memo)
    }

    /// A URL or a file name says what the tool works on, in a word no tool
    /// has: "url", "file".
    pub(super) fn add_shapes(&mut self, sentence: &str) {
        if self.expansion_scale <= 0.0 {
            return;
        }
        for (token, kinds) in shapes(sentence) {
            self.phrase_no -= 1;
            for &kind in kinds {
                if let Some(Some(term)) = self.lookup(kind) {
                    let w = self.weight * self.expansion_scale * self.index.params.expansion_weight;
                    let text = || format!("{token}{ARROW}{kind}");
                    self.add(term, w, self.phrase_no, &text);
                }
            }
        }
    }

    /// Adds one word's terms: its other forms, the word itself, and the
    /// pair it ends.
    pub(super) fn add_word(&mut self, w: &str, behind: &mut Behind) {
        self.word_no += 1;
        let origin = self.word_no;
        if self.index.params.abbreviations {
            self.add_abbreviations(w, origin, &behind.prev_raw);
            behind.prev_raw.clear();
            behind.prev_raw.push_str(w);
        }
        let looked = self.lookup(w);
        self.add_joined(w, looked == Some(None), behind);
        if self.track_undo && !self.q.asks_undo {
            self.note_undo(w, looked);
        }
        if self.expansion_scale > 0.0 && looked != Some(None) && !is_number(w) {
            if !self.with_text && !self.q.walk {
                self.add_best_expansion(w, origin);
            } else {
                self.add_each_expansion(w, origin, looked.is_some());
            }
        }
        let term = match looked {
            Some(Some(term)) => term,
            Some(None) => return,
            None => {
                behind.prev = None;
                return;
            }
        };
        let weight = if is_number(w) {
            self.weight * self.index.params.number_weight
        } else {
            self.weight
        };
        self.add(term, weight, origin, &|| w.to_string());
        if let Some(p) = behind.prev
            && let Some(&bigram) = self.index.bigrams.get(&(p, term))
        {
            self.phrase_no -= 1;
            let prev_word = &behind.prev_word;
            self.add(bigram, weight, self.phrase_no, &|| {
                format!("{prev_word} {w}")
            });
        }
        behind.prev = Some(term);
        if self.with_text {
            behind.prev_word.clear();
            behind.prev_word.push_str(w);
        }
    }

    /// The other form of an abbreviation (one word, or the two words ending
    /// here), at a lower weight.
    fn add_abbreviations(&mut self, w: &str, origin: u32, prev_raw: &str) {
        let pair = (!prev_raw.is_empty()).then(|| format!("{prev_raw} {w}"));
        let forms = std::iter::once(w).chain(pair.as_deref());
        for alias in forms.flat_map(crate::engine::analyzer::abbreviation_forms) {
            for aw in alias.split(' ') {
                if let Some(Some(term)) = self.lookup(aw) {
                    let aw_weight = self.weight * self.index.params.abbreviation_weight;
                    self.add(term, aw_weight, origin, &|| aw.to_string());
                }
            }
        }
    }

    /// Two words a tool writes as one ("on call": oncall, "sign in":
    /// signin), as the tool writes it (no stem is looked up for the pair),
    /// weighed as the request's own words; not the letter an apostrophe cut
    /// off ("it's" is not "its"), nor two stop words ("in it" is not
    /// "init").
    fn add_joined(&mut self, w: &str, stop: bool, behind: &mut Behind) {
        behind.joined.clear();
        behind.joined.push_str(&behind.last);
        behind.joined.push_str(w);
        let (last, joined) = (&behind.last, &behind.joined);
        if last.len() > 1
            && w.len() > 1
            && !(stop && behind.last_stop)
            && let Some(&Some(term)) = self.index.words.get(joined)
        {
            self.phrase_no -= 1;
            let text = || format!("{last} {w}{ARROW}{joined}");
            self.add(term, self.weight, self.phrase_no, &text);
        }
        behind.last.clear();
        behind.last.push_str(w);
        behind.last_stop = stop;
    }

    /// Whether the request asks to destroy or undo, from the lookup just
    /// made (a catalog word's term, else the stem the lookup kept).
    fn note_undo(&mut self, w: &str, looked: Option<Option<u32>>) {
        self.q.asks_undo = match looked {
            Some(Some(term)) => self.index.undo_terms.binary_search(&term).is_ok(),
            Some(None) => false,
            None => self.memo.with_stem(w, asks_undo_stem),
        };
    }

    /// The expansions' best, worked into the index once.
    fn add_best_expansion(&mut self, w: &str, origin: u32) {
        let index = self.index;
        if let Some(term) = self.memo.with_stem(w, |stem| {
            index.expanded.get(&vocabulary().key(w, stem)).copied()
        }) {
            let weight = self.weight * self.expansion_scale;
            self.add(term, weight, origin, &String::new);
        }
    }

    /// An explanation walks each expansion, to say which word the tool has.
    fn add_each_expansion(&mut self, w: &str, origin: u32, known: bool) {
        let (expansions, generic) = self.memo.with_stem(w, |stem| {
            (vocabulary().expansions_of(w, stem), is_generic_stem(stem))
        });
        for e in expansions {
            if let Some(Some(term)) = self.lookup(&e.word) {
                let factor = self.expansion_scale
                    * expansion_factor(&self.index.params, e.source, known, generic || e.generic);
                let text = || format!("{w}{ARROW}{}", e.word);
                if let Some(i) = self.add(term, self.weight * factor, origin, &text) {
                    self.q.terms[i].weak = e.source == Source::WordNet;
                }
            }
        }
    }
}
