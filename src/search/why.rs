//! Why a tool was, or was not, in a search's loaded set.
//!
//! [`Searcher::standing`] takes the whole catalog's ranking of a request
//! that was made: the one its answer was cut from, when the request kept
//! it (in-process, [`SearchRequest::keep_ranking`]), else a ranking made
//! again through the same [`CatalogRanker`] the service used. It keeps,
//! with the answer's loaded set and the cap, enough to say for any tool
//! where it stood: [`Standing::why`] (its place, score, the request's words
//! it matched and did not, and a [`Verdict`]) and [`Standing::runners_up`]
//! (the best tools that were left out). A [`Standing`] is cheap to clone
//! and may go to another thread; explanations are made on demand, one tool
//! at a time.
//!
//! A tool's place is its place among the searched tools, best first, from
//! 1, as `toolsift search` numbers its rows and the explorer's results
//! pane too: the always-load tools are loaded first and take no number,
//! but they take their places under the cap. So a tool placed beyond the
//! cap less the always-load tools is a tool the cap left out.

use std::sync::Arc;

use super::{SearchError, SearchRequest, SearchResult, Searcher};
use crate::catalog::Catalog;
use crate::engine::analyzer::{
    QUERY_FILLER, Stemmer, abbreviation_forms, for_each_word, is_stop_word,
};
use crate::engine::{CatalogRanker, DenseMatch, Explanation, Hit, Ranker};

mod render;
#[cfg(test)]
mod tests;

pub use render::{cap_words, ordinal};

/// Where every tool stood in one search.
#[derive(Debug, Clone)]
pub struct Standing {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    query: String,
    context: Option<String>,
    /// The request's words as the user wrote them (lower-cased), query then
    /// context, stop words and filler left out, each stem once.
    words: Vec<Word>,
    /// The searched tools (not always-load) that matched, best first, with
    /// their scores: the ranking the answer was cut from.
    order: Vec<(usize, f32)>,
    /// Per tool: its index in `order`, if it has a place.
    place: Vec<Option<usize>>,
    /// Per tool: its score in the ranking, if it matched (always-load
    /// tools too).
    score: Vec<Option<f32>>,
    /// Per tool: whether the answer loaded it.
    loaded: Vec<bool>,
    /// Per tool: whether it is an always-load tool.
    always: Vec<bool>,
    /// The explanations the answer carried, by tool.
    answered: Vec<(usize, Explanation)>,
    cap: usize,
    /// How many always-load tools take their places under the cap.
    always_count: usize,
    /// The relevance gate found that no tool fits: nothing searched was
    /// loaded.
    no_fit: bool,
    ranker: Arc<dyn CatalogRanker>,
}

#[derive(Debug)]
struct Word {
    text: String,
    /// The stems that count as this word: its own and its abbreviation
    /// forms' (`pr` is matched by `pull` and `request`).
    stems: Vec<String>,
}

/// One tool's standing in a search.
#[derive(Debug, Clone, PartialEq)]
pub struct Why {
    /// Index of the tool in the catalog.
    pub tool: usize,
    /// 1-based place among the searched tools, best first (as `toolsift
    /// search` numbers its rows); `None` for an always-load tool, and for
    /// one the ranking did not rank (it matched nothing).
    pub rank: Option<usize>,
    pub score: Option<f32>,
    /// The request's words it matched, as the user wrote them.
    pub matched: Vec<String>,
    /// The request's words it did not match.
    pub unmatched: Vec<String>,
    /// The request names the tool exactly.
    pub exact_name: bool,
    /// A dense or hybrid ranking's view of it (the cosine).
    pub dense: Option<DenseMatch>,
    /// Usage lifted it: agents called it after like requests.
    pub usage: Option<crate::engine::UsageMatch>,
    /// Whether the words could be told: false for a tool a remote service
    /// ranked but did not return (its ranking carries no explanation).
    pub explained: bool,
    /// The search cap.
    pub cap: usize,
    /// The always-load tools, which take their places under the cap first.
    pub always_load: usize,
    pub verdict: Verdict,
}

/// Why a tool is in the loaded set, or is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// An always-load tool: loaded whatever the request.
    AlwaysLoad,
    /// Loaded: ranked within the cap (or named exactly).
    Loaded,
    /// Ranked, but placed beyond the room the cap leaves after the
    /// always-load tools.
    BelowCap { rank: usize, cap: usize },
    /// Not ranked at all: it matched none of the request's words.
    MatchedNothing,
    /// The request has no words to match (empty, or only stop words), so
    /// nothing was ranked.
    EmptyQuery,
    /// Placed within the cap, yet the answer left it out (a remote service
    /// whose answer differs from its ranking).
    NotReturned { rank: usize },
    /// Placed within the cap, but the relevance gate found that no tool
    /// fits the request, so nothing searched was loaded.
    NoFit { rank: usize },
}

