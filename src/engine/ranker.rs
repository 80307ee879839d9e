//! Rankers: which one a request asks for ([`Ranker`], parsed once) and the one
//! interface every ranker implements over a catalog ([`CatalogRanker`]).
//!
//! The service builds a [`CatalogRanker`] once per catalog fingerprint and
//! ranker, caches it, and asks it to rank and to explain. BM25F
//! ([`super::Index`]) is one implementation; a dense or hybrid ranker is
//! another, added here without touching the service's steps.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{Explanation, Hit, Index};

/// A ranker a request may name (`ranker` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ranker {
    /// toolsift's tool-aware BM25F (the default).
    #[default]
    Bm25,
    /// Dense vectors; needs an embedding provider.
    Embeddings,
    /// BM25F and dense vectors fused (toolsift's extension of the wire's
    /// values); needs an embedding provider.
    Hybrid,
    /// The query is a regular expression matched against each tool's name,
    /// description and parameters (toolsift's extension, after Anthropic's
    /// regex tool search): [`super::regex`].
    Regex,
}

impl Ranker {
    /// Every ranker: what a request, a flag or a config file may name.
    pub const ALL: [Ranker; 4] = [
        Ranker::Bm25,
        Ranker::Embeddings,
        Ranker::Hybrid,
        Ranker::Regex,
    ];

    /// The rankers that read the query as words, in the order a settings
    /// screen cycles through them. (Regex reads it as a pattern: a mode of
    /// the query, not a setting of the ranking.)
    pub const WORDS: [Ranker; 3] = [Ranker::Bm25, Ranker::Embeddings, Ranker::Hybrid];

    /// The wire name, also the `method` a response reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Ranker::Bm25 => "bm25",
            Ranker::Embeddings => "embeddings",
            Ranker::Hybrid => "hybrid",
            Ranker::Regex => "regex",
        }
    }

    /// Whether this ranker needs an embedding provider.
    pub fn needs_embeddings(self) -> bool {
        match self {
            Ranker::Embeddings | Ranker::Hybrid => true,
            Ranker::Bm25 | Ranker::Regex => false,
        }
    }

    /// Whether the query is a regular expression rather than words.
    pub fn is_regex(self) -> bool {
        self == Ranker::Regex
    }

    /// The next ranker in [`Ranker::WORDS`] (wrapping), `back` for the
    /// previous; from regex, the first.
    pub fn cycle(self, back: bool) -> Ranker {
        let all = Ranker::WORDS;
        let i = all.iter().position(|r| *r == self).unwrap_or(0);
        let n = all.len();
        all[if back { (i + n - 1) % n } else { (i + 1) % n }]
    }
}

/// A config file names a ranker.
impl crate::file_value::Named for Ranker {
    const ALL: &'static [Self] = &Ranker::ALL;
}

