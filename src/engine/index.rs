//! A BM25F index over a catalog's tools.
//!
//! Each tool is a document with weighted fields: its name's words, its
//! description, its parameter names, its parameter descriptions with enum
//! values (every nesting level of the schema), and word bigrams of the name and
//! of the description. Query terms are counted once each, so a term's score in
//! a document never changes after the index is built: it is stored in the
//! posting list as an impact, and a query only sums impacts.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap as HashMap;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::analyzer::{QUERY_FILLER, Stemmer, for_each_word, is_stop_word, name_key};
use crate::catalog::Tool;

/// The fields of a tool document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Name,
    Description,
    ParamName,
    ParamDescription,
    NameBigram,
    DescriptionBigram,
}

impl Field {
    pub const ALL: [Field; 6] = [
        Field::Name,
        Field::Description,
        Field::ParamName,
        Field::ParamDescription,
        Field::NameBigram,
        Field::DescriptionBigram,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Description => "description",
            Field::ParamName => "parameter name",
            Field::ParamDescription => "parameter description",
            Field::NameBigram => "name phrase",
            Field::DescriptionBigram => "description phrase",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Weight and length normalisation of one field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldParams {
    pub weight: f32,
    pub b: f32,
}

/// Ranking parameters. The defaults were tuned on the BFCL dev set (see
/// BENCHMARKS.md for the figures and the reasoning).
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub k1: f32,
    /// Indexed by `Field as usize`.
    pub fields: [FieldParams; 6],
    /// Lucene's idf raised to this power (< 1 flattens rare-term dominance).
    pub idf_power: f32,
    /// A query of at least this many sentences is also scored sentence by
    /// sentence, so each request in a message pulls its own tool up.
    pub min_sentences: usize,
    /// Weight of the best sentence score in that blend.
    pub sentence_weight: f32,
    /// Weight of `context` terms that are not in the query itself.
    pub context_weight: f32,
    /// Words dropped from queries (not from tools): request filler.
    pub query_filler: &'static [&'static str],
    /// Recognise exact tool names in the query and rank those tools first.
    pub exact_names: bool,
    /// Weight of query words that are only digits.
    pub number_weight: f32,
}

impl Default for Params {
    fn default() -> Self {
        let f = |weight, b| FieldParams { weight, b };
        Params {
            k1: 1.2,
            fields: [
                f(8.0, 0.75),  // name words
                f(1.0, 0.5),   // description
                f(2.0, 0.75),  // parameter names
                f(1.0, 0.75),  // parameter descriptions + enum values
                f(1.0, 0.75),  // name bigrams
                f(0.25, 0.75), // description bigrams
            ],
            idf_power: 0.5,
            min_sentences: 4,
            sentence_weight: 0.8,
            context_weight: 0.5,
            query_filler: QUERY_FILLER,
            exact_names: true,
            number_weight: 0.5,
        }
    }
}

/// One ranked tool.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Hit {
    /// Index of the tool in the catalog.
    pub doc: usize,
    pub score: f32,
    /// The query named this tool exactly.
    pub exact: bool,
}

/// Why a tool matched: each query term that hit it, the fields it hit, and
/// what it added to the score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermMatch {
    /// The query word (or two words, for a phrase).
    pub term: String,
    pub fields: Vec<Field>,
    pub score: f32,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Explanation {
    pub exact_name: bool,
    pub matches: Vec<TermMatch>,
}

/// A query term: its id, weight, and the words it came from (for explain).
#[derive(Debug, Clone)]
struct QueryTerm {
    term: u32,
    weight: f32,
    text: String,
}

#[derive(Debug, Default)]
struct AnalyzedQuery {
    terms: Vec<QueryTerm>,
    /// Term indices (into `terms`) per sentence, when the query is long enough
    /// to be scored sentence by sentence.
    sentences: Vec<Vec<usize>>,
    exact: Vec<usize>,
}

