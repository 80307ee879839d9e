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
use super::{EmbedError, Embedder, Role};

/// How token vectors become one vector (`1_Pooling/config.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    Mean,
    Cls,
    Max,
}

/// A pooling module's `config.json`, as every sentence-transformers version
/// writes it: one `pooling_mode` name (newer), or a switch per mode (older;
/// newer versions write both).
#[derive(Deserialize, Default)]
struct PoolingConfig {
    pooling_mode: Option<String>,
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pooling_mode_lasttoken: bool,
}

impl PoolingConfig {
    /// The one pooling it names; why not, when it names another or none.
    fn pooling(&self) -> Result<Pooling, PoolingUnsupported> {
        if let Some(mode) = &self.pooling_mode {
            return match mode.as_str() {
                "mean" | "mean_tokens" => Ok(Pooling::Mean),
                "cls" | "cls_token" => Ok(Pooling::Cls),
                "max" | "max_tokens" => Ok(Pooling::Max),
                other => Err(PoolingUnsupported::Mode(other.to_string())),
            };
        }
        let modes = [
            (self.pooling_mode_mean_tokens, Pooling::Mean),
            (self.pooling_mode_cls_token, Pooling::Cls),
            (self.pooling_mode_max_tokens, Pooling::Max),
        ];
        let on: Vec<Pooling> = modes.iter().filter(|m| m.0).map(|m| m.1).collect();
        let other = self.pooling_mode_mean_sqrt_len_tokens
            || self.pooling_mode_weightedmean_tokens
            || self.pooling_mode_lasttoken;
        match on.as_slice() {
            [one] if !other => Ok(*one),
            _ => Err(PoolingUnsupported::NotOne),
        }
    }
}

/// A pooling config this encoder cannot follow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolingUnsupported {
    #[error("pooling_mode {0:?} is not supported (mean, cls or max are)")]
    Mode(String),
    #[error("only one of mean, cls or max pooling is supported")]
    NotOne,
}

/// What keeps a model's files from making an encoder: the file (as
/// [`ModelFiles::place`] names it) and why.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{place}: cannot read it: {source}")]
    Read {
        place: String,
        source: std::io::Error,
    },
    #[error("{place}: cannot read {what}: not found")]
    Missing { place: String, what: &'static str },
    #[error("{place}: bad {what}: {why}")]
    Bad {
        place: String,
        what: &'static str,
        why: String,
    },
    #[error("{place}: not a BERT model: {why}")]
    NotBert { place: String, why: String },
    #[error("{place}: {source}")]
    Config {
        place: String,
        source: super::bert::Unsupported,
    },
    #[error("{place}: {source}")]
    Pooling {
        place: String,
        source: PoolingUnsupported,
    },
    #[error("{place}: module {kind:?} is not supported (Transformer, Pooling and Normalize are)")]
    Module { place: String, kind: String },
}

/// An entry of `modules.json`: a module's class and its folder.
#[derive(Deserialize)]
pub(super) struct Module {
    #[serde(rename = "type")]
    pub(super) kind: String,
    #[serde(default)]
    pub(super) path: String,
}

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

fn parse_json<T: for<'de> Deserialize<'de>>(
    files: &dyn ModelFiles,
    name: &str,
    what: &'static str,
) -> Result<Option<T>, ModelError> {
    let Some(bytes) = files.read(name)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| ModelError::Bad {
            place: files.place(name),
            what,
            why: e.to_string(),
        })
}

fn read_json<T: for<'de> Deserialize<'de>>(
    files: &dyn ModelFiles,
    name: &str,
    what: &'static str,
) -> Result<T, ModelError> {
    parse_json(files, name, what)?.ok_or_else(|| ModelError::Missing {
        place: files.place(name),
        what,
    })
}

/// Where a model's files come from: a directory, or the model built into
/// toolsift (`bundled.rs`).
pub trait ModelFiles {
    /// How messages name the file `name` (`DIR/config.json`).
    fn place(&self, name: &str) -> String;
    /// The file's bytes; `None` when it is not there.
    fn read(&self, name: &str) -> Result<Option<std::borrow::Cow<'static, [u8]>>, ModelError>;
}

/// A sentence-transformers directory.
pub struct Directory<'a>(pub &'a Path);

