//! The relevance gate: whether a search's best tool fits the request at all.
//!
//! A ranking always has a best tool, even for a request no tool can serve;
//! loading it (and filling the limit with others that share a word) sends an
//! agent off calling the wrong tools. The gate looks at the best tool's
//! explanation and answers "no tool fits" when the match is too weak:
//!
//! - **lexical evidence**: each distinct request word the tool matched counts
//!   1, and 1 more when it is in the tool's name; a generic word of tool
//!   vocabulary ("get", "list", "data", ...), an everyday word ("next",
//!   "about", "everything": [`super::vocabulary::EVERYDAY_WORDS`]) and a
//!   word only the tool's server has (its name, what it says of itself)
//!   count 0.5 wherever they are, and
//!   numbers (in digits or words) and two-word phrases count nothing (they only repeat words
//!   already counted). A word few tools of the catalog have (rare by
//!   document frequency) counts 1.5 in a tool's description: one specific
//!   word there is enough. A tool the request names exactly always fits.
//! - **dense similarity** (the `embeddings` and `hybrid` rankers): the
//!   cosine of the request and the tool's text; either signal is enough.
//! - **usage**: a tool agents called after requests like this one
//!   (`crate::service::usage`) fits.
//!
//! The thresholds were measured on requests with and without a fitting tool
//! (`toolsift eval --abstain`; the benchmarks page has the curves).

/// The relevance gate in a front end that toolsift owns end to end (the
/// explorer, `search` and `eval` embedded, the gateway): on, so a request
/// no tool fits loads no searched tool. Over HTTP the service keeps the
/// SDK's behaviour, off unless a request or `serve --gate` asks
/// (`ServiceConfig::gate`): a Caveman client expects tools back.
pub const ON_IN_PROCESS: bool = true;

use serde::{Deserialize, Serialize};

use super::analyzer::Stemmer;
pub use super::vocabulary::GENERIC_WORDS;
use super::vocabulary::{is_everyday_stem, is_generic_stem};
use super::{Explanation, Ranker, TermMatch};

thread_local! {
    static STEMMER: Stemmer = Stemmer::default();
}

/// Whether `word` (lower case) is one of [`GENERIC_WORDS`], in any form.
pub fn is_generic(word: &str) -> bool {
    STEMMER.with(|s| is_generic_stem(s.stem(word).as_ref()))
}

/// The gate's thresholds: a tool fits when its lexical evidence reaches
/// `min_evidence` or (dense rankers) its cosine reaches `min_cosine`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    pub min_evidence: f32,
    /// `None` for a ranker without vectors.
    pub min_cosine: Option<f32>,
    /// The learned ranking's probability the best tool must reach
    /// (`hybrid`: the packaged model's threshold); when a tool has one,
    /// it alone decides (with an exact name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_probability: Option<f32>,
}

impl Gate {
    /// Evidence the default gate asks for: one specific word in the tool's
    /// name, or two anywhere (a generic word counts half).
    pub const MIN_EVIDENCE: f32 = 1.5;
    /// The cosine the default gate asks of a dense ranker's best tool
    /// (measured with all-MiniLM-L6-v2; other models need their own).
    pub const MIN_COSINE: f32 = 0.3;

    /// The gate for `ranker`, dense rankers asking `min_cosine`.
    pub fn for_ranker(ranker: Ranker, min_cosine: f32) -> Gate {
        Gate {
            min_evidence: Self::MIN_EVIDENCE,
            min_cosine: ranker.needs_embeddings().then_some(min_cosine),
            min_probability: (ranker == Ranker::Hybrid)
                .then(super::learned::Model::hybrid)
                .flatten()
                .map(|m| m.threshold),
        }
    }