/// The index. Immutable once built; searches share it across threads.
pub struct Index {
    /// Unique per index built (for the per-thread stem cache).
    id: u64,
    params: Params,
    n_docs: usize,
    /// Lower-cased word -> unigram term; `None` for query filler. Stop words
    /// are absent.
    words: HashMap<Box<str>, Option<u32>>,
    /// Stem -> unigram term, for query words not seen verbatim.
    stems: HashMap<Box<str>, u32>,
    bigrams: HashMap<(u32, u32), u32>,
    offsets: Vec<u32>,
    post_docs: Vec<u32>,
    post_impacts: Vec<f32>,
    post_fields: Vec<u8>,
    /// Name key -> tools, and how many words the name has.
    names: HashMap<Box<str>, (Vec<u32>, usize)>,
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

/// Builds term ids while analysing the catalog.
struct Vocab {
    stemmer: Stemmer,
    /// Word -> term, or `None` for a stop word.
    words: HashMap<Box<str>, Option<u32>>,
    stems: HashMap<Box<str>, u32>,
    bigrams: HashMap<(u32, u32), u32>,
    next: u32,
    buf: String,
}

impl Vocab {
    fn new() -> Self {
        Vocab {
            stemmer: Stemmer::default(),
            words: HashMap::default(),
            stems: HashMap::default(),
            bigrams: HashMap::default(),
            next: 0,
            buf: String::new(),
        }
    }

    fn term_of_word(&mut self, word: &str) -> Option<u32> {
        if let Some(t) = self.words.get(word) {
            return *t;
        }
        let term = if is_stop_word(word) {
            None
        } else {
            let stem = self.stemmer.stem(word);
            let next = &mut self.next;
            let id = *self
                .stems
                .entry(Box::from(stem.as_ref()))
                .or_insert_with(|| {
                    *next += 1;
                    *next - 1
                });
            Some(id)
        };
        self.words.insert(Box::from(word), term);
        term
    }

    fn analyze(&mut self, text: &str, out: &mut Vec<u32>) {
        self.analyze_filtered(text, out, false);
    }

    /// With `skip_numbers`, words that are only digits are left out (a name's
    /// `_2` or `v_3` part says nothing about what the tool does).
    fn analyze_filtered(&mut self, text: &str, out: &mut Vec<u32>, skip_numbers: bool) {
        let mut buf = std::mem::take(&mut self.buf);
        for_each_word(text, &mut buf, |w| {
            if skip_numbers && w.bytes().all(|b| b.is_ascii_digit()) {
                return;
            }
            if let Some(t) = self.term_of_word(w) {
                out.push(t);
            }
        });
        self.buf = buf;
    }

    fn bigram(&mut self, a: u32, b: u32) -> u32 {
        let next = &mut self.next;
        *self.bigrams.entry((a, b)).or_insert_with(|| {
            *next += 1;
            *next - 1
        })
    }
}

/// Walks a JSON schema, analysing parameter names at every level into
/// `names` and descriptions, titles and enum values into `texts`. Each object
/// is read in one pass over its keys.
fn walk_schema(
    schema: &Value,
    depth: usize,
    vocab: &mut Vocab,
    names: &mut Vec<u32>,
    texts: &mut Vec<u32>,
) {
    const MAX_DEPTH: usize = 32;
    let Value::Object(map) = schema else { return };
    if depth > MAX_DEPTH {
        return;
    }
    for (key, value) in map {
        match (key.as_str(), value) {
            ("description" | "title", Value::String(s)) => vocab.analyze(s, texts),
            ("enum", Value::Array(values)) => {
                for v in values {
                    match v {
                        Value::String(s) => vocab.analyze(s, texts),
                        Value::Number(n) => vocab.analyze(&n.to_string(), texts),
                        _ => {}
                    }
                }
            }
            ("properties", Value::Object(props)) => {
                for (name, prop) in props {
                    vocab.analyze(name, names);
                    walk_schema(prop, depth + 1, vocab, names, texts);
                }
            }
            ("items" | "additionalProperties" | "not", v @ Value::Object(_)) => {
                walk_schema(v, depth + 1, vocab, names, texts)
            }
            ("items" | "anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(items)) => {
                for v in items {
                    walk_schema(v, depth + 1, vocab, names, texts);
                }
            }
            ("$defs" | "definitions", Value::Object(defs)) => {
                for v in defs.values() {
                    walk_schema(v, depth + 1, vocab, names, texts);
                }
            }
            _ => {}
        }
    }
}

impl Index {
    /// Indexes `tools` with the default parameters.
    pub fn build(tools: &[Tool]) -> Self {
        Self::build_with(tools, Params::default())
    }

