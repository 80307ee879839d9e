//! `toolsift eval --abstain FILE`: whether search answers with nothing when
//! no tool fits, and loads the right tools when some do. Each question
//! carries its own small catalog (the `abstain-dev.jsonl` format:
//! `{"id", "kind": "irrelevant" | "relevant", "category", "query", "tools",
//! "expected"}`), searched through the service like any request.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::EvalError;
use crate::catalog::{self, SourceKind};
use crate::engine::{Fit, Gate, Ranker};
use crate::service::{SearchRequest, Service};
use crate::tools_handle::MaxTools;

/// Whether a question has a fitting tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// No offered tool fits: the right answer is no tool.
    Irrelevant,
    /// Every `expected` tool should be loaded.
    Relevant,
}

/// One question with its catalog.
#[derive(Debug, Clone, Deserialize)]
pub struct Question {
    #[serde(default)]
    pub id: String,
    pub kind: Kind,
    #[serde(default)]
    pub category: String,
    pub query: String,
    pub tools: Vec<Value>,
    #[serde(default)]
    pub expected: Vec<String>,
}

/// Reads a JSONL file of questions; a bad line is an error naming it.
pub fn load(path: &Path) -> Result<Vec<Question>, EvalError> {
    let (text, shown) = super::read_file(path)?;
    parse(&text, &shown)
}

pub fn parse(text: &str, origin: &str) -> Result<Vec<Question>, EvalError> {
    super::parse_lines(text, origin, |mut q: Question, line| {
        if q.kind == Kind::Relevant && q.expected.is_empty() {
            return Err("a relevant question's `expected` is empty");
        }
        if q.kind == Kind::Irrelevant && !q.expected.is_empty() {
            return Err("an irrelevant question expects no tool, but `expected` lists some");
        }
        if q.id.is_empty() {
            q.id = format!("line {line}");
        }
        Ok(q)
    })
}

/// One question's answer with the gate off: the tools loaded and how well
/// the best fitted.
#[derive(Debug, Clone, PartialEq)]
struct Answer {
    kind: Kind,
    /// Every expected tool was loaded (relevant questions).
    all_loaded: bool,
    loaded: usize,
    fit: Option<Fit>,
}

/// A point of the gate's curve: its thresholds, the share of irrelevant
/// questions answered with nothing, and of relevant ones with every
/// expected tool (percent).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Point {
    pub min_evidence: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_cosine: Option<f32>,
    pub nothing_on_irrelevant: f64,
    pub all_on_relevant: f64,
}

/// The report: the gate off and on, and the curve as its thresholds move.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub ranker: Ranker,
    pub max_tools: MaxTools,
    pub irrelevant: usize,
    pub relevant: usize,
    /// Questions whose catalog has no tool (answered with nothing).
    pub empty_catalogs: usize,
    pub gate: Gate,
    pub off: Point,
    pub on: Point,
    /// Mean tools loaded per answer, gate off and on.
    pub tools_per_answer_off: f64,
    pub tools_per_answer_on: f64,
    pub curve: Vec<Point>,
}

/// Searches every question through `service` (gate off) and scores the
/// answers with `gate` and along its curve.
pub fn evaluate(
    service: &Service,
    questions: &[Question],
    ranker: Ranker,
    max_tools: MaxTools,
    gate: Gate,
) -> Result<Report, EvalError> {
    let mut answers = Vec::with_capacity(questions.len());
    let mut empty_catalogs = 0;
    for q in questions {
        if q.tools.is_empty() {
            empty_catalogs += 1;
            answers.push(Answer {
                kind: q.kind,
                all_loaded: false,
                loaded: 0,
                fit: None,
            });
            continue;
        }
        answers.push(answer(service, q, ranker, max_tools)?);
    }
    let irrelevant = answers
        .iter()
        .filter(|a| a.kind == Kind::Irrelevant)
        .count();
    let relevant = answers.len() - irrelevant;
    let off = point(&answers, None);
    let on = point(&answers, Some(&gate));
    Ok(Report {
        ranker,
        max_tools,
        irrelevant,
        relevant,
        empty_catalogs,
        gate,
        off,
        on,
        tools_per_answer_off: tools_per_answer(&answers, None),
        tools_per_answer_on: tools_per_answer(&answers, Some(&gate)),
        curve: curve(&answers, gate),
    })
}

