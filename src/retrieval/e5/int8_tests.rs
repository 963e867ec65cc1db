use super::*;

/// Deterministic xorshift values in `[-1, 1)`.
fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

/// The reference: i32 dot products of the quantised values, written out
/// without packing, then the documented f32 expression.
fn naive(layer: &QuantLinear, rows: &QuantRows) -> Vec<f32> {
    let (n, k) = (layer.out_features(), layer.in_features());
    let mut out = vec![0f32; rows.rows() * n];
    for r in 0..rows.rows() {
        for c in 0..n {
            let (mut acc, mut wsum) = (0i32, 0i32);
            let (_, s_row, zero) = rows.get(r, 0);
            for j in 0..k {
                let w = i32::from(layer.weight_q(c, j));
                acc += i32::from(rows.get(r, j).0) * w;
                wsum += w;
            }
            let exact = acc - zero * wsum;
            out[r * n + c] = (exact as f32 * s_row) * layer.scale[c] + layer.bias[c];
        }
    }
    out
}

/// Shapes with ragged edges: rows not a multiple of the tile, outputs not a
/// multiple of 16 or of the 64-column panel, inputs not a multiple of 4.
const SHAPES: [(usize, usize, usize); 6] =
    [(1, 16, 4), (7, 33, 10), (13, 64, 384), (50, 130, 37), (97, 384, 1536), (6, 1152, 384)];

#[test]
fn kernel_equals_the_naive_integer_reference_exactly() {
    for (seed, &(m, n, k)) in SHAPES.iter().enumerate() {
        let w = random(n * k, 11 + seed as u64);
        let b = random(n, 23 + seed as u64);
        let x: Vec<f32> = random(m * k, 37 + seed as u64).iter().map(|v| v * 3.0 + 0.4).collect();
        let layer = QuantLinear::new(&w, &b, n, k);
        let rows = QuantRows::new(&x, k);
        let got = layer.forward(&rows);
        let want = naive(&layer, &rows);
        assert_eq!(got.len(), m * n);
        for (i, (g, e)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g.to_bits(), e.to_bits(), "shape {m}×{n}×{k}, output {i}: {g} vs {e}");
        }
        // The portable path computes the same bits (it is the fallback
        // wherever VNNI is missing).
        let mut portable = vec![0f32; m * n];
        layer.rows_portable(&rows, 0, m, &mut portable);
        assert_eq!(portable, want, "portable path, shape {m}×{n}×{k}");
    }
    eprintln!("VNNI kernel in use: {}", vnni_available());
}

#[test]
fn quantised_linear_stays_close_to_f32() {
    let (m, n, k) = (40, 96, 384);
    let w: Vec<f32> = random(n * k, 5).iter().map(|v| v * 0.1).collect();
    let b = random(n, 6);
    let x = random(m * k, 7);
    let layer = QuantLinear::new(&w, &b, n, k);
    let got = layer.forward(&QuantRows::new(&x, k));
    let mut worst = 0f32;
    for r in 0..m {
        for c in 0..n {
            let exact: f32 = (0..k).map(|j| x[r * k + j] * w[c * k + j]).sum::<f32>() + b[c];
            // Rounding error bound: each product is off by at most
            // |x|·Δw/2 + |w|·Δx/2 (+ their product); summed over k inputs.
            let dw = w[c * k..(c + 1) * k].iter().fold(0f32, |a, v| a.max(v.abs())) / 127.0;
            let dx = 2.0 / 255.0;
            let bound = k as f32 * (1.0 * dw / 2.0 + 0.1 * dx / 2.0 + dw * dx / 4.0);
            let err = (got[r * n + c] - exact).abs();
            worst = worst.max(err / bound);
            assert!(err <= bound, "row {r} col {c}: {} vs {exact} (bound {bound})", got[r * n + c]);
        }
    }
    // Errors are random, not worst-case: far inside the bound.
    assert!(worst < 0.2, "worst error / bound = {worst}");
}

#[test]
fn rows_quantise_onto_their_own_range() {
    let x = [-1.0f32, 0.0, 0.5, 3.0, 2.0, 2.0, 2.0, 2.0];
    let q = QuantRows::new(&x, 4);
    let (v, s, z) = q.get(0, 0);
    assert_eq!((v, z), (0, 64), "min maps to 0; zero point round(1/(4/255))");
    assert!((s - 4.0 / 255.0).abs() < 1e-7);
    assert_eq!(q.get(0, 3).0, 255);
    // A constant positive row still has 0 in range, and 2.0 maps to 255.
    assert_eq!(q.get(1, 2), (255, 2.0 / 255.0, 0));
}