impl Verdict {
    /// A stable name, for JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::AlwaysLoad => "always_load",
            Verdict::Loaded => "loaded",
            Verdict::BelowCap { .. } => "below_cap",
            Verdict::MatchedNothing => "matched_nothing",
            Verdict::EmptyQuery => "empty_query",
            Verdict::NotReturned { .. } => "not_returned",
            Verdict::NoFit { .. } => "no_fit",
        }
    }

    /// Whether the tool was in the loaded set.
    pub fn loaded(self) -> bool {
        matches!(self, Verdict::AlwaysLoad | Verdict::Loaded)
    }
}

/// A request's text as the pipeline reads it: blank context is none.
fn context_of(request: &SearchRequest) -> Option<&str> {
    request.context.as_deref().filter(|c| !c.trim().is_empty())
}

/// The request's words: lower-cased, stop words and request filler left
/// out, each stem once (its first spelling kept).
fn request_words(query: &str, context: Option<&str>) -> Vec<Word> {
    let stemmer = Stemmer::default();
    let mut words: Vec<Word> = Vec::new();
    let mut buf = String::new();
    for text in std::iter::once(query).chain(context) {
        for_each_word(text, &mut buf, |w| {
            if is_stop_word(w) || QUERY_FILLER.contains(&w) {
                return;
            }
            let stem = stemmer.stem(w).into_owned();
            if words.iter().any(|x| x.stems[0] == stem) {
                return;
            }
            let mut stems = vec![stem];
            for form in abbreviation_forms(w) {
                stems.extend(form.split(' ').map(|f| stemmer.stem(f).into_owned()));
            }
            words.push(Word {
                text: w.to_string(),
                stems,
            });
        });
    }
    words
}

/// The stems of the words an explanation's terms came from.
fn matched_stems(explanation: &Explanation) -> Vec<String> {
    let stemmer = Stemmer::default();
    let mut out = Vec::new();
    let mut buf = String::new();
    for m in &explanation.matches {
        for_each_word(&m.term, &mut buf, |w| {
            out.push(stemmer.stem(w).into_owned())
        });
    }
    out
}

impl Searcher {
    /// Where every tool of `catalog` stood in the search of `request` that
    /// answered `result`: the whole catalog ranked by the ranker that
    /// answered (the result's `method`), the loaded set, and the cap.
    pub fn standing(
        &self,
        catalog: &Arc<Catalog>,
        request: &SearchRequest,
        result: &SearchResult,
    ) -> Result<Standing, SearchError> {
        let config = self.local().config();
        let kind = result
            .method
            .parse::<Ranker>()
            .ok()
            .or(request.ranker)
            .unwrap_or(config.default_ranker);
        let ranker = self.ranker_for(catalog, kind)?;
        let context = context_of(request);
        let whole = request.whole_request();
        let kept = result
            .ranking
            .as_ref()
            .filter(|_| result.method == kind.as_str());
        let fresh;
        let ranking: &[Hit] = if let Some(kept) = kept {
            // The answer was cut from this ranking: no second one.
            kept
        } else if whole.trim().is_empty() && context.is_none() {
            &[]
        } else {
            fresh = rank_again(ranker.as_ref(), kind, request, context, catalog.len())?;
            &fresh
        };
        let n = catalog.len();
        let always: Vec<bool> = catalog.tools().iter().map(|t| t.always_load).collect();
        let always_count = always.iter().filter(|a| **a).count();
        let Placed {
            order,
            place,
            score,
        } = Placed::from_ranking(ranking, &always);
        let mut loaded = vec![false; n];
        for hit in &result.tools {
            loaded[hit.index] = true;
        }
        let cap =
            crate::service::cap_for(request.max_tools, config.default_max_tools, always_count);
        Ok(Standing {
            inner: Arc::new(Inner {
                query: request.query.clone(),
                context: context.map(str::to_string),
                words: request_words(&request.query, context),
                order,
                place,
                score,
                loaded,
                always,
                answered: result
                    .tools
                    .iter()
                    .map(|h| (h.index, h.explanation.clone()))
                    .collect(),
                cap,
                always_count,
                no_fit: !result.held_back.is_empty(),
                ranker,
            }),
        })
    }
}

/// Ranks `request` again as the service ranks it: a request of several
/// intents, their rankings merged. A ranker's failure is the service's
/// (502, `ranker_failed`).
fn rank_again(
    ranker: &dyn CatalogRanker,
    kind: Ranker,
    request: &SearchRequest,
    context: Option<&str>,
    tools: usize,
) -> Result<Vec<Hit>, SearchError> {
    crate::engine::intents::rank(
        ranker,
        &request.whole_request(),
        &request.queries,
        context,
        tools,
    )
    .map_err(|e| {
        SearchError::Service(crate::service::ServiceError {
            status: 502,
            code: "ranker_failed",
            message: format!("ranker {kind} failed: {e}"),
        })
    })
}