/// One question searched in its own catalog with the gate off, as the
/// service answers it: the tools loaded, whether every expected one is
/// among them, and the gate's reading of the fit. A catalog that does not
/// parse, or lacks an expected tool, is an error naming the question.
fn answer(
    service: &Service,
    q: &Question,
    ranker: Ranker,
    max_tools: MaxTools,
) -> Result<Answer, EvalError> {
    let raw = Value::Array(q.tools.clone()).to_string();
    let catalog =
        catalog::parse(&raw, &q.id, &q.id, SourceKind::Json).map_err(|e| EvalError::Rank {
            id: q.id.clone(),
            message: e.to_string(),
        })?;
    for e in &q.expected {
        if catalog.index_of(e).is_none() {
            return Err(EvalError::UnknownTool {
                id: q.id.clone(),
                tool: e.clone(),
            });
        }
    }
    let params = SearchRequest {
        query: q.query.clone(),
        max_tools: Some(max_tools),
        ranker: Some(ranker),
        // Not a preview: a preview of a dense ranker is answered by
        // BM25F while the vectors are computed.
        gate: Some(false),
        ..SearchRequest::default()
    };
    let outcome = service
        .tool_search(&catalog, &params, "")
        .map_err(|e| EvalError::Rank {
            id: q.id.clone(),
            message: e.to_string(),
        })?;
    let names: Vec<&str> = outcome
        .tools
        .iter()
        .map(|t| catalog.tools()[t.index].name.as_str())
        .collect();
    Ok(Answer {
        kind: q.kind,
        all_loaded: q.expected.iter().all(|e| names.contains(&e.as_str())),
        loaded: names.len(),
        fit: outcome.fit,
    })
}

/// The gate's curve: the evidence asked from 0 to 6 by halves, then, for
/// the dense rankers (a gate with a cosine), the cosine from 0 to 1 by
/// 0.05 with the evidence asked unchanged.
fn curve(answers: &[Answer], gate: Gate) -> Vec<Point> {
    let mut curve: Vec<Point> = (0..=12)
        .map(|i| {
            let g = Gate {
                min_evidence: i as f32 * 0.5,
                ..gate
            };
            point(answers, Some(&g))
        })
        .collect();
    if gate.min_cosine.is_some() {
        // The dense rankers: the cosine moves, the evidence asked stays.
        curve.extend((0..=20).map(|i| {
            let g = Gate {
                min_cosine: Some(i as f32 * 0.05),
                ..gate
            };
            point(answers, Some(&g))
        }));
    }
    curve
}

/// Whether `a`'s tools stay loaded under `gate` (`None`: off).
fn kept(a: &Answer, gate: Option<&Gate>) -> bool {
    match (gate, a.fit) {
        (None, _) => a.loaded > 0,
        (Some(_), None) => false,
        (Some(g), Some(f)) => g.admits(&f),
    }
}

fn point(answers: &[Answer], gate: Option<&Gate>) -> Point {
    let share = |kind: Kind, good: &dyn Fn(&Answer) -> bool| {
        let of_kind: Vec<&Answer> = answers.iter().filter(|a| a.kind == kind).collect();
        100.0 * of_kind.iter().filter(|a| good(a)).count() as f64 / of_kind.len().max(1) as f64
    };
    Point {
        min_evidence: gate.map_or(0.0, |g| g.min_evidence),
        min_cosine: gate.and_then(|g| g.min_cosine),
        nothing_on_irrelevant: share(Kind::Irrelevant, &|a| a.loaded == 0 || !kept(a, gate)),
        all_on_relevant: share(Kind::Relevant, &|a| a.all_loaded && kept(a, gate)),
    }
}

fn tools_per_answer(answers: &[Answer], gate: Option<&Gate>) -> f64 {
    let loaded: usize = answers
        .iter()
        .filter(|a| kept(a, gate))
        .map(|a| a.loaded)
        .sum();
    loaded as f64 / answers.len().max(1) as f64
}

