//! Requests that ask for several things: split into intents, each ranked,
//! the rankings merged.
//!
//! "check what changed, stage it and commit" asks for three tools; ranked
//! as one bag of words, the tool that matches most words wins and the
//! others may fall below the cut. The request is split into its clauses:
//!
//! - **always** at a line break, a `;`, numbered steps (`1.` `2.` or `1)`
//!   `2)`, counted from one) and the words of sequence (`then`, `after
//!   that`, `afterwards`, `finally`);
//! - at a comma, a sentence's end, `and`, `also` or `plus` only when the
//!   clause that follows starts with a verb of action ([`VERBS`], after
//!   words such as "please" or "also"): "stage it and commit" splits,
//!   "a.txt, b.txt and c.txt" and "base 10 and height 5" do not.
//!
//! The whole request is ranked too, and the rankings are merged by weighted
//! reciprocal rank ([`fuse`]): the whole request's best tool stays first,
//! each clause's best tool follows, then the rest. A request of one clause,
//! or of more than [`MAX_SPLIT_WORDS`] words, is ranked as before.

use std::collections::HashMap;

use super::{CatalogRanker, Hit, RankError};

/// A request of more words than this is not split (`queries` still are
/// merged): a long message says what it needs in many words, and the
/// rankers score its sentences on their own already. Measured on bfcl-dev:
/// splitting its long requests too cost hybrid 1.2 points of all@10; up to
/// 16 words, BM25F gains 0.6 and hybrid keeps its figure.
pub const MAX_SPLIT_WORDS: usize = 16;

/// At most this many intents (the wire's `queries` holds as many).
pub const MAX_INTENTS: usize = 16;

/// The weight of the whole request's ranking in [`fuse`]; each intent's
/// weighs 1. Above 1, the whole request's first tool stays first; below
/// `1 + 1 / (RRF_K + 1)`, an intent's first tool comes before the whole
/// request's second.
pub const WHOLE_WEIGHT: f32 = 1.2;

/// How deep each ranking counts in the fusion: the whole request's tools
/// below this come after the fused ones, in their order.
pub const FUSE_DEPTH: usize = 30;

/// The constant of reciprocal-rank fusion (`weight / (RRF_K + rank)`). Small,
/// so a list's first places count for much more than its tail.
pub const RRF_K: f32 = 1.0;

/// Verbs that start a clause of their own: what a user asks an agent to do.
/// Written from general knowledge of requests to software tools; a clause
/// that starts with one of these after a comma, `and`, `also` or `plus` is
/// an intent of its own.
pub const VERBS: &[&str] = &[
    "add",
    "analyse",
    "analyze",
    "append",
    "approve",
    "archive",
    "ask",
    "assign",
    "book",
    "build",
    "calculate",
    "call",
    "cancel",
    "change",
    "check",
    "checkout",
    "clean",
    "clear",
    "clone",
    "close",
    "commit",
    "compare",
    "compress",
    "compute",
    "convert",
    "copy",
    "count",
    "create",
    "delete",
    "deploy",
    "describe",
    "display",
    "download",
    "draft",
    "draw",
    "drop",
    "edit",
    "email",
    "estimate",
    "explain",
    "export",
    "extract",
    "fetch",
    "fill",
    "filter",
    "find",
    "fix",
    "forget",
    "format",
    "generate",
    "get",
    "give",
    "grab",
    "gzip",
    "import",
    "insert",
    "install",
    "invite",
    "list",
    "load",
    "locate",
    "lock",
    "log",
    "look",
    "make",
    "mark",
    "merge",
    "message",
    "move",
    "note",
    "notify",
    "open",
    "order",
    "paste",
    "pay",
    "play",
    "plot",
    "post",
    "print",
    "publish",
    "pull",
    "push",
    "put",
    "read",
    "rebase",
    "record",
    "refresh",
    "reject",
    "reload",
    "remember",
    "remind",
    "remove",
    "rename",
    "reopen",
    "replace",
    "reply",
    "report",
    "reset",
    "restart",
    "restore",
    "retrieve",
    "return",
    "revert",
    "review",
    "run",
    "save",
    "schedule",
    "search",
    "send",
    "set",
    "share",
    "show",
    "sort",
    "stage",
    "start",
    "stop",
    "store",
    "summarise",
    "summarize",
    "switch",
    "sync",
    "tag",
    "tell",
    "test",
    "translate",
    "turn",
    "undo",
    "unlock",
    "unstage",
    "unzip",
    "update",
    "upload",
    "verify",
    "view",
    "write",
    "zip",
];