impl ModelFiles for Directory<'_> {
    fn place(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }

    fn read(&self, name: &str) -> Result<Option<std::borrow::Cow<'static, [u8]>>, ModelError> {
        let path = self.0.join(name);
        match std::fs::read(&path) {
            Ok(b) => Ok(Some(b.into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(ModelError::Read {
                place: path.display().to_string(),
                source,
            }),
        }
    }
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
        // Older sentence-transformers versions say the longest input in
        // sentence_bert_config.json, current ones in the tokenizer's config.
        let max_len = match parse_json::<SentenceBertConfig>(
            files,
            "sentence_bert_config.json",
            "sentence_bert_config",
        )?
        .and_then(|c| c.max_seq_length)
        {
            Some(n) => Some(n),
            None => {
                parse_json::<TokenizerConfig>(files, "tokenizer_config.json", "tokenizer config")?
                    .and_then(|c| c.model_max_length)
                    .map(|n| n.min(u64::MAX as f64) as usize)
            }
        }
        .unwrap_or(config.max_position_embeddings)
        .min(config.max_position_embeddings);
        let tokenizer_file = files.place("tokenizer.json");
        let bad_tokenizer = |what, e: tokenizers::Error| ModelError::Bad {
            place: tokenizer_file.clone(),
            what,
            why: e.to_string(),
        };
        let tok_bytes = files
            .read("tokenizer.json")?
            .ok_or_else(|| ModelError::Missing {
                place: tokenizer_file.clone(),
                what: "the tokenizer",
            })?;
        let mut tokenizer =
            Tokenizer::from_bytes(&*tok_bytes).map_err(|e| bad_tokenizer("tokenizer", e))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_len,
                ..TruncationParams::default()
            }))
            .map_err(|e| bad_tokenizer("tokenizer truncation", e))?;
        tokenizer.with_padding(Some(PaddingParams {
            pad_id: config.pad_token_id as u32,
            ..PaddingParams::default()
        }));
        let weights = files.place("model.safetensors");
        let bytes = files
            .read("model.safetensors")?
            .ok_or_else(|| ModelError::Missing {
                place: weights.clone(),
                what: "the weights",
            })?;
        let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
        // f16 or bf16 weights are widened: the encoder runs in f32.
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
        let model = Bert::load(vb, &config).map_err(|e| ModelError::NotBert {
            place: weights,
            why: e.to_string(),
        })?;
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

/// The pooling and whether vectors are normalised, from `modules.json` and
/// the pooling module's config (mean pooling, no normalisation, when the
/// directory has neither, as sentence-transformers does for a bare model).
fn read_modules(files: &dyn ModelFiles) -> Result<(Pooling, bool), ModelError> {
    let Some(modules) = parse_json::<Vec<Module>>(files, "modules.json", "modules.json")? else {
        return Ok((Pooling::Mean, false));
    };
    let mut pooling = Pooling::Mean;
    let mut normalize = false;
    for m in &modules {
        let kind = m.kind.rsplit('.').next().unwrap_or(&m.kind);
        match kind {
            "Transformer" => {}
            "Normalize" => normalize = true,
            "Pooling" => {
                let p = format!("{}/config.json", m.path.trim_end_matches('/'));
                let c: PoolingConfig = read_json(files, &p, "pooling config")?;
                pooling = c.pooling().map_err(|source| ModelError::Pooling {
                    place: files.place(&p),
                    source,
                })?;
            }
            other => {
                return Err(ModelError::Module {
                    place: files.place("modules.json"),
                    kind: other.to_string(),
                });
            }
        }
    }
    Ok((pooling, normalize))
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

    fn read(json: &str) -> Result<Pooling, PoolingUnsupported> {
        serde_json::from_str::<PoolingConfig>(json)
            .unwrap()
            .pooling()
    }

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
    fn the_pooling_of_every_sentence_transformers_version_is_read() {
        // Older versions: a switch per mode.
        let old = r#"{"word_embedding_dimension": 384, "pooling_mode_cls_token": false,
            "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false,
            "pooling_mode_mean_sqrt_len_tokens": false}"#;
        assert_eq!(read(old), Ok(Pooling::Mean));
        // Current ones: one name (and sometimes the switches beside it).
        assert_eq!(read(r#"{"pooling_mode": "mean"}"#), Ok(Pooling::Mean));
        assert_eq!(read(r#"{"pooling_mode": "cls"}"#), Ok(Pooling::Cls));
        assert_eq!(
            read(r#"{"pooling_mode": "max", "pooling_mode_max_tokens": true}"#),
            Ok(Pooling::Max)
        );
        // What it cannot pool is named.
        let why = read(r#"{"pooling_mode": "lasttoken"}"#)
            .unwrap_err()
            .to_string();
        assert!(why.contains("\"lasttoken\""), "{why}");
        assert!(read(r#"{"pooling_mode_lasttoken": true}"#).is_err());
        assert!(read("{}").is_err());
        assert!(
            read(r#"{"pooling_mode_mean_tokens": true, "pooling_mode_cls_token": true}"#).is_err()
        );
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