impl fmt::Display for Ranker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A ranker name that is not one of [`Ranker::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown ranker {0:?} (expected {expected})", expected = expected_rankers())]
pub struct UnknownRanker(pub String);

fn expected_rankers() -> String {
    Ranker::ALL
        .iter()
        .map(|r| format!("\"{r}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

impl FromStr for Ranker {
    type Err = UnknownRanker;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ranker::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRanker(s.to_string()))
    }
}

/// A ranking that could not be made (a remote ranker or an embedding
/// provider failed). Never an empty list instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RankError(pub String);

/// A tool "matches" a request when its words score at least this share of
/// the best tool's: a tool that shares only "the" or "show" with the
/// request is not one more answer the cap left out.
pub const MATCHING_SHARE: f32 = 0.25;

/// One catalog, ready to rank: built once per catalog and ranker.
pub trait CatalogRanker: Send + Sync + fmt::Debug {
    /// Which ranker this is (the response's `method`).
    fn ranker(&self) -> Ranker;

    /// Number of tools ranked over.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The best `k` tools for `query` (with optional `context`), best first;
    /// tools that match nothing are never returned.
    fn rank(&self, query: &str, context: Option<&str>, k: usize) -> Result<Vec<Hit>, RankError>;

    /// Why each of `docs` matched `query`, in the order of `docs`.
    fn explain(&self, query: &str, context: Option<&str>, docs: &[usize]) -> Vec<Explanation>;

    /// The scores of `docs` for `query`, on the scale `rank` reports (0 for
    /// a tool that matches nothing). By default read off a full ranking.
    fn score(
        &self,
        query: &str,
        context: Option<&str>,
        docs: &[usize],
    ) -> Result<Vec<f32>, RankError> {
        let all = self.rank(query, context, self.len())?;
        Ok(docs
            .iter()
            .map(|d| all.iter().find(|h| h.doc == *d).map_or(0.0, |h| h.score))
            .collect())
    }

    /// Every tool that matches `query`'s words (in any form the search
    /// counts) at least [`MATCHING_SHARE`] as well as the best one, in
    /// catalog order, however many: what "N of M matching" counts. `None`
    /// for a ranker that cannot say (a pattern, a remote service).
    fn matching(&self, _query: &str, _context: Option<&str>) -> Option<Vec<usize>> {
        None
    }

    /// The learned ranking's candidates for `query`: each one's features
    /// and probability ([`super::learned`]); empty for a ranker that does
    /// not learn (what `toolsift eval --features-out` writes).
    fn learned(
        &self,
        _query: &str,
        _context: Option<&str>,
    ) -> Result<Vec<(usize, super::learned::Features, f32)>, RankError> {
        Ok(Vec::new())
    }

    /// Whether [`CatalogRanker::explain`] says which words matched; false
    /// for a ranker that only ranks (a remote service's ranking of tools it
    /// was not asked to explain).
    fn explains(&self) -> bool {
        true
    }

    /// How long each `rank` call took, when the ranker waits on something
    /// outside (a remote service); empty for in-process rankers.
    fn latencies(&self) -> Vec<std::time::Duration> {
        Vec::new()
    }

    /// Bytes this ranker holds in memory (approximate), for the caches'
    /// budgets; 0 for one that holds nothing of note (a remote service).
    fn heap_bytes(&self) -> usize {
        0
    }
}

impl CatalogRanker for Index {
    fn ranker(&self) -> Ranker {
        Ranker::Bm25
    }

    fn len(&self) -> usize {
        Index::len(self)
    }

    fn rank(&self, query: &str, context: Option<&str>, k: usize) -> Result<Vec<Hit>, RankError> {
        Ok(self.search(query, context, k))
    }

    fn explain(&self, query: &str, context: Option<&str>, docs: &[usize]) -> Vec<Explanation> {
        self.explain_many(query, context, docs)
    }

    fn score(
        &self,
        query: &str,
        context: Option<&str>,
        docs: &[usize],
    ) -> Result<Vec<f32>, RankError> {
        Ok(self.scores_of(query, context, docs))
    }

    fn matching(&self, query: &str, context: Option<&str>) -> Option<Vec<usize>> {
        Some(Index::matching(self, query, context, MATCHING_SHARE))
    }

    fn heap_bytes(&self) -> usize {
        Index::heap_bytes(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        for r in Ranker::ALL {
            assert_eq!(r.as_str().parse::<Ranker>(), Ok(r));
            assert_eq!(r.to_string(), r.as_str());
        }
        let e = "tfidf".parse::<Ranker>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown ranker \"tfidf\" (expected \"bm25\", \"embeddings\", \"hybrid\", \"regex\")"
        );
        assert_eq!("regex".parse::<Ranker>(), Ok(Ranker::Regex));
        assert!(!Ranker::Regex.needs_embeddings() && Ranker::Regex.is_regex());
        assert_eq!(Ranker::Bm25.cycle(false), Ranker::Embeddings);
        assert_eq!(Ranker::Bm25.cycle(true), Ranker::Hybrid);
        assert_eq!(Ranker::Hybrid.cycle(false), Ranker::Bm25);
        // A settings screen's cycle never lands on regex.
        for r in Ranker::ALL {
            for back in [false, true] {
                assert_ne!(r.cycle(back), Ranker::Regex, "{r} {back}");
            }
        }
    }
}
