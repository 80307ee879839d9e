//! Learning from use: which tool an agent called after a search, kept as
//! (request, tool) pairs and used as a third ranking arm beside BM25F and
//! the dense model.
//!
//! The gateway records a pair when a call answers after a search of the
//! same session (`--learn FILE`, opt-in, local: one JSON line per pair,
//! the newest [`MAX_PAIRS`] kept). A search then also ranks the catalog's
//! tools by the requests that led to them (BM25F over each tool's past
//! requests), and the two lists are fused by reciprocal rank: a request
//! like one that led to a tool before finds that tool first. A tool lifted
//! so says it (`usage` in its explanation: how many like requests led to
//! it), and the relevance gate takes that as evidence it fits.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::catalog::{Catalog, Tool};
use crate::engine::{CatalogRanker, Explanation, Hit, Index, RankError, Ranker, UsageMatch};
use crate::lock::lock;

/// At most this many pairs are kept (the oldest go first).
pub const MAX_PAIRS: usize = 10_000;

/// A request longer than this many bytes is kept cut (at a character).
const MAX_REQUEST_BYTES: usize = 1_000;

/// A line of the file longer than this is not a pair this gateway wrote
/// (a request is cut at [`MAX_REQUEST_BYTES`]): skipped unread.
const MAX_LINE_BYTES: usize = 4_096;

/// The file is trimmed to its newest [`MAX_PAIRS`] lines once it holds a
/// tenth more than that.
const TRIM_AT: usize = MAX_PAIRS + MAX_PAIRS / 10;

/// Arms kept built at once (catalogs times keys).
const MAX_ARMS: usize = 64;

/// How deep each list is fused.
const FUSE_DEPTH: usize = 50;

/// Reciprocal-rank constant: a list's first place weighs 1/(K+1).
const RRF_K: f32 = 10.0;

/// How much the usage list weighs beside the ranker's (1).
const USAGE_WEIGHT: f32 = 1.5;

/// A usage hit counts only when it matches at least this share of its
/// best, and one of its past requests is like this one: the words that
/// say what is wanted (not stop words, filler, generic tool verbs or
/// everyday words), shared at least this much (Dice: twice the shared
/// over both counts). "add a reminder" is not "add 17 and 25"; "list the
/// branches" is not "start a branch for the login work".
const USAGE_SHARE: f32 = 0.5;
const MIN_LIKENESS: f32 = 0.5;

/// One recorded pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pair {
    pub query: String,
    pub tool: String,
    /// Seconds since the Unix epoch.
    #[serde(default)]
    pub at: u64,
    /// Whose use it was: a digest of the gateway's API key that made the
    /// search (never the key), so one key's use steers only its own
    /// searches. None: a gateway without keys, or one told to share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// The pairs, and the file they are kept in.
#[derive(Debug, Default)]
pub struct Usage {
    path: Option<PathBuf>,
    state: Mutex<State>,
    warnings: Vec<String>,
}

#[derive(Debug, Default)]
struct State {
    pairs: Vec<Pair>,
    /// Bumped by each new pair: a catalog's arm is built again.
    generation: u64,
    /// The arms built, by (catalog fingerprint, key): each with the
    /// generation it was built at. Bounded: cleared when full.
    arms: std::collections::HashMap<(u128, Option<String>), (u64, Arc<Arm>)>,
    /// Lines in the file (read, then appended): past [`TRIM_AT`] it is
    /// trimmed to the newest [`MAX_PAIRS`].
    file_lines: usize,
}

/// The usage arm over one catalog: each tool's past requests, indexed.
#[derive(Debug)]
struct Arm {
    index: Index,
    /// Per tool: how many pairs led to it.
    uses: Vec<u32>,
    /// Per tool: the content words of each past request that led to it.
    requests: Vec<Vec<Vec<String>>>,
}

/// How usage lifted a tool, in words: "called after 3 like requests
/// before".
pub fn words(u: &UsageMatch) -> String {
    format!(
        "called after {} like request{} before",
        u.uses,
        if u.uses == 1 { "" } else { "s" }
    )
}

