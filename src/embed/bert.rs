//! A BERT encoder (the architecture of sentence-transformers' MiniLM, mpnet
//! is not covered) on candle's tensors: embeddings, then `num_hidden_layers`
//! post-norm blocks of multi-head self-attention and a GELU feed-forward.
//! Weights are read by their Hugging Face names (`embeddings.*`,
//! `encoder.layer.N.*`, optionally under `bert.`). Inference only.

use candle_core::{D, DType, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, embedding, layer_norm, linear};
use serde::Deserialize;

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
    pub fn check(&self) -> std::result::Result<(), String> {
        if let Some(t) = &self.model_type
            && t != "bert"
        {
            return Err(format!(
                "model_type {t:?} is not supported (BERT models such as all-MiniLM-L6-v2 are)"
            ));
        }
        if !matches!(self.hidden_act.as_str(), "gelu" | "gelu_new" | "relu") {
            return Err(format!(
                "hidden_act {:?} is not supported (gelu, gelu_new, relu)",
                self.hidden_act
            ));
        }
        if let Some(p) = &self.position_embedding_type
            && p != "absolute"
        {
            return Err(format!("position_embedding_type {p:?} is not supported"));
        }
        if self.num_attention_heads == 0
            || !self.hidden_size.is_multiple_of(self.num_attention_heads)
        {
            return Err(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            ));
        }
        Ok(())
    }
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

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// The encoder: token ids in, one vector per token out.
pub struct Bert {
    words: Embedding,
    positions: Embedding,
    types: Embedding,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
    act: String,
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
        let mut layers = Vec::with_capacity(c.num_hidden_layers);
        for i in 0..c.num_hidden_layers {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let a = l.pp("attention");
            layers.push(Layer {
                query: linear(h, h, a.pp("self.query"))?,
                key: linear(h, h, a.pp("self.key"))?,
                value: linear(h, h, a.pp("self.value"))?,
                attention_out: linear(h, h, a.pp("output.dense"))?,
                attention_norm: norm(h, c.layer_norm_eps, a.pp("output.LayerNorm"))?,
                intermediate: linear(h, c.intermediate_size, l.pp("intermediate.dense"))?,
                output: linear(c.intermediate_size, h, l.pp("output.dense"))?,
                output_norm: norm(h, c.layer_norm_eps, l.pp("output.LayerNorm"))?,
            });
        }
        Ok(Bert {
            words: embedding(c.vocab_size, h, e.pp("word_embeddings"))?,
            positions: embedding(c.max_position_embeddings, h, e.pp("position_embeddings"))?,
            types: embedding(c.type_vocab_size, h, e.pp("token_type_embeddings"))?,
            embeddings_norm: norm(h, c.layer_norm_eps, e.pp("LayerNorm"))?,
            layers,
            heads: c.num_attention_heads,
            head_dim: h / c.num_attention_heads,
            act: c.hidden_act.clone(),
        })
    }

    /// `ids`, `type_ids` and `mask` are (batch, len) u32; the answer is
    /// (batch, len, hidden) f32. Padding (mask 0) is never attended to.
    pub fn forward(&self, ids: &Tensor, type_ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (batch, len) = ids.dims2()?;
        let positions = Tensor::arange(0u32, len as u32, ids.device())?
            .unsqueeze(0)?
            .broadcast_as((batch, len))?
            .contiguous()?;
        let x = self
            .words
            .forward(ids)?
            .add(&self.positions.forward(&positions)?)?
            .add(&self.types.forward(type_ids)?)?;
        let mut x = self.embeddings_norm.forward(&x)?;
        // (batch, 1, 1, len): 0 where attended, a large negative elsewhere.
        let bias = ((mask.to_dtype(DType::F32)? - 1.0)? * 1e9)?
            .unsqueeze(1)?
            .unsqueeze(1)?;
        let scale = 1.0 / (self.head_dim as f64).sqrt();
        for l in &self.layers {
            let split = |t: Tensor| -> Result<Tensor> {
                t.reshape((batch, len, self.heads, self.head_dim))?
                    .transpose(1, 2)?
                    .contiguous()
            };
            let q = split(l.query.forward(&x)?)?;
            let k = split(l.key.forward(&x)?)?;
            let v = split(l.value.forward(&x)?)?;
            let scores = (q.matmul(&k.t()?.contiguous()?)? * scale)?.broadcast_add(&bias)?;
            let weights = candle_nn::ops::softmax_last_dim(&scores)?;
            let context = weights.matmul(&v)?.transpose(1, 2)?.reshape((
                batch,
                len,
                self.heads * self.head_dim,
            ))?;
            let attended = l
                .attention_norm
                .forward(&l.attention_out.forward(&context)?.add(&x)?)?;
            let inner = l.intermediate.forward(&attended)?;
            let inner = match self.act.as_str() {
                "relu" => inner.relu()?,
                "gelu_new" => inner.gelu()?,
                _ => inner.gelu_erf()?,
            };
            x = l
                .output_norm
                .forward(&l.output.forward(&inner)?.add(&attended)?)?;
        }
        Ok(x)
    }
}

/// Mean of the token vectors where `mask` is 1: (batch, hidden).
pub fn mean_pool(hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
    let m = mask.to_dtype(DType::F32)?.unsqueeze(D::Minus1)?;
    let sum = hidden.broadcast_mul(&m)?.sum(1)?;
    let count = m.sum(1)?.clamp(1e-9f32, f32::MAX)?;
    sum.broadcast_div(&count)
}
