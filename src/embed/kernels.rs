//! The encoder's arithmetic on plain f32 rows: matrix products (the
//! `gemm` crate, its AVX-512 or AVX2 kernel picked at run time), layer
//! norm, softmax and GELU, each spread over the cores with rayon. The
//! elementwise functions are compiled for AVX-512 and AVX2 as well as the
//! baseline and the one the CPU runs is picked at run time, so a binary
//! built for any x86-64 uses the wide registers where they exist.

use gemm::Parallelism;
use rayon::prelude::*;

/// Runs `$f(args)` compiled for the widest vector extension the CPU has.
macro_rules! wide {
    ($f:ident($($arg:expr),*)) => {{
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F (detected just above).
                unsafe { wide::avx512::$f($($arg),*) }
            } else if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the CPU has AVX2 and FMA (detected just above).
                unsafe { wide::avx2::$f($($arg),*) }
            } else {
                wide::$f($($arg),*)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            wide::$f($($arg),*)
        }
    }};
}

/// A matrix read through strides: element (r, c) is `data[r * rs + c * cs]`.
#[derive(Clone, Copy)]
pub struct View<'a> {
    pub data: &'a [f32],
    pub rs: usize,
    pub cs: usize,
}

impl View<'_> {
    /// Whether every element of a `rows` × `cols` matrix is inside `data`.
    fn holds(&self, rows: usize, cols: usize) -> bool {
        rows == 0 || cols == 0 || (rows - 1) * self.rs + (cols - 1) * self.cs < self.data.len()
    }
}

/// Whether a product of this size is worth the cores (else one thread).
fn parallelism(m: usize, n: usize, k: usize) -> Parallelism {
    let threads = rayon::current_num_threads();
    if threads > 1 && m * n * k >= 1 << 16 && rayon::current_thread_index().is_none() {
        Parallelism::Rayon(threads)
    } else {
        Parallelism::None
    }
}

/// `dst` (m × n, rows `dst_rs` apart) = `dst` (when `add`, else 0) +
/// `scale` · `lhs` (m × k) · `rhs` (k × n).
#[allow(clippy::too_many_arguments)]
pub fn matmul(
    (m, n, k): (usize, usize, usize),
    dst: &mut [f32],
    dst_rs: usize,
    lhs: View,
    rhs: View,
    add: bool,
    scale: f32,
) {
    if m == 0 || n == 0 {
        return;
    }
    let out = View {
        data: dst,
        rs: dst_rs,
        cs: 1,
    };
    assert!(
        out.holds(m, n) && lhs.holds(m, k) && rhs.holds(k, n),
        "matrix product out of bounds"
    );
    // SAFETY: the three matrices lie inside their slices (checked above),
    // `dst` is borrowed mutably and so overlaps neither operand, and gemm
    // writes only the m × n elements of `dst` it is given.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            dst_rs as isize,
            add,
            lhs.data.as_ptr(),
            lhs.cs as isize,
            lhs.rs as isize,
            rhs.data.as_ptr(),
            rhs.cs as isize,
            rhs.rs as isize,
            1.0,
            scale,
            false,
            false,
            false,
            parallelism(m, n, k),
        );
    }
}

/// A linear layer: `w` is (out, in), row-major (as PyTorch stores it).
pub struct Dense {
    pub w: Vec<f32>,
    pub b: Vec<f32>,
    pub n_in: usize,
    pub n_out: usize,
}

impl Dense {
    /// `x` (rows × n_in) · wᵀ + b, plus `residual` (rows × n_out) if given.
    pub fn apply(&self, x: &[f32], rows: usize, residual: Option<&[f32]>) -> Vec<f32> {
        let mut out = Vec::with_capacity(rows * self.n_out);
        match residual {
            Some(r) => {
                for row in r.chunks_exact(self.n_out) {
                    out.extend(row.iter().zip(&self.b).map(|(a, b)| a + b));
                }
            }
            None => (0..rows).for_each(|_| out.extend_from_slice(&self.b)),
        }
        if rows <= FEW_ROWS {
            self.add_few(x, rows, &mut out);
            return out;
        }
        let lhs = View {
            data: x,
            rs: self.n_in,
            cs: 1,
        };
        let rhs = View {
            data: &self.w,
            rs: 1,
            cs: self.n_in,
        };
        matmul(
            (rows, self.n_out, self.n_in),
            &mut out,
            self.n_out,
            lhs,
            rhs,
            true,
            1.0,
        );
        out
    }
}

/// Rows up to which a product is dot products straight off the weights
/// (a query's few tokens): gemm would copy the whole weight matrix into
/// its own layout first, which costs more than the arithmetic.
const FEW_ROWS: usize = 16;

/// Weight rows per task of `add_few`.
const WEIGHT_ROWS_PER_TASK: usize = 64;

