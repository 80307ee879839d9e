//! The `embeddings` and `hybrid` rankers over one catalog.
//!
//! Built once per catalog (the service caches it): every tool's text is
//! embedded (through the vector cache) and a BM25F index is built beside
//! the vectors. A request costs one query embedding (cached in memory), a
//! cosine over every tool and, for `hybrid`, a BM25F pass and the fusion.
//!
//! - `embeddings`: tools by cosine, best first.
//! - `hybrid`: [`fuse`]: the standard scores of the BM25F and cosine lists
//!   over the whole catalog, mixed with weight [`HYBRID_WEIGHT`] on BM25F
//!   (half of it when BM25F's best tool matches the request weakly, below
//!   [`STRONG_EVIDENCE`]: a paraphrase's lexical list is mostly noise);
//!   a message of [`LEXICAL_SENTENCES`] sentences or more (several requests
//!   in one) is ranked by BM25F's sentence-by-sentence scores alone, which
//!   one vector of the whole message does not improve.
//!
//! In both, tools the request names exactly come first, as in BM25F.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::catalog::{Catalog, Tool};
use crate::engine::analyzer::name_words;
use crate::engine::dense::{Vectors, fuse, ranks, scores_of, top_k};
use crate::engine::learned::{self, CatalogFacts, Features, Model, Standing};
use crate::engine::{
    CatalogRanker, DenseMatch, Explanation, Hit, Index, RankError, Ranker, sentence_count,
};

use super::{EmbedError, Embeddings, Role};

/// The weight of BM25F's standard score in `hybrid` (the dense list gets
/// the rest); chosen on bfcl-dev (BENCHMARKS.md).
pub const HYBRID_WEIGHT: f32 = 0.5;

/// The lexical evidence of BM25F's best tool from which `hybrid` gives
/// BM25F its full weight (below it, half): a specific word in the tool's
/// name and one more, or three words.
pub const STRONG_EVIDENCE: f32 = 3.0;

/// From this many sentences on, `hybrid` ranks by BM25F alone (the
/// sentence count from which BM25F blends per-sentence scores).
pub const LEXICAL_SENTENCES: usize = 4;

/// Latency samples kept for reports (the most recent).
const MAX_LATENCIES: usize = 100_000;

/// The text of a tool that is embedded: its name's words and its
/// description.
pub fn document_text(tool: &Tool) -> String {
    let words = name_words(&tool.name).join(" ");
    let description = tool.description.trim();
    if description.is_empty() {
        words
    } else {
        format!("{words}: {description}")
    }
}

/// A dense or hybrid ranker over one catalog.
pub struct DenseRanker {
    kind: Ranker,
    index: Index,
    facts: CatalogFacts,
    vectors: Vectors,
    embeddings: Embeddings,
    weight: f32,
    latencies: Mutex<VecDeque<Duration>>,
}

impl std::fmt::Debug for DenseRanker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseRanker")
            .field("kind", &self.kind)
            .field("tools", &self.vectors.len())
            .field("dim", &self.vectors.dim())
            .field("provider", &self.embeddings.provider().describe())
            .finish()
    }
}

/// One request's lists, computed once for ranking or explaining.
struct Lists {
    cosines: Vec<f32>,
    /// BM25F hits (matching tools only), best first.
    lexical: Vec<Hit>,
    /// The ranked score of every tool (cosine, or the learned probability
    /// of the candidates with the fused order below them).
    scores: Vec<f32>,
    /// `hybrid`: the candidates' features and probabilities.
    learned: Vec<(usize, Features, f32)>,
}

impl DenseRanker {
    /// Embeds every tool of `catalog` (`kind` is `Embeddings` or `Hybrid`).
    pub fn build(
        catalog: &Catalog,
        kind: Ranker,
        embeddings: Embeddings,
    ) -> Result<DenseRanker, EmbedError> {
        let texts: Vec<String> = catalog.tools().iter().map(document_text).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let rows = embeddings.embed_all(&refs, Role::Document)?;
        let dim = rows.first().map_or(0, Vec::len);
        let vectors = Vectors::new(dim, &rows)
            .map_err(|m| EmbedError::new(embeddings.provider().describe(), m.to_string()))?;
        Ok(DenseRanker {
            kind,
            index: Index::build(catalog.tools()),
            facts: CatalogFacts::build(catalog.tools()),
            vectors,
            embeddings,
            weight: HYBRID_WEIGHT,
            latencies: Mutex::new(VecDeque::new()),
        })
    }

    /// The weight of BM25F in `hybrid` (0 to 1).
    pub fn with_weight(mut self, weight: f32) -> Self {
        self.weight = weight.clamp(0.0, 1.0);
        self
    }

    /// Bytes held by the vectors.
    pub fn vector_bytes(&self) -> usize {
        self.vectors.bytes()
    }

