//! A BERT encoder (the architecture of sentence-transformers' MiniLM, mpnet
//! is not covered): embeddings, then `num_hidden_layers` post-norm blocks
//! of multi-head self-attention and a GELU feed-forward. Weights are read
//! through candle's `VarBuilder` by their Hugging Face names
//! (`embeddings.*`, `encoder.layer.N.*`, optionally under `bert.`) into
//! plain f32 rows, and run by `kernels`: a batch's texts packed one after
//! another (no padding), one matrix product per layer for the whole batch,
//! attention within each text. Inference only.

use candle_core::{DType, Result, Tensor};
use candle_nn::{LayerNorm, Linear, VarBuilder, embedding, layer_norm, linear};
use rayon::prelude::*;
use serde::Deserialize;

use super::kernels::{Act, Dense, Norm, View, activate, matmul, softmax_rows};

/// The fields of `config.json` the encoder needs.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    pub max_position_embeddings: usize,
    #[serde(default = "default_types")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default)]
    pub pad_token_id: usize,
    #[serde(default)]
    pub model_type: Option<String>,
    #[serde(default)]
    pub position_embedding_type: Option<String>,
}

fn default_act() -> String {
    "gelu".into()
}

fn default_types() -> usize {
    2
}

fn default_eps() -> f64 {
    1e-12
}

impl BertConfig {
    /// What this encoder cannot run, said plainly.
    pub fn check(&self) -> std::result::Result<(), Unsupported> {
        if let Some(t) = &self.model_type
            && t != "bert"
        {
            return Err(Unsupported::ModelType(t.clone()));
        }
        if !matches!(self.hidden_act.as_str(), "gelu" | "gelu_new" | "relu") {
            return Err(Unsupported::Activation(self.hidden_act.clone()));
        }
        if let Some(p) = &self.position_embedding_type
            && p != "absolute"
        {
            return Err(Unsupported::PositionEmbedding(p.clone()));
        }
        if self.num_attention_heads == 0
            || !self.hidden_size.is_multiple_of(self.num_attention_heads)
        {
            return Err(Unsupported::Heads {
                hidden: self.hidden_size,
                heads: self.num_attention_heads,
            });
        }
        Ok(())
    }
}

/// A BERT config this encoder cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsupported {
    #[error("model_type {0:?} is not supported (BERT models such as all-MiniLM-L6-v2 are)")]
    ModelType(String),
    #[error("hidden_act {0:?} is not supported (gelu, gelu_new, relu)")]
    Activation(String),
    #[error("position_embedding_type {0:?} is not supported")]
    PositionEmbedding(String),
    #[error("hidden_size {hidden} is not a multiple of num_attention_heads {heads}")]
    Heads { hidden: usize, heads: usize },
}

fn norm(size: usize, eps: f64, vb: VarBuilder) -> Result<LayerNorm> {
    // Old checkpoints name the parameters gamma and beta.
    if vb.contains_tensor("weight") {
        layer_norm(size, eps, vb)
    } else {
        let w = vb.get(size, "gamma")?;
        let b = vb.get(size, "beta")?;
        Ok(LayerNorm::new(w, b, eps))
    }
}

/// Row `i` of a table of rows of `h` values.
fn row<'a>(table: &'a [f32], i: usize, h: usize, what: &str) -> Result<&'a [f32]> {
    table
        .get(i * h..(i + 1) * h)
        .ok_or_else(|| candle_core::Error::msg(format!("{what} {i} out of range")))
}

/// A tensor's values as one flat f32 list.
fn values(t: &Tensor) -> Result<Vec<f32>> {
    t.to_dtype(DType::F32)?.flatten_all()?.to_vec1()
}

fn dense(l: &Linear) -> Result<Dense> {
    let (n_out, n_in) = l.weight().dims2()?;
    let b = match l.bias() {
        Some(b) => values(b)?,
        None => vec![0.0; n_out],
    };
    Ok(Dense {
        w: values(l.weight())?,
        b,
        n_in,
        n_out,
    })
}

/// Query, key and value as one layer of three times the outputs.
fn stacked(parts: [&Linear; 3]) -> Result<Dense> {
    let parts = parts.map(dense);
    let mut out = Dense {
        w: Vec::new(),
        b: Vec::new(),
        n_in: 0,
        n_out: 0,
    };
    for p in parts {
        let p = p?;
        out.w.extend(p.w);
        out.b.extend(p.b);
        out.n_in = p.n_in;
        out.n_out += p.n_out;
    }
    Ok(out)
}

fn plain_norm(n: &LayerNorm, size: usize, eps: f64) -> Result<Norm> {
    Ok(Norm {
        weight: values(n.weight())?,
        bias: match n.bias() {
            Some(b) => values(b)?,
            None => vec![0.0; size],
        },
        eps: eps as f32,
    })
}

struct Layer {
    /// Query, key and value, stacked: (3 · hidden, hidden).
    qkv: Dense,
    attention_out: Dense,
    attention_norm: Norm,
    intermediate: Dense,
    output: Dense,
    output_norm: Norm,
}

/// The encoder: token ids in, one vector per token out.
pub struct Bert {
    /// Rows of `hidden` values.
    words: Vec<f32>,
    positions: Vec<f32>,
    types: Vec<f32>,
    embeddings_norm: Norm,
    layers: Vec<Layer>,
    hidden: usize,
    heads: usize,
    head_dim: usize,
    act: Act,
}