/// The stems of the words of `text` that say what is wanted.
fn content_words(text: &str) -> Vec<String> {
    use crate::engine::analyzer::{QUERY_FILLER, Stemmer, for_each_word, is_stop_word};
    use crate::engine::vocabulary::{is_everyday_stem, is_generic_stem};
    let stemmer = Stemmer::default();
    let mut out: Vec<String> = Vec::new();
    let mut buf = String::new();
    for_each_word(text, &mut buf, |w| {
        if is_stop_word(w) || QUERY_FILLER.contains(&w) || w.bytes().all(|b| b.is_ascii_digit()) {
            return;
        }
        let stem = stemmer.stem(w).into_owned();
        if !is_generic_stem(&stem) && !is_everyday_stem(&stem) && !out.contains(&stem) {
            out.push(stem);
        }
    });
    out
}

/// How alike two requests' content words are (Dice, 0 to 1).
fn likeness(a: &[String], b: &[String]) -> f32 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let shared = a.iter().filter(|w| b.contains(w)).count();
    2.0 * shared as f32 / (a.len() + b.len()) as f32
}

/// A line of a usage file that is not a pair.
#[derive(Debug, thiserror::Error)]
#[error("{path}: line {line}: {message}")]
pub struct UsageError {
    pub path: String,
    pub line: usize,
    pub message: String,
}

impl Usage {
    /// Pairs in memory only.
    pub fn new(pairs: Vec<Pair>) -> Usage {
        let mut pairs = pairs;
        if pairs.len() > MAX_PAIRS {
            pairs.drain(..pairs.len() - MAX_PAIRS);
        }
        Usage {
            path: None,
            state: Mutex::new(State {
                pairs,
                ..State::default()
            }),
            warnings: Vec::new(),
        }
    }

    /// The pairs of `path` (none when it does not exist yet), new ones
    /// appended to it. A line that is not a pair (torn, edited, too long)
    /// is skipped with a warning ([`Usage::warnings`]); a file others may
    /// write is warned of too. A file past its bound is trimmed now.
    pub fn open(path: &Path) -> Result<Usage, UsageError> {
        let err = |message: String| UsageError {
            path: path.display().to_string(),
            line: 0,
            message,
        };
        // Others may have written it before it is made 0600 below.
        let shared = crate::private_file::shared_warning(path);
        // Created (0600, never through a link) before it is read, so a
        // path that cannot be written is an error at start.
        drop(crate::private_file::open_append(path).map_err(|e| err(e.to_string()))?);
        let read = read_pairs(path)?;
        let mut warnings = read.skipped;
        warnings.extend(shared);
        let mut lines = read.lines;
        if lines > TRIM_AT {
            lines = crate::private_file::keep_last(path, MAX_PAIRS, MAX_LINE_BYTES)
                .map_err(|e| err(format!("cannot trim it to its last {MAX_PAIRS} pairs: {e}")))?;
        }
        let mut usage = Usage::new(read.pairs);
        usage.path = Some(path.to_path_buf());
        usage.warnings = warnings;
        lock(&usage.state).file_lines = lines;
        Ok(usage)
    }

