//! Building the index: analysing each tool into its fields' term sequences,
//! then turning term counts into BM25F impacts in posting lists.

use rustc_hash::FxHashMap as HashMap;

use super::words::WordMap;
use super::{Field, Index, Params, expand};
use crate::catalog::Tool;
use crate::engine::analyzer::{
    STOP_WORDS, Stemmer, for_each_word, is_stop_word, name_key, name_words,
};
use crate::engine::schema_text::walk_schema;
use crate::engine::vocabulary::{asks_undo_stem, is_destructive_stem};

/// Builds term ids while analysing the catalog.
struct Vocab {
    stemmer: Stemmer,
    /// Word -> term, or `None` for a stop word.
    words: WordMap<Option<u32>>,
    stems: WordMap<u32>,
    bigrams: HashMap<(u32, u32), u32>,
    /// Terms whose stem asks to destroy or undo, ascending.
    undo_terms: Vec<u32>,
    next: u32,
    buf: String,
}

impl Vocab {
    fn new() -> Self {
        Vocab {
            stemmer: Stemmer::default(),
            words: WordMap::default(),
            stems: WordMap::default(),
            bigrams: HashMap::default(),
            undo_terms: Vec::new(),
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
            let mut new = false;
            let id = *self.stems.get_or_insert_with(&stem, || {
                new = true;
                *next += 1;
                *next - 1
            });
            if new && asks_undo_stem(&stem) {
                self.undo_terms.push(id);
            }
            Some(id)
        };
        self.words.insert(word, term);
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

impl Index {
    /// Indexes `tools` with the default parameters.
    pub fn build(tools: &[Tool]) -> Self {
        Self::build_with(tools, Params::default())
    }

    pub fn build_with(tools: &[Tool], params: Params) -> Self {
        let mut vocab = Vocab::new();
        let n = tools.len();
        let catalog = Analyzed::of(tools, &mut vocab);
        let n_terms = vocab.next as usize;
        let avg = average_lengths(&catalog.docs);
        let entries = weighted_counts(&catalog.docs, &avg, &params, n_terms);
        let mut postings = Postings::sorted(entries, n_terms, n, &params);
        // Query lookups: every word seen, every stop word (seen or not) and
        // the query filler map to None, so one lookup decides a query word
        // the catalog has, or skips.
        let mut words = vocab.words;
        for skip in params.query_filler.iter().chain(STOP_WORDS) {
            words.insert(skip, None);
        }
        let stems = vocab.stems;
        let expanded = expand::build(
            &params,
            n,
            |word, stemmer| match words.get(word) {
                Some(t) => *t,
                None => stems.get(&stemmer.stem(word)).copied(),
            },
            |stem| stems.get(stem).is_some(),
            |t| postings.list(t),
            n_terms as u32,
        );
        for list in expanded.lists {
            postings.push_list(list);
        }
        Index {
            params,
            n_docs: n,
            words,
            stems,
            expanded: expanded.by_stem,
            first_expanded: n_terms as u32,
            expanded_members: expanded.members,
            bigrams: vocab.bigrams,
            offsets: postings.offsets,
            post_docs: postings.docs,
            post_impacts: postings.impacts,
            post_fields: postings.fields,
            names: catalog.names,
            name_terms: catalog.name_terms,
            destructive: catalog.destructive,
            undo_terms: vocab.undo_terms,
            servers: catalog.servers,
            server_keys: catalog.server_keys,
        }
    }
}

/// The catalog analysed, tool by tool.
struct Analyzed {
    /// Per document: the term sequence of each field.
    docs: Vec<[Vec<u32>; Field::COUNT]>,
    /// Each name key's tools and its number of words.
    names: HashMap<Box<str>, (Vec<u32>, usize)>,
    /// Tools whose name says they destroy or undo.
    destructive: Vec<u32>,
    /// Each server's key and its number.
    server_keys: HashMap<Box<str>, u32>,
    /// Each tool's server number (`u32::MAX`: none).
    servers: Vec<u32>,
    /// Each tool's count of distinct name terms.
    name_terms: Vec<u8>,
}

impl Analyzed {
    /// Analyses every tool of `tools` with `vocab`.
    fn of(tools: &[Tool], vocab: &mut Vocab) -> Analyzed {
        let n = tools.len();
        let mut out = Analyzed {
            docs: Vec::with_capacity(n),
            names: HashMap::default(),
            destructive: Vec::new(),
            server_keys: HashMap::default(),
            servers: vec![u32::MAX; n],
            name_terms: Vec::with_capacity(n),
        };
        for (i, tool) in tools.iter().enumerate() {
            if let Some(origin) = &tool.mcp {
                let key = name_key(&origin.server);
                if !key.is_empty() {
                    let next = out.server_keys.len() as u32;
                    out.servers[i] = *out.server_keys.entry(Box::from(key)).or_insert(next);
                }
            }
            let fields = fields_of(tool, vocab);
            let mut distinct = fields[Field::Name as usize].clone();
            distinct.sort_unstable();
            distinct.dedup();
            out.name_terms
                .push(distinct.len().min(u8::MAX as usize) as u8);
            if name_words(&tool.name)
                .iter()
                .any(|w| is_destructive_stem(&vocab.stemmer.stem(w)))
            {
                out.destructive.push(i as u32);
            }
            let key = name_key(&tool.name);
            if !key.is_empty() {
                let words = key.split('_').count();
                out.names
                    .entry(Box::from(key))
                    .or_insert_with(|| (Vec::new(), words))
                    .0
                    .push(i as u32);
            }
            out.docs.push(fields);
        }
        out
    }
}

/// One tool's term sequence in each field: its name (numbers left out),
/// description, parameters' names and texts, the word pairs of its name
/// and description, and its server's name and about.
fn fields_of(tool: &Tool, vocab: &mut Vocab) -> [Vec<u32>; Field::COUNT] {
    let mut fields: [Vec<u32>; Field::COUNT] = Default::default();
    vocab.analyze_filtered(&tool.name, &mut fields[Field::Name as usize], true);
    vocab.analyze(&tool.description, &mut fields[Field::Description as usize]);
    let [param_names, param_texts] = fields
        .get_disjoint_mut([Field::ParamName as usize, Field::ParamDescription as usize])
        .expect("two distinct fields");
    walk_schema(&tool.input_schema, &mut |field, text| {
        let out = if field == Field::ParamName {
            &mut *param_names
        } else {
            &mut *param_texts
        };
        vocab.analyze(text, out);
    });
    for (source, target) in [
        (Field::Name, Field::NameBigram),
        (Field::Description, Field::DescriptionBigram),
    ] {
        let seq = std::mem::take(&mut fields[source as usize]);
        let pairs: Vec<u32> = seq.windows(2).map(|w| vocab.bigram(w[0], w[1])).collect();
        fields[source as usize] = seq;
        fields[target as usize] = pairs;
    }
    if let Some(origin) = &tool.mcp {
        let server = &mut fields[Field::Server as usize];
        vocab.analyze(&origin.server, server);
        if let Some(about) = &origin.about {
            vocab.analyze(about, server);
        }
    }
    fields
}

/// Each field's average length over the documents (1 with none).
fn average_lengths(docs: &[[Vec<u32>; Field::COUNT]]) -> [f32; Field::COUNT] {
    let n = docs.len();
    let mut avg = [0f32; Field::COUNT];
    for fields in docs {
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
    avg
}

/// (term, doc, weighted tf, field mask), one entry per term per document:
/// each field's counts scaled by its weight and length normalisation.
fn weighted_counts(
    docs: &[[Vec<u32>; Field::COUNT]],
    avg: &[f32; Field::COUNT],
    params: &Params,
    n_terms: usize,
) -> Vec<(u32, u32, f32, u8)> {
    let mut entries: Vec<(u32, u32, f32, u8)> = Vec::new();
    // Per document, each term's counts per field, found through a dense
    // term -> slot table (no sorting): `owner[t]` says which document the
    // slot `slot[t]` belongs to.
    let mut owner = vec![u32::MAX; n_terms];
    let mut slot = vec![0u32; n_terms];
    let mut counts: Vec<(u32, [u16; Field::COUNT])> = Vec::new();
    for (d, fields) in docs.iter().enumerate() {
        counts.clear();
        for (f, seq) in fields.iter().enumerate() {
            for &t in seq {
                let t = t as usize;
                if owner[t] != d as u32 {
                    owner[t] = d as u32;
                    slot[t] = counts.len() as u32;
                    counts.push((t as u32, [0; Field::COUNT]));
                }
                let c = &mut counts[slot[t] as usize].1[f];
                *c = c.saturating_add(1);
            }
        }
        // Each field's length normalisation, once per document.
        let mut scale = [0f32; Field::COUNT];
        for (f, s) in scale.iter_mut().enumerate() {
            let p = params.fields[f];
            let norm = 1.0 - p.b + p.b * fields[f].len() as f32 / avg[f];
            *s = p.weight / norm;
        }
        for (term, tf) in &counts {
            let mut tfw = 0f32;
            let mut mask = 0u8;
            for f in 0..Field::COUNT {
                if tf[f] > 0 {
                    tfw += scale[f] * f32::from(tf[f]);
                    mask |= 1 << f;
                }
            }
            entries.push((*term, d as u32, tfw, mask));
        }
    }
    entries
}

/// The posting lists: term `t`'s documents, BM25F impacts and field masks
/// at `offsets[t]..offsets[t + 1]`.
struct Postings {
    offsets: Vec<u32>,
    docs: Vec<u32>,
    impacts: Vec<f32>,
    fields: Vec<u8>,
}

impl Postings {
    /// Counting sort of `entries` into posting lists (docs ascending within
    /// a term), each weighted tf turned into its BM25F impact.
    fn sorted(
        entries: Vec<(u32, u32, f32, u8)>,
        n_terms: usize,
        n: usize,
        params: &Params,
    ) -> Postings {
        let mut offsets = vec![0u32; n_terms + 1];
        for e in &entries {
            offsets[e.0 as usize + 1] += 1;
        }
        for t in 0..n_terms {
            offsets[t + 1] += offsets[t];
        }
        let total = entries.len();
        let mut out = Postings {
            docs: vec![0u32; total],
            impacts: vec![0f32; total],
            fields: vec![0u8; total],
            offsets,
        };
        let mut cursor: Vec<u32> = out.offsets[..n_terms].to_vec();
        let k1 = params.k1;
        let idfs: Vec<f32> = (0..n_terms)
            .map(|t| {
                let df = (out.offsets[t + 1] - out.offsets[t]) as f32;
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
            out.docs[slot] = doc;
            out.impacts[slot] = idf * tfw * (k1 + 1.0) / (tfw + k1);
            out.fields[slot] = mask;
        }
        out
    }

    /// Term `t`'s documents, impacts and field masks.
    fn list(&self, t: u32) -> (&[u32], &[f32], &[u8]) {
        let r = self.offsets[t as usize] as usize..self.offsets[t as usize + 1] as usize;
        (
            &self.docs[r.clone()],
            &self.impacts[r.clone()],
            &self.fields[r],
        )
    }

    /// Adds one more list (an expansion's), as the next term's.
    fn push_list(&mut self, list: Vec<(u32, f32, u8)>) {
        for (d, w, mask) in list {
            self.docs.push(d);
            self.impacts.push(w);
            self.fields.push(mask);
        }
        self.offsets.push(self.docs.len() as u32);
    }
}