    /// BM25F's weight for this request: the set weight when BM25F's best
    /// tool matches the request's words well (lexical evidence of at least
    /// [`STRONG_EVIDENCE`], the relevance gate's measure), half of it when
    /// BM25F's list is a weak one: a paraphrase shares few words with any
    /// tool, and its lexical list is mostly noise.
    fn weight_for(&self, query: &str, context: Option<&str>, lexical: &[Hit]) -> f32 {
        let Some(best) = lexical.first() else {
            return self.weight;
        };
        let explained = self.index.explain(query, context, best.doc);
        if crate::engine::gate::evidence(&explained.matches) >= STRONG_EVIDENCE {
            self.weight
        } else {
            self.weight / 2.0
        }
    }

    fn lists(&self, query: &str, context: Option<&str>) -> Result<Option<Lists>, RankError> {
        self.lists_for(query, context, true)
    }

    /// [`DenseRanker::lists`]; with `learn` false, the lists alone (no
    /// candidates' features, no order): what an explanation reads, which
    /// judges only the tools it is asked about.
    fn lists_for(
        &self,
        query: &str,
        context: Option<&str>,
        learn: bool,
    ) -> Result<Option<Lists>, RankError> {
        let text = if query.trim().is_empty() {
            context.unwrap_or("")
        } else {
            query
        };
        if text.trim().is_empty() {
            return Ok(None);
        }
        let q = self
            .embeddings
            .embed_query(text)
            .map_err(|e| RankError(e.to_string()))?;
        let cosines = self.vectors.cosines(&q);
        let lexical = self.index.search(query, context, self.index.len());
        let mut learned = Vec::new();
        let scores = match self.kind {
            Ranker::Hybrid if !learn => Vec::new(),
            Ranker::Hybrid => {
                let bm25 = scores_of(&lexical, cosines.len());
                learned = self.learned(query, context, &lexical, &cosines);
                if sentence_count(query) >= LEXICAL_SENTENCES {
                    bm25
                } else {
                    let weight = self.weight_for(query, context, &lexical);
                    learned_order(&fuse(&bm25, &cosines, weight), &learned)
                }
            }
            _ => cosines.clone(),
        };
        Ok(Some(Lists {
            cosines,
            lexical,
            scores,
            learned,
        }))
    }

    /// The candidates (each list's [`learned::CANDIDATES`] best) with
    /// their features and the packaged model's probabilities.
    fn learned(
        &self,
        query: &str,
        context: Option<&str>,
        lexical: &[Hit],
        cosines: &[f32],
    ) -> Vec<(usize, Features, f32)> {
        let dense = top_k(cosines, learned::CANDIDATES);
        let mut docs: Vec<usize> = lexical
            .iter()
            .take(learned::CANDIDATES)
            .map(|h| h.doc)
            .collect();
        for (d, _) in &dense {
            if !docs.contains(d) {
                docs.push(*d);
            }
        }
        let explained = self.index.explain_many(query, context, &docs);
        self.learned_of(query, context, lexical, cosines, &docs, &explained)
    }

    /// `docs`' features and probabilities, `explained` being theirs.
    fn learned_of(
        &self,
        query: &str,
        context: Option<&str>,
        lexical: &[Hit],
        cosines: &[f32],
        docs: &[usize],
        explained: &[Explanation],
    ) -> Vec<(usize, Features, f32)> {
        let dense = top_k(cosines, 1);
        let dense_rank = ranks(cosines);
        let best_lexical = lexical.first().map_or(0.0, |h| h.score);
        let best_cosine = dense.first().map_or(0.0, |d| d.1);
        let text = match context {
            Some(c) if !c.trim().is_empty() => format!("{query} {c}"),
            _ => query.to_string(),
        };
        let q = self.facts.request(&text);
        let Some(model) = Model::hybrid() else {
            return Vec::new();
        };
        docs.iter()
            .zip(explained)
            .map(|(&doc, e)| {
                let standing = Standing {
                    lexical: lexical
                        .iter()
                        .position(|h| h.doc == doc)
                        .map(|r| (lexical[r].score, best_lexical, r + 1)),
                    dense: cosines
                        .get(doc)
                        .map(|&c| (c, best_cosine, dense_rank.get(doc).copied().unwrap_or(1))),
                };
                let x = learned::features::features(&self.facts, &q, doc, standing, e);
                (doc, x, model.probability(&x))
            })
            .collect()
    }
}

/// Scores in which the candidates come first by probability and every other
/// tool after them in `fused` order.
fn learned_order(fused: &[f32], learned: &[(usize, Features, f32)]) -> Vec<f32> {
    let floor = learned
        .iter()
        .map(|c| c.2)
        .fold(1.0f32, f32::min)
        .max(f32::MIN_POSITIVE);
    let (lo, hi) = fused
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let span = (hi - lo).max(f32::EPSILON);
    let mut scores: Vec<f32> = fused
        .iter()
        .map(|&v| floor * 0.5 * ((v - lo) / span))
        .collect();
    for &(doc, _, p) in learned {
        if let Some(s) = scores.get_mut(doc) {
            *s = p;
        }
    }
    scores
}

