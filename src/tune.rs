//! `toolsift tune`: which `max_loaded_tools` (the search cap) and which
//! `initial_tool_count` suit a catalog, measured on requests with known
//! answers (the eval format).
//!
//! For every cap from the always-load count (at least 1) up to [`MAX_CAP`]
//! (or the catalog size), each request's loaded set is what the service
//! loads: every always-load tool, then the best-ranked others, at most `cap`
//! in all. Each request is searched **once**, at the largest cap, and the
//! smaller caps are read off that ranked order ([`loaded_at`]): the service
//! ranks `cap + always` tools, drops the always-load ones and keeps the first
//! `cap - always`, and a ranking to depth `k` is the first `k` of a deeper
//! one, so the loaded set at `cap` is the always-load tools plus the first
//! `cap - always` ranked others of the deepest search. (The tests check this
//! against real searches at several caps, and `all_loaded_pct` against
//! `toolsift eval`'s strict all@k.)
//!
//! The deferred initial set (no search at all) is the handle's: the
//! always-load tools, then the first `initial_tool_count` others in catalog
//! order ([`ToolsHandle`]).
//!
//! The arithmetic ([`sweep`], [`initial_points`], [`recommend`], [`p95`]) is
//! pure; [`tune`] runs the searches.

use std::ops::RangeInclusive;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::catalog::Catalog;
use crate::engine::Ranker;
use crate::eval::{EvalError, EvalQuery};
use crate::search::{SearchError, SearchRequest, Searcher};
use crate::tokens::TokenBasis;
use crate::tools_handle::{HandleOptions, InitialToolCount, MaxTools, Strategy, ToolsHandle};

/// The largest search cap measured.
pub const MAX_CAP: MaxTools = MaxTools::of(32);

/// The largest `initial_tool_count` measured.
pub const MAX_INITIAL: InitialToolCount = InitialToolCount::new(32);

/// The default target: this share of the best strict share any cap reaches.
pub const DEFAULT_TARGET_SHARE: f64 = 0.95;

/// Below this best coverage (percent), the initial set is not worth its
/// tokens: `initial_tool_count` 0 is recommended.
pub const MIN_USEFUL_COVERAGE_PCT: f64 = 5.0;

/// One request's expected tools as catalog indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// Every one must be loaded (strict).
    pub strict: Vec<usize>,
    /// One of each group must be loaded (lenient, `equivalents`); names not
    /// in the catalog are left out of their group.
    pub lenient: Vec<Vec<usize>>,
}

impl Expected {
    fn strict_in(&self, loaded: &[bool]) -> bool {
        self.strict.iter().all(|&i| loaded[i])
    }

    fn lenient_in(&self, loaded: &[bool]) -> bool {
        self.lenient.iter().all(|g| g.iter().any(|&i| loaded[i]))
    }
}

/// The queries' expected tools in `catalog`; an unknown expected tool is
/// [`EvalError::UnknownTool`], naming the query and the tool.
pub fn resolve(catalog: &Catalog, queries: &[EvalQuery]) -> Result<Vec<Expected>, EvalError> {
    queries
        .iter()
        .map(|q| {
            let strict = q
                .expected
                .iter()
                .map(|e| {
                    catalog.index_of(e).ok_or_else(|| EvalError::UnknownTool {
                        id: q.id.clone(),
                        tool: e.clone(),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let lenient = q
                .equivalents
                .iter()
                .map(|g| g.iter().filter_map(|n| catalog.index_of(n)).collect())
                .collect();
            Ok(Expected { strict, lenient })
        })
        .collect()
}

fn pct2<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((x * 100.0).round() / 100.0)
}

fn one_decimal<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((x * 10.0).round() / 10.0)
}

/// The requests at one search cap.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub max_tools: MaxTools,
    /// Requests with every expected tool loaded, percent.
    #[serde(serialize_with = "pct2")]
    pub all_loaded_pct: f64,
    /// The same with `equivalents`, percent.
    #[serde(serialize_with = "pct2")]
    pub lenient_all_loaded_pct: f64,
    #[serde(serialize_with = "one_decimal")]
    pub mean_sent_tokens: f64,
    /// Nearest-rank 95th percentile.
    pub p95_sent_tokens: u64,
    /// Mean tokens saved against strategy `all`, percent of the catalog's.
    #[serde(serialize_with = "pct2")]
    pub saved_pct: f64,
}

/// The deferred initial set at one `initial_tool_count`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InitialPoint {
    pub initial_tool_count: InitialToolCount,
    /// Requests whose expected tools are all in the initial set, percent.
    #[serde(serialize_with = "pct2")]
    pub covered_pct: f64,
    /// The initial set's schema tokens.
    pub tokens: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Recommended {
    pub max_tools: MaxTools,
    pub initial_tool_count: InitialToolCount,
}

/// The whole report (`--json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneReport {
    pub catalog: String,
    pub catalog_tools: usize,
    pub always_load: usize,
    pub queries: usize,
    pub token_basis: TokenBasis,
    /// Every tool's schema tokens (strategy `all`).
    pub full_tokens: u64,
    /// The strict share the recommended cap was to reach, percent.
    #[serde(serialize_with = "pct2")]
    pub target_pct: f64,
    /// Whether some cap reaches it.
    pub target_reached: bool,
    pub points: Vec<Point>,
    pub initial: Vec<InitialPoint>,
    pub recommended: Recommended,
    /// The requests are a trace's searches ([`traffic::tune_source`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub from_traffic: bool,
    /// From a trace: the tools most sessions called, not always-load yet.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub always_load_suggested: Vec<traffic::AlwaysLoadSuggestion>,
}

