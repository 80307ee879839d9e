//! Explanations: which query terms matched a tool, in which fields, and what
//! each added to its score.

use std::borrow::Cow;

use serde::Serialize;

use super::query::AnalyzedQuery;
use super::score::SCRATCH;
use super::{Field, Index};
use crate::engine::vocabulary::ARROW;

/// Why a tool matched: each query term that hit it, the fields it hit, and
/// what it added to the score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermMatch {
    /// The query word (or two words, for a phrase).
    pub term: String,
    pub fields: Vec<Field>,
    pub score: f32,
    /// A general synonym of the request's word (WordNet's) matched, not the
    /// word or a tool word for it: weak evidence that the tool fits.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub weak: bool,
    /// The matched word is rare in this catalog (at most one tool in
    /// [`RARE_SHARE`] has it): specific evidence that the tool fits.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rare: bool,
}

impl TermMatch {
    /// The match as a person reads it: a word the request has, as it is;
    /// a word the tool has for one of the request's, with the request's
    /// word it came from, `directory (from "folder")`, or for a general
    /// synonym, `charge (synonym of "kick")`.
    pub fn shown(&self) -> Cow<'_, str> {
        match self.came_from() {
            Some(from) => format!("{} ({from})", self.word()).into(),
            None => Cow::Borrowed(&self.term),
        }
    }

    /// The word (or words) the tool has: an expansion's right side.
    pub fn word(&self) -> &str {
        self.term.split_once(ARROW).map_or(&self.term, |(_, to)| to)
    }

    /// For an expansion, where the tool's word came from: `from "folder"`,
    /// or `synonym of "kick"` for a general synonym.
    pub fn came_from(&self) -> Option<String> {
        let (from, _) = self.term.split_once(ARROW)?;
        Some(if self.weak {
            format!("synonym of \"{from}\"")
        } else {
            format!("from \"{from}\"")
        })
    }
}

/// A word held by at most one tool in this many is rare (see
/// [`TermMatch::rare`]). A catalog of fewer tools has no rare words: how
/// many of a handful of tools hold a word says nothing of the word.
pub const RARE_SHARE: usize = 20;

/// Whether a word held by `df` of `n` tools is rare.
pub fn is_rare(df: usize, n: usize) -> bool {
    df >= 1 && n >= RARE_SHARE && df * RARE_SHARE <= n
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Explanation {
    pub exact_name: bool,
    /// Every word of the tool's name is among the request's (in any form
    /// the search counts): "add two numbers" and `add_numbers`. Whatever
    /// the catalog's size, the request names what the tool does.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub name_covered: bool,
    pub matches: Vec<TermMatch>,
    /// For a dense or hybrid ranking: the cosine and the tool's rank in
    /// each list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dense: Option<DenseMatch>,
    /// The tool's name destroys or undoes and the request asks for neither:
    /// its score was held back ([`super::Params::unasked_destructive`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unasked_destructive: bool,
    /// Agents called this tool after requests like this one: usage lifted
    /// it (`crate::service::usage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageMatch>,
}

/// How usage stood behind a tool: the pairs that led to it, and its place
/// among the tools like past requests led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct UsageMatch {
    /// Recorded calls of this tool after a search.
    pub uses: u32,
    /// 1-based rank by how well its past requests match this one.
    pub rank: usize,
}

/// Where a tool stood in a dense (and, for hybrid, the lexical) ranking.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct DenseMatch {
    /// Cosine similarity of the request and the tool's text.
    pub cosine: f32,
    /// 1-based rank by cosine over the whole catalog.
    pub dense_rank: usize,
    /// 1-based rank by BM25F, when the tool matched a word of the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lexical_rank: Option<usize>,
    /// The learned ranking's probability that the request needs this tool
    /// (`hybrid`; [`crate::engine::learned`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<f32>,
}

impl Index {
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
        let q = SCRATCH.with_borrow_mut(|s| self.analyze(query, context, true, &mut s.stems));
        docs.iter()
            .map(|&doc| self.explain_analyzed(&q, doc))
            .collect()
    }

    fn explain_analyzed(&self, q: &AnalyzedQuery, doc: usize) -> Explanation {
        let mut matches: Vec<TermMatch> = Vec::new();
        // Of a request word's forms (the word, its expansions), only the
        // one that scored is shown: the tool got its score, not their sum.
        let mut groups: Vec<(u32, usize)> = Vec::new();
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
                let m = TermMatch {
                    term: qt.text.clone(),
                    fields,
                    score: qt.weight * self.post_impacts[slot],
                    weak: qt.weak,
                    rare: is_rare(range.len(), self.n_docs),
                };
                if qt.grouped {
                    if let Some(&(_, at)) = groups.iter().find(|(o, _)| *o == qt.origin) {
                        if m.score > matches[at].score {
                            matches[at] = m;
                        }
                        continue;
                    }
                    groups.push((qt.origin, matches.len()));
                }
                matches.push(m);
            }
        }
        let in_name = matches
            .iter()
            .filter(|m| {
                !m.weak
                    && (!m.term.contains(' ') || m.term.contains(ARROW))
                    && m.fields.contains(&Field::Name)
            })
            .count();
        let name_terms = self.name_terms.get(doc).copied().unwrap_or(0) as usize;
        Explanation {
            exact_name: q.exact.contains(&doc),
            name_covered: name_terms > 0 && in_name >= name_terms,
            matches,
            dense: None,
            usage: None,
            unasked_destructive: !q.asks_undo
                && self.params.unasked_destructive < 1.0
                && self.destructive.binary_search(&(doc as u32)).is_ok(),
        }
    }
}
