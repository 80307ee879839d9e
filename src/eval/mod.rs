//! `toolsift eval`: search quality on requests with known answers (the
//! bfcl-dev format), with the metrics of `eval/bfcl-dev/score.py`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::engine::{CatalogRanker, Gate, Hit};

pub mod abstain;
pub mod costs;
pub mod features;
mod from_traffic;
pub use from_traffic::queries_from_traffic;
mod render;
mod score;
use score::Scoring;

/// The cut-offs every metric is reported at.
pub const KS: [usize; 4] = [1, 3, 5, 10];

/// One request with its known answer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EvalQuery {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub category: String,
    pub query: String,
    pub expected: Vec<String>,
    /// Per expected tool, the tools that count as the same tool (lenient).
    #[serde(default)]
    pub equivalents: Vec<Vec<String>>,
}

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Line {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{path}: no queries")]
    Empty { path: String },
    #[error("query {id:?}: expected tool {tool:?} is not in the catalog")]
    UnknownTool { id: String, tool: String },
    #[error("query {id:?}: {message}")]
    Rank { id: String, message: String },
}

/// Reads a JSONL file of queries; a bad line is an error naming its number.
/// The demo catalog's requests with known answers (`@demo`).
pub const DEMO_QUERIES: &str = include_str!("../../assets/queries/demo.jsonl");

/// Requests from a path, or `@demo` for the demo catalog's.
pub fn load_queries_arg(source: &str) -> Result<Vec<EvalQuery>, EvalError> {
    if source == "@demo" {
        return parse_queries(DEMO_QUERIES, "@demo");
    }
    load_queries(Path::new(source))
}

pub fn load_queries(path: &Path) -> Result<Vec<EvalQuery>, EvalError> {
    let (text, shown) = read_file(path)?;
    parse_queries(&text, &shown)
}

/// A file's text and its path as shown in errors.
pub(crate) fn read_file(path: &Path) -> Result<(String, String), EvalError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| EvalError::Io {
        path: shown.clone(),
        source,
    })?;
    Ok((text, shown))
}

/// Each non-blank line of `text` as a `T`, checked (and completed) by
/// `check` with its 1-based line number; a bad line is an error naming it,
/// and a file with no line is one too.
pub(crate) fn parse_lines<T: serde::de::DeserializeOwned>(
    text: &str,
    origin: &str,
    mut check: impl FnMut(T, usize) -> Result<T, &'static str>,
) -> Result<Vec<T>, EvalError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line_err = |message: String| EvalError::Line {
            path: origin.to_string(),
            line: i + 1,
            message,
        };
        let value: T = serde_json::from_str(line).map_err(|e| line_err(e.to_string()))?;
        out.push(check(value, i + 1).map_err(|e| line_err(e.to_string()))?);
    }
    if out.is_empty() {
        return Err(EvalError::Empty {
            path: origin.to_string(),
        });
    }
    Ok(out)
}

/// Requests from `text`: JSON lines of requests, or a gateway's trace
/// (its searches, each answered by the tool the session then called:
/// [`crate::traffic::requests`]).
pub fn parse_queries(text: &str, origin: &str) -> Result<Vec<EvalQuery>, EvalError> {
    if crate::traffic::looks_like_traffic(text) {
        return queries_from_traffic(text, origin);
    }
    parse_lines(text, origin, |mut q: EvalQuery, line| {
        if q.id.is_empty() {
            q.id = format!("line {line}");
        }
        if q.equivalents.len() != q.expected.len() {
            q.equivalents = q.expected.iter().map(|e| vec![e.clone()]).collect();
        }
        Ok(q)
    })
}

/// all@k and any@k for k in [`KS`] (percent, 0-100), and MRR@10 (0-1).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Metrics {
    pub all: [f64; 4],
    pub any: [f64; 4],
    pub mrr10: f64,
}

impl Serialize for Metrics {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(9))?;
        for (i, k) in KS.iter().enumerate() {
            map.serialize_entry(&format!("all@{k}"), &round(self.all[i], 2))?;
        }
        for (i, k) in KS.iter().enumerate() {
            map.serialize_entry(&format!("any@{k}"), &round(self.any[i], 2))?;
        }
        map.serialize_entry("mrr@10", &round(self.mrr10, 4))?;
        map.end()
    }
}

fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryMetrics {
    pub queries: usize,
    pub strict: Metrics,
    pub lenient: Metrics,
}

/// A request whose expected tool is not in the top k.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Miss {
    pub id: String,
    pub query: String,
    pub expected: Vec<String>,
    /// The expected tools that are not in the top k.
    pub missing: Vec<String>,
    pub top: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalReport {
    pub queries: usize,
    pub catalog_tools: usize,
    pub k: usize,
    pub strict: Metrics,
    pub lenient: Metrics,
    pub per_category: BTreeMap<String, CategoryMetrics>,
    pub misses: Vec<Miss>,
    /// The relevance gate, when on, and how many requests it answered with
    /// nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateTally>,
    /// The requests that expect no tool (`"expected": []`), when there
    /// are any: the rest of the report counts only the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nothing_fits: Option<NothingFits>,
    /// How fast the ranker ran, when measured ([`measure_speed`]).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// Per-request latency, when the ranker waits on a remote service.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
}

