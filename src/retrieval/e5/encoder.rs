//! The e5 BERT encoder of our own (engine `int8-vnni-v1`): the four linear
//! layers of each transformer block run as [`QuantLinear`] (i8 weights,
//! per-row u8 activations); embeddings, layer norm, attention, softmax and
//! GELU stay in f32.
//!
//! Sequences are not padded: the tokens of a batch are concatenated into one
//! `tokens × hidden` matrix for the linear layers, and attention runs per
//! sequence over its own tokens. A sequence's vector therefore does not depend
//! on what else is in the batch (each row is quantised on its own).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use candle_core::{Device, Tensor};
use candle_transformers::models::bert::{Config, HiddenAct};
use rayon::prelude::*;

use super::int8::{avx512_available, QuantLinear, QuantRows};
use crate::retrieval::batch::candle_message;
use crate::retrieval::embed::normalise;
use crate::retrieval::mapped::{F32s, MappedF32};

/// Rows per parallel task of the element-wise passes.
const ROWS_PER_TASK: usize = 32;

/// Layer-norm parameters.
#[derive(Debug)]
struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

/// One transformer block.
#[derive(Debug)]
struct Block {
    /// Query, key and value in one `3h × h` layer (outputs q | k | v).
    qkv: QuantLinear,
    attn_out: QuantLinear,
    norm1: Norm,
    up: QuantLinear,
    down: QuantLinear,
    norm2: Norm,
}

/// A BERT encoder with quantised linear layers, mean-pooled output.
#[derive(Debug)]
pub struct Encoder {
    hidden: usize,
    heads: usize,
    eps: f32,
    vocab: usize,
    max_positions: usize,
    /// `vocab × hidden`, f32 (a lookup, not a product: kept exact), mapped
    /// from the weights file when it holds f32.
    word: F32s,
    /// `max_positions × hidden`.
    position: Vec<f32>,
    /// Token type 0 (the only one e5 uses).
    token_type: Vec<f32>,
    norm: Norm,
    blocks: Vec<Block>,
}

/// Reads the tensors of a safetensors file by name, with or without the
/// `bert.` prefix HF checkpoints sometimes carry. f32 files (what
/// `scripts/fetch-models` writes) are read in place from a mapping; other
/// dtypes go through candle, which converts them.
enum Weights {
    Mapped { map: Arc<memmap2::Mmap>, data_start: usize, meta: safetensors::tensor::Metadata },
    Candle(HashMap<String, Tensor>),
}