impl Report {
    pub fn render_text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} questions ({} with no fitting tool, {} with one), ranker {}, max_tools {}{}",
            self.irrelevant + self.relevant,
            self.irrelevant,
            self.relevant,
            self.ranker,
            self.max_tools,
            if self.empty_catalogs > 0 {
                format!("; {} with an empty catalog", self.empty_catalogs)
            } else {
                String::new()
            }
        );
        let _ = writeln!(
            out,
            "\n{:<36} {:>10} {:>10} {:>12}",
            "", "nothing on", "all on", "tools per"
        );
        let _ = writeln!(
            out,
            "{:<36} {:>10} {:>10} {:>12}",
            "", "irrelevant", "relevant", "answer"
        );
        let gate_name = match self.gate.min_cosine {
            Some(c) => format!("gate on (evidence {}, cosine {c})", self.gate.min_evidence),
            None => format!("gate on (evidence {})", self.gate.min_evidence),
        };
        for (name, p, per) in [
            ("gate off".to_string(), &self.off, self.tools_per_answer_off),
            (gate_name, &self.on, self.tools_per_answer_on),
        ] {
            let _ = writeln!(
                out,
                "{name:<36} {:>9.1}% {:>9.1}% {:>12.2}",
                p.nothing_on_irrelevant, p.all_on_relevant, per
            );
        }
        let _ = writeln!(out, "\ncurve (the gate's thresholds moving):");
        let _ = writeln!(
            out,
            "{:>9} {:>7} {:>11} {:>9}",
            "evidence", "cosine", "irrelevant", "relevant"
        );
        for p in &self.curve {
            let cosine = p.min_cosine.map_or("-".to_string(), |c| format!("{c:.2}"));
            let _ = writeln!(
                out,
                "{:>9} {:>7} {:>10.1}% {:>8.1}%",
                p.min_evidence, cosine, p.nothing_on_irrelevant, p.all_on_relevant
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(kind: &str, query: &str, expected: &[&str]) -> String {
        let tools = serde_json::json!([
            {"name": "get_weather", "description": "Current weather and forecast for a city.",
             "input_schema": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}}},
            {"name": "convert_currency", "description": "Convert an amount between currencies.",
             "input_schema": {"type": "object", "properties": {}}}
        ]);
        serde_json::json!({"kind": kind, "query": query, "tools": tools, "expected": expected})
            .to_string()
    }

    #[test]
    fn the_gate_answers_nothing_where_nothing_fits_and_keeps_what_fits() {
        let text = [
            q(
                "relevant",
                "what is the weather forecast in Paris",
                &["get_weather"],
            ),
            q(
                "relevant",
                "convert 20 euros to dollars in currency",
                &["convert_currency"],
            ),
            q("irrelevant", "get me a taxi to the airport", &[]),
            q(
                "irrelevant",
                "who wrote the novel about the city of Paris",
                &[],
            ),
        ]
        .join("\n");
        let questions = parse(&text, "t.jsonl").unwrap();
        let service = Service::default();
        let gate = Gate::for_ranker(Ranker::Bm25, Gate::MIN_COSINE);
        let r = evaluate(&service, &questions, Ranker::Bm25, MaxTools::of(5), gate).unwrap();
        assert_eq!((r.irrelevant, r.relevant), (2, 2));
        // Off: "get" and "city" pull tools in for both irrelevant questions.
        assert_eq!(r.off.nothing_on_irrelevant, 0.0);
        assert_eq!(r.off.all_on_relevant, 100.0);
        assert_eq!(r.on.nothing_on_irrelevant, 100.0);
        assert_eq!(r.on.all_on_relevant, 100.0);
        assert!(r.tools_per_answer_on < r.tools_per_answer_off);
        // The curve starts where the gate lets everything through.
        assert_eq!(r.curve[0].nothing_on_irrelevant, 0.0);
        assert!(r.render_text().contains("gate on (evidence 1.5)"));
    }

    #[test]
    fn a_dense_ranker_is_judged_by_its_own_answers_not_a_preview() {
        use std::sync::Arc;
        let text = [
            q(
                "relevant",
                "what is the weather forecast in Paris",
                &["get_weather"],
            ),
            q("irrelevant", "who wrote the novel", &[]),
        ]
        .join("\n");
        let questions = parse(&text, "t.jsonl").unwrap();
        let embeddings = crate::embed::Embeddings::new(
            Arc::new(crate::embed::HashEmbedder::default()),
            Arc::new(crate::embed::VectorCache::new(100, None)),
        );
        let service = Service::new(crate::service::ServiceConfig {
            embeddings: Some(embeddings),
            ..Default::default()
        });
        // A cosine of 2 lets nothing through on vectors alone: the words
        // decide, and the dense ranker answered (every fit has a cosine).
        let gate = Gate::for_ranker(Ranker::Embeddings, 2.0);
        let r = evaluate(
            &service,
            &questions,
            Ranker::Embeddings,
            MaxTools::of(5),
            gate,
        )
        .unwrap();
        assert_eq!(r.ranker, Ranker::Embeddings);
        assert_eq!(r.on.all_on_relevant, 100.0);
        assert_eq!(r.on.nothing_on_irrelevant, 100.0);
        // The dense ranker loads a tool for any request with the gate off.
        assert_eq!(r.off.nothing_on_irrelevant, 0.0);
        // The cosine part of the curve moves the answers: at cosine 0
        // everything fits.
        let last = r.curve.iter().find(|p| p.min_cosine == Some(0.0)).unwrap();
        assert_eq!(last.nothing_on_irrelevant, 0.0);
    }

    #[test]
    fn bad_lines_are_named() {
        let e = parse(
            "{\"kind\": \"relevant\", \"query\": \"x\", \"tools\": []}",
            "a.jsonl",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.jsonl:1: a relevant question's `expected` is empty"
        );
        let e = parse("{\"kind\": \"maybe\"}", "a.jsonl").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("a.jsonl:1: unknown variant `maybe`"),
            "{e}"
        );
    }
}