/// The gate an eval ran with and the requests it left without a tool.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GateTally {
    #[serde(flatten)]
    pub gate: Gate,
    pub no_fit: usize,
}

/// How the requests that no tool serves were answered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NothingFits {
    pub requests: usize,
    /// Answered with no tool (the relevance gate found none fits).
    pub answered_nothing: usize,
    /// The ones that loaded tools, with the tools they loaded.
    pub loaded: Vec<Miss>,
}

/// Latency percentiles of a remote ranker's requests, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Latency {
    pub requests: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl Latency {
    /// Nearest-rank percentiles; `None` for no samples.
    pub fn of(samples: &[Duration]) -> Option<Latency> {
        if samples.is_empty() {
            return None;
        }
        let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
        ms.sort_by(f64::total_cmp);
        let at =
            |p: f64| ms[((p / 100.0 * ms.len() as f64).ceil() as usize).clamp(1, ms.len()) - 1];
        Some(Latency {
            requests: ms.len(),
            p50_ms: at(50.0),
            p95_ms: at(95.0),
            p99_ms: at(99.0),
            max_ms: ms[ms.len() - 1],
        })
    }
}

/// A ranker's speed on an eval's requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Speed {
    /// Ranking only (the ranker already built), one thread, best pass.
    pub queries_per_second: f64,
    /// Building the ranker over the catalog.
    pub index_build_ms: f64,
}

/// How many tools each request is ranked to: the cut-off `k`, and at least
/// the deepest metric (10).
fn depth(k: usize) -> usize {
    k.max(KS[KS.len() - 1])
}

/// Times `ranker` on `queries`: passes over every request for about
/// `budget`, the best pass counts. `index_build_ms` is the caller's figure.
pub fn measure_speed(
    ranker: &dyn CatalogRanker,
    queries: &[EvalQuery],
    k: usize,
    budget: Duration,
    index_build_ms: f64,
) -> Speed {
    let depth = depth(k);
    let mut best = Duration::MAX;
    let started = Instant::now();
    loop {
        let t = Instant::now();
        for q in queries {
            let _ = std::hint::black_box(ranker.rank(&q.query, None, depth));
        }
        best = best.min(t.elapsed());
        if started.elapsed() >= budget {
            break;
        }
    }
    Speed {
        queries_per_second: queries.len() as f64 / best.as_secs_f64().max(1e-9),
        index_build_ms,
    }
}

/// Whether any tool a search would load (the first of `hits`, up to the
/// service's default cap) fits the request: the relevance gate's one policy
/// ([`crate::service::gate_keeps`], as the service and the gateway apply it).
fn loaded_fits(ranker: &dyn CatalogRanker, gate: &Gate, query: &str, hits: &[Hit]) -> bool {
    let loaded = &hits[..hits.len().min(crate::service::DEFAULT_MAX_TOOLS.to_usize())];
    let docs: Vec<usize> = loaded.iter().map(|h| h.doc).collect();
    let explained = ranker.explain(query, None, &docs);
    let fits = crate::service::fits_of(gate, explained.iter().zip(loaded.iter().map(|h| h.exact)));
    crate::service::gate_keeps(&fits, crate::service::GateMode::Any).is_some()
}

/// Ranks every query with `ranker` (built over `catalog`) and scores the
/// rankings. `k` is the cut-off for the list of misses. Quality only: time
/// the ranker with [`measure_speed`].
pub fn evaluate(
    catalog: &Catalog,
    queries: &[EvalQuery],
    k: usize,
    ranker: &dyn CatalogRanker,
    gate: Option<&Gate>,
) -> Result<EvalReport, EvalError> {
    check_expected(catalog, queries)?;
    let Ranked { rankings, no_fit } = rank_all(queries, depth(k), ranker, gate)?;
    let mut scoring = Scoring::default();
    for (q, ranking) in queries.iter().zip(&rankings) {
        let names: Vec<&str> = ranking
            .iter()
            .map(|&d| catalog.tools()[d].name.as_str())
            .collect();
        scoring.add(q, &names, k);
    }
    Ok(EvalReport {
        queries: queries.len() - scoring.expecting_nothing(),
        catalog_tools: catalog.len(),
        k,
        strict: scoring.strict.metrics(),
        lenient: scoring.lenient.metrics(),
        per_category: scoring.per_category(),
        misses: scoring.misses,
        gate: gate.map(|g| GateTally { gate: *g, no_fit }),
        nothing_fits: scoring.nothing,
        speed: None,
        latency: Latency::of(&ranker.latencies()),
    })
}

/// Every tool a request expects must be in the catalog: the first that is
/// not is the error.
fn check_expected(catalog: &Catalog, queries: &[EvalQuery]) -> Result<(), EvalError> {
    for q in queries {
        for e in &q.expected {
            if catalog.index_of(e).is_none() {
                return Err(EvalError::UnknownTool {
                    id: q.id.clone(),
                    tool: e.clone(),
                });
            }
        }
    }
    Ok(())
}

