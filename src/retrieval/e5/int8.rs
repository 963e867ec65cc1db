//! Quantised linear layers for the e5 encoder: `y = x·Wᵀ + b` with the
//! weights stored as i8 (symmetric, one scale per output channel, quantised
//! once at load) and the activations quantised per row to u8 at each call
//! (asymmetric: a scale and a zero point per row, from the row's min and max).
//!
//! The product is accumulated exactly in i32 and turned back into f32 as
//! `((acc − zero·Σw) as f32 · s_row) · s_col + bias`. On CPUs with AVX-512
//! VNNI (Intel Ice Lake and later, AMD Zen 4 and later) the accumulation runs
//! in `vpdpbusd` (64 u8×i8 products per instruction) over 6-row × 64-column
//! register tiles; elsewhere a plain-Rust loop computes the same integers and
//! the same f32 expression, so both paths give bit-identical outputs. The
//! choice is made at run time (`is_x86_feature_detected!`). Rows are split
//! over rayon's pool (`RAYON_NUM_THREADS`).

use rayon::prelude::*;

/// Output columns per packed weight panel (four 16-lane vectors).
const PANEL: usize = 64;
/// Rows per register tile of the VNNI kernel.
const TILE_ROWS: usize = 6;
/// Rows per parallel task.
const TASK_ROWS: usize = 48;

/// A linear layer with i8 weights, packed for the VNNI kernel.
#[derive(Debug, Clone)]
pub struct QuantLinear {
    /// Output features.
    n: usize,
    /// Input features.
    k: usize,
    /// `k` rounded up to a multiple of 4 (one `vpdpbusd` lane group).
    kp: usize,
    /// Weights, panel by panel (64 output columns, the last one narrower):
    /// within a panel of width `w`, byte `(k/4)·4w + col·4 + k%4`.
    packed: Vec<i8>,
    /// Per output channel: `max |w| / 127` (1 for an all-zero row).
    scale: Vec<f32>,
    /// Per output channel: sum of its i8 weights (for the zero-point term).
    wsum: Vec<i32>,
    /// Bias, one per output channel.
    bias: Vec<f32>,
}

/// Activations quantised to u8, one scale and zero point per row.
#[derive(Debug, Clone)]
pub struct QuantRows {
    /// Rows.
    m: usize,
    /// Row stride: the input width rounded up to a multiple of 4.
    kp: usize,
    /// `m × kp` bytes; `x ≈ (q − zero) · scale`; padding bytes are 0.
    data: Vec<u8>,
    scale: Vec<f32>,
    zero: Vec<i32>,
}

fn round_up(x: usize, to: usize) -> usize {
    x.div_ceil(to) * to
}

impl QuantLinear {
    /// Quantises a row-major `n × k` weight matrix (PyTorch's `Linear.weight`
    /// layout: one row per output feature) and keeps `bias` (length `n`).
    ///
    /// # Panics
    /// When `weight.len() != n·k` or `bias.len() != n` (a programming error:
    /// the loader checks shapes first).
    pub fn new(weight: &[f32], bias: &[f32], n: usize, k: usize) -> Self {
        assert_eq!(weight.len(), n * k, "weight is n × k");
        assert_eq!(bias.len(), n, "one bias per output");
        let kp = round_up(k, 4);
        let np = round_up(n, 16);
        let mut q = vec![0i8; np * kp];
        let mut scale = vec![1f32; n];
        let mut wsum = vec![0i32; n];
        for c in 0..n {
            let row = &weight[c * k..(c + 1) * k];
            let max = row.iter().fold(0f32, |m, w| m.max(w.abs()));
            if max > 0.0 {
                scale[c] = max / 127.0;
            }
            for (j, w) in row.iter().enumerate() {
                let v = (w / scale[c]).round().clamp(-127.0, 127.0) as i8;
                q[c * kp + j] = v;
                wsum[c] += i32::from(v);
            }
        }
        let mut packed = vec![0i8; np * kp];
        for (c, col) in q.chunks(kp).enumerate() {
            let (panel, within) = (c / PANEL, c % PANEL);
            let width = PANEL.min(np - panel * PANEL);
            let base = panel * PANEL * kp;
            for (j, &v) in col.iter().enumerate() {
                packed[base + (j / 4) * 4 * width + within * 4 + j % 4] = v;
            }
        }
        Self { n, k, kp, packed, scale, wsum, bias: bias.to_vec() }
    }

    /// Output features.
    pub fn out_features(&self) -> usize {
        self.n
    }

    /// Input features.
    pub fn in_features(&self) -> usize {
        self.k
    }

    /// The quantised weight of output `c`, input `j` (for tests).
    pub fn weight_q(&self, c: usize, j: usize) -> i8 {
        let np = round_up(self.n, 16);
        let (panel, within) = (c / PANEL, c % PANEL);
        let width = PANEL.min(np - panel * PANEL);
        self.packed[panel * PANEL * self.kp + (j / 4) * 4 * width + within * 4 + j % 4]
    }