/// A ranking read per tool: each tool's first score, and the searched
/// (not always-load) tools' order and places.
struct Placed {
    order: Vec<(usize, f32)>,
    place: Vec<Option<usize>>,
    score: Vec<Option<f32>>,
}

impl Placed {
    /// Reads `ranking` over a catalog whose always-load tools are marked in
    /// `always`; hits beyond the catalog are left out, a tool's later hits
    /// too.
    fn from_ranking(ranking: &[Hit], always: &[bool]) -> Self {
        let n = always.len();
        let mut score = vec![None; n];
        for h in ranking.iter().filter(|h| h.doc < n) {
            score[h.doc].get_or_insert(h.score);
        }
        let mut order: Vec<(usize, f32)> = Vec::new();
        let mut place = vec![None; n];
        for h in ranking.iter().filter(|h| h.doc < n && !always[h.doc]) {
            if place[h.doc].is_none() {
                place[h.doc] = Some(order.len());
                order.push((h.doc, h.score));
            }
        }
        Placed {
            order,
            place,
            score,
        }
    }
}

impl Standing {
    /// The search cap: at most this many tools are loaded.
    pub fn cap(&self) -> usize {
        self.inner.cap
    }

    /// The always-load tools, which take their places under the cap first.
    pub fn always_load(&self) -> usize {
        self.inner.always_count
    }

    /// Tool `tool`'s place among the searched tools, from 1 (as
    /// [`Why::rank`] gives it); `None` for an always-load tool and one that
    /// matched nothing.
    pub fn place(&self, tool: usize) -> Option<usize> {
        self.inner.place.get(tool).copied().flatten().map(|a| a + 1)
    }

    /// The request's words, as the user wrote them (lower-cased), stop
    /// words and filler left out.
    pub fn words(&self) -> Vec<&str> {
        self.inner.words.iter().map(|w| w.text.as_str()).collect()
    }

    /// The ranker that ranked.
    pub fn ranker(&self) -> Ranker {
        self.inner.ranker.ranker()
    }

    /// Where `tool` (a catalog index) stood, and why it was or was not
    /// loaded. One explanation is made (none for a tool the answer
    /// explained already).
    pub fn why(&self, tool: usize) -> Why {
        let s = &self.inner;
        let rank = self.place(tool);
        let score = s.score.get(tool).copied().flatten();
        let (explanation, explained) = match s.answered.iter().find(|(i, _)| *i == tool) {
            Some((_, e)) => (e.clone(), true),
            None if tool < s.place.len() => {
                let e = s
                    .ranker
                    .explain(&s.query, s.context.as_deref(), &[tool])
                    .pop()
                    .unwrap_or_default();
                // A ranker that cannot explain (a remote service's) says
                // nothing about a tool's words.
                (e, s.ranker.explains())
            }
            None => (Explanation::default(), false),
        };
        let stems = matched_stems(&explanation);
        let (matched, unmatched): (Vec<&Word>, Vec<&Word>) = s
            .words
            .iter()
            .partition(|w| w.stems.iter().any(|st| stems.contains(st)));
        let (matched, unmatched) = if explained {
            (
                matched.into_iter().map(|w| w.text.clone()).collect(),
                unmatched.into_iter().map(|w| w.text.clone()).collect(),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let is_loaded = s.loaded.get(tool).copied().unwrap_or(false);
        let verdict = if s.always.get(tool).copied().unwrap_or(false) {
            Verdict::AlwaysLoad
        } else if is_loaded {
            Verdict::Loaded
        } else {
            match rank {
                None if s.words.is_empty() => Verdict::EmptyQuery,
                None => Verdict::MatchedNothing,
                Some(r) if r > s.cap.saturating_sub(s.always_count) => Verdict::BelowCap {
                    rank: r,
                    cap: s.cap,
                },
                Some(r) if s.no_fit => Verdict::NoFit { rank: r },
                Some(r) => Verdict::NotReturned { rank: r },
            }
        };
        Why {
            tool,
            rank,
            score,
            matched,
            unmatched,
            exact_name: explanation.exact_name,
            dense: explanation.dense,
            usage: explanation.usage,
            explained,
            cap: s.cap,
            always_load: s.always_count,
            verdict,
        }
    }

    /// The next `n` tools of the ranking that were not loaded, best first,
    /// with their scores.
    pub fn runners_up(&self, n: usize) -> Vec<(usize, f32)> {
        let s = &self.inner;
        s.order
            .iter()
            .filter(|(doc, _)| !s.loaded[*doc])
            .copied()
            .take(n)
            .collect()
    }
}
