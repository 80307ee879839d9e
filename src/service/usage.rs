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

use std::io::{BufRead, Write};
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
}

/// The pairs, and the file they are kept in.
#[derive(Debug, Default)]
pub struct Usage {
    path: Option<PathBuf>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    pairs: Vec<Pair>,
    /// Bumped by each new pair: a catalog's arm is built again.
    generation: u64,
    /// The last arm built: (catalog fingerprint, generation) -> index.
    arm: Option<(u128, u64, Arc<Arm>)>,
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
        }
    }

    /// The pairs of `path` (none when it does not exist yet), new ones
    /// appended to it. A line that is not a pair is an error naming it.
    pub fn open(path: &Path) -> Result<Usage, UsageError> {
        let pairs = if path.exists() {
            read_pairs(path)?
        } else {
            Vec::new()
        };
        let mut usage = Usage::new(pairs);
        usage.path = Some(path.to_path_buf());
        Ok(usage)
    }

    /// How many pairs are kept.
    pub fn len(&self) -> usize {
        lock(&self.state).pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records that `tool` was called after a search for `query`.
    pub fn record(&self, query: &str, tool: &str) {
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
        };
        let mut state = lock(&self.state);
        if let Some(path) = &self.path
            && let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
        {
            let _ = writeln!(f, "{}", serde_json::to_string(&pair).unwrap_or_default());
        }
        state.pairs.push(pair);
        if state.pairs.len() > MAX_PAIRS {
            let over = state.pairs.len() - MAX_PAIRS;
            state.pairs.drain(..over);
            // The file is bounded too: rewritten with the pairs kept, once
            // it holds a tenth more than them.
            if over > MAX_PAIRS / 10
                && let Some(path) = &self.path
            {
                let text: String = state
                    .pairs
                    .iter()
                    .map(|p| serde_json::to_string(p).unwrap_or_default() + "\n")
                    .collect();
                let _ = std::fs::write(path, text);
            }
        }
        state.generation += 1;
    }

    /// `ranker` with the usage arm fused in, when some pair names a tool of
    /// `catalog`; else `ranker` itself.
    pub fn wrap(
        &self,
        catalog: &Catalog,
        ranker: Arc<dyn CatalogRanker>,
    ) -> Arc<dyn CatalogRanker> {
        if ranker.ranker().is_regex() {
            return ranker;
        }
        match self.arm(catalog) {
            Some(arm) => Arc::new(Learned { inner: ranker, arm }),
            None => ranker,
        }
    }

    fn arm(&self, catalog: &Catalog) -> Option<Arc<Arm>> {
        let mut state = lock(&self.state);
        let key = catalog.fingerprint();
        if let Some((k, g, arm)) = &state.arm
            && *k == key
            && *g == state.generation
        {
            return Some(arm.clone());
        }
        let n = catalog.len();
        let mut texts: Vec<String> = vec![String::new(); n];
        let mut uses = vec![0u32; n];
        let mut requests: Vec<Vec<Vec<String>>> = vec![Vec::new(); n];
        for p in &state.pairs {
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
        state.arm = Some((key, state.generation, arm.clone()));
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

/// The pairs of a usage file, or the first line that is not one.
pub fn read_pairs(path: &Path) -> Result<Vec<Pair>, UsageError> {
    let err = |line: usize, message: String| UsageError {
        path: path.display().to_string(),
        line,
        message,
    };
    let file = std::fs::File::open(path).map_err(|e| err(0, e.to_string()))?;
    let mut pairs = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| err(i + 1, e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let pair: Pair = serde_json::from_str(&line).map_err(|e| {
            err(
                i + 1,
                format!("not a pair {{\"query\", \"tool\", \"at\"?}}: {e}"),
            )
        })?;
        pairs.push(pair);
    }
    Ok(pairs)
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
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        let tools = vec![
            Tool::new("git_status", "Shows the working tree status"),
            Tool::new("git_log", "Shows the commit logs"),
            Tool::new(
                "git_diff_unstaged",
                "Shows changes in the working directory that are not yet staged",
            ),
            Tool::new("get_sum", "Returns the sum of two numbers"),
        ];
        Catalog::new("t", tools).unwrap()
    }

    fn first(r: &dyn CatalogRanker, c: &Catalog, q: &str) -> String {
        c.tools()[r.rank(q, None, 3).unwrap()[0].doc].name.clone()
    }

    #[test]
    fn a_request_like_one_that_led_to_a_tool_finds_it_first() {
        let c = catalog();
        let plain: Arc<dyn CatalogRanker> = Arc::new(Index::build(c.tools()));
        // BM25F alone: "what did I change today" is nearest the log.
        assert_ne!(
            first(plain.as_ref(), &c, "what did I change today"),
            "git_diff_unstaged"
        );
        let usage = Usage::new(vec![Pair {
            query: "what did I change so far".into(),
            tool: "git_diff_unstaged".into(),
            at: 0,
        }]);
        let learned = usage.wrap(&c, plain.clone());
        assert_eq!(
            first(learned.as_ref(), &c, "what did I change today"),
            "git_diff_unstaged"
        );
        // The explanation says usage lifted it, and the gate lets it in.
        let e = learned.explain("what did I change today", None, &[2]);
        assert_eq!(e[0].usage, Some(UsageMatch { uses: 1, rank: 1 }));
        assert!(
            crate::engine::Gate::for_ranker(Ranker::Bm25, 0.3)
                .judge(&e[0])
                .fits
        );
        // An unlike request (one word of several shared) is left alone.
        let q = "show the commit logs of the change";
        assert_eq!(first(learned.as_ref(), &c, q), first(plain.as_ref(), &c, q));
        assert_eq!(learned.explain(q, None, &[2])[0].usage, None);
    }

    #[test]
    fn pairs_are_kept_bounded_and_a_bad_line_is_named() {
        let pairs: Vec<Pair> = (0..MAX_PAIRS + 5)
            .map(|i| Pair {
                query: format!("q{i}"),
                tool: "git_log".into(),
                at: i as u64,
            })
            .collect();
        let usage = Usage::new(pairs);
        assert_eq!(usage.len(), MAX_PAIRS);
        usage.record("  ", "git_log");
        usage.record(&"x".repeat(5_000), "git_log");
        assert_eq!(usage.len(), MAX_PAIRS, "the oldest went");
        let dir = std::env::temp_dir().join(format!("toolsift-usage-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pairs.jsonl");
        std::fs::write(&path, "{\"query\": \"a b\", \"tool\": \"t\"}\nnot json\n").unwrap();
        let e = read_pairs(&path).unwrap_err().to_string();
        assert!(e.contains("pairs.jsonl: line 2"), "{e}");
        // A file that does not exist yet starts empty, and is written.
        let fresh = dir.join("new.jsonl");
        let usage = Usage::open(&fresh).unwrap();
        usage.record("what did I change", "git_diff_unstaged");
        let back = read_pairs(&fresh).unwrap();
        assert_eq!(back[0].tool, "git_diff_unstaged");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
