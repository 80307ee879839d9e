//! A sentence-transformers BERT model run in-process with candle.
//!
//! The model directory is what sentence-transformers saves: `config.json`
//! (a BERT config), `tokenizer.json`, `model.safetensors`, and optionally
//! `modules.json`, `1_Pooling/config.json` (how token vectors become one
//! vector) and `sentence_bert_config.json` (`max_seq_length`). Texts longer
//! than the maximum are truncated, as the Python library does.

use std::path::Path;

use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use rayon::prelude::*;
use serde::Deserialize;
use tokenizers::{PaddingParams, Tokenizer, TruncationParams};

use super::bert::{Bert, BertConfig};
pub use super::model_files::{Directory, ModelError, ModelFiles, Pooling};
use super::model_files::{parse_json, read_json, read_modules};
use super::{EmbedError, Embedder, Role};

#[derive(Deserialize)]
struct SentenceBertConfig {
    max_seq_length: Option<usize>,
}

/// `tokenizer_config.json`'s longest input (a float: some write 1e30).
#[derive(Deserialize)]
struct TokenizerConfig {
    model_max_length: Option<f64>,
}

/// A loaded model.
pub struct LocalModel {
    /// Where it was read from, for messages (a directory, or "built in").
    place: String,
    /// The Hugging Face id it was fetched by, if any (for messages).
    hub_id: Option<String>,
    /// Directory name and a hash of the weights: the cache's model key.
    model_id: String,
    model: Bert,
    tokenizer: Tokenizer,
    pooling: Pooling,
    normalize: bool,
    dim: usize,
    max_len: usize,
    query_prefix: String,
    document_prefix: String,
}

impl std::fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalModel")
            .field("place", &self.place)
            .field("model", &self.model_id)
            .field("pooling", &self.pooling)
            .field("dim", &self.dim)
            .field("max_len", &self.max_len)
            .finish()
    }
}

/// The longest input in tokens: older sentence-transformers versions say
/// it in sentence_bert_config.json, current ones in the tokenizer's
/// config; never over what the encoder's positions allow.
fn longest_input(files: &dyn ModelFiles, config: &BertConfig) -> Result<usize, ModelError> {
    let said = match parse_json::<SentenceBertConfig>(
        files,
        "sentence_bert_config.json",
        "sentence_bert_config",
    )?
    .and_then(|c| c.max_seq_length)
    {
        Some(n) => Some(n),
        None => parse_json::<TokenizerConfig>(files, "tokenizer_config.json", "tokenizer config")?
            .and_then(|c| c.model_max_length)
            .map(|n| n.min(u64::MAX as f64) as usize),
    };
    Ok(said
        .unwrap_or(config.max_position_embeddings)
        .min(config.max_position_embeddings))
}

/// `tokenizer.json`, truncating at `max_len` tokens and padding with
/// `pad_id`.
fn read_tokenizer(
    files: &dyn ModelFiles,
    max_len: usize,
    pad_id: u32,
) -> Result<Tokenizer, ModelError> {
    let place = files.place("tokenizer.json");
    let bad = |what, e: tokenizers::Error| ModelError::Bad {
        place: place.clone(),
        what,
        why: e.to_string(),
    };
    let bytes = files
        .read("tokenizer.json")?
        .ok_or_else(|| ModelError::Missing {
            place: place.clone(),
            what: "the tokenizer",
        })?;
    let mut tokenizer = Tokenizer::from_bytes(&*bytes).map_err(|e| bad("tokenizer", e))?;
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: max_len,
            ..TruncationParams::default()
        }))
        .map_err(|e| bad("tokenizer truncation", e))?;
    tokenizer.with_padding(Some(PaddingParams {
        pad_id,
        ..PaddingParams::default()
    }));
    Ok(tokenizer)
}

/// The encoder from `model.safetensors` (f16 or bf16 weights are widened:
/// it runs in f32), and a hash of the weights.
fn read_weights(files: &dyn ModelFiles, config: &BertConfig) -> Result<(Bert, u64), ModelError> {
    let weights = files.place("model.safetensors");
    let bytes = files
        .read("model.safetensors")?
        .ok_or_else(|| ModelError::Missing {
            place: weights.clone(),
            what: "the weights",
        })?;
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    let vb = match bytes {
        std::borrow::Cow::Borrowed(b) => {
            VarBuilder::from_slice_safetensors(b, DType::F32, &Device::Cpu)
        }
        std::borrow::Cow::Owned(b) => {
            VarBuilder::from_buffered_safetensors(b, DType::F32, &Device::Cpu)
        }
    }
    .map_err(|e| ModelError::Bad {
        place: weights.clone(),
        what: "safetensors",
        why: e.to_string(),
    })?;
    let model = Bert::load(vb, config).map_err(|e| ModelError::NotBert {
        place: weights,
        why: e.to_string(),
    })?;
    Ok((model, hash))
}

