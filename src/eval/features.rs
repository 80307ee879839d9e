//! What the learned ranking is trained on: for each request with a known
//! answer, its candidates' features and whether each is a right answer
//! (`toolsift eval --features-out FILE`, read by
//! `scripts/train-ranker.py`).

use serde_json::json;

use super::{EvalError, EvalQuery};
use crate::catalog::Catalog;
use crate::engine::CatalogRanker;

/// A first line naming the features (`{"features": [...]}`, in
/// [`crate::engine::learned::NAMES`] order), then one JSON line per
/// request: `id`, `category`, `expected` and its
/// `candidates` (`tool`, `label` 1 for a right answer, `x` the features in
/// [`crate::engine::learned::NAMES`] order). A ranker that does not learn
/// gives no candidates.
pub fn dump(
    catalog: &Catalog,
    queries: &[EvalQuery],
    ranker: &dyn CatalogRanker,
) -> Result<String, EvalError> {
    let mut out = json!({ "features": crate::engine::learned::NAMES }).to_string();
    out.push('\n');
    for q in queries {
        let learned = ranker
            .learned(&q.query, None)
            .map_err(|e| EvalError::Rank {
                id: q.id.clone(),
                message: e.to_string(),
            })?;
        let right = |name: &str| {
            q.expected.iter().any(|e| e == name)
                || q.equivalents.iter().flatten().any(|e| e == name)
        };
        let candidates: Vec<serde_json::Value> = learned
            .iter()
            .map(|(doc, x, _)| {
                let name = &catalog.tools()[*doc].name;
                let x: Vec<f64> = x
                    .iter()
                    .map(|v| (f64::from(*v) * 1e4).round() / 1e4)
                    .collect();
                json!({"tool": name, "label": u8::from(right(name)), "x": x})
            })
            .collect();
        let line = json!({
            "id": q.id,
            "category": q.category,
            "expected": q.expected,
            "candidates": candidates,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    Ok(out)
}