/// Every request's ranking, and how many that expect a tool the gate
/// answered with none.
struct Ranked {
    /// Per request, the tools ranked (catalog indices, best first); empty
    /// when the gate found no tool fits.
    rankings: Vec<Vec<usize>>,
    no_fit: usize,
}

/// Ranks each request to `depth` as the service does (its intents merged);
/// with a gate, a request no loaded tool fits is answered with nothing.
fn rank_all(
    queries: &[EvalQuery],
    depth: usize,
    ranker: &dyn CatalogRanker,
    gate: Option<&Gate>,
) -> Result<Ranked, EvalError> {
    let mut rankings: Vec<Vec<usize>> = Vec::with_capacity(queries.len());
    let mut no_fit = 0;
    for q in queries {
        let mut hits =
            crate::engine::intents::rank(ranker, &q.query, &[], None, depth).map_err(|e| {
                EvalError::Rank {
                    id: q.id.clone(),
                    message: e.to_string(),
                }
            })?;
        if let Some(gate) = gate
            && !hits.is_empty()
            && !loaded_fits(ranker, gate, &q.query, &hits)
        {
            // No tool fits: the answer is empty.
            hits.clear();
            // Counted among the requests that expect a tool; the others
            // are reported apart.
            if !q.expected.is_empty() {
                no_fit += 1;
            }
        }
        rankings.push(hits.iter().map(|h| h.doc).collect());
    }
    Ok(Ranked { rankings, no_fit })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Tool;

    #[test]
    fn parse_errors_name_the_line() {
        let err = parse_queries(
            "{\"query\":\"a\",\"expected\":[\"x\"]}\n{oops}\n",
            "q.jsonl",
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("q.jsonl:2: "), "{err}");
        assert!(matches!(
            parse_queries("\n\n", "q"),
            Err(EvalError::Empty { .. })
        ));
    }

    #[test]
    fn evaluate_small_catalog() {
        let tools = vec![
            Tool::new("get_weather", "Current weather for a city"),
            Tool::new("send_email", "Send an email message"),
            Tool::new("get_weather__2", "Weather forecast for a city"),
        ];
        let catalog = Catalog::new("t", tools).unwrap();
        let queries = parse_queries(
            concat!(
                "{\"id\":\"a\",\"category\":\"c1\",\"query\":\"weather forecast in Paris\",\"expected\":[\"get_weather\"],\"equivalents\":[[\"get_weather\",\"get_weather__2\"]]}\n",
                "{\"id\":\"b\",\"category\":\"c2\",\"query\":\"email my boss\",\"expected\":[\"send_email\"]}\n",
            ),
            "q",
        )
        .unwrap();
        let index = crate::engine::Index::build(catalog.tools());
        let r = evaluate(&catalog, &queries, 1, &index, None).unwrap();
        assert_eq!(r.queries, 2);
        // "forecast" puts get_weather__2 first: strict misses at 1, lenient hits.
        assert_eq!(r.strict.all[0], 50.0);
        assert_eq!(r.lenient.all[0], 100.0);
        assert_eq!(r.misses.len(), 1);
        assert_eq!(r.misses[0].id, "a");
        assert_eq!(r.misses[0].top, ["get_weather__2"]);
        assert_eq!(r.per_category.len(), 2);
        assert_eq!(r.speed, None);
        let speed = measure_speed(&index, &queries, 1, Duration::ZERO, 0.5);
        assert!(speed.queries_per_second > 0.0);
        assert_eq!(speed.index_build_ms, 0.5);
        // A request that expects no tool is counted apart.
        let none = parse_queries(
            concat!(
                "{\"id\":\"b\",\"query\":\"email my boss\",\"expected\":[\"send_email\"]}\n",
                "{\"id\":\"n1\",\"query\":\"book a flight\",\"expected\":[]}\n",
                "{\"id\":\"n2\",\"query\":\"weather for a picnic\",\"expected\":[]}\n",
            ),
            "q",
        )
        .unwrap();
        let r = evaluate(
            &catalog,
            &none,
            3,
            &index,
            Some(&Gate::for_ranker(crate::engine::Ranker::Bm25, 0.3)),
        )
        .unwrap();
        assert_eq!((r.queries, r.strict.all[0]), (1, 100.0));
        let n = r.nothing_fits.as_ref().unwrap();
        assert_eq!((n.requests, n.answered_nothing), (2, 1));
        assert_eq!(n.loaded[0].id, "n2");
        assert_eq!(r.gate.unwrap().no_fit, 0);
        assert!(
            r.render_text()
                .contains("1 of 2 requests no tool serves answered with no tool")
        );
        let bad = parse_queries("{\"query\":\"x\",\"expected\":[\"nope\"]}", "q").unwrap();
        assert!(matches!(
            evaluate(&catalog, &bad, 5, &index, None),
            Err(EvalError::UnknownTool { .. })
        ));
    }
}