    pub fn build_with(tools: &[Tool], params: Params) -> Self {
        let mut vocab = Vocab::new();
        let n = tools.len();
        // Per document: the term sequence of each field.
        let mut docs: Vec<[Vec<u32>; 6]> = Vec::with_capacity(n);
        let mut names: HashMap<Box<str>, (Vec<u32>, usize)> = HashMap::default();
        for (i, tool) in tools.iter().enumerate() {
            let mut fields: [Vec<u32>; 6] = Default::default();
            vocab.analyze_filtered(&tool.name, &mut fields[Field::Name as usize], true);
            vocab.analyze(&tool.description, &mut fields[Field::Description as usize]);
            let [_, _, param_names, param_texts, _, _] = &mut fields;
            walk_schema(&tool.input_schema, 0, &mut vocab, param_names, param_texts);
            for (source, target) in [
                (Field::Name, Field::NameBigram),
                (Field::Description, Field::DescriptionBigram),
            ] {
                let seq = std::mem::take(&mut fields[source as usize]);
                let pairs: Vec<u32> = seq.windows(2).map(|w| vocab.bigram(w[0], w[1])).collect();
                fields[source as usize] = seq;
                fields[target as usize] = pairs;
            }
            let key = name_key(&tool.name);
            if !key.is_empty() {
                let words = key.split('_').count();
                names
                    .entry(Box::from(key))
                    .or_insert_with(|| (Vec::new(), words))
                    .0
                    .push(i as u32);
            }
            docs.push(fields);
        }

        // Average field lengths.
        let mut avg = [0f32; 6];
        for fields in &docs {
            for (a, f) in avg.iter_mut().zip(fields) {
                *a += f.len() as f32;
            }
        }
        for a in &mut avg {
            *a = if n == 0 {
                1.0
            } else {
                (*a / n as f32).max(1e-6)
            };
        }

        // (term, doc, weighted tf, field mask), one entry per term per doc.
        let n_terms = vocab.next as usize;
        let mut entries: Vec<(u32, u32, f32, u8)> = Vec::new();
        // Per document, each term's counts per field, found through a dense
        // term -> slot table (no sorting): `owner[t]` says which document the
        // slot `slot[t]` belongs to.
        let mut owner = vec![u32::MAX; n_terms];
        let mut slot = vec![0u32; n_terms];
        let mut counts: Vec<(u32, [u16; 6])> = Vec::new();
        for (d, fields) in docs.iter().enumerate() {
            counts.clear();
            for (f, seq) in fields.iter().enumerate() {
                for &t in seq {
                    let t = t as usize;
                    if owner[t] != d as u32 {
                        owner[t] = d as u32;
                        slot[t] = counts.len() as u32;
                        counts.push((t as u32, [0; 6]));
                    }
                    let c = &mut counts[slot[t] as usize].1[f];
                    *c = c.saturating_add(1);
                }
            }
            // Each field's length normalisation, once per document.
            let mut scale = [0f32; 6];
            for (f, s) in scale.iter_mut().enumerate() {
                let p = params.fields[f];
                let norm = 1.0 - p.b + p.b * fields[f].len() as f32 / avg[f];
                *s = p.weight / norm;
            }
            for (term, tf) in &counts {
                let mut tfw = 0f32;
                let mut mask = 0u8;
                for f in 0..6 {
                    if tf[f] > 0 {
                        tfw += scale[f] * f32::from(tf[f]);
                        mask |= 1 << f;
                    }
                }
                entries.push((*term, d as u32, tfw, mask));
            }
        }

        // Counting sort into posting lists (docs ascending within a term).
        let mut offsets = vec![0u32; n_terms + 1];
        for e in &entries {
            offsets[e.0 as usize + 1] += 1;
        }
        for t in 0..n_terms {
            offsets[t + 1] += offsets[t];
        }
        let total = entries.len();
        let mut post_docs = vec![0u32; total];
        let mut post_impacts = vec![0f32; total];
        let mut post_fields = vec![0u8; total];
        let mut cursor: Vec<u32> = offsets[..n_terms].to_vec();
        let k1 = params.k1;
        let idfs: Vec<f32> = (0..n_terms)
            .map(|t| {
                let df = (offsets[t + 1] - offsets[t]) as f32;
                (1.0 + (n as f32 - df + 0.5) / (df + 0.5))
                    .ln()
                    .powf(params.idf_power)
            })
            .collect();
        for (term, doc, tfw, mask) in entries {
            let t = term as usize;
            let idf = idfs[t];
            let slot = cursor[t] as usize;
            cursor[t] += 1;
            post_docs[slot] = doc;
            post_impacts[slot] = idf * tfw * (k1 + 1.0) / (tfw + k1);
            post_fields[slot] = mask;
        }

        // Query lookups: every word seen (stop words map to None), with the
        // query filler shadowed to None.
        let mut words = vocab.words;
        for filler in params.query_filler {
            words.insert(Box::from(*filler), None);
        }
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Index {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            params,
            n_docs: n,
            words,
            stems: vocab.stems,
            bigrams: vocab.bigrams,
            offsets,
            post_docs,
            post_impacts,
            post_fields,
            names,
        }
    }