/// The loaded set at `cap`: every always-load tool, then the first
/// `cap - always` of `ranked` (the ranked tools that are not always-load,
/// best first).
pub fn loaded_at(always: &[usize], ranked: &[usize], cap: MaxTools) -> Vec<usize> {
    let room = cap.to_usize().saturating_sub(always.len());
    always
        .iter()
        .chain(ranked.iter().take(room))
        .copied()
        .collect()
}

/// The caps measured: from the always-load count (at least 1) to
/// [`MAX_CAP`] or the catalog size, whichever is smaller (never below the
/// first).
pub fn caps(catalog_tools: usize, always: usize) -> RangeInclusive<MaxTools> {
    let lo = MaxTools::covering(always);
    lo..=MAX_CAP.min(MaxTools::covering(catalog_tools)).max(lo)
}

/// Every cap of `caps`, smallest first.
fn each_cap(caps: RangeInclusive<MaxTools>) -> impl Iterator<Item = MaxTools> {
    (caps.start().get()..=caps.end().get()).filter_map(MaxTools::new)
}

/// Nearest-rank 95th percentile (0 for none).
pub fn p95(values: &[u64]) -> u64 {
    if values.is_empty() {
        return 0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let rank = ((0.95 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Shares (strict, lenient, percent) and the tokens of each request's set.
fn measure(costs: &[u64], sets: &[Vec<usize>], expected: &[Expected]) -> (f64, f64, Vec<u64>) {
    let mut loaded = vec![false; costs.len()];
    let (mut strict, mut lenient) = (0usize, 0usize);
    let mut tokens = Vec::with_capacity(sets.len());
    for (set, e) in sets.iter().zip(expected) {
        for &i in set {
            loaded[i] = true;
        }
        strict += usize::from(e.strict_in(&loaded));
        lenient += usize::from(e.lenient_in(&loaded));
        tokens.push(set.iter().map(|&i| costs[i]).sum());
        for &i in set {
            loaded[i] = false;
        }
    }
    let n = sets.len().max(1) as f64;
    (
        100.0 * strict as f64 / n,
        100.0 * lenient as f64 / n,
        tokens,
    )
}

/// One point per cap: `rankings[r]` is request `r`'s ranked tools beyond the
/// always-load ones, best first (at least as deep as the largest cap needs).
pub fn sweep(
    costs: &[u64],
    always: &[usize],
    rankings: &[Vec<usize>],
    expected: &[Expected],
    caps: RangeInclusive<MaxTools>,
) -> Vec<Point> {
    let full: u64 = costs.iter().sum();
    each_cap(caps)
        .map(|cap| {
            let sets: Vec<Vec<usize>> =
                rankings.iter().map(|r| loaded_at(always, r, cap)).collect();
            let (strict, lenient, tokens) = measure(costs, &sets, expected);
            let mean = tokens.iter().sum::<u64>() as f64 / tokens.len().max(1) as f64;
            Point {
                max_tools: cap,
                all_loaded_pct: strict,
                lenient_all_loaded_pct: lenient,
                mean_sent_tokens: mean,
                p95_sent_tokens: p95(&tokens),
                saved_pct: if full == 0 {
                    0.0
                } else {
                    100.0 * (1.0 - mean / full as f64)
                },
            }
        })
        .collect()
}

/// One point per initial set: `sets[m]` is the initial set at
/// `initial_tool_count` m. Covered is strict: every expected tool in the set.
pub fn initial_points(
    costs: &[u64],
    sets: &[Vec<usize>],
    expected: &[Expected],
) -> Vec<InitialPoint> {
    sets.iter()
        .enumerate()
        .map(|(m, set)| {
            let per_request = vec![set.clone(); expected.len()];
            let (covered, _, _) = measure(costs, &per_request, expected);
            InitialPoint {
                initial_tool_count: InitialToolCount::new(m as u64),
                covered_pct: covered,
                tokens: set.iter().map(|&i| costs[i]).sum(),
            }
        })
        .collect()
}

/// Shares within this of each other are equal (floating point noise).
const EPS: f64 = 1e-9;

/// The recommendation, and the target used (percent) and whether a cap
/// reached it.
///
/// - `max_tools`: the smallest cap whose strict share reaches `target_pct`
///   (default: [`DEFAULT_TARGET_SHARE`] of the best strict share any cap
///   reaches); if none does, the smallest cap with the best share.
/// - `initial_tool_count`: 0 when the best coverage of the initial set stays
///   under [`MIN_USEFUL_COVERAGE_PCT`] (the set is chosen by catalog order,
///   not by the request, so its tokens would buy next to nothing: let search
///   load the tools); else the smallest count reaching
///   [`DEFAULT_TARGET_SHARE`] of the best coverage. Either way at most
///   `max_tools - always` (the handle caps the initial set at
///   `max_loaded_tools`).
pub fn recommend(
    points: &[Point],
    initial: &[InitialPoint],
    always: usize,
    target_pct: Option<f64>,
) -> (Recommended, f64, bool) {
    let best = points.iter().map(|p| p.all_loaded_pct).fold(0.0, f64::max);
    let target = target_pct.unwrap_or(DEFAULT_TARGET_SHARE * best);
    let reached = points.iter().find(|p| p.all_loaded_pct + EPS >= target);
    let max_tools = reached
        .or_else(|| points.iter().find(|p| p.all_loaded_pct + EPS >= best))
        .map_or(MaxTools::covering(always), |p| p.max_tools);
    let (initial_tool_count, _) = initial_choice(initial, max_tools, always);
    (
        Recommended {
            max_tools,
            initial_tool_count,
        },
        target,
        reached.is_some(),
    )
}

/// Why [`recommend`] chose its `initial_tool_count`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InitialReason {
    /// The initial set's best coverage (percent) stays under
    /// [`MIN_USEFUL_COVERAGE_PCT`]: 0.
    Useless { best_pct: f64 },
    /// The smallest count reaching [`DEFAULT_TARGET_SHARE`] of the best
    /// coverage (percent).
    NearBest { best_pct: f64 },
    /// That count (`wanted`) is more than the cap leaves beside the
    /// always-load tools (`room`): `room`.
    Capped {
        wanted: InitialToolCount,
        room: InitialToolCount,
        best_pct: f64,
    },
}

/// The `initial_tool_count` to recommend beside the cap `max_tools`, and
/// why: 0 when the initial set's best coverage stays under
/// [`MIN_USEFUL_COVERAGE_PCT`]; else the smallest count reaching
/// [`DEFAULT_TARGET_SHARE`] of it, at most `max_tools - always`.
pub fn initial_choice(
    initial: &[InitialPoint],
    max_tools: MaxTools,
    always: usize,
) -> (InitialToolCount, InitialReason) {
    let best_pct = initial.iter().map(|p| p.covered_pct).fold(0.0, f64::max);
    if best_pct < MIN_USEFUL_COVERAGE_PCT {
        return (
            InitialToolCount::default(),
            InitialReason::Useless { best_pct },
        );
    }
    let wanted = initial
        .iter()
        .find(|p| p.covered_pct + EPS >= DEFAULT_TARGET_SHARE * best_pct)
        .map_or(InitialToolCount::default(), |p| p.initial_tool_count);
    let room = InitialToolCount::new(max_tools.get().saturating_sub(always as u64));
    if wanted > room {
        (
            room,
            InitialReason::Capped {
                wanted,
                room,
                best_pct,
            },
        )
    } else {
        (wanted, InitialReason::NearBest { best_pct })
    }
}

/// How to search.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneOptions {
    pub ranker: Option<Ranker>,
    pub token_basis: TokenBasis,
    /// Percent; `None` for the default target.
    pub target_pct: Option<f64>,
}

#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// Bad queries (an expected tool not in the catalog).
    #[error(transparent)]
    Input(#[from] EvalError),
    #[error("query {id:?}: {error}")]
    Search { id: String, error: SearchError },
}

/// Searches every request once (preview: no session) and measures.
pub fn tune(
    searcher: &Searcher,
    catalog: &Arc<Catalog>,
    queries: &[EvalQuery],
    options: &TuneOptions,
) -> Result<TuneReport, TuneError> {
    let expected = resolve(catalog, queries)?;
    let costs = searcher.tool_costs(catalog, options.token_basis);
    let always: Vec<usize> = (0..catalog.len())
        .filter(|&i| catalog.tools()[i].always_load)
        .collect();
    let caps = caps(catalog.len(), always.len());
    let deepest = *caps.end();
    let mut rankings = Vec::with_capacity(queries.len());
    for q in queries {
        let request = SearchRequest {
            query: q.query.clone(),
            max_tools: Some(deepest),
            ranker: options.ranker,
            // The figures are counted here: the service's are not read.
            token_basis: None,
            preview: true,
            ..SearchRequest::default()
        };
        let result = searcher
            .search(catalog, &request)
            .map_err(|error| TuneError::Search {
                id: q.id.clone(),
                error,
            })?;
        rankings.push(
            result
                .tools
                .iter()
                .map(|h| h.index)
                .filter(|&i| !catalog.tools()[i].always_load)
                .collect::<Vec<_>>(),
        );
    }
    let points = sweep(&costs, &always, &rankings, &expected, caps);
    let sets: Vec<Vec<usize>> = (0..=MAX_INITIAL.get())
        .map(|m| {
            let options = HandleOptions {
                strategy: Strategy::Deferred,
                initial_tool_count: InitialToolCount::new(m),
                max_loaded_tools: None,
            };
            ToolsHandle::new(catalog.clone(), &options)
                .map(|h| h.initial_indices().to_vec())
                .unwrap_or_default()
        })
        .collect();
    let initial = initial_points(&costs, &sets, &expected);
    let (recommended, target_pct, target_reached) =
        recommend(&points, &initial, always.len(), options.target_pct);
    Ok(TuneReport {
        catalog: catalog.name().to_string(),
        catalog_tools: catalog.len(),
        always_load: always.len(),
        queries: queries.len(),
        token_basis: options.token_basis,
        full_tokens: costs.iter().sum(),
        target_pct,
        target_reached,
        points,
        initial,
        recommended,
        from_traffic: false,
        always_load_suggested: Vec::new(),
    })
}

/// The settings in force as the tables count them: the search cap a search
/// sends (the explicit `max_tools`, else `max_loaded_tools`, else the
/// service's default, never below the always-load count) and the initial
/// set's deferred tools. `None` with strategy `all` (nothing is deferred).
pub fn current_setting(
    handle: &ToolsHandle,
    max_tools: Option<MaxTools>,
    always: usize,
) -> Option<(MaxTools, InitialToolCount)> {
    if handle.strategy() != Strategy::Deferred {
        return None;
    }
    // The service's count of the cap (at least 1 already).
    let cap = MaxTools::covering(crate::service::cap_for(
        max_tools.or(handle.max_loaded_tools()),
        crate::service::DEFAULT_MAX_TOOLS,
        always,
    ));
    let count = handle.initial_tool_count();
    let initial = handle.max_loaded_tools().map_or(count, |m| {
        count.min(InitialToolCount::new(m.get().saturating_sub(always as u64)))
    });
    Some((cap, initial))
}

mod render;
pub mod traffic;
pub use traffic::tune_source;

#[cfg(test)]
mod tests;

/// A small report for other modules' tests (the Tune screen's).
#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    pub fn small_report() -> TuneReport {
        let points = (1..=4)
            .map(|cap| Point {
                max_tools: MaxTools::of(cap),
                all_loaded_pct: 25.0 * cap as f64,
                lenient_all_loaded_pct: 25.0 * cap as f64,
                mean_sent_tokens: 100.0 * cap as f64,
                p95_sent_tokens: 100 * cap,
                saved_pct: 100.0 - 20.0 * cap as f64,
            })
            .collect();
        TuneReport {
            catalog: "t".into(),
            catalog_tools: 5,
            always_load: 0,
            queries: 4,
            token_basis: TokenBasis::O200kBase,
            full_tokens: 500,
            target_pct: 95.0,
            target_reached: true,
            points,
            initial: vec![InitialPoint {
                initial_tool_count: InitialToolCount::new(0),
                covered_pct: 0.0,
                tokens: 0,
            }],
            recommended: Recommended {
                max_tools: MaxTools::of(4),
                initial_tool_count: InitialToolCount::new(0),
            },
            from_traffic: false,
            always_load_suggested: Vec::new(),
        }
    }
}