impl Dense {
    /// `out` (rows × n_out) += `x` · wᵀ, as one dot product per output:
    /// each weight row is read once, from where it lies, the work split
    /// over the cores by weight rows.
    fn add_few(&self, x: &[f32], rows: usize, out: &mut [f32]) {
        let k = self.n_in;
        let mut transposed = vec![0.0f32; self.n_out * rows];
        transposed
            .par_chunks_mut(rows * WEIGHT_ROWS_PER_TASK)
            .zip(self.w.par_chunks(k * WEIGHT_ROWS_PER_TASK))
            .for_each(|(part, w)| wide!(dots(w, k, x, part)));
        for (j, column) in transposed.chunks_exact(rows).enumerate() {
            for (i, v) in column.iter().enumerate() {
                out[i * self.n_out + j] += v;
            }
        }
    }
}

/// A layer norm's scale and shift.
pub struct Norm {
    pub weight: Vec<f32>,
    pub bias: Vec<f32>,
    pub eps: f32,
}

/// Rows handed to one task at a time.
const ROWS_PER_TASK: usize = 16;

impl Norm {
    /// Normalises each row of `x` (rows of `weight.len()`) in place.
    pub fn apply(&self, x: &mut [f32]) {
        let h = self.weight.len();
        x.par_chunks_mut(h * ROWS_PER_TASK).for_each(|rows| {
            for row in rows.chunks_exact_mut(h) {
                let n = h as f32;
                let mean = row.iter().sum::<f32>() / n;
                let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
                let inv = 1.0 / (var + self.eps).sqrt();
                for ((v, w), b) in row.iter_mut().zip(&self.weight).zip(&self.bias) {
                    *v = (*v - mean) * inv * w + b;
                }
            }
        });
    }
}

/// The activation between a block's two linear layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// GELU with the exact error function.
    Gelu,
    /// GELU's tanh approximation (`gelu_new`).
    GeluTanh,
    Relu,
}

/// Applies `act` to every element of `x`.
pub fn activate(x: &mut [f32], act: Act) {
    x.par_chunks_mut(1 << 14).for_each(|part| match act {
        Act::Gelu => wide!(gelu_erf_slice(part)),
        Act::GeluTanh => wide!(gelu_tanh_slice(part)),
        Act::Relu => part.iter_mut().for_each(|v| *v = v.max(0.0)),
    });
}

/// Softmax of each row of `x` (rows of `width`), in place.
pub fn softmax_rows(x: &mut [f32], width: usize) {
    for row in x.chunks_exact_mut(width) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        row.iter_mut().for_each(|v| *v -= max);
        wide!(exp_slice(row));
        let inv = 1.0 / row.iter().sum::<f32>();
        row.iter_mut().for_each(|v| *v *= inv);
    }
}

/// The elementwise functions, written so the compiler vectorises them
/// (no branches, no library calls), and compiled per extension.
mod wide {
    /// e^x for each element, to about 2 ulp (Cephes' `expf`: 2^n times a
    /// polynomial on the remainder).
    #[inline(always)]
    pub fn exp(x: f32) -> f32 {
        let x = x.clamp(-87.0, 88.0);
        // Round x·log2(e) to the nearest integer without a library call.
        let shift = 12_582_912.0f32; // 1.5 · 2^23
        let n = (x * std::f32::consts::LOG2_E + shift) - shift;
        let r = x - n * 0.693_359_4 - n * -2.121_944_4e-4;
        let p = 1.987_569_1e-4f32;
        let p = p.mul_add(r, 1.398_199_9e-3);
        let p = p.mul_add(r, 8.333_452e-3);
        let p = p.mul_add(r, 4.166_579_6e-2);
        let p = p.mul_add(r, 1.666_666_5e-1);
        let p = p.mul_add(r, 0.5);
        let y = p * r * r + r + 1.0;
        y * f32::from_bits(((n as i32 + 127) as u32) << 23)
    }

    /// erf(x), absolute error under 2e-7 (Abramowitz and Stegun 7.1.26).
    #[inline(always)]
    pub fn erf(x: f32) -> f32 {
        let a = x.abs();
        let t = 1.0 / (1.0 + 0.327_591_1 * a);
        let p = 1.061_405_4f32;
        let p = p.mul_add(t, -1.453_152_1);
        let p = p.mul_add(t, 1.421_413_8);
        let p = p.mul_add(t, -0.284_496_74);
        let p = p.mul_add(t, 0.254_829_6);
        let y = 1.0 - p * t * exp(-a * a);
        y.copysign(x)
    }

    /// `out[j * rows + i]` = the dot product of row j of `w` and row i of
    /// `x` (rows of `k`; `rows` = `out.len()` / `w`'s rows).
    #[inline(always)]
    pub fn dots(w: &[f32], k: usize, x: &[f32], out: &mut [f32]) {
        let rows = x.len() / k;
        for (wj, o) in w.chunks_exact(k).zip(out.chunks_exact_mut(rows)) {
            for (xi, oi) in x.chunks_exact(k).zip(o.iter_mut()) {
                *oi = dot(wj, xi);
            }
        }
    }