    pub fn len(&self) -> usize {
        self.n_docs
    }

    pub fn is_empty(&self) -> bool {
        self.n_docs == 0
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    fn postings(&self, term: u32) -> std::ops::Range<usize> {
        let t = term as usize;
        self.offsets[t] as usize..self.offsets[t + 1] as usize
    }

    /// `Some(None)`: a word to skip (stop word, filler); `None`: unknown.
    fn lookup_word(&self, word: &str, stemmer: &Stemmer) -> Option<Option<u32>> {
        if let Some(&t) = self.words.get(word) {
            return Some(t);
        }
        if is_stop_word(word) {
            return Some(None);
        }
        // Words not seen verbatim are stemmed; the answer is remembered per
        // thread (typing a query repeats its words at every keystroke).
        STEMMED.with_borrow_mut(|(owner, cache)| {
            if *owner != self.id {
                cache.clear();
                *owner = self.id;
            }
            if let Some(&t) = cache.get(word) {
                return t;
            }
            let t = self
                .stems
                .get(stemmer.stem(word).as_ref())
                .map(|&t| Some(t));
            if cache.len() >= 8192 {
                cache.clear();
            }
            cache.insert(Box::from(word), t);
            t
        })
    }

    /// Query terms of `text` with weight `weight`, appended to `q` unless
    /// already there. Returns the indices (into `q.terms`) of this text's
    /// terms, per sentence.
    /// Adds the query terms of `text` (weight `weight`) to `q`, each term
    /// once, and records which terms each sentence has.
    fn analyze_query(
        &self,
        text: &str,
        weight: f32,
        q: &mut AnalyzedQuery,
        stemmer: &Stemmer,
        with_text: bool,
    ) -> Vec<Vec<usize>> {
        let mut sentences = Vec::new();
        let mut buf = String::new();
        let mut in_sentence: Vec<usize> = Vec::new();
        let add = |term: u32,
                   weight: f32,
                   text: &dyn Fn() -> String,
                   q: &mut AnalyzedQuery,
                   in_sentence: &mut Vec<usize>| {
            let idx = match q.terms.iter().position(|t| t.term == term) {
                Some(i) => i,
                None => {
                    let text = if with_text { text() } else { String::new() };
                    q.terms.push(QueryTerm { term, weight, text });
                    q.terms.len() - 1
                }
            };
            if !in_sentence.contains(&idx) {
                in_sentence.push(idx);
            }
        };
        for sentence in split_sentences(text) {
            let mut prev: Option<u32> = None;
            let mut prev_word = String::new();
            for_each_word(sentence, &mut buf, |w| {
                let term = match self.lookup_word(w, stemmer) {
                    Some(Some(term)) => term,
                    Some(None) => return,
                    None => {
                        prev = None;
                        return;
                    }
                };
                let weight = if w.bytes().all(|b| b.is_ascii_digit()) {
                    weight * self.params.number_weight
                } else {
                    weight
                };
                add(term, weight, &|| w.to_string(), q, &mut in_sentence);
                if let Some(p) = prev
                    && let Some(&bigram) = self.bigrams.get(&(p, term))
                {
                    add(
                        bigram,
                        weight,
                        &|| format!("{prev_word} {w}"),
                        q,
                        &mut in_sentence,
                    );
                }
                prev = Some(term);
                if with_text {
                    prev_word.clear();
                    prev_word.push_str(w);
                }
            });
            if !in_sentence.is_empty() {
                sentences.push(std::mem::take(&mut in_sentence));
            }
        }
        sentences
    }

    fn analyze(&self, query: &str, context: Option<&str>, with_text: bool) -> AnalyzedQuery {
        let stemmer = Stemmer::default();
        let mut q = AnalyzedQuery {
            terms: Vec::with_capacity(32),
            ..AnalyzedQuery::default()
        };
        let sentences = self.analyze_query(query, 1.0, &mut q, &stemmer, with_text);
        if sentences.len() >= self.params.min_sentences.max(2) {
            q.sentences = sentences;
        }
        if let Some(context) = context {
            self.analyze_query(
                context,
                self.params.context_weight,
                &mut q,
                &stemmer,
                with_text,
            );
        }
        if self.params.exact_names {
            q.exact = self.exact_names(query);
        }
        q
    }

    /// Tools the query names exactly, in the order it names them. A one-word
    /// name counts only when it is the whole query or quoted in backticks; a
    /// name of several words counts wherever it stands as one token.
    fn exact_names(&self, query: &str) -> Vec<usize> {
        fn punct(c: char) -> bool {
            matches!(
                c,
                '`' | '\''
                    | '"'
                    | '.'
                    | ','
                    | ';'
                    | ':'
                    | '!'
                    | '?'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '<'
                    | '>'
            )
        }
        let mut found = Vec::new();
        let mut key = String::new();
        let mut buf = String::new();
        let mut consider = |token: &str, single_ok: bool, found: &mut Vec<usize>| {
            key.clear();
            for_each_word(token, &mut buf, |w| {
                key.push_str(w);
                key.push('_');
            });
            key.pop();
            if let Some((docs, words)) = self.names.get(key.as_str())
                && (*words > 1 || single_ok)
            {
                for &d in docs {
                    if !found.contains(&(d as usize)) {
                        found.push(d as usize);
                    }
                }
            }
        };
        // Most requests name no tool: skip them with one pass over the bytes.
        let maybe_name = may_name_a_tool(query.as_bytes())
            || !query.trim().contains(char::is_whitespace)
            || !query.is_ascii();
        if !maybe_name {
            return found;
        }
        let trimmed = query.trim();
        let whole = trimmed.trim_matches(punct);
        if !whole.is_empty() && !whole.contains(char::is_whitespace) {
            consider(whole, true, &mut found);
            return found;
        }
        for raw in trimmed.split_ascii_whitespace() {
            if raw.is_ascii() && !may_name_a_tool(raw.as_bytes()) {
                continue;
            }
            let quoted = raw.starts_with('`')
                && raw
                    .trim_end_matches(['.', ',', ';', ':', '?', '!'])
                    .ends_with('`');
            let token = raw.trim_matches(punct);
            // A name is an identifier: it has a separator or a case change.
            let identifier = token
                .bytes()
                .any(|b| matches!(b, b'_' | b'.' | b'-' | b'/'))
                || token.chars().skip(1).any(char::is_uppercase);
            if !token.is_empty() && (identifier || quoted) {
                consider(token, quoted, &mut found);
            }
        }
        found
    }

    /// Adds each term's impacts into `scores` (one array entry per tool).
    fn accumulate(&self, q: &AnalyzedQuery, terms: &[usize], scores: &mut [f32]) {
        self.accumulate_terms(terms.iter().map(|&i| &q.terms[i]), scores);
    }

    fn accumulate_terms<'a>(&self, terms: impl Iterator<Item = &'a QueryTerm>, scores: &mut [f32]) {
        for qt in terms {
            let range = self.postings(qt.term);
            let docs = &self.post_docs[range.clone()];
            let impacts = &self.post_impacts[range];
            for (&d, &impact) in docs.iter().zip(impacts) {
                if let Some(s) = scores.get_mut(d as usize) {
                    *s += qt.weight * impact;
                }
            }
        }
    }

