//! Dense ranking math: cosine over unit vectors, top k, and the fusion of a
//! lexical and a dense score list. Pure: the vectors come from elsewhere
//! (`crate::embed`).

/// A row whose length is not the vectors' dimension.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("vector {row} has dimension {dim}, expected {expected}")]
pub struct OtherDimension {
    pub row: usize,
    pub dim: usize,
    pub expected: usize,
}

/// Unit-length vectors of one dimension, one row per tool.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Vectors {
    dim: usize,
    data: Vec<f32>,
}

impl Vectors {
    /// Rows of length `dim`; a row of another length is an error naming it.
    pub fn new(dim: usize, rows: &[Vec<f32>]) -> Result<Vectors, OtherDimension> {
        let mut data = Vec::with_capacity(rows.len() * dim);
        for (row, r) in rows.iter().enumerate() {
            if r.len() != dim {
                return Err(OtherDimension {
                    row,
                    dim: r.len(),
                    expected: dim,
                });
            }
            data.extend_from_slice(r);
        }
        Ok(Vectors { dim, data })
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.dim).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.data.len() * std::mem::size_of::<f32>()
    }

    /// The dot product of `query` with every row (the cosine, rows and
    /// query being unit length); zeros when the lengths differ.
    pub fn cosines(&self, query: &[f32]) -> Vec<f32> {
        if query.len() != self.dim || self.dim == 0 {
            return vec![0.0; self.len()];
        }
        self.data
            .chunks_exact(self.dim)
            .map(|row| dot(row, query))
            .collect()
    }
}

/// A dot product written so the compiler vectorises it (eight lanes).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// The `k` best (index, score) pairs, best first; ties by index.
pub fn top_k(scores: &[f32], k: usize) -> Vec<(usize, f32)> {
    let mut all: Vec<(usize, f32)> = scores.iter().copied().enumerate().collect();
    let by = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if k < all.len() {
        all.select_nth_unstable_by(k, by);
        all.truncate(k);
    }
    all.sort_by(by);
    all
}

/// Each entry's 1-based rank by descending score (ties by index).
pub fn ranks(scores: &[f32]) -> Vec<usize> {
    let order = top_k(scores, scores.len());
    let mut rank = vec![0; scores.len()];
    for (r, (i, _)) in order.into_iter().enumerate() {
        rank[i] = r + 1;
    }
    rank
}

/// Standard scores: (x - mean) / standard deviation over the whole list;
/// zeros when every entry is equal.
pub fn zscores(scores: &[f32]) -> Vec<f32> {
    let n = scores.len() as f64;
    if n == 0.0 {
        return Vec::new();
    }
    let mean = scores.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
    let var = scores
        .iter()
        .map(|&x| (f64::from(x) - mean).powi(2))
        .sum::<f64>()
        / n;
    let sd = var.sqrt();
    if sd <= f64::EPSILON {
        return vec![0.0; scores.len()];
    }
    scores
        .iter()
        .map(|&x| ((f64::from(x) - mean) / sd) as f32)
        .collect()
}

/// Every tool's score in a list of `n` tools from a ranker's `hits` (0 for
/// the tools it did not return): the lexical list [`fuse`] takes.
pub fn scores_of(hits: &[crate::engine::Hit], n: usize) -> Vec<f32> {
    let mut scores = vec![0.0; n];
    for h in hits {
        if let Some(s) = scores.get_mut(h.doc) {
            *s = h.score;
        }
    }
    scores
}

/// The hybrid score of every tool: `weight` of the lexical list's standard
/// score plus `1 - weight` of the dense list's, both over the whole catalog,
/// counted from the catalog's lowest (so no score is below 0: a standard
/// score below the mean is not a negative match; the order and the gaps
/// are the same).
pub fn fuse(lexical: &[f32], dense: &[f32], weight: f32) -> Vec<f32> {
    let (zl, zd) = (zscores(lexical), zscores(dense));
    let mut fused: Vec<f32> = zl
        .iter()
        .zip(&zd)
        .map(|(l, d)| weight * l + (1.0 - weight) * d)
        .collect();
    let low = fused.iter().copied().fold(f32::INFINITY, f32::min);
    if low.is_finite() {
        for f in &mut fused {
            *f -= low;
        }
    }
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_top_k_and_ranks() {
        let v = Vectors::new(2, &[vec![1.0, 0.0], vec![0.0, 1.0], vec![0.6, 0.8]]).unwrap();
        let c = v.cosines(&[0.0, 1.0]);
        assert_eq!(c, vec![0.0, 1.0, 0.8]);
        assert_eq!(top_k(&c, 2), vec![(1, 1.0), (2, 0.8)]);
        assert_eq!(ranks(&c), vec![3, 1, 2]);
        assert_eq!(
            Vectors::new(2, &[vec![1.0]]).unwrap_err().to_string(),
            "vector 0 has dimension 1, expected 2"
        );
        assert_eq!(v.cosines(&[1.0]), vec![0.0; 3]);
    }

    #[test]
    fn zscores_and_fusion() {
        let hit = |doc, score| crate::engine::Hit {
            doc,
            score,
            exact: false,
        };
        // A doc beyond the list is ignored, not a panic.
        assert_eq!(
            scores_of(&[hit(2, 1.5), hit(0, 0.5), hit(9, 3.0)], 3),
            vec![0.5, 0.0, 1.5]
        );
        assert_eq!(zscores(&[2.0, 2.0]), vec![0.0, 0.0]);
        let z = zscores(&[1.0, 2.0, 3.0]);
        assert!((z[0] + 1.2247).abs() < 1e-3 && z[1].abs() < 1e-6);
        // A tool first in one list and last in the other ties with the
        // reverse at weight 0.5.
        let f = fuse(&[3.0, 0.0, 1.0], &[0.1, 0.9, 0.5], 0.5);
        assert!(f[1] > f[2] || f[0] > f[2]);
        // Counted from the lowest: none below 0, the lowest 0.
        assert_eq!(fuse(&[1.0, 0.0], &[0.0, 1.0], 1.0), vec![2.0, 0.0]);
        let f = fuse(&[0.0, 0.0, 5.0, 1.0], &[0.2, -0.3, 0.1, 0.0], 0.4);
        assert!(f.iter().all(|&x| x >= 0.0) && f.contains(&0.0), "{f:?}");
    }

    #[test]
    fn dot_matches_the_plain_sum() {
        let a: Vec<f32> = (0..19).map(|i| i as f32 * 0.1).collect();
        let b: Vec<f32> = (0..19).map(|i| 1.0 - i as f32 * 0.05).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - plain).abs() < 1e-4);
    }
}