    /// What opening the file found wrong: lines skipped, who may write it.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// How many pairs are kept.
    pub fn len(&self) -> usize {
        lock(&self.state).pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records that `tool` was called after a search for `query`, made
    /// with `key` (see [`Pair::key`]).
    pub fn record(&self, query: &str, tool: &str, key: Option<&str>) {
        let query = cut(query.trim(), MAX_REQUEST_BYTES);
        if query.is_empty() || tool.is_empty() {
            return;
        }
        let pair = Pair {
            query: query.to_string(),
            tool: tool.to_string(),
            at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            key: key.map(str::to_string),
        };
        let mut state = lock(&self.state);
        if let Some(path) = &self.path {
            let line = serde_json::to_string(&pair).unwrap_or_default();
            // One write of the whole line under the file's lock: gateways
            // sharing the file never tear one another's lines.
            if crate::private_file::append_line(path, &line).is_ok() {
                state.file_lines += 1;
            }
            if state.file_lines > TRIM_AT
                && let Ok(kept) = crate::private_file::keep_last(path, MAX_PAIRS, MAX_LINE_BYTES)
            {
                state.file_lines = kept;
            }
        }
        state.pairs.push(pair);
        if state.pairs.len() > MAX_PAIRS {
            let over = state.pairs.len() - MAX_PAIRS;
            state.pairs.drain(..over);
        }
        state.generation += 1;
    }

    /// `ranker` with the usage arm of `key`'s pairs fused in, when one of
    /// them names a tool of `catalog`; else `ranker` itself. Pairs of other
    /// keys are never used.
    pub fn wrap(
        &self,
        catalog: &Catalog,
        ranker: Arc<dyn CatalogRanker>,
        key: Option<&str>,
    ) -> Arc<dyn CatalogRanker> {
        if ranker.ranker().is_regex() {
            return ranker;
        }
        match self.arm(catalog, key) {
            Some(arm) => Arc::new(Learned { inner: ranker, arm }),
            None => ranker,
        }
    }

    fn arm(&self, catalog: &Catalog, key: Option<&str>) -> Option<Arc<Arm>> {
        let mut state = lock(&self.state);
        let cache_key = (catalog.fingerprint(), key.map(str::to_string));
        if let Some((g, arm)) = state.arms.get(&cache_key)
            && *g == state.generation
        {
            return Some(arm.clone());
        }
        let n = catalog.len();
        let mut texts: Vec<String> = vec![String::new(); n];
        let mut uses = vec![0u32; n];
        let mut requests: Vec<Vec<Vec<String>>> = vec![Vec::new(); n];
        for p in state.pairs.iter().filter(|p| p.key.as_deref() == key) {
            if let Some(i) = catalog.index_of(&p.tool) {
                texts[i].push_str(&p.query);
                texts[i].push_str(".\n");
                uses[i] += 1;
                requests[i].push(content_words(&p.query));
            }
        }
        if uses.iter().all(|&u| u == 0) {
            return None;
        }
        // Documents of past requests only: no name, so a tool is found by
        // what was asked of it.
        let docs: Vec<Tool> = texts.into_iter().map(|t| Tool::new("", t)).collect();
        let arm = Arc::new(Arm {
            index: Index::build(&docs),
            uses,
            requests,
        });
        if state.arms.len() >= MAX_ARMS {
            state.arms.clear();
        }
        let generation = state.generation;
        state.arms.insert(cache_key, (generation, arm.clone()));
        Some(arm)
    }
}

fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// What a usage file holds.
#[derive(Debug, Default)]
pub struct ReadPairs {
    /// The newest [`MAX_PAIRS`] pairs, oldest first.
    pub pairs: Vec<Pair>,
    /// How many lines the file has.
    pub lines: usize,
    /// A sentence for each line skipped (at most a few, then a count).
    pub skipped: Vec<String>,
}

/// How many skipped lines are named one by one.
const NAMED_SKIPS: usize = 5;

/// The pairs of a usage file; a line that is not one is skipped and named.
/// Memory is bounded: no line is kept past [`MAX_LINE_BYTES`], no more than
/// [`MAX_PAIRS`] pairs.
pub fn read_pairs(path: &Path) -> Result<ReadPairs, UsageError> {
    use crate::private_file::{Line, for_each_line};
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| UsageError {
        path: shown.clone(),
        line: 0,
        message: e.to_string(),
    })?;
    let mut out = ReadPairs::default();
    let mut pairs = std::collections::VecDeque::new();
    let mut skips = 0;
    let mut skip = |out: &mut ReadPairs, line: usize, why: String| {
        skips += 1;
        if skips <= NAMED_SKIPS {
            out.skipped
                .push(format!("{shown}: line {line}: skipped: {why}"));
        }
    };
    for_each_line(std::io::BufReader::new(file), MAX_LINE_BYTES, |n, line| {
        out.lines = n;
        let line = match line {
            Line::Overlong(len) => {
                skip(
                    &mut out,
                    n,
                    format!("{len} bytes, longer than a pair ({MAX_LINE_BYTES})"),
                );
                return;
            }
            Line::Whole(l) => l,
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match serde_json::from_slice::<Pair>(line) {
            Ok(mut pair) => {
                pair.query = cut(pair.query.trim(), MAX_REQUEST_BYTES).to_string();
                if pairs.len() == MAX_PAIRS {
                    pairs.pop_front();
                }
                pairs.push_back(pair);
            }
            Err(e) => skip(
                &mut out,
                n,
                format!("not a pair {{\"query\", \"tool\", \"at\"?}}: {e}"),
            ),
        }
    })
    .map_err(|e| UsageError {
        path: shown.clone(),
        line: out.lines + 1,
        message: e.to_string(),
    })?;
    if skips > NAMED_SKIPS {
        out.skipped.push(format!(
            "{shown}: {skips} lines skipped in all; the other {} pairs are read",
            pairs.len()
        ));
    }
    out.pairs = pairs.into();
    Ok(out)
}

/// A ranker with the usage arm fused in.
#[derive(Debug)]
struct Learned {
    inner: Arc<dyn CatalogRanker>,
    arm: Arc<Arm>,
}

impl Learned {
    /// The usage list: tools whose past requests match `query` well.
    fn usage_hits(&self, query: &str, context: Option<&str>) -> Vec<Hit> {
        let hits = self.arm.index.search(query, context, FUSE_DEPTH);
        let best = hits.first().map_or(0.0, |h| h.score);
        let hits: Vec<Hit> = hits
            .into_iter()
            .filter(|h| h.score >= best * USAGE_SHARE)
            .collect();
        let words = content_words(query);
        hits.into_iter()
            .filter(|h| {
                self.arm.requests[h.doc]
                    .iter()
                    .any(|past| likeness(&words, past) >= MIN_LIKENESS)
            })
            .collect()
    }
}

impl CatalogRanker for Learned {
    fn ranker(&self) -> Ranker {
        self.inner.ranker()
    }

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn rank(&self, query: &str, context: Option<&str>, k: usize) -> Result<Vec<Hit>, RankError> {
        let base = self.inner.rank(query, context, k.max(FUSE_DEPTH))?;
        let usage = self.usage_hits(query, context);
        if usage.is_empty() {
            let mut base = base;
            base.truncate(k);
            return Ok(base);
        }
        let mut fused = fuse(&base, &usage, k);
        // A tool only usage found: the ranker's own score for it.
        let only: Vec<usize> = fused
            .iter()
            .filter(|h| !base.iter().any(|b| b.doc == h.doc))
            .map(|h| h.doc)
            .collect();
        if !only.is_empty() && !query.trim().is_empty() {
            let scores = self.inner.score(query, context, &only)?;
            for h in &mut fused {
                if let Some(at) = only.iter().position(|&d| d == h.doc) {
                    h.score = scores[at];
                }
            }
        }
        Ok(fused)
    }