    /// The best `k` tools for `query` (and optional `context`), best first.
    /// Exactly named tools come first; tools that match nothing are never
    /// returned; ties break by catalog order.
    pub fn search(&self, query: &str, context: Option<&str>, k: usize) -> Vec<Hit> {
        if k == 0 || self.n_docs == 0 {
            return Vec::new();
        }
        let q = self.analyze(query, context, false);
        SCRATCH.with_borrow_mut(|scratch| self.search_analyzed(&q, k, scratch))
    }

    fn search_analyzed(&self, q: &AnalyzedQuery, k: usize, scratch: &mut Scratch) -> Vec<Hit> {
        scratch.reset(self.n_docs, !q.sentences.is_empty());
        let Scratch {
            scores,
            best_sentence,
            s_scores,
        } = scratch;
        self.accumulate_terms(q.terms.iter(), scores);

        let max_full = if q.sentences.is_empty() {
            0.0
        } else {
            max_of(scores)
        };
        if max_full > 0.0 {
            // Blend: the whole message's score and each sentence's, each
            // normalised by its best document, so every request in a
            // multi-request message can pull its own tool up.
            for sentence in &q.sentences {
                s_scores.fill(0.0);
                self.accumulate(q, sentence, s_scores);
                // Written as compare-and-select so the passes vectorise.
                let max_s = max_of(s_scores);
                if max_s > 0.0 {
                    let inv = 1.0 / max_s;
                    for (b, &v) in best_sentence.iter_mut().zip(s_scores.iter()) {
                        let x = v * inv;
                        *b = if x > *b { x } else { *b };
                    }
                }
            }
            let w = self.params.sentence_weight;
            for (s, &b) in scores.iter_mut().zip(best_sentence.iter()) {
                if *s > 0.0 {
                    *s = *s / max_full + w * b;
                }
            }
        }

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
        hits.extend(top_k(scores, want).into_iter().map(|(score, d)| Hit {
            doc: d as usize,
            score,
            exact: false,
        }));
        hits.truncate(k);
        hits
    }

