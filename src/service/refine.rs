//! What a search does beyond ranking: a `select:` request's named tools,
//! the words `+term` requires, and the relevance gate that answers "no tool
//! fits" rather than load tools that only share a word with the request.

use super::Selected;
use crate::catalog::Catalog;
use crate::engine::{CatalogRanker, Fit, Gate, Hit, syntax};

/// A tool the gate held back: its index, ranking score and fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeldBack {
    pub index: usize,
    pub score: f32,
    pub fit: Fit,
}

/// At most this many held-back tools are reported.
pub const HELD_BACK: usize = 3;

/// The tools `names` select, as exact hits in the order named (always-load
/// tools left to the loaded set's head), and the names no tool has.
pub fn select(catalog: &Catalog, names: &[String]) -> (Vec<Hit>, Vec<String>) {
    let all: Vec<&str> = catalog.tools().iter().map(|t| t.name.as_str()).collect();
    let known = syntax::Names::new(&all);
    let mut hits: Vec<Hit> = Vec::new();
    let mut unknown = Vec::new();
    for name in names {
        match known.resolve(name) {
            Some(doc) if hits.iter().all(|h| h.doc != doc) => hits.push(Hit {
                doc,
                score: 0.0,
                exact: true,
            }),
            Some(_) => {}
            None => unknown.push(name.clone()),
        }
    }
    (hits, unknown)
}

/// `hits` that contain every word of `required` (in any field, in any of
/// the forms the ranker matches).
pub fn require(
    ranker: &dyn CatalogRanker,
    query: &str,
    context: Option<&str>,
    hits: Vec<Hit>,
    required: &[String],
) -> Vec<Hit> {
    if required.is_empty() {
        return hits;
    }
    let docs: Vec<usize> = hits.iter().map(|h| h.doc).collect();
    let explained = ranker.explain(query, context, &docs);
    hits.into_iter()
        .zip(explained)
        .filter(|(_, e)| {
            required
                .iter()
                .all(|word| e.matches.iter().any(|m| m.term == *word))
        })
        .map(|(h, _)| h)
        .collect()
}

/// The gate's verdict on a ranking: the best tool's fit, and when it does
/// not fit, the nearest tools held back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    pub best: Option<Fit>,
    pub held_back: Vec<HeldBack>,
}

/// How the relevance gate treats the searched tools of an answer: one
/// policy for every front end (the service, the CLI, the explorer, eval,
/// tune and the gateway ask for it by name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GateMode {
    /// The answer stands when any searched tool fits: all of them are
    /// loaded (an app gets up to its cap, as the SDKs expect).
    #[default]
    Any,
    /// Only the tools that fit are loaded (the gateway: each tool sent
    /// costs the host its schema's tokens).
    Each,
}

impl GateMode {
    /// The wire's name (`"gate": "each"`).
    pub fn as_str(self) -> &'static str {
        match self {
            GateMode::Any => "any",
            GateMode::Each => "each",
        }
    }
}

/// How well each searched tool fits, best first: its explanation judged by
/// `gate`, a tool the request names exactly always fitting. What the service
/// and eval both judge an answer by.
pub fn fits_of<'a>(
    gate: &Gate,
    tools: impl Iterator<Item = (&'a crate::engine::Explanation, bool)>,
) -> Vec<Fit> {
    tools
        .map(|(explanation, exact)| {
            let mut fit = gate.judge(explanation);
            fit.fits |= exact;
            fit
        })
        .collect()
}

/// Which of `fits` (the searched tools' fits, best first) an answer keeps
/// under `mode`: `None` when none fits (the answer is "no tool fits").
pub fn gate_keeps(fits: &[Fit], mode: GateMode) -> Option<Vec<bool>> {
    if !fits.iter().any(|f| f.fits) {
        return None;
    }
    Some(match mode {
        GateMode::Any => vec![true; fits.len()],
        GateMode::Each => fits.iter().map(|f| f.fits).collect(),
    })
}

/// Judges the loaded set `tools` (its first `always` are the always-load
/// tools, the searched ones follow, best first) under `mode`: when `apply`
/// and no searched tool fits, the searched tools are taken out and the
/// nearest reported; with [`GateMode::Each`], the ones that do not fit are
/// taken out. The verdict's fit is the best fitting tool's (else the best
/// tool's).
pub fn gate(
    gate: &Gate,
    tools: &mut Vec<Selected>,
    always: usize,
    apply: bool,
    mode: GateMode,
) -> Verdict {
    if tools.len() <= always {
        return Verdict::default();
    }
    let fits = fits_of(
        gate,
        tools[always..]
            .iter()
            .map(|t| (&t.explanation, t.reason == super::Reason::ExactName)),
    );
    let best = fits.iter().find(|f| f.fits).or(fits.first()).copied();
    if !apply {
        return Verdict {
            best,
            held_back: Vec::new(),
        };
    }
    match gate_keeps(&fits, mode) {
        Some(kept) => {
            let mut i = 0;
            tools.retain(|_| {
                let k = i < always || kept[i - always];
                i += 1;
                k
            });
            Verdict {
                best,
                held_back: Vec::new(),
            }
        }
        None => {
            let held_back = tools
                .drain(always..)
                .zip(&fits)
                .take(HELD_BACK)
                .map(|(t, fit)| HeldBack {
                    index: t.index,
                    score: t.score,
                    fit: *fit,
                })
                .collect();
            Verdict { best, held_back }
        }
    }
}

/// The note of a search the gate emptied: the nearest tool and why it fell
/// short.
pub fn no_fit_note(catalog: &Catalog, gate: &Gate, verdict: &Verdict, always: usize) -> String {
    let nearest = verdict.held_back.first().map(|h| {
        let name = &catalog.tools()[h.index].name;
        if let (Some(p), Some(min)) = (h.fit.probability, gate.min_probability) {
            return format!(
                "; the nearest, {name}, fits with probability {p:.2} of the {min:.2} asked"
            );
        }
        let cosine = match (h.fit.cosine, gate.min_cosine) {
            (Some(c), Some(min)) => format!(", cosine {c:.2} of {min:.2}"),
            _ => String::new(),
        };
        format!(
            "; the nearest, {name}, has evidence {} of the {} asked{cosine}",
            h.fit.evidence, gate.min_evidence,
        )
    });
    format!(
        "no tool fits this request{}{}",
        nearest.unwrap_or_default(),
        if always == 0 {
            ""
        } else {
            "; only the always-load tools are loaded"
        }
    )
}