    fn explain(&self, query: &str, context: Option<&str>, docs: &[usize]) -> Vec<Explanation> {
        let mut out = self.inner.explain(query, context, docs);
        let usage = self.usage_hits(query, context);
        for (e, &doc) in out.iter_mut().zip(docs) {
            if let Some(rank) = usage.iter().position(|h| h.doc == doc) {
                e.usage = Some(UsageMatch {
                    uses: self.arm.uses.get(doc).copied().unwrap_or(0),
                    rank: rank + 1,
                });
            }
        }
        out
    }

    fn score(
        &self,
        query: &str,
        context: Option<&str>,
        docs: &[usize],
    ) -> Result<Vec<f32>, RankError> {
        self.inner.score(query, context, docs)
    }

    fn matching(&self, query: &str, context: Option<&str>) -> Option<Vec<usize>> {
        let mut docs = self.inner.matching(query, context)?;
        for h in self.usage_hits(query, context) {
            if !docs.contains(&h.doc) {
                docs.push(h.doc);
            }
        }
        docs.sort_unstable();
        Some(docs)
    }

    fn explains(&self) -> bool {
        self.inner.explains()
    }

    fn latencies(&self) -> Vec<std::time::Duration> {
        self.inner.latencies()
    }

    fn heap_bytes(&self) -> usize {
        self.inner.heap_bytes() + self.arm.index.heap_bytes()
    }
}

/// The two lists fused by reciprocal rank, the ranker's scores kept (a
/// tool only usage found gets its ranker score, 0 when it matched no word):
/// exact names first, then the fused order.
fn fuse(base: &[Hit], usage: &[Hit], k: usize) -> Vec<Hit> {
    let mut fused: Vec<(f32, Hit)> = Vec::new();
    for (rank, h) in base.iter().enumerate() {
        fused.push((1.0 / (RRF_K + rank as f32 + 1.0), *h));
    }
    for (rank, u) in usage.iter().enumerate() {
        let add = USAGE_WEIGHT / (RRF_K + rank as f32 + 1.0);
        match fused.iter_mut().find(|(_, h)| h.doc == u.doc) {
            Some((s, _)) => *s += add,
            None => fused.push((
                add,
                Hit {
                    doc: u.doc,
                    score: 0.0,
                    exact: false,
                },
            )),
        }
    }
    fused.sort_by(|a, b| b.1.exact.cmp(&a.1.exact).then_with(|| b.0.total_cmp(&a.0)));
    fused.truncate(k);
    fused.into_iter().map(|(_, h)| h).collect()
}

#[cfg(test)]
#[path = "usage_tests.rs"]
mod tests;