    /// `x · Wᵀ + b` for `rows.m` rows: returns `m × n` f32, row-major.
    ///
    /// # Panics
    /// When `rows` was quantised from rows of another width.
    pub fn forward(&self, rows: &QuantRows) -> Vec<f32> {
        assert_eq!(rows.kp, self.kp, "input width");
        let mut out = vec![0f32; rows.m * self.n];
        let vnni = vnni_available();
        out.par_chunks_mut(TASK_ROWS * self.n).enumerate().for_each(|(task, chunk)| {
            let first = task * TASK_ROWS;
            let count = chunk.len() / self.n;
            if vnni {
                // SAFETY: the CPU has the features (checked above); `chunk`
                // holds exactly `count` rows of `n` outputs and `rows` has
                // `first + count` rows of `kp` bytes.
                #[cfg(target_arch = "x86_64")]
                unsafe {
                    vnni::rows(self, rows, first, count, chunk)
                };
            } else {
                self.rows_portable(rows, first, count, chunk);
            }
        });
        out
    }

    /// The plain-Rust path: the same integers, the same f32 expression.
    fn rows_portable(&self, rows: &QuantRows, first: usize, count: usize, out: &mut [f32]) {
        let np = round_up(self.n, 16);
        for i in 0..count {
            let r = first + i;
            let a = &rows.data[r * self.kp..(r + 1) * self.kp];
            for c in 0..self.n {
                let (panel, within) = (c / PANEL, c % PANEL);
                let width = PANEL.min(np - panel * PANEL);
                let w = &self.packed[panel * PANEL * self.kp..];
                let mut acc = 0i32;
                for (g, a4) in a.chunks_exact(4).enumerate() {
                    let w4 = &w[g * 4 * width + within * 4..][..4];
                    for (x, y) in a4.iter().zip(w4) {
                        acc += i32::from(*x) * i32::from(*y);
                    }
                }
                out[i * self.n + c] = self.dequantise(acc, rows, r, c);
            }
        }
    }

    #[inline]
    fn dequantise(&self, acc: i32, rows: &QuantRows, r: usize, c: usize) -> f32 {
        let exact = acc - rows.zero[r] * self.wsum[c];
        (exact as f32 * rows.scale[r]) * self.scale[c] + self.bias[c]
    }
}

impl QuantRows {
    /// Quantises `m` rows of width `k` (row-major `x`, length `m·k`): each
    /// row's range `[min(0, min), max(0, max)]` maps onto 0..=255.
    ///
    /// # Panics
    /// When `x.len()` is not a multiple of `k`.
    pub fn new(x: &[f32], k: usize) -> Self {
        assert_eq!(x.len() % k.max(1), 0, "whole rows");
        let m = x.len().checked_div(k).unwrap_or(0);
        let kp = round_up(k, 4);
        let mut data = vec![0u8; m * kp];
        let mut scale = vec![1f32; m];
        let mut zero = vec![0i32; m];
        data.par_chunks_mut(kp.max(1) * 16)
            .zip(scale.par_chunks_mut(16))
            .zip(zero.par_chunks_mut(16))
            .enumerate()
            .for_each(|(task, ((d, s), z))| {
                for (i, ((dr, sr), zr)) in d.chunks_mut(kp).zip(s).zip(z).enumerate() {
                    let r = task * 16 + i;
                    quantise_row(&x[r * k..(r + 1) * k], dr, sr, zr);
                }
            });
        Self { m, kp, data, scale, zero }
    }

    /// Rows held.
    pub fn rows(&self) -> usize {
        self.m
    }

    /// The quantised value of row `r`, column `j`, its scale and zero point
    /// (for tests).
    pub fn get(&self, r: usize, j: usize) -> (u8, f32, i32) {
        (self.data[r * self.kp + j], self.scale[r], self.zero[r])
    }
}

fn quantise_row(x: &[f32], out: &mut [u8], scale: &mut f32, zero: &mut i32) {
    #[cfg(target_arch = "x86_64")]
    if avx512_available() {
        // SAFETY: the feature was detected.
        unsafe { quantise_row_avx512(x, out, scale, zero) };
        return;
    }
    quantise_row_impl(x, out, scale, zero);
}

/// [`quantise_row_impl`] compiled for AVX-512 (same operations, so the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn quantise_row_avx512(x: &[f32], out: &mut [u8], scale: &mut f32, zero: &mut i32) {
    quantise_row_impl(x, out, scale, zero);
}

