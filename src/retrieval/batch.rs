//! Padding a batch of token-id sequences for candle encoders (the e5
//! embedder and the cross-encoder share it).

use candle_core::{Device, Tensor};

/// Pads `seqs` to the longest one with `pad_id` and returns `(input_ids,
/// attention_mask)`, both `(batch, max_len)` u32 tensors; the mask is 1 on real
/// tokens and 0 on padding. Callers handle an empty batch before calling.
///
/// # Errors
/// A candle tensor error.
pub fn padded(seqs: &[&[u32]], pad_id: u32, device: &Device) -> candle_core::Result<(Tensor, Tensor)> {
    let b = seqs.len();
    let len = seqs.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut ids = Vec::with_capacity(b * len);
    let mut mask = Vec::with_capacity(b * len);
    for s in seqs {
        ids.extend_from_slice(s);
        ids.extend(std::iter::repeat_n(pad_id, len - s.len()));
        mask.extend(std::iter::repeat_n(1u32, s.len()));
        mask.extend(std::iter::repeat_n(0u32, len - s.len()));
    }
    Ok((Tensor::from_vec(ids, (b, len), device)?, Tensor::from_vec(mask, (b, len), device)?))
}

/// A candle error as a one-line message for users: without the backtrace
/// candle appends when `RUST_BACKTRACE` is set, and without the file path it
/// adds (callers name the file themselves).
pub fn candle_message(e: &candle_core::Error) -> String {
    match e {
        candle_core::Error::WithBacktrace { inner, .. } | candle_core::Error::WithPath { inner, .. } => {
            candle_message(inner)
        }
        other => other.to_string(),
    }
}