    /// Why tool `doc` matched `query`: each query term that hit it, in query
    /// order, with the fields it hit and what it added (before any
    /// multi-sentence blending).
    pub fn explain(&self, query: &str, context: Option<&str>, doc: usize) -> Explanation {
        self.explain_many(query, context, &[doc])
            .pop()
            .unwrap_or_default()
    }

    /// [`Index::explain`] for several tools, analysing the query once.
    pub fn explain_many(
        &self,
        query: &str,
        context: Option<&str>,
        docs: &[usize],
    ) -> Vec<Explanation> {
        let q = self.analyze(query, context, true);
        docs.iter()
            .map(|&doc| self.explain_analyzed(&q, doc))
            .collect()
    }

    fn explain_analyzed(&self, q: &AnalyzedQuery, doc: usize) -> Explanation {
        let mut matches = Vec::new();
        for qt in &q.terms {
            let range = self.postings(qt.term);
            let docs = &self.post_docs[range.clone()];
            if let Ok(pos) = docs.binary_search(&(doc as u32)) {
                let slot = range.start + pos;
                let mask = self.post_fields[slot];
                let fields = Field::ALL
                    .into_iter()
                    .filter(|f| mask & f.bit() != 0)
                    .collect();
                matches.push(TermMatch {
                    term: qt.text.clone(),
                    fields,
                    score: qt.weight * self.post_impacts[slot],
                });
            }
        }
        Explanation {
            exact_name: q.exact.contains(&doc),
            matches,
        }
    }
}

/// Byte classes for [`may_name_a_tool`].
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 4;
const SEP: u8 = 8;
const TICK: u8 = 16;
static BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = if c.is_ascii_lowercase() {
            LOWER
        } else if c.is_ascii_uppercase() {
            UPPER
        } else if c.is_ascii_digit() {
            DIGIT
        } else if matches!(c, b'_' | b'.' | b'-' | b'/') {
            SEP
        } else if c == b'`' {
            TICK
        } else {
            0
        };
        i += 1;
    }
    t
};