impl Bert {
    pub fn load(vb: VarBuilder, c: &BertConfig) -> Result<Bert> {
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let e = vb.pp("embeddings");
        let h = c.hidden_size;
        let eps = c.layer_norm_eps;
        let mut layers = Vec::with_capacity(c.num_hidden_layers);
        for i in 0..c.num_hidden_layers {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let a = l.pp("attention");
            let query = linear(h, h, a.pp("self.query"))?;
            let key = linear(h, h, a.pp("self.key"))?;
            let value = linear(h, h, a.pp("self.value"))?;
            layers.push(Layer {
                qkv: stacked([&query, &key, &value])?,
                attention_out: dense(&linear(h, h, a.pp("output.dense"))?)?,
                attention_norm: plain_norm(&norm(h, eps, a.pp("output.LayerNorm"))?, h, eps)?,
                intermediate: dense(&linear(h, c.intermediate_size, l.pp("intermediate.dense"))?)?,
                output: dense(&linear(c.intermediate_size, h, l.pp("output.dense"))?)?,
                output_norm: plain_norm(&norm(h, eps, l.pp("output.LayerNorm"))?, h, eps)?,
            });
        }
        let table = |n: usize, name: &str| -> Result<Vec<f32>> {
            values(embedding(n, h, e.pp(name))?.embeddings())
        };
        Ok(Bert {
            words: table(c.vocab_size, "word_embeddings")?,
            positions: table(c.max_position_embeddings, "position_embeddings")?,
            types: table(c.type_vocab_size, "token_type_embeddings")?,
            embeddings_norm: plain_norm(&norm(h, eps, e.pp("LayerNorm"))?, h, eps)?,
            layers,
            hidden: h,
            heads: c.num_attention_heads,
            head_dim: h / c.num_attention_heads,
            act: match c.hidden_act.as_str() {
                "relu" => Act::Relu,
                "gelu_new" => Act::GeluTanh,
                _ => Act::Gelu,
            },
        })
    }

    /// The width of a token's vector.
    pub fn hidden_size(&self) -> usize {
        self.hidden
    }

    /// Token vectors of each sequence, given as its token ids and type ids
    /// (no padding: each sequence attends to itself alone): the
    /// sequences' rows one after another, (total tokens, hidden).
    pub fn encode(&self, seqs: &[(&[u32], &[u32])]) -> Result<Vec<f32>> {
        let h = self.hidden;
        let lens: Vec<usize> = seqs.iter().map(|s| s.0.len()).collect();
        let rows: usize = lens.iter().sum();
        let mut x = Vec::with_capacity(rows * h);
        for (ids, types) in seqs {
            if types.len() != ids.len() {
                candle_core::bail!("{} type ids for {} tokens", types.len(), ids.len());
            }
            for (p, (&id, &ty)) in ids.iter().zip(types.iter()).enumerate() {
                let w = row(&self.words, id as usize, h, "token id")?;
                let pos = row(&self.positions, p, h, "position")?;
                let t = row(&self.types, ty as usize, h, "token type")?;
                x.extend((0..h).map(|i| w[i] + pos[i] + t[i]));
            }
        }
        self.embeddings_norm.apply(&mut x);
        for l in &self.layers {
            let qkv = l.qkv.apply(&x, rows, None);
            let context = self.attend(&qkv, &lens);
            let mut attended = l.attention_out.apply(&context, rows, Some(&x));
            l.attention_norm.apply(&mut attended);
            let mut inner = l.intermediate.apply(&attended, rows, None);
            activate(&mut inner, self.act);
            x = l.output.apply(&inner, rows, Some(&attended));
            l.output_norm.apply(&mut x);
        }
        Ok(x)
    }

    /// Multi-head self-attention within each sequence: `qkv` holds each
    /// token's query, key and value (rows of 3 · hidden); the answer is
    /// the heads' outputs side by side (rows of hidden).
    fn attend(&self, qkv: &[f32], lens: &[usize]) -> Vec<f32> {
        let (h, d) = (self.hidden, self.head_dim);
        let mut starts = Vec::with_capacity(lens.len());
        let mut start = 0;
        for &len in lens {
            starts.push(start);
            start += len;
        }
        let jobs: Vec<(usize, usize, usize)> = starts
            .iter()
            .zip(lens)
            .flat_map(|(&s, &len)| (0..self.heads).map(move |head| (s, len, head)))
            .collect();
        let scale = 1.0 / (d as f32).sqrt();
        let heads: Vec<Vec<f32>> = jobs
            .par_iter()
            .map(|&(s, len, head)| {
                let rows = &qkv[s * 3 * h..(s + len) * 3 * h];
                let at = |offset: usize, rs: usize, cs: usize| View {
                    data: &rows[offset..],
                    rs,
                    cs,
                };
                let mut scores = vec![0.0; len * len];
                // q · kᵀ, scaled
                let (q, k) = (at(head * d, 3 * h, 1), at(h + head * d, 1, 3 * h));
                matmul((len, len, d), &mut scores, len, q, k, false, scale);
                softmax_rows(&mut scores, len);
                let mut out = vec![0.0; len * d];
                let weights = View {
                    data: &scores,
                    rs: len,
                    cs: 1,
                };
                let v = at(2 * h + head * d, 3 * h, 1);
                matmul((len, d, len), &mut out, d, weights, v, false, 1.0);
                out
            })
            .collect();
        let mut context = vec![0.0; start * h];
        for (&(s, len, head), out) in jobs.iter().zip(heads) {
            for (r, row) in out.chunks_exact(d).enumerate().take(len) {
                let at = (s + r) * h + head * d;
                context[at..at + d].copy_from_slice(row);
            }
        }
        context
    }
}

#[cfg(test)]
#[path = "bert_tests.rs"]
mod tests;