impl Weights {
    fn open(path: &Path) -> Result<Self, String> {
        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        // SAFETY: mapped read-only; the model files are not changed while
        // loaded (as for candle's own mapped loading).
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| e.to_string())?;
        let (header, meta) = safetensors::SafeTensors::read_metadata(&map).map_err(|e| e.to_string())?;
        if meta.tensors().values().all(|t| t.dtype == safetensors::Dtype::F32) {
            return Ok(Self::Mapped { map: Arc::new(map), data_start: 8 + header, meta });
        }
        drop(map);
        Ok(Self::Candle(candle_core::safetensors::load(path, &Device::Cpu).map_err(|e| candle_message(&e))?))
    }

    fn check(name: &str, dims: &[usize], shape: &[usize]) -> Result<(), String> {
        if dims != shape {
            return Err(format!("tensor {name} has shape {dims:?}, the config implies {shape:?}"));
        }
        Ok(())
    }

    /// A tensor's values, mapped in place when possible.
    fn table(&self, name: &str, shape: &[usize]) -> Result<F32s, String> {
        match self {
            Self::Mapped { map, data_start, meta } => {
                let (key, info) = [name.to_owned(), format!("bert.{name}")]
                    .into_iter()
                    .find_map(|k| meta.info(&k).map(|i| (k.clone(), i)))
                    .ok_or_else(|| format!("tensor {name} is missing"))?;
                Self::check(&key, &info.shape, shape)?;
                let (a, b) = info.data_offsets;
                let len = shape.iter().product::<usize>();
                if b.checked_sub(a) != Some(len * 4) {
                    return Err(format!("tensor {key}: its data does not fit its shape"));
                }
                let start = data_start + a;
                match MappedF32::new(map.clone(), start, len) {
                    Some(m) => Ok(F32s::Mapped(m)),
                    // Not 4-byte aligned in the file: copy it out.
                    None => map
                        .get(start..start + len * 4)
                        .map(|bytes| {
                            F32s::Owned(
                                bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
                            )
                        })
                        .ok_or_else(|| format!("tensor {key}: the file is truncated")),
                }
            }
            Self::Candle(tensors) => {
                let t = tensors
                    .get(name)
                    .or_else(|| tensors.get(&format!("bert.{name}")))
                    .ok_or_else(|| format!("tensor {name} is missing"))?;
                Self::check(name, t.dims(), shape)?;
                let t = t.to_dtype(candle_core::DType::F32).and_then(|t| t.flatten_all());
                t.and_then(|t| t.to_vec1::<f32>())
                    .map(F32s::Owned)
                    .map_err(|e| format!("tensor {name}: {}", candle_message(&e)))
            }
        }
    }

    fn get(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        Ok(self.table(name, shape)?.to_vec())
    }

    fn linear(&self, prefix: &str, n: usize, k: usize) -> Result<(Vec<f32>, Vec<f32>), String> {
        Ok((self.get(&format!("{prefix}.weight"), &[n, k])?, self.get(&format!("{prefix}.bias"), &[n])?))
    }

    fn norm(&self, prefix: &str, h: usize) -> Result<Norm, String> {
        Ok(Norm {
            gamma: self.get(&format!("{prefix}.weight"), &[h])?,
            beta: self.get(&format!("{prefix}.bias"), &[h])?,
        })
    }
}

