//! The search model built into toolsift: all-MiniLM-L6-v2 fine-tuned for
//! tool search (`scripts/train-encoder.py`; `assets/encoder/README.md` says
//! on what and how well), its f16 weights, tokenizer and
//! sentence-transformers configs in the binary (feature `bundled-model`),
//! so semantic search works on the first run, offline, with nothing to
//! fetch. `--embeddings-local` or the config's `local` names another.

use std::borrow::Cow;

use super::local::{LocalModel, ModelError, ModelFiles};

/// How the built-in model is named: in messages, `toolsift model status`
/// and its cache key (`--embeddings-local builtin` picks it).
pub const NAME: &str = "toolsift-tools-minilm";

/// The files of the model, by the names a sentence-transformers directory
/// gives them.
const FILES: [(&str, &[u8]); 6] = [
    (
        "config.json",
        include_bytes!("../../assets/encoder/config.json"),
    ),
    (
        "tokenizer.json",
        include_bytes!("../../assets/encoder/tokenizer.json"),
    ),
    (
        "modules.json",
        include_bytes!("../../assets/encoder/modules.json"),
    ),
    (
        "sentence_bert_config.json",
        include_bytes!("../../assets/encoder/sentence_bert_config.json"),
    ),
    (
        "1_Pooling/config.json",
        include_bytes!("../../assets/encoder/1_Pooling/config.json"),
    ),
    (
        "model.safetensors",
        include_bytes!("../../assets/encoder/model.safetensors"),
    ),
];

/// The bytes of the weights and the tokenizer built in.
pub fn bytes() -> u64 {
    FILES.iter().map(|(_, b)| b.len() as u64).sum()
}

struct BuiltIn;

impl ModelFiles for BuiltIn {
    fn place(&self, name: &str) -> String {
        format!("{NAME} (built in): {name}")
    }

    fn read(&self, name: &str) -> Result<Option<Cow<'static, [u8]>>, ModelError> {
        Ok(FILES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| Cow::Borrowed(*b)))
    }
}

/// The built-in model, loaded (its weights are read in place, widened to
/// f32).
pub fn load() -> Result<LocalModel, ModelError> {
    LocalModel::load_from(&BuiltIn, NAME, "built in".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::{Embedder, Role};

    #[test]
    fn the_built_in_model_loads_and_embeds_unit_vectors() {
        let model = load().unwrap();
        assert!(model.model().starts_with(NAME), "{}", model.model());
        assert_eq!(model.dimension(), Some(384));
        let v = model
            .embed(
                &["what time is it in Tokyo", "get current time"],
                Role::Query,
            )
            .unwrap();
        for x in &v {
            let norm: f32 = x.iter().map(|a| a * a).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-4, "{norm}");
        }
        assert!(bytes() > 40_000_000);
    }
}