    /// How well the tool explained by `e` fits, and whether that is enough.
    pub fn judge(&self, e: &Explanation) -> Fit {
        let mut fit = Fit {
            evidence: evidence(&e.matches),
            cosine: e.dense.map(|d| d.cosine),
            probability: e.dense.and_then(|d| d.probability),
            exact_name: e.exact_name,
            name_covered: e.name_covered,
            fits: false,
        };
        // A tool agents called after requests like this one fits when the
        // request also names something of it: usage alone (what other
        // sessions called) never lets a tool through.
        fit.fits = self.admits(&fit) || (e.usage.is_some() && fit.evidence > 0.0);
        fit
    }

    /// Whether a tool that fits as `fit` does is let through by this gate
    /// (named exactly, enough evidence, or a close enough vector).
    pub fn admits(&self, fit: &Fit) -> bool {
        if let (Some(p), Some(min)) = (fit.probability, self.min_probability) {
            return fit.exact_name || p >= min;
        }
        fit.exact_name
            || fit.name_covered
            || fit.evidence >= self.min_evidence
            || matches!((fit.cosine, self.min_cosine), (Some(c), Some(min)) if c >= min)
    }
}

/// How well one tool fits a request (see the module's rules).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    pub evidence: f32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f32>,
    /// The learned ranking's probability that the request needs the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<f32>,
    /// The request names the tool.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exact_name: bool,
    /// The request has every word of the tool's name
    /// ([`super::Explanation::name_covered`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub name_covered: bool,
    pub fits: bool,
}

/// Numbers written as words: like digits, no evidence of a tool.
const NUMBER_WORDS: &[&str] = &[
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "twenty", "hundred", "thousand", "million", "billion",
];

/// The evidence of a rare word ([`TermMatch::rare`]) in a tool's
/// description: specific enough to fit on its own.
pub const RARE_IN_DESCRIPTION: f32 = 1.5;