#[inline(always)]
fn quantise_row_impl(x: &[f32], out: &mut [u8], scale: &mut f32, zero: &mut i32) {
    let (lo, hi) = x.iter().fold((0f32, 0f32), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let s = if hi > lo { (hi - lo) / 255.0 } else { 1.0 };
    // Rounding of a non-negative value: + 0.5, then truncation (a
    // conversion, where `round` would be a libm call without SSE4.1).
    let z = ((-lo / s).clamp(0.0, 255.0) + 0.5) as i32 as f32;
    let inv = 1.0 / s;
    for (q, v) in out.iter_mut().zip(x) {
        *q = ((v * inv + z).clamp(0.0, 255.0) + 0.5) as u8;
    }
    *scale = s;
    *zero = z as i32;
}

/// Whether this CPU has AVX-512 F and BW (the element-wise passes use them).
pub fn avx512_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether this CPU runs the VNNI kernel (AVX-512 F, BW and VNNI).
/// `INQUIRY_E5_NO_VNNI` (any value) forces the portable path, to check it
/// end to end (it gives the same vectors, about 10× slower).
pub fn vnni_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| {
            std::env::var_os("INQUIRY_E5_NO_VNNI").is_none()
                && is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512vnni")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use core::arch::x86_64::*;

    use super::{round_up, QuantLinear, QuantRows, PANEL, TILE_ROWS};

    /// Rows `first..first + count` of `x · Wᵀ + b` into `out` (`count × n`).
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, BW and VNNI; `rows` must hold at least
    /// `first + count` rows of `w.kp` bytes and `out` `count · w.n` floats.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn rows(w: &QuantLinear, rows: &QuantRows, first: usize, count: usize, out: &mut [f32]) {
        let np = round_up(w.n, 16);
        let mut panel_start = 0;
        while panel_start < np {
            let width = PANEL.min(np - panel_start);
            let mut r = 0;
            while r < count {
                let mr = TILE_ROWS.min(count - r);
                macro_rules! go {
                    ($m:literal) => {
                        match width / 16 {
                            4 => tile::<$m, 4>(w, rows, first + r, panel_start, out, r),
                            3 => tile::<$m, 3>(w, rows, first + r, panel_start, out, r),
                            2 => tile::<$m, 2>(w, rows, first + r, panel_start, out, r),
                            _ => tile::<$m, 1>(w, rows, first + r, panel_start, out, r),
                        }
                    };
                }
                match mr {
                    6 => go!(6),
                    5 => go!(5),
                    4 => go!(4),
                    3 => go!(3),
                    2 => go!(2),
                    _ => go!(1),
                }
                r += mr;
            }
            panel_start += width;
        }
    }

    /// One `M × 16V` register tile over the whole input width, then the
    /// f32 epilogue.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    unsafe fn tile<const M: usize, const V: usize>(
        w: &QuantLinear,
        rows: &QuantRows,
        row0: usize,
        col0: usize,
        out: &mut [f32],
        out_row0: usize,
    ) {
        let kp = w.kp;
        let width = V * 16;
        let panel = w.packed.as_ptr().add(col0 * kp);
        let a = rows.data.as_ptr().add(row0 * kp);
        let mut acc = [[_mm512_setzero_si512(); V]; M];
        for g in 0..kp / 4 {
            let wp = panel.add(g * 4 * width);
            let mut wv = [_mm512_setzero_si512(); V];
            for (v, slot) in wv.iter_mut().enumerate() {
                *slot = _mm512_loadu_si512(wp.add(v * 64).cast());
            }
            for (i, acc_row) in acc.iter_mut().enumerate() {
                let bytes = a.add(i * kp + g * 4).cast::<i32>().read_unaligned();
                let av = _mm512_set1_epi32(bytes);
                for v in 0..V {
                    acc_row[v] = _mm512_dpbusd_epi32(acc_row[v], av, wv[v]);
                }
            }
        }
        let n = w.n;
        for (i, acc_row) in acc.iter().enumerate() {
            let r = row0 + i;
            let zero = _mm512_set1_epi32(rows.zero[r]);
            let s_row = _mm512_set1_ps(rows.scale[r]);
            let dst = out.as_mut_ptr().add((out_row0 + i) * n);
            for (v, accv) in acc_row.iter().enumerate() {
                let c = col0 + v * 16;
                if c >= n {
                    break;
                }
                let valid = (n - c).min(16);
                let mask: __mmask16 = if valid == 16 { 0xffff } else { (1u16 << valid) - 1 };
                let wsum = _mm512_maskz_loadu_epi32(mask, w.wsum.as_ptr().add(c));
                let s_col = _mm512_maskz_loadu_ps(mask, w.scale.as_ptr().add(c));
                let bias = _mm512_maskz_loadu_ps(mask, w.bias.as_ptr().add(c));
                let exact = _mm512_sub_epi32(*accv, _mm512_mullo_epi32(zero, wsum));
                let y = _mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(exact), s_row), s_col), bias);
                _mm512_mask_storeu_ps(dst.add(c), mask, y);
            }
        }
    }
}

#[cfg(test)]
#[path = "int8_tests.rs"]
mod tests;