impl LocalModel {
    /// Loads the model in `dir`.
    pub fn load(dir: &Path) -> Result<LocalModel, EmbedError> {
        let provider = format!("local model {}", dir.display());
        if !dir.is_dir() {
            return Err(EmbedError::new(
                provider,
                "not a directory (give a sentence-transformers model directory with config.json, tokenizer.json and model.safetensors)",
            ));
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".into());
        Self::load_from(&Directory(dir), &name, dir.display().to_string())
            .map_err(|e| EmbedError::new(provider, e.to_string()))
    }

    /// Loads a model from `files`; `name` starts its cache key, `place`
    /// says where it is in messages.
    pub fn load_from(
        files: &dyn ModelFiles,
        name: &str,
        place: String,
    ) -> Result<LocalModel, ModelError> {
        let config: BertConfig = read_json(files, "config.json", "BERT config")?;
        config.check().map_err(|source| ModelError::Config {
            place: files.place("config.json"),
            source,
        })?;
        let (pooling, normalize) = read_modules(files)?;
        let max_len = longest_input(files, &config)?;
        let tokenizer = read_tokenizer(files, max_len, config.pad_token_id as u32)?;
        let (model, hash) = read_weights(files, &config)?;
        Ok(LocalModel {
            place,
            hub_id: None,
            model_id: format!("{name}@{hash:016x}"),
            model,
            tokenizer,
            pooling,
            normalize,
            dim: config.hidden_size,
            max_len,
            query_prefix: String::new(),
            document_prefix: String::new(),
        })
    }

    /// Names the model by the Hugging Face id it was fetched by: its
    /// messages and its cache key say the id rather than the snapshot
    /// folder (the weights' hash stays in the key).
    pub fn with_hub_id(mut self, id: &str) -> Self {
        let hash = self.model_id.rsplit('@').next().unwrap_or_default();
        self.model_id = format!("{id}@{hash}");
        self.hub_id = Some(id.to_string());
        self
    }

    /// Prefixes put before queries and documents (e5: `query: `, `passage: `).
    pub fn with_prefixes(mut self, query: String, document: String) -> Self {
        self.query_prefix = query;
        self.document_prefix = document;
        self
    }

    /// The longest input in tokens (longer texts are truncated).
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    fn run(&self, texts: &[String]) -> candle_core::Result<Vec<Vec<f32>>> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(candle_core::Error::msg)?;
        // Each text's own tokens (the tokenizer pads on the right).
        let seqs: Vec<Tokens> = encodings
            .iter()
            .map(|e| {
                let n = e.get_attention_mask().iter().filter(|&&m| m == 1).count();
                (&e.get_ids()[..n], &e.get_type_ids()[..n])
            })
            .collect();
        let groups = batches(&seqs, rayon::current_num_threads());
        // One batch (a query) spreads each matrix product over the cores;
        // several run side by side, each on one core.
        let hidden: Vec<Vec<f32>> = match groups.as_slice() {
            [one] => vec![self.model.encode(one)?],
            _ => groups
                .par_iter()
                .map(|g| self.model.encode(g))
                .collect::<candle_core::Result<_>>()?,
        };
        let dim = self.model.hidden_size();
        let mut out = Vec::with_capacity(seqs.len());
        for (group, hidden) in groups.iter().zip(&hidden) {
            let mut rows = hidden.chunks_exact(dim);
            for (ids, _) in group.iter() {
                let tokens: Vec<&[f32]> = rows.by_ref().take(ids.len()).collect();
                out.push(pool(self.pooling, &tokens, dim));
            }
        }
        if self.normalize {
            for v in &mut out {
                super::normalize(v);
            }
        }
        Ok(out)
    }
}

/// Tokens run through the encoder at once, about: large enough for the
/// matrix products to run near the cores' speed, small enough to keep a
/// batch's activations in a few tens of MB.
const BATCH_TOKENS: usize = 4096;

/// A text's token ids and type ids.
type Tokens<'a> = (&'a [u32], &'a [u32]);