    /// Lanes summed apart (the compiler keeps them in vector registers).
    const LANES: usize = 32;

    #[inline(always)]
    fn dot(a: &[f32], b: &[f32]) -> f32 {
        let mut acc = [0.0f32; LANES];
        let whole = a.len() / LANES * LANES;
        for (ca, cb) in a[..whole]
            .chunks_exact(LANES)
            .zip(b[..whole].chunks_exact(LANES))
        {
            // Arrays, not slices: no bounds checks, so the lanes vectorise.
            let (ca, cb): (&[f32; LANES], &[f32; LANES]) = match (ca.try_into(), cb.try_into()) {
                (Ok(a), Ok(b)) => (a, b),
                _ => continue,
            };
            for l in 0..LANES {
                acc[l] += ca[l] * cb[l];
            }
        }
        let tail: f32 = a[whole..].iter().zip(&b[whole..]).map(|(x, y)| x * y).sum();
        acc.iter().sum::<f32>() + tail
    }

    #[inline(always)]
    pub fn exp_slice(x: &mut [f32]) {
        x.iter_mut().for_each(|v| *v = exp(*v));
    }

    #[inline(always)]
    pub fn gelu_erf_slice(x: &mut [f32]) {
        x.iter_mut()
            .for_each(|v| *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2)));
    }

    #[inline(always)]
    pub fn gelu_tanh_slice(x: &mut [f32]) {
        // tanh(u) = 1 - 2 / (e^{2u} + 1)
        x.iter_mut().for_each(|v| {
            let u = 0.797_884_6 * (*v + 0.044_715 * *v * *v * *v);
            let tanh = 1.0 - 2.0 / (exp(2.0 * u) + 1.0);
            *v = 0.5 * *v * (1.0 + tanh);
        });
    }

    macro_rules! compiled_for {
        ($name:ident, $features:literal) => {
            pub mod $name {
                #[target_feature(enable = $features)]
                pub fn dots(w: &[f32], k: usize, x: &[f32], out: &mut [f32]) {
                    super::dots(w, k, x, out)
                }
                #[target_feature(enable = $features)]
                pub fn exp_slice(x: &mut [f32]) {
                    super::exp_slice(x)
                }
                #[target_feature(enable = $features)]
                pub fn gelu_erf_slice(x: &mut [f32]) {
                    super::gelu_erf_slice(x)
                }
                #[target_feature(enable = $features)]
                pub fn gelu_tanh_slice(x: &mut [f32]) {
                    super::gelu_tanh_slice(x)
                }
            }
        };
    }
    #[cfg(target_arch = "x86_64")]
    compiled_for!(avx512, "avx512f,avx2,fma");
    #[cfg(target_arch = "x86_64")]
    compiled_for!(avx2, "avx2,fma");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_erf_are_close_to_the_library() {
        for i in -2000..=2000 {
            let x = i as f32 / 100.0;
            let e = wide::exp(x);
            assert!((e - x.exp()).abs() <= 4e-7 * x.exp(), "exp({x}) = {e}");
            let want = candle_core::cpu::erf::erf_f64(f64::from(x)) as f32;
            assert!((wide::erf(x) - want).abs() < 3e-7, "erf({x})");
        }
        let mut v = vec![-3.0f32, -0.5, 0.0, 0.5, 3.0];
        activate(&mut v, Act::Gelu);
        let want = [-0.004_049_7, -0.154_268_7, 0.0, 0.345_731_3, 2.995_950_3];
        for (g, w) in v.iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "{g} {w}");
        }
    }

    #[test]
    fn few_rows_and_many_agree() {
        let (k, n) = (70, 150);
        let w: Vec<f32> = (0..n * k)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        let b: Vec<f32> = (0..n).map(|j| j as f32 / 100.0).collect();
        let dense = Dense {
            w,
            b,
            n_in: k,
            n_out: n,
        };
        let rows = 40;
        let x: Vec<f32> = (0..rows * k)
            .map(|i| ((i * 13 % 29) as f32 - 14.0) / 14.0)
            .collect();
        let many = dense.apply(&x, rows, None);
        for few in [1, 5, FEW_ROWS] {
            let residual = vec![1.0; few * n];
            let got = dense.apply(&x[..few * k], few, Some(&residual));
            for (g, m) in got.iter().zip(&many) {
                assert!((g - (m + 1.0)).abs() < 1e-4, "{few} rows: {g} against {m}");
            }
        }
    }

    #[test]
    fn matmul_reads_through_strides() {
        // (2 × 3) · (3 × 2), the right one stored transposed.
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let bt = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0];
        let mut out = vec![1.0; 4];
        let lhs = View {
            data: &a,
            rs: 3,
            cs: 1,
        };
        let rhs = View {
            data: &bt,
            rs: 1,
            cs: 3,
        };
        matmul((2, 2, 3), &mut out, 2, lhs, rhs, true, 2.0);
        assert_eq!(out, [9.0, 5.0, 21.0, 11.0]);
    }
}
