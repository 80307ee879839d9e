//! The encoder against the one it replaced (candle's tensor operations on
//! a padded batch, kept here as the reference), on random weights.

use std::collections::HashMap;

use candle_core::{DType, Device, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder};

use super::{Bert, BertConfig};

fn config(act: &str) -> BertConfig {
    serde_json::from_value(serde_json::json!({
        "vocab_size": 40, "hidden_size": 32, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 48,
        "max_position_embeddings": 24, "hidden_act": act,
    }))
    .unwrap()
}

/// Random weights under the Hugging Face names (some under `gamma` and
/// `beta`, as old checkpoints name them).
fn weights(c: &BertConfig) -> HashMap<String, Tensor> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut random = |shape: &[usize], spread: f32, centre: f32| {
        let n: usize = shape.iter().product();
        let v: Vec<f32> = (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                centre + spread * ((seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
            })
            .collect();
        Tensor::from_vec(v, shape, &Device::Cpu).unwrap()
    };
    let (h, i) = (c.hidden_size, c.intermediate_size);
    let mut m = HashMap::new();
    let mut put = |name: String, t: Tensor| {
        m.insert(name, t);
    };
    put(
        "embeddings.word_embeddings.weight".into(),
        random(&[c.vocab_size, h], 2.0, 0.0),
    );
    put(
        "embeddings.position_embeddings.weight".into(),
        random(&[c.max_position_embeddings, h], 1.0, 0.0),
    );
    put(
        "embeddings.token_type_embeddings.weight".into(),
        random(&[2, h], 1.0, 0.0),
    );
    put("embeddings.LayerNorm.gamma".into(), random(&[h], 0.4, 1.0));
    put("embeddings.LayerNorm.beta".into(), random(&[h], 0.2, 0.0));
    for l in 0..c.num_hidden_layers {
        let p = format!("encoder.layer.{l}.");
        for (name, out, inp) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", i, h),
            ("output.dense", h, i),
        ] {
            let spread = 2.0 / (inp as f32).sqrt();
            put(
                format!("{p}{name}.weight"),
                random(&[out, inp], spread, 0.0),
            );
            put(format!("{p}{name}.bias"), random(&[out], 0.2, 0.0));
        }
        for name in ["attention.output.LayerNorm", "output.LayerNorm"] {
            put(format!("{p}{name}.weight"), random(&[h], 0.4, 1.0));
            put(format!("{p}{name}.bias"), random(&[h], 0.2, 0.0));
        }
    }
    m
}