/// `seqs` in consecutive batches of about equal tokens: at least one per
/// core (when there are texts enough), none much over `BATCH_TOKENS`.
fn batches<'s, 'a>(seqs: &'s [Tokens<'a>], cores: usize) -> Vec<&'s [Tokens<'a>]> {
    let total: usize = seqs.iter().map(|s| s.0.len()).sum();
    let count = total
        .div_ceil(BATCH_TOKENS)
        .max(cores.min(seqs.len()))
        .max(1);
    let per_batch = total.div_ceil(count);
    let mut out = Vec::with_capacity(count);
    let mut start = 0;
    while start < seqs.len() {
        let mut end = start;
        let mut tokens = 0;
        while end < seqs.len() && (end == start || tokens < per_batch) {
            tokens += seqs[end].0.len();
            end += 1;
        }
        out.push(&seqs[start..end]);
        start = end;
    }
    out
}

/// One vector from a text's token vectors (none: zeros).
fn pool(pooling: Pooling, tokens: &[&[f32]], dim: usize) -> Vec<f32> {
    let Some(first) = tokens.first() else {
        return vec![0.0; dim];
    };
    match pooling {
        Pooling::Cls => first.to_vec(),
        Pooling::Mean => {
            let mut sum = vec![0.0f32; dim];
            for t in tokens {
                sum.iter_mut().zip(*t).for_each(|(s, v)| *s += v);
            }
            let n = tokens.len() as f32;
            sum.iter_mut().for_each(|s| *s /= n);
            sum
        }
        Pooling::Max => {
            let mut max = first.to_vec();
            for t in &tokens[1..] {
                max.iter_mut().zip(*t).for_each(|(m, v)| *m = m.max(*v));
            }
            max
        }
    }
}

impl Embedder for LocalModel {
    fn kind(&self) -> &'static str {
        "local"
    }

    fn model(&self) -> &str {
        &self.model_id
    }

    fn describe(&self) -> String {
        match &self.hub_id {
            Some(id) => format!("local model {id} ({})", self.place),
            None => format!("local model {}", self.place),
        }
    }

    fn prefix(&self, role: Role) -> &str {
        match role {
            Role::Query => &self.query_prefix,
            Role::Document => &self.document_prefix,
        }
    }

    fn dimension(&self) -> Option<usize> {
        Some(self.dim)
    }

    fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>, EmbedError> {
        let prefix = self.prefix(role);
        // Texts are not padded (each runs as long as it is): one run,
        // batched inside by tokens.
        let batch: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        self.run(&batch)
            .map_err(|e| EmbedError::new(self.describe(), e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_batched_by_tokens_one_batch_per_core_at_least() {
        let lens = |seqs: &[Vec<u32>], cores| -> Vec<usize> {
            let tokens: Vec<Tokens> = seqs.iter().map(|v| (&v[..], &v[..])).collect();
            batches(&tokens, cores).iter().map(|b| b.len()).collect()
        };
        let short = vec![vec![0; 5]; 4];
        assert_eq!(lens(&short, 1), [4]);
        assert_eq!(lens(&short, 2), [2, 2]);
        assert_eq!(lens(&short[..1], 2), [1]);
        assert!(lens(&[], 2).is_empty());
        // 12,000 tokens: three batches of about 4,000 (texts are not cut).
        assert_eq!(lens(&vec![vec![0; 3000]; 4], 1), [2, 2]);
        assert_eq!(lens(&vec![vec![0; 1000]; 12], 2), [4, 4, 4]);
    }

    #[test]
    fn a_model_folder_that_cannot_load_says_which_file_and_why() {
        let dir = tempfile::tempdir().unwrap();
        let files = Directory(dir.path());
        let e = LocalModel::load_from(&files, "m", "here".into()).unwrap_err();
        assert!(
            matches!(
                e,
                ModelError::Missing {
                    what: "BERT config",
                    ..
                }
            ),
            "{e:?}"
        );
        let config = dir.path().join("config.json");
        assert_eq!(
            e.to_string(),
            format!("{}: cannot read BERT config: not found", config.display())
        );
        std::fs::write(&config, r#"{"model_type": "gpt2"}"#).unwrap();
        let e = LocalModel::load_from(&files, "m", "here".into()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("{}: ", config.display())),
            "{e}"
        );
        std::fs::write(&config, "{").unwrap();
        let e = LocalModel::load_from(&files, "m", "here".into()).unwrap_err();
        assert!(matches!(e, ModelError::Bad { .. }), "{e:?}");
    }
}