/// Words a clause may start with before its verb ("and then please save").
const LEAD: &[&str] = &[
    "also",
    "and",
    "then",
    "please",
    "pls",
    "now",
    "next",
    "finally",
    "to",
    "can",
    "could",
    "would",
    "will",
    "you",
    "i",
    "we",
    "want",
    "need",
    "d",
    "like",
    "let",
    "lets",
    "let's",
    "me",
    "us",
    "go",
    "ahead",
    "just",
    "quickly",
    "first",
    "second",
    "third",
    "lastly",
    "after",
    "that",
    "afterwards",
];

/// Words that end a clause whatever follows.
const SEQUENCE: &[&str] = &["then", "afterwards", "finally"];

/// The intents of `query` when it asks for several things (two or more,
/// at most [`MAX_INTENTS`]), each a trimmed slice of `query`; `None` for a
/// request of one clause.
pub fn split(query: &str) -> Option<Vec<&str>> {
    let words = tokens(query);
    let mut cuts: Vec<usize> = Vec::new(); // token indices where a clause starts
    let mut step = 1u32;
    for (i, w) in words.iter().enumerate() {
        let text = &query[w.start..w.end];
        let bare = bare(text);
        let hard = w.line_start
            || step_marker(text) == Some(step)
            || SEQUENCE.contains(&bare.as_str())
            || (bare == "after"
                && words
                    .get(i + 1)
                    .is_some_and(|n| bare_of(query, n) == "that"));
        if step_marker(text) == Some(step) {
            step += 1;
        }
        let prev = i
            .checked_sub(1)
            .map(|p| &query[words[p].start..words[p].end]);
        let soft = prev.is_some_and(|p| p.ends_with([',', '.', '!', '?', ';']))
            || matches!(bare.as_str(), "and" | "also" | "plus");
        let hard = hard || prev.is_some_and(|p| p.ends_with(';'));
        if i > 0 && (hard || (soft && starts_with_verb(query, &words[i..]))) {
            cuts.push(i);
        }
    }
    if cuts.is_empty() {
        return None;
    }
    let mut bounds = vec![0];
    bounds.extend(cuts);
    bounds.push(words.len());
    bounds.dedup();
    let intents: Vec<&str> = bounds
        .windows(2)
        .filter_map(|b| clause(query, &words[b[0]..b[1]]))
        .take(MAX_INTENTS)
        .collect();
    (intents.len() >= 2).then_some(intents)
}

/// The intents [`rank`] ranks `query` by beside the whole request: the
/// `queries` a request gave, else those [`split`] finds; none when one
/// ranking of the whole request answers (one intent, a long request, a
/// regex ranker's pattern).
pub fn parts<'a>(
    ranker: &dyn CatalogRanker,
    query: &'a str,
    queries: &'a [String],
) -> Vec<&'a str> {
    if ranker.ranker().is_regex() {
        // A pattern is one pattern.
        return Vec::new();
    }
    if queries.is_empty() {
        if query.split_whitespace().nth(MAX_SPLIT_WORDS).is_some() {
            Vec::new()
        } else {
            split(query).unwrap_or_default()
        }
    } else {
        queries
            .iter()
            .map(String::as_str)
            .take(MAX_INTENTS)
            .collect()
    }
}

/// Ranks `query` and merges its ranking with its intents' ([`fuse`]): the
/// `queries` a request gave, else the intents [`split`] finds. A request of
/// one intent, and a regex ranker's pattern, is ranked as it is. Each hit's
/// score is the whole request's score, so scores compare with a single
/// ranking's.
pub fn rank(
    ranker: &dyn CatalogRanker,
    query: &str,
    queries: &[String],
    context: Option<&str>,
    k: usize,
) -> Result<Vec<Hit>, RankError> {
    let parts = parts(ranker, query, queries);
    if parts.is_empty() || k == 0 {
        return ranker.rank(query, context, k);
    }
    // Each list counts to the same depth whatever `k` is, so a search for
    // fewer tools gives the first tools of a search for more.
    let whole = ranker.rank(query, context, k.max(FUSE_DEPTH))?;
    let mut lists = Vec::with_capacity(parts.len());
    for part in &parts {
        lists.push(ranker.rank(part, context, FUSE_DEPTH)?);
    }
    let head = &whole[..whole.len().min(FUSE_DEPTH)];
    let mut fused = fuse(head, &lists, usize::MAX);
    for h in &whole[head.len()..] {
        if !fused.iter().any(|f| f.doc == h.doc) {
            fused.push(*h);
        }
    }
    fused.truncate(k);
    let missing: Vec<usize> = fused
        .iter()
        .filter(|h| !whole.iter().any(|w| w.doc == h.doc))
        .map(|h| h.doc)
        .collect();
    let mut scores = HashMap::with_capacity(fused.len());
    for h in &whole {
        scores.insert(h.doc, h.score);
    }
    if !missing.is_empty() && !query.trim().is_empty() {
        for (doc, s) in missing.iter().zip(ranker.score(query, context, &missing)?) {
            scores.insert(*doc, s);
        }
    }
    for h in &mut fused {
        h.score = scores.get(&h.doc).copied().unwrap_or(0.0);
    }
    Ok(fused)
}