/// Whether an ASCII text may contain a tool name: a backtick, a case change
/// inside a word (`getUser`), or a separator inside a word with a letter on
/// one side (`get_user`, `github.issue`, but not `3.5` or `2024-01-02`).
fn may_name_a_tool(b: &[u8]) -> bool {
    let class = |i: usize| b.get(i).map_or(0, |&c| BYTE_CLASS[c as usize]);
    for i in 0..b.len() {
        let c = BYTE_CLASS[b[i] as usize];
        if c == 0 || c == DIGIT || c == UPPER {
            continue;
        }
        match c {
            TICK => return true,
            LOWER => {
                if class(i + 1) == UPPER {
                    return true;
                }
            }
            _ => {
                // SEP
                let (prev, next) = (if i > 0 { class(i - 1) } else { 0 }, class(i + 1));
                let alnum = LOWER | UPPER | DIGIT;
                if prev & alnum != 0 && next & alnum != 0 && (prev | next) & (LOWER | UPPER) != 0 {
                    return true;
                }
            }
        }
    }
    false
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

/// The `k` best positive scores as `(score, doc)`, best first; ties go to
/// the lower catalog index. Scores are non-negative floats, whose bit
/// patterns order like the floats, so each candidate is one integer key and
/// most candidates fail to enter with one comparison.
fn top_k(scores: &[f32], k: usize) -> Vec<(f32, u32)> {
    if k == 0 {
        return Vec::new();
    }
    let key = |d: usize, s: f32| (u64::from(s.to_bits()) << 32) | u64::from(!(d as u32));
    let mut top: Vec<u64> = Vec::with_capacity(k + 1);
    // Below this nothing enters: while the list is not full, any positive score.
    let mut floor = u64::from(u32::MAX);
    const CHUNK: usize = 16;
    // Each chunk's maximum, vectorised. The k-th largest of them bounds the
    // k-th best score from below (the k chunks above it hold k tools at least
    // that good), so most chunks and most tools are passed over at once.
    let maxima: Vec<f32> = scores.chunks(CHUNK).map(max_of).collect();
    let mut floor_score = if maxima.len() >= k {
        let mut m = maxima.clone();
        *m.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a)).1
    } else {
        0.0
    };
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

/// Per-thread buffers reused by every search, so a query allocates little.
#[derive(Default)]
struct Scratch {
    scores: Vec<f32>,
    best_sentence: Vec<f32>,
    s_scores: Vec<f32>,
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

type StemCache = (u64, HashMap<Box<str>, Option<Option<u32>>>);

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
    static STEMMED: RefCell<StemCache> = RefCell::new((0, HashMap::default()));
}