/// The lexical evidence of `matches` (one tool's matched request terms).
pub fn evidence(matches: &[TermMatch]) -> f32 {
    let mut seen: Vec<String> = Vec::new();
    let mut total = 0.0;
    STEMMER.with(|stemmer| {
        for m in matches {
            // An expanded term is evidence of the word the tool has.
            let word = m
                .term
                .split_once(super::vocabulary::ARROW)
                .map_or(m.term.as_str(), |(_, to)| to);
            if word.contains(' ')
                || word.chars().all(|c| c.is_ascii_digit())
                || NUMBER_WORDS.contains(&word.to_lowercase().as_str())
            {
                continue;
            }
            let stem = stemmer.stem(&word.to_lowercase()).into_owned();
            if seen.contains(&stem) {
                continue;
            }
            // A word only the tool's server says of itself ("everything",
            // the name of a server of test tools) is not the tool's.
            let server_only = m.fields.iter().all(|f| *f == super::Field::Server);
            total += if is_generic_stem(&stem) || is_everyday_stem(&stem) || m.weak || server_only {
                0.5
            } else if m.fields.contains(&super::Field::Name) {
                2.0
            } else if m.rare && m.fields.contains(&super::Field::Description) {
                RARE_IN_DESCRIPTION
            } else {
                1.0
            };
            seen.push(stem);
        }
    });
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{DenseMatch, Field};

    fn m(term: &str, fields: &[Field]) -> TermMatch {
        TermMatch {
            term: term.into(),
            fields: fields.to_vec(),
            score: 1.0,
            weak: false,
            rare: false,
        }
    }

    fn explained(matches: Vec<TermMatch>, cosine: Option<f32>) -> Explanation {
        Explanation {
            unasked_destructive: false,
            exact_name: false,
            name_covered: false,
            usage: None,
            matches,
            dense: cosine.map(|cosine| DenseMatch {
                cosine,
                dense_rank: 1,
                lexical_rank: None,
                probability: None,
            }),
        }
    }

    #[test]
    fn evidence_counts_specific_words_and_names() {
        use Field::*;
        assert_eq!(evidence(&[m("weather", &[Name, Description])]), 2.0);
        assert_eq!(evidence(&[m("weather", &[Description])]), 1.0);
        // Generic words count half wherever they are; forms are one word.
        assert_eq!(evidence(&[m("get", &[Name])]), 0.5);
        assert_eq!(evidence(&[m("listing", &[Name]), m("lists", &[Name])]), 0.5);
        // Numbers and phrases repeat what is counted.
        assert_eq!(
            evidence(&[
                m("boston", &[ParamDescription]),
                m("2024", &[Description]),
                m("in boston", &[DescriptionBigram]),
            ]),
            1.0
        );
    }

    #[test]
    fn the_gate_lets_through_a_name_word_two_words_an_exact_name_or_a_close_vector() {
        use Field::*;
        let gate = Gate::for_ranker(Ranker::Bm25, 0.5);
        assert!(
            gate.judge(&explained(vec![m("weather", &[Name])], None))
                .fits
        );
        assert!(
            gate.judge(&explained(
                vec![m("boston", &[Description]), m("forecast", &[Description])],
                None
            ))
            .fits
        );
        assert!(
            !gate
                .judge(&explained(vec![m("boston", &[Description])], None))
                .fits
        );
        assert!(!gate.judge(&explained(vec![m("get", &[Name])], None)).fits);
        let mut exact = explained(Vec::new(), None);
        exact.exact_name = true;
        assert!(gate.judge(&exact).fits);
        let dense = Gate::for_ranker(Ranker::Hybrid, 0.5);
        assert!(dense.judge(&explained(Vec::new(), Some(0.9))).fits);
        let weak = dense.judge(&explained(vec![m("get", &[Name])], Some(0.1)));
        assert_eq!(
            (weak.fits, weak.evidence, weak.cosine),
            (false, 0.5, Some(0.1))
        );
    }

    #[test]
    fn a_rare_word_in_the_description_fits_alone_but_not_in_a_parameter_or_as_a_number() {
        use Field::*;
        let gate = Gate::for_ranker(Ranker::Bm25, 0.5);
        let rare = |term: &str, fields: &[Field]| TermMatch {
            rare: true,
            ..m(term, fields)
        };
        assert!(
            gate.judge(&explained(vec![rare("rename", &[Description])], None))
                .fits
        );
        assert_eq!(evidence(&[rare("rename", &[Description])]), 1.5);
        // Rare in a parameter's text only, rare but generic, rare but weak
        // (a general synonym), or a number: not enough.
        assert!(
            !gate
                .judge(&explained(vec![rare("boston", &[ParamDescription])], None))
                .fits
        );
        assert_eq!(evidence(&[rare("list", &[Description])]), 0.5);
        let weak = TermMatch {
            weak: true,
            ..rare("photo", &[Description])
        };
        assert_eq!(evidence(&[weak]), 0.5);
        assert_eq!(
            evidence(&[rare("two", &[Description]), rare("Twelve", &[Name])]),
            0.0
        );
    }

    #[test]
    fn everyday_words_and_words_only_the_server_has_are_weak_evidence() {
        use Field::*;
        let rare = |term: &str, fields: &[Field]| TermMatch {
            rare: true,
            ..m(term, fields)
        };
        // "book a flight next Friday" against a thinking tool's "next thought".
        assert_eq!(evidence(&[rare("next", &[Description, ParamName])]), 0.5);
        assert_eq!(evidence(&[rare("Tomorrow", &[Name])]), 0.5);
        // "forget everything about Bob": "everything" names a server.
        assert_eq!(
            evidence(&[m("everything", &[Server]), m("about", &[Description])]),
            1.0
        );
        // The same word in the tool's own text counts as ever.
        assert_eq!(evidence(&[m("memory", &[Server, Description])]), 1.0);
        // A spatial word can be what a tool does (hover over, scroll below).
        assert_eq!(evidence(&[rare("over", &[Description])]), 1.5);
    }
}