/// Weighted reciprocal-rank fusion of the whole request's ranking (weight
/// [`WHOLE_WEIGHT`]) and its intents' (weight 1 each): the first `k` tools
/// by the sum of `weight / (RRF_K + rank)`. A tool named exactly in any
/// list stays exact and first. Ties keep the whole ranking's order, then
/// the intents'. (Tiers by best place, every list's first before any
/// list's second, were measured too: bfcl-dev's all@10 fell by 0.8 for no
/// gain on multi-step requests.)
pub fn fuse(whole: &[Hit], parts: &[Vec<Hit>], k: usize) -> Vec<Hit> {
    let mut order: Vec<usize> = Vec::new();
    let mut merged: HashMap<usize, (f32, Hit)> = HashMap::new();
    let lists = std::iter::once((WHOLE_WEIGHT, whole)).chain(parts.iter().map(|p| (1.0, &p[..])));
    for (weight, list) in lists {
        for (rank, hit) in list.iter().enumerate() {
            let add = weight / (RRF_K + rank as f32 + 1.0);
            merged
                .entry(hit.doc)
                .and_modify(|(s, h)| {
                    *s += add;
                    h.exact |= hit.exact;
                })
                .or_insert_with(|| {
                    order.push(hit.doc);
                    (add, *hit)
                });
        }
    }
    let mut out: Vec<(usize, f32, Hit)> = order
        .iter()
        .enumerate()
        .map(|(first_seen, doc)| {
            let (s, h) = merged[doc];
            (first_seen, s, h)
        })
        .collect();
    // Exact names first, as in a single ranking; then the fused score.
    out.sort_by(|a, b| {
        b.2.exact
            .cmp(&a.2.exact)
            .then(b.1.total_cmp(&a.1))
            .then(a.0.cmp(&b.0))
    });
    out.into_iter().take(k).map(|(_, _, h)| h).collect()
}

/// A word of the request and where it lies.
struct Token {
    start: usize,
    end: usize,
    /// The first word of a line after the first.
    line_start: bool,
}

fn tokens(query: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start = None;
    let mut newline = false;
    let mut pending_line = false;
    for (i, c) in query.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push(Token {
                    start: s,
                    end: i,
                    line_start: std::mem::take(&mut pending_line),
                });
            }
            if c == '\n' {
                newline = true;
            }
        } else if start.is_none() {
            start = Some(i);
            pending_line = newline && !out.is_empty();
            newline = false;
        }
    }
    if let Some(s) = start {
        out.push(Token {
            start: s,
            end: query.len(),
            line_start: pending_line,
        });
    }
    out
}

/// A word without its punctuation, in lower case.
fn bare(text: &str) -> String {
    text.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
        .to_lowercase()
}

fn bare_of(query: &str, t: &Token) -> String {
    bare(&query[t.start..t.end])
}

/// The number of a step marker such as `2.` or `2)` (or a bullet `-`, `*`,
/// `•`, which counts as whatever step is next).
fn step_marker(text: &str) -> Option<u32> {
    let digits = text.strip_suffix(['.', ')', ':'])?;
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Whether the clause of `words` starts with a verb of action, after the
/// words that may lead one.
fn starts_with_verb(query: &str, words: &[Token]) -> bool {
    for w in words.iter().take(6) {
        let b = bare_of(query, w);
        if VERBS.binary_search(&b.as_str()).is_ok() {
            return true;
        }
        if !LEAD.contains(&b.as_str()) {
            return false;
        }
    }
    false
}

/// The text of a clause: from its first word to its last, without a step
/// marker, leading connectives or trailing punctuation; `None` when no
/// letter or digit is left.
fn clause<'q>(query: &'q str, words: &[Token]) -> Option<&'q str> {
    let mut first = 0;
    while let Some(w) = words.get(first) {
        let text = &query[w.start..w.end];
        let b = bare(text);
        let connective = matches!(
            b.as_str(),
            "and" | "then" | "also" | "plus" | "afterwards" | "finally"
        ) || (b == "after"
            && words
                .get(first + 1)
                .is_some_and(|n| bare_of(query, n) == "that"))
            || (b == "that" && first > 0 && bare_of(query, &words[first - 1]) == "after");
        if step_marker(text).is_some() || matches!(text, "-" | "*" | "•") || connective {
            first += 1;
        } else {
            break;
        }
    }
    let (head, tail) = (words.get(first)?, words.last()?);
    let text = query[head.start..tail.end]
        .trim_end_matches([',', '.', ';', '!', '?', ':'])
        .trim();
    text.chars().any(char::is_alphanumeric).then_some(text)
}

#[cfg(test)]
mod tests;