impl Encoder {
    /// Loads `model.safetensors` for `config` and quantises the linear layers.
    ///
    /// # Errors
    /// An unreadable file, a missing tensor or one whose shape does not fit
    /// the config, or a config this encoder does not implement (activation
    /// other than exact GELU, heads not dividing the hidden size); the message
    /// names the tensor or field.
    pub fn load(weights: &Path, config: &Config) -> Result<Self, String> {
        if !matches!(config.hidden_act, HiddenAct::Gelu) {
            return Err(format!("hidden_act {:?} is not supported (gelu only)", config.hidden_act));
        }
        let (h, f) = (config.hidden_size, config.intermediate_size);
        if config.num_attention_heads == 0 || h % config.num_attention_heads != 0 {
            return Err(format!("num_attention_heads {} does not divide hidden_size {h}", config.num_attention_heads));
        }
        let w = Weights::open(weights)?;
        // 250,037 × 384 f32 (384 MB): looked up, not multiplied, so it stays in
        // the mapping and only the rows of tokens seen are read.
        let word = w.table("embeddings.word_embeddings.weight", &[config.vocab_size, h])?;
        let position = w.get("embeddings.position_embeddings.weight", &[config.max_position_embeddings, h])?;
        let token_type = w.get("embeddings.token_type_embeddings.weight", &[config.type_vocab_size, h])?;
        let norm = w.norm("embeddings.LayerNorm", h)?;
        let blocks = (0..config.num_hidden_layers)
            .into_par_iter()
            .map(|i| {
                let p = format!("encoder.layer.{i}");
                let (mut qkv_w, mut qkv_b) = w.linear(&format!("{p}.attention.self.query"), h, h)?;
                for part in ["key", "value"] {
                    let (wt, b) = w.linear(&format!("{p}.attention.self.{part}"), h, h)?;
                    qkv_w.extend(wt);
                    qkv_b.extend(b);
                }
                let (ao_w, ao_b) = w.linear(&format!("{p}.attention.output.dense"), h, h)?;
                let (up_w, up_b) = w.linear(&format!("{p}.intermediate.dense"), f, h)?;
                let (down_w, down_b) = w.linear(&format!("{p}.output.dense"), h, f)?;
                Ok(Block {
                    qkv: QuantLinear::new(&qkv_w, &qkv_b, 3 * h, h),
                    attn_out: QuantLinear::new(&ao_w, &ao_b, h, h),
                    norm1: w.norm(&format!("{p}.attention.output.LayerNorm"), h)?,
                    up: QuantLinear::new(&up_w, &up_b, f, h),
                    down: QuantLinear::new(&down_w, &down_b, h, f),
                    norm2: w.norm(&format!("{p}.output.LayerNorm"), h)?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Self {
            hidden: h,
            heads: config.num_attention_heads,
            eps: config.layer_norm_eps as f32,
            vocab: config.vocab_size,
            max_positions: config.max_position_embeddings,
            word,
            position,
            token_type: token_type[..h].to_vec(),
            norm,
            blocks,
        })
    }

    /// Output width (the hidden size).
    pub fn dims(&self) -> usize {
        self.hidden
    }

    /// Mean-pooled, L2-normalised last hidden states of each sequence (token
    /// ids with specials, at most `max_position_embeddings` long; an empty
    /// sequence gives a zero vector).
    ///
    /// # Errors
    /// A token id outside the vocabulary or a sequence longer than the
    /// position table.
    pub fn embed(&self, seqs: &[&[u32]]) -> Result<Vec<Vec<f32>>, String> {
        let h = self.hidden;
        let mut starts = Vec::with_capacity(seqs.len() + 1);
        starts.push(0usize);
        for s in seqs {
            if s.len() > self.max_positions {
                return Err(format!("{} tokens, the model has {} positions", s.len(), self.max_positions));
            }
            if let Some(&bad) = s.iter().find(|&&id| id as usize >= self.vocab) {
                return Err(format!("token id {bad} is outside the vocabulary ({})", self.vocab));
            }
            starts.push(starts.last().copied().unwrap_or(0) + s.len());
        }
        let total = starts[seqs.len()];
        let mut x = vec![0f32; total * h];
        for (s, seq) in seqs.iter().enumerate() {
            for (p, &id) in seq.iter().enumerate() {
                let row = &mut x[(starts[s] + p) * h..][..h];
                let (word, pos) = (&self.word[id as usize * h..][..h], &self.position[p * h..][..h]);
                for j in 0..h {
                    row[j] = word[j] + self.token_type[j] + pos[j];
                }
            }
        }
        layer_norm(&mut x, None, &self.norm, h, self.eps);
        for b in &self.blocks {
            let qkv = b.qkv.forward(&QuantRows::new(&x, h));
            let ctx = self.attention(&qkv, &starts);
            let a = b.attn_out.forward(&QuantRows::new(&ctx, h));
            layer_norm(&mut x, Some(&a), &b.norm1, h, self.eps);
            let mut u = b.up.forward(&QuantRows::new(&x, h));
            gelu(&mut u);
            let d = b.down.forward(&QuantRows::new(&u, b.up.out_features()));
            layer_norm(&mut x, Some(&d), &b.norm2, h, self.eps);
        }
        Ok(starts
            .windows(2)
            .map(|w| {
                let mut v = vec![0f32; h];
                if w[1] > w[0] {
                    for row in x[w[0] * h..w[1] * h].chunks_exact(h) {
                        for (a, b) in v.iter_mut().zip(row) {
                            *a += b;
                        }
                    }
                    let n = (w[1] - w[0]) as f32;
                    v.iter_mut().for_each(|a| *a /= n);
                    normalise(&mut v);
                }
                v
            })
            .collect())
    }

    /// Scaled dot-product attention per sequence and head over `qkv`
    /// (`tokens × 3h`, q | k | v); returns the context, `tokens × h`.
    fn attention(&self, qkv: &[f32], starts: &[usize]) -> Vec<f32> {
        let h = self.hidden;
        let scale = 1.0 / ((h / self.heads) as f32).sqrt();
        let total = starts.last().copied().unwrap_or(0);
        let mut ctx = vec![0f32; total * h];
        // Split the context into each sequence's rows.
        let mut parts: Vec<(usize, &mut [f32])> = Vec::with_capacity(starts.len());
        let mut rest = ctx.as_mut_slice();
        for w in starts.windows(2) {
            let (mine, tail) = rest.split_at_mut((w[1] - w[0]) * h);
            parts.push((w[0], mine));
            rest = tail;
        }
        let heads = self.heads;
        parts.into_par_iter().for_each(|(start, out)| {
            #[cfg(target_arch = "x86_64")]
            if avx512_available() {
                // SAFETY: the feature was detected.
                unsafe { attend_avx512(qkv, start, out, h, heads, scale) };
                return;
            }
            attend(qkv, start, out, h, heads, scale);
        });
        ctx
    }
}

/// One sequence's attention: `out` holds its `len × h` context rows,
/// `qkv` the whole batch's `tokens × 3h` projections from row `start` on.
#[inline(always)]
fn attend(qkv: &[f32], start: usize, out: &mut [f32], h: usize, heads: usize, scale: f32) {
    let d = h / heads;
    let len = out.len() / h;
    let mut scores = vec![0f32; len];
    for head in 0..heads {
        let off = head * d;
        for i in 0..len {
            let q = &qkv[(start + i) * 3 * h + off..][..d];
            let mut max = f32::NEG_INFINITY;
            for (j, s) in scores.iter_mut().enumerate() {
                let k = &qkv[(start + j) * 3 * h + h + off..][..d];
                *s = dot(q, k) * scale;
                max = max.max(*s);
            }
            let mut sum = 0f32;
            for s in scores.iter_mut() {
                *s = exp(*s - max);
                sum += *s;
            }
            let o = &mut out[i * h + off..][..d];
            for (j, s) in scores.iter().enumerate() {
                let v = &qkv[(start + j) * 3 * h + 2 * h + off..][..d];
                let p = s / sum;
                for (a, b) in o.iter_mut().zip(v) {
                    *a += p * b;
                }
            }
        }
    }
}

/// [`attend`] compiled for AVX-512 (same operations, so the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn attend_avx512(qkv: &[f32], start: usize, out: &mut [f32], h: usize, heads: usize, scale: f32) {
    attend(qkv, start, out, h, heads, scale);
}

/// `e^x` for f32 (Cephes `expf`: range reduction by ln 2 in two parts, a
/// degree-5 polynomial; about 1 ulp), in plain arithmetic so loops over it
/// vectorise. Inputs below −87 give `e^−87` rather than 0.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    let x = x.clamp(-87.0, 88.0);
    // Round to nearest: floor(x·log2 e + 0.5), with floor done by truncation
    // of a value shifted to be positive (x·log2 e ≥ −125.6).
    let n = ((x * std::f32::consts::LOG2_E + 0.5 + 128.0) as i32 - 128) as f32;
    let r = x - n * 0.693_359_4 - n * -2.121_944_4e-4;
    let mut p = 1.987_569_1e-4f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let y = p * r * r + r + 1.0;
    y * f32::from_bits(((n as i32 + 127) << 23) as u32)
}

/// Dot product with eight independent partial sums (vectorises).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `x ← LayerNorm(x + add)` row by row (width `h`).
fn layer_norm(x: &mut [f32], add: Option<&[f32]>, norm: &Norm, h: usize, eps: f32) {
    x.par_chunks_mut(h * ROWS_PER_TASK).enumerate().for_each(|(task, rows)| {
        let add = add.map(|a| &a[task * ROWS_PER_TASK * h..][..rows.len()]);
        #[cfg(target_arch = "x86_64")]
        if avx512_available() {
            // SAFETY: the feature was detected.
            unsafe { norm_rows_avx512(rows, add, norm, h, eps) };
            return;
        }
        norm_rows(rows, add, norm, h, eps);
    });
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn norm_rows_avx512(rows: &mut [f32], add: Option<&[f32]>, norm: &Norm, h: usize, eps: f32) {
    norm_rows(rows, add, norm, h, eps);
}

#[inline(always)]
fn norm_rows(rows: &mut [f32], add: Option<&[f32]>, norm: &Norm, h: usize, eps: f32) {
    for (i, row) in rows.chunks_exact_mut(h).enumerate() {
        if let Some(add) = add {
            for (a, b) in row.iter_mut().zip(&add[i * h..][..h]) {
                *a += b;
            }
        }
        let mean = row.iter().sum::<f32>() / h as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(&norm.gamma).zip(&norm.beta) {
            *v = (*v - mean) * inv * g + b;
        }
    }
}

/// Exact (erf) GELU in place: `x · (1 + erf(x/√2)) / 2`.
fn gelu(x: &mut [f32]) {
    x.par_chunks_mut(4096).for_each(|c| {
        #[cfg(target_arch = "x86_64")]
        if avx512_available() {
            // SAFETY: the feature was detected just above.
            unsafe { gelu_avx512(c) };
            return;
        }
        gelu_slice(c);
    });
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn gelu_avx512(x: &mut [f32]) {
    gelu_slice(x);
}

#[inline(always)]
fn gelu_slice(x: &mut [f32]) {
    for v in x.iter_mut() {
        *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// erf for f32: Eigen's rational approximation (`generic_fast_erf_float`,
/// odd degree-13 numerator over even degree-8 denominator on [-4, 4]; outside
/// that range erf is ±1 in f32), a few ulp from the exact value.
#[inline(always)]
pub(crate) fn erf(a: f32) -> f32 {
    let x = a.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = x2 * -2.726_142_3e-10 + 2.770_681_4e-8;
    p = x2 * p + -2.101_024e-6;
    p = x2 * p + -5.692_506_4e-5;
    p = x2 * p + -7.349_906_3e-4;
    p = x2 * p + -2.954_6e-3;
    p = x2 * p + -1.609_603_3e-2;
    p *= x;
    let mut q = x2 * -1.456_607_2e-5 + -2.133_740_6e-4;
    q = x2 * q + -1.682_827e-3;
    q = x2 * q + -7.373_329_2e-3;
    q = x2 * q + -1.426_473_9e-2;
    p / q
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GELU against candle's `gelu_erf` (the f32 engine's activation).
    #[test]
    fn gelu_matches_candles_exact_gelu() {
        let xs: Vec<f32> = (-8000..=8000).map(|i| i as f32 / 1000.0).collect();
        let want = Tensor::new(xs.as_slice(), &Device::Cpu).unwrap().gelu_erf().unwrap().to_vec1::<f32>().unwrap();
        let mut got = xs.clone();
        gelu(&mut got);
        for ((x, g), w) in xs.iter().zip(&got).zip(&want) {
            assert!((g - w).abs() <= 2e-6 * (1.0 + w.abs()), "gelu({x}) = {g}, candle {w}");
        }
    }

    #[test]
    fn exp_is_within_two_ulp_of_std() {
        for i in -87_000..=10_000 {
            let x = i as f32 / 1000.0;
            let (got, want) = (exp(x), x.exp());
            assert!((got - want).abs() <= 2.5e-7 * want, "exp({x}) = {got}, std {want}");
        }
        assert!(exp(-1000.0) > 0.0 && exp(-1000.0) < 1e-37, "clamped, finite");
    }

    #[test]
    fn dot_and_layer_norm_compute_what_they_say() {
        let a: Vec<f32> = (0..13).map(|i| i as f32).collect();
        assert_eq!(dot(&a, &a), (0..13).map(|i| (i * i) as f32).sum::<f32>());
        let norm = Norm { gamma: vec![2.0; 4], beta: vec![1.0; 4] };
        let mut x = vec![1.0, 2.0, 3.0, 4.0];
        layer_norm(&mut x, Some(&[1.0, 1.0, 1.0, 1.0]), &norm, 4, 0.0);
        // mean 3.5, variance 1.25: (v − 3.5)/√1.25 · 2 + 1.
        let want: Vec<f32> = [2.0f32, 3.0, 4.0, 5.0].iter().map(|v| (v - 3.5) / 1.25f32.sqrt() * 2.0 + 1.0).collect();
        for (g, w) in x.iter().zip(&want) {
            assert!((g - w).abs() < 1e-6, "{x:?} vs {want:?}");
        }
    }
}
