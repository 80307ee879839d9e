//! Ranking learned from data: two logistic models over a few features of
//! each candidate tool ([`features`]). The ranking model's probability that
//! the tool is one the request needs orders the candidates; the gate
//! model's probability that the tool fits the request at all (a request no
//! tool serves has none that does) must reach its one threshold for the
//! tool to be loaded.
//!
//! The weights are trained by `scripts/train-ranker.py` from the dev sets
//! only (`toolsift eval --features-out` writes what it reads) and kept in
//! `assets/ranking/`, one small JSON file per model.

pub mod features;

use serde::Deserialize;

pub use features::{COUNT, CatalogFacts, Features, NAMES, QueryFacts, Standing};

/// The model `hybrid` ranks with (lexical and dense features).
pub const HYBRID_MODEL: &str = include_str!("../../../assets/ranking/hybrid.json");

/// How many of each list's best tools are candidates (the rest keep the
/// fused order below them).
pub const CANDIDATES: usize = 30;

static CHOSEN: std::sync::OnceLock<Option<Model>> = std::sync::OnceLock::new();

/// The ranking and gate models over [`NAMES`].
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub weights: Features,
    pub bias: f32,
    pub gate_weights: Features,
    pub gate_bias: f32,
    /// The gate's probability a tool must reach to fit.
    pub threshold: f32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    features: Vec<String>,
    weights: Vec<f32>,
    bias: f32,
    gate: GateFile,
    #[serde(default)]
    #[allow(dead_code)]
    trained: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GateFile {
    weights: Vec<f32>,
    bias: f32,
    threshold: f32,
}

/// A ranking model file that is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BadModel {
    /// serde_json's words.
    #[error("ranking model: {0}")]
    Json(String),
    /// The features the file names, not [`NAMES`] in order.
    #[error("ranking model: features {0:?}, expected {NAMES:?}")]
    Features(Vec<String>),
    /// How many weights a list has.
    #[error("ranking model: {0} weights for {COUNT} features")]
    Weights(usize),
    #[error("ranking model: weights must be finite")]
    NotFinite,
    #[error("ranking model: biases must be finite, the threshold 0 to 1")]
    Bounds,
}

impl Model {
    /// A model file's weights; features named otherwise than [`NAMES`], in
    /// another order, is an error.
    pub fn parse(text: &str) -> Result<Model, BadModel> {
        let file: ModelFile =
            serde_json::from_str(text).map_err(|e| BadModel::Json(e.to_string()))?;
        if file.features != NAMES {
            return Err(BadModel::Features(file.features));
        }
        let check = |w: Vec<f32>| -> Result<Features, BadModel> {
            let n = w.len();
            let w: Features = w.try_into().map_err(|_| BadModel::Weights(n))?;
            if w.iter().any(|v| !v.is_finite()) {
                return Err(BadModel::NotFinite);
            }
            Ok(w)
        };
        let weights = check(file.weights)?;
        let gate_weights = check(file.gate.weights)?;
        if !(0.0..=1.0).contains(&file.gate.threshold)
            || !file.bias.is_finite()
            || !file.gate.bias.is_finite()
        {
            return Err(BadModel::Bounds);
        }
        Ok(Model {
            weights,
            bias: file.bias,
            gate_weights,
            gate_bias: file.gate.bias,
            threshold: file.gate.threshold,
        })
    }

    /// The `hybrid` model: the packaged one, unless the process chose
    /// another first ([`Model::choose`]); `None` when it chose none (the
    /// fused order and the hand-set gate, to measure against).
    pub fn hybrid() -> Option<&'static Model> {
        CHOSEN
            .get_or_init(|| Some(Model::parse(HYBRID_MODEL).expect("the packaged model parses")))
            .as_ref()
    }

    /// Ranks this process's `hybrid` searches with `model` (`None`: with
    /// no learned model) instead of the packaged one; for measuring a model
    /// before it is packaged. Only before the first search: `false` after.
    pub fn choose(model: Option<Model>) -> bool {
        CHOSEN.set(model).is_ok()
    }

    /// The probability that a tool with features `x` is one the request
    /// needs.
    pub fn probability(&self, x: &Features) -> f32 {
        logistic(self.bias, &self.weights, x)
    }

    /// The probability that a tool with features `x` fits the request at
    /// all (the gate's).
    pub fn fit(&self, x: &Features) -> f32 {
        logistic(self.gate_bias, &self.gate_weights, x)
    }
}

fn logistic(bias: f32, weights: &Features, x: &Features) -> f32 {
    let z: f32 = bias + weights.iter().zip(x).map(|(w, v)| w * v).sum::<f32>();
    1.0 / (1.0 + (-z).exp())
}

impl Model {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packaged_model_parses() {
        let m = Model::parse(HYBRID_MODEL).unwrap();
        assert!(m.threshold > 0.0 && m.threshold < 1.0);
    }

    #[test]
    fn a_model_of_other_features_is_refused() {
        let e = Model::parse(
            r#"{"features": ["a"], "weights": [1], "bias": 0, "gate": {"weights": [1], "bias": 0, "threshold": 0.5}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("ranking model: features [\"a\"]"), "{e}");
        let names = serde_json::to_string(&NAMES).unwrap();
        let e = Model::parse(&format!(
            r#"{{"features": {names}, "weights": [1], "bias": 0, "gate": {{"weights": [1], "bias": 0, "threshold": 0.5}}}}"#
        ))
        .unwrap_err();
        assert_eq!(e, BadModel::Weights(1));
        assert_eq!(e.to_string(), "ranking model: 1 weights for 16 features");
    }

    #[test]
    fn probability_is_logistic() {
        let m = Model {
            weights: [0.0; COUNT],
            bias: 0.0,
            gate_weights: [1.0; COUNT],
            gate_bias: -(COUNT as f32),
            threshold: 0.5,
        };
        assert_eq!(m.probability(&[1.0; COUNT]), 0.5);
        assert_eq!(m.fit(&[1.0; COUNT]), 0.5);
    }
}