impl CatalogRanker for DenseRanker {
    fn ranker(&self) -> Ranker {
        self.kind
    }

    fn len(&self) -> usize {
        self.vectors.len()
    }

    fn rank(&self, query: &str, context: Option<&str>, k: usize) -> Result<Vec<Hit>, RankError> {
        let started = Instant::now();
        let Some(lists) = self.lists(query, context)? else {
            return Ok(Vec::new());
        };
        // Exactly named tools first, in BM25F's order.
        let exact: Vec<Hit> = lists.lexical.iter().filter(|h| h.exact).copied().collect();
        let mut hits: Vec<Hit> = exact
            .iter()
            .map(|h| Hit {
                doc: h.doc,
                score: lists.scores[h.doc],
                exact: true,
            })
            .collect();
        for (doc, score) in top_k(&lists.scores, k.saturating_add(exact.len())) {
            if hits.len() >= k {
                break;
            }
            if !exact.iter().any(|h| h.doc == doc) {
                hits.push(Hit {
                    doc,
                    score,
                    exact: false,
                });
            }
        }
        hits.truncate(k);
        let mut latencies = self.latencies.lock().unwrap_or_else(|p| p.into_inner());
        if latencies.len() >= MAX_LATENCIES {
            latencies.pop_front();
        }
        latencies.push_back(started.elapsed());
        Ok(hits)
    }

    fn learned(
        &self,
        query: &str,
        context: Option<&str>,
    ) -> Result<Vec<(usize, Features, f32)>, RankError> {
        Ok(self
            .lists(query, context)?
            .map(|l| l.learned)
            .unwrap_or_default())
    }

    fn matching(&self, query: &str, context: Option<&str>) -> Option<Vec<usize>> {
        // The tools that share a word with the request: a cosine alone
        // says every tool is somewhat near.
        Some(
            self.index
                .matching(query, context, crate::engine::ranker::MATCHING_SHARE),
        )
    }

    fn explain(&self, query: &str, context: Option<&str>, docs: &[usize]) -> Vec<Explanation> {
        let mut out = self.index.explain_many(query, context, docs);
        // The query vector is cached from the ranking just made.
        if let Ok(Some(lists)) = self.lists_for(query, context, false) {
            let learned = if self.kind == Ranker::Hybrid {
                self.learned_of(query, context, &lists.lexical, &lists.cosines, docs, &out)
            } else {
                Vec::new()
            };
            let dense_rank = ranks(&lists.cosines);
            for (e, &doc) in out.iter_mut().zip(docs) {
                e.dense = Some(DenseMatch {
                    cosine: lists.cosines.get(doc).copied().unwrap_or(0.0),
                    dense_rank: dense_rank.get(doc).copied().unwrap_or(0),
                    lexical_rank: lists
                        .lexical
                        .iter()
                        .position(|h| h.doc == doc)
                        .map(|r| r + 1),
                    // The gate's probability that the tool fits at all.
                    probability: learned
                        .iter()
                        .find(|c| c.0 == doc)
                        .zip(Model::hybrid())
                        .map(|(c, m)| m.fit(&c.1)),
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
        let Some(lists) = self.lists(query, context)? else {
            return Ok(vec![0.0; docs.len()]);
        };
        Ok(docs
            .iter()
            .map(|&d| lists.scores.get(d).copied().unwrap_or(0.0))
            .collect())
    }

    /// The BM25F index, the vectors and the latencies kept.
    fn heap_bytes(&self) -> usize {
        self.index.heap_bytes()
            + self.vectors.bytes()
            + MAX_LATENCIES * std::mem::size_of::<Duration>()
    }

    /// Each ranking's time, query embedding included.
    fn latencies(&self) -> Vec<Duration> {
        self.latencies
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .copied()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn ranker() -> DenseRanker {
        let catalog = Catalog::new(
            "t",
            vec![
                Tool::new("get_weather", "Weather forecast for a city"),
                Tool::new("create_issue", "Open an issue in a repository"),
            ],
        )
        .unwrap();
        let embeddings = Embeddings::new(
            Arc::new(super::super::HashEmbedder::default()),
            Arc::new(super::super::VectorCache::new(100, None)),
        );
        DenseRanker::build(&catalog, Ranker::Hybrid, embeddings).unwrap()
    }

    #[test]
    fn bm25f_weighs_half_when_its_best_tool_matches_the_request_weakly() {
        let r = ranker();
        let weight = |q: &str| {
            let lexical = r.index.search(q, None, 10);
            r.weight_for(q, None, &lexical)
        };
        // "weather" in the name and "forecast": evidence 3.
        assert_eq!(weight("weather forecast for Paris"), HYBRID_WEIGHT);
        // One word in the description: a weak list.
        assert_eq!(
            weight("is it going to rain in the city"),
            HYBRID_WEIGHT / 2.0
        );
        // No word at all: nothing to weigh, the set weight.
        assert_eq!(weight("umbrella"), HYBRID_WEIGHT);
    }
}