/// Sentences of a message: split after `.`, `?`, `!` or `;` followed by white
/// space, and at line breaks. (`3.5` and `v1.2` stay whole.)
fn split_sentences(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            i += 1;
            let end_mark = matches!(b, b'.' | b'?' | b'!' | b';')
                && bytes.get(i).is_none_or(|c| c.is_ascii_whitespace());
            if end_mark || b == b'\n' {
                let piece = &text[start..i];
                start = i;
                return Some(piece);
            }
        }
        if start < bytes.len() {
            let piece = &text[start..];
            start = bytes.len();
            return Some(piece);
        }
        None
    })
    .filter(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str, schema: Value) -> Tool {
        let mut t = Tool::new(name, description);
        t.input_schema = schema;
        t
    }

    fn names(index: &Index, tools: &[Tool], query: &str, k: usize) -> Vec<String> {
        index
            .search(query, None, k)
            .iter()
            .map(|h| tools[h.doc].name.clone())
            .collect()
    }

    fn sample() -> Vec<Tool> {
        vec![
            tool(
                "send_invoice",
                "Send an invoice to a customer by email.",
                serde_json::json!({"type":"object","properties":{"customer_id":{"type":"string","description":"The customer to bill"}}}),
            ),
            tool(
                "lookup_status",
                "Look up the current service status.",
                serde_json::json!({"type":"object","properties":{}}),
            ),
            tool(
                "list_incidents",
                "List open incidents for a service.",
                serde_json::json!({"type":"object","properties":{"severity":{"type":"string","enum":["critical","minor"]}}}),
            ),
            tool(
                "get_weather",
                "Current weather for a city.",
                serde_json::json!({"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","enum":["celsius","fahrenheit"]}}}),
            ),
        ]
    }

    #[test]
    fn ranks_by_fields() {
        let tools = sample();
        let index = Index::build(&tools);
        assert_eq!(
            names(&index, &tools, "check service status", 2),
            ["lookup_status", "list_incidents"]
        );
        assert_eq!(
            names(&index, &tools, "weather in Paris in fahrenheit", 1),
            ["get_weather"]
        );
        // Enum values are indexed with the parameter descriptions.
        assert_eq!(names(&index, &tools, "critical", 5), ["list_incidents"]);
        // Nothing matches: nothing returned, not padding.
        assert!(index.search("zebra", None, 5).is_empty());
        assert!(index.search("", None, 5).is_empty());
        assert!(index.search("the of and", None, 5).is_empty());
    }

    #[test]
    fn explain_names_fields() {
        let tools = sample();
        let index = Index::build(&tools);
        let e = index.explain("send invoices to customers", None, 0);
        let terms: Vec<&str> = e.matches.iter().map(|m| m.term.as_str()).collect();
        assert_eq!(
            terms,
            [
                "send",
                "invoices",
                "send invoices",
                "customers",
                "invoices customers"
            ]
        );
        assert_eq!(e.matches[0].fields, [Field::Name, Field::Description]);
        assert_eq!(
            e.matches[3].fields,
            [
                Field::Description,
                Field::ParamName,
                Field::ParamDescription
            ]
        );
        assert!(e.matches.iter().all(|m| m.score > 0.0));
        let total: f32 = e.matches.iter().map(|m| m.score).sum();
        let hit = index.search("send invoices to customers", None, 1)[0];
        assert!((hit.score - total).abs() < 1e-4);
    }

    #[test]
    fn exact_names_rank_first() {
        let mut tools = sample();
        tools.push(tool("status", "Status.", serde_json::json!({})));
        let index = Index::build(&tools);
        assert_eq!(
            names(&index, &tools, "please run list_incidents now", 1),
            ["list_incidents"]
        );
        assert_eq!(
            names(&index, &tools, "use `get_weather`", 1),
            ["get_weather"]
        );
        // Dotted and camel forms are the same name.
        assert_eq!(names(&index, &tools, "lookupStatus", 1), ["lookup_status"]);
        let hit = index.search("lookup.status", None, 1)[0];
        assert!(hit.exact);
        // A one-word name wins only as the whole query or in backticks.
        assert_eq!(names(&index, &tools, "status", 1), ["status"]);
        assert!(!index.search("service status please", None, 1)[0].exact);
        assert!(index.search("call `status`", None, 1)[0].exact);
    }

    #[test]
    fn deterministic_ties_by_catalog_order() {
        let tools: Vec<Tool> = (0..5)
            .map(|i| tool(&format!("t{i}"), "same words here", serde_json::json!({})))
            .collect();
        let index = Index::build(&tools);
        let docs: Vec<usize> = index
            .search("same words", None, 5)
            .iter()
            .map(|h| h.doc)
            .collect();
        assert_eq!(docs, [0, 1, 2, 3, 4]);
        assert_eq!(index.search("same words", None, 3).len(), 3);
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #[test]
        fn top_k_is_the_sorted_prefix(
            scores in proptest::collection::vec(
                proptest::prop_oneof![proptest::strategy::Just(0.0f32), 0.0f32..10.0, (0u8..4).prop_map(f32::from)],
                0..300,
            ),
            k in 0usize..40,
        ) {
            let mut expected: Vec<(f32, u32)> = scores
                .iter()
                .enumerate()
                .filter(|(_, s)| **s > 0.0)
                .map(|(d, s)| (*s, d as u32))
                .collect();
            expected.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            expected.truncate(k);
            proptest::prop_assert_eq!(top_k(&scores, k), expected);
        }
    }

    #[test]
    fn sentences_split() {
        let s: Vec<&str> =
            split_sentences("Get 3.5 kg. Then v1.2 please?\nNext one; last").collect();
        assert_eq!(
            s,
            [
                "Get 3.5 kg.",
                " Then v1.2 please?",
                "\n",
                "Next one;",
                " last"
            ]
            .into_iter()
            .filter(|x| !x.trim().is_empty())
            .collect::<Vec<_>>()
        );
    }

    #[test]
    fn deep_schemas_do_not_overflow() {
        let mut schema = serde_json::json!({"type":"string","description":"leaf"});
        for i in 0..500 {
            schema = serde_json::json!({"type":"object","properties":{ format!("p{i}"): schema }});
        }
        let tools = vec![tool("deep", "deep", schema)];
        let index = Index::build(&tools);
        assert_eq!(index.search("deep", None, 1).len(), 1);
    }
}