/// The encoder as it was: candle's operations on a padded batch.
fn reference(
    m: &HashMap<String, Tensor>,
    c: &BertConfig,
    ids: &Tensor,
    mask: &Tensor,
) -> Result<Tensor> {
    let get = |n: &str| m[n].clone();
    let lin = |n: &str| Linear::new(get(&format!("{n}.weight")), Some(get(&format!("{n}.bias"))));
    let ln = |w: &str, b: &str| LayerNorm::new(get(w), get(b), c.layer_norm_eps);
    let (batch, len) = ids.dims2()?;
    let (heads, hd) = (c.num_attention_heads, c.hidden_size / c.num_attention_heads);
    let positions = Tensor::arange(0u32, len as u32, ids.device())?
        .unsqueeze(0)?
        .broadcast_as((batch, len))?
        .contiguous()?;
    let emb = |n: &str| Embedding::new(get(n), c.hidden_size);
    let x = emb("embeddings.word_embeddings.weight")
        .forward(ids)?
        .add(&emb("embeddings.position_embeddings.weight").forward(&positions)?)?
        .add(&emb("embeddings.token_type_embeddings.weight").forward(&ids.zeros_like()?)?)?;
    let mut x = ln("embeddings.LayerNorm.gamma", "embeddings.LayerNorm.beta").forward(&x)?;
    let bias = ((mask.to_dtype(DType::F32)? - 1.0)? * 1e9)?
        .unsqueeze(1)?
        .unsqueeze(1)?;
    for l in 0..c.num_hidden_layers {
        let p = format!("encoder.layer.{l}.");
        let split = |t: Tensor| -> Result<Tensor> {
            t.reshape((batch, len, heads, hd))?
                .transpose(1, 2)?
                .contiguous()
        };
        let q = split(lin(&format!("{p}attention.self.query")).forward(&x)?)?;
        let k = split(lin(&format!("{p}attention.self.key")).forward(&x)?)?;
        let v = split(lin(&format!("{p}attention.self.value")).forward(&x)?)?;
        let scores =
            (q.matmul(&k.t()?.contiguous()?)? / (hd as f64).sqrt())?.broadcast_add(&bias)?;
        let weights = candle_nn::ops::softmax_last_dim(&scores)?;
        let context = weights
            .matmul(&v)?
            .transpose(1, 2)?
            .reshape((batch, len, c.hidden_size))?;
        let a = format!("{p}attention.output.");
        let attended = ln(
            &format!("{a}LayerNorm.weight"),
            &format!("{a}LayerNorm.bias"),
        )
        .forward(&lin(&format!("{a}dense")).forward(&context)?.add(&x)?)?;
        let inner = lin(&format!("{p}intermediate.dense")).forward(&attended)?;
        let inner = match c.hidden_act.as_str() {
            "relu" => inner.relu()?,
            "gelu_new" => inner.gelu()?,
            _ => inner.gelu_erf()?,
        };
        x = ln(
            &format!("{p}output.LayerNorm.weight"),
            &format!("{p}output.LayerNorm.bias"),
        )
        .forward(
            &lin(&format!("{p}output.dense"))
                .forward(&inner)?
                .add(&attended)?,
        )?;
    }
    Ok(x)
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b))
}

#[test]
fn packed_sequences_match_the_padded_reference_token_by_token() {
    for act in ["gelu", "gelu_new", "relu"] {
        let c = config(act);
        let m = weights(&c);
        let vb = VarBuilder::from_tensors(m.clone(), DType::F32, &Device::Cpu);
        let bert = Bert::load(vb, &c).unwrap();
        // Three texts of different lengths; the reference pads them to 20.
        let seqs: Vec<Vec<u32>> = [20usize, 7, 1]
            .iter()
            .enumerate()
            .map(|(s, &n)| (0..n).map(|i| ((i * 7 + s * 3) % 40) as u32).collect())
            .collect();
        let types: Vec<Vec<u32>> = seqs.iter().map(|s| vec![0; s.len()]).collect();
        let packed: Vec<(&[u32], &[u32])> = seqs
            .iter()
            .zip(&types)
            .map(|(s, t)| (s.as_slice(), t.as_slice()))
            .collect();
        let ours = bert.encode(&packed).unwrap();
        let len = 20;
        let mut ids = Vec::new();
        let mut mask = Vec::new();
        for s in &seqs {
            ids.extend(
                s.iter()
                    .copied()
                    .chain(std::iter::repeat_n(0, len - s.len())),
            );
            mask.extend((0..len).map(|i| u32::from(i < s.len())));
        }
        let ids = Tensor::from_vec(ids, (3, len), &Device::Cpu).unwrap();
        let mask = Tensor::from_vec(mask, (3, len), &Device::Cpu).unwrap();
        let want = reference(&m, &c, &ids, &mask).unwrap();
        let want: Vec<Vec<Vec<f32>>> = want.to_vec3().unwrap();
        let mut rows = ours.chunks_exact(c.hidden_size);
        for (s, seq) in seqs.iter().enumerate() {
            for (t, w) in want[s].iter().enumerate().take(seq.len()) {
                let got = rows.next().unwrap();
                let cos = cosine(got, w);
                let diff = got.iter().zip(w).map(|(a, b)| (a - b).abs());
                let diff = diff.fold(0.0f32, f32::max);
                assert!(
                    cos > 0.99999 && diff < 1e-3,
                    "{act}: text {s} token {t}: cosine {cos}, largest difference {diff}"
                );
            }
        }
        assert!(rows.next().is_none());
        // A token outside the vocabulary is an error, not a panic.
        assert!(bert.encode(&[(&[40], &[0])]).is_err());
    }
}
