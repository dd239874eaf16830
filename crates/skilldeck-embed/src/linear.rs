//! The encoder's linear layers: `y = x · Wᵀ + b` with `W` packed once, at load, into panels of
//! [`LANES`] outputs. On x86 with AVX2 or AVX-512BW the weights are 16-bit integers and the
//! products integer ones ([`crate::madd`]: twice the products an instruction); elsewhere they are
//! rounded to bfloat16 and multiplied in f32 by a kernel written once against `pulp`'s `Simd`
//! trait: pulp picks AVX-512, AVX2 with FMA, NEON or plain code at run time and runs the same
//! safe code compiled for it.
//!
//! Why not candle's f32 matrix product: for a request of a dozen tokens the arithmetic is small and
//! the time goes into reading the weights from memory (85 MB in f32, every call). In bfloat16
//! they are half that, and each panel (16 outputs of every input, 12–48 KB) is read once per call
//! and stays in the first-level cache while every token is multiplied by it. The products and
//! sums stay in f32; bfloat16 keeps 8 bits of each weight's mantissa, finer than the 4-bit
//! shipped model it came from.

use pulp::{Arch, Simd, WithSimd};
use rayon::prelude::*;

/// Outputs per panel: one AVX-512 register of f32, two of AVX2.
const LANES: usize = 16;

/// Input rows multiplied by a panel at a time when a panel row is `v` vectors: their
/// accumulators and the row's widened weights stay in registers (32 of AVX-512 and NEON, 16 of
/// AVX2). Measured on AVX-512 over the benchmark's requests (median 19 tokens): 6 rows 9.9 ms a
/// request, 8 rows 9.1–9.7 ms, 12 rows 9.8–10.1 ms.
const fn tile_rows(v: usize) -> usize {
    match v {
        1 => 8,
        2 => 6,
        4 => 4,
        _ => 1,
    }
}

/// The fewest rows a thread takes when a long input's rows are split.
const ROWS: usize = 8;

/// From this many input rows on (a long passage), the rows are split across threads; below it
/// (a request), the panels are, when the caller asks.
const PARALLEL_ROWS: usize = 96;

/// A linear layer with its weight packed as `[outputs / LANES][inputs / 2][LANES]`: each `u32`
/// holds one output's weights for two neighbouring inputs, the even one in its low half, as
/// bfloat16, or as 16-bit integers scaled per output on x86 with AVX2 or AVX-512BW
/// ([`crate::madd`], twice the products an instruction). Shapes that do not fit are padded with
/// zero weights (outputs up to a multiple of [`LANES`], inputs to an even number) and the padding
/// is dropped from the results.
pub(crate) struct Packed {
    inputs: usize,
    outputs: usize,
    weights: Weights,
    bias: Vec<f32>,
}

/// The packed weights, in the form the processor multiplies fastest.
enum Weights {
    /// bfloat16 pairs, multiplied in f32 on any processor.
    Bf16(Vec<u32>),
    /// 16-bit integer pairs and each output's scale, multiplied with AVX-512BW or AVX2.
    #[cfg(target_arch = "x86_64")]
    Int16 { simd: crate::madd::Simd, panels: Vec<[u32; LANES]>, scale: Vec<f32> },
}

impl Packed {
    /// Packs `weight`, stored `[outputs, inputs]` as PyTorch has it, and `bias` (`outputs`
    /// values; missing ones count as zero), for the fastest path this processor has.
    pub fn new(weight: &[f32], bias: Vec<f32>, outputs: usize, inputs: usize) -> Packed {
        #[cfg(target_arch = "x86_64")]
        if let Some(simd) = crate::madd::available() {
            return Packed::int16(simd, weight, bias, outputs, inputs);
        }
        Packed::bf16(weight, bias, outputs, inputs)
    }

    /// Packs the weights as bfloat16 pairs (the path of every processor).
    fn bf16(weight: &[f32], mut bias: Vec<f32>, outputs: usize, inputs: usize) -> Packed {
        let (pi, po) = (inputs.next_multiple_of(2), outputs.next_multiple_of(LANES));
        let mut panels = vec![0u32; po * pi / 2];
        // Row by row of the weight as stored (its reads in order), each output's lane of its
        // panel filled; the padding stays zero.
        let mut row16 = vec![0u32; pi];
        for (o, row) in weight.chunks_exact(inputs.max(1)).take(outputs).enumerate() {
            row16.iter_mut().zip(row).for_each(|(b, &v)| *b = to_bf16(v));
            let panel = &mut panels[o / LANES * (pi / 2 * LANES)..][..pi / 2 * LANES];
            for (lane, pair) in panel.iter_mut().skip(o % LANES).step_by(LANES).zip(row16.chunks_exact(2)) {
                *lane = pair[0] | pair[1] << 16;
            }
        }
        bias.resize(po, 0.0);
        Packed { inputs, outputs, weights: Weights::Bf16(panels), bias }
    }

    /// Packs the weights as 16-bit integer pairs with each output's scale.
    #[cfg(target_arch = "x86_64")]
    fn int16(simd: crate::madd::Simd, weight: &[f32], mut bias: Vec<f32>, outputs: usize, inputs: usize) -> Packed {
        let (pi, po) = (inputs.next_multiple_of(2), outputs.next_multiple_of(LANES));
        let half = pi / 2;
        let mut panels = vec![[0u32; LANES]; po / LANES * half];
        let mut scale = vec![0f32; po];
        let mut q = vec![0i16; pi];
        for (o, row) in weight.chunks_exact(inputs.max(1)).take(outputs).enumerate() {
            scale[o] = crate::madd::quantize_output(row, &mut q);
            let panel = &mut panels[o / LANES * half..][..half];
            for (lanes, pair) in panel.iter_mut().zip(q.chunks_exact(2)) {
                lanes[o % LANES] = u32::from(pair[0] as u16) | u32::from(pair[1] as u16) << 16;
            }
        }
        bias.resize(po, 0.0);
        Packed { inputs, outputs, weights: Weights::Int16 { simd, panels, scale }, bias }
    }

    /// `inputs` rounded up to even and `outputs` up to a multiple of [`LANES`]: the panels' shape.
    fn padded(&self) -> (usize, usize) {
        (self.inputs.next_multiple_of(2), self.outputs.next_multiple_of(LANES))
    }

    /// `x · Wᵀ + b` for `x` holding whole rows of `inputs` values: `rows × outputs`. With
    /// `split`, the work is shared between the cores: many rows by rows, a few by panels.
    pub fn forward(&self, x: &[f32], split: bool) -> Vec<f32> {
        let (pi, po) = self.padded();
        let rows = x.len() / self.inputs.max(1);
        let padded_x;
        let x = if pi == self.inputs {
            &x[..rows * pi]
        } else {
            padded_x = x.chunks_exact(self.inputs).flat_map(|r| r.iter().copied().chain([0.0])).collect::<Vec<f32>>();
            &padded_x
        };
        let mut y = match &self.weights {
            Weights::Bf16(panels) => {
                let arch = Arch::new();
                self.spread(rows, split, |first, count, r, y| {
                    let x = &x[r.start * pi..r.end * pi];
                    arch.dispatch(Kernel { layer: self, panels, first, count, x, y });
                })
            }
            #[cfg(target_arch = "x86_64")]
            Weights::Int16 { simd, panels, scale } => {
                let (pairs, row_scale) = crate::madd::quantize_rows(*simd, x, pi);
                let half = pi / 2;
                self.spread(rows, split, |first, count, r, y| {
                    crate::madd::Call {
                        panels,
                        scale,
                        bias: &self.bias,
                        half,
                        first,
                        count,
                        x: &pairs[r.start * half..r.end * half],
                        row_scale: &row_scale[r.clone()],
                        y,
                    }
                    .run(*simd);
                })
            }
        };
        if po != self.outputs {
            y = y.chunks_exact(po).flat_map(|r| r[..self.outputs].iter().copied()).collect();
        }
        y
    }

    /// The `rows × padded outputs` result of `run(first panel, panel count, rows, into)`: with
    /// `split`, many rows split across threads and a few rows' panels in two halves; else all on
    /// this thread.
    fn spread<F>(&self, rows: usize, split: bool, run: F) -> Vec<f32>
    where
        F: Fn(usize, usize, std::ops::Range<usize>, &mut [f32]) + Sync,
    {
        let po = self.padded().1;
        let panels = po / LANES;
        let mut y = vec![0f32; rows * po];
        if split && rows >= PARALLEL_ROWS {
            let per = rows.div_ceil(rayon::current_num_threads().max(1) * 2).max(ROWS);
            y.par_chunks_mut(per * po).enumerate().for_each(|(i, y)| {
                let start = i * per;
                run(0, panels, start..start + y.len() / po, y);
            });
        } else if split && panels >= 2 && rayon::current_num_threads() > 1 {
            // Two halves of the panels, each into its own rows, then put side by side.
            let half = panels / 2;
            let (mut a, mut b) = (vec![0f32; rows * half * LANES], vec![0f32; rows * (panels - half) * LANES]);
            rayon::join(|| run(0, half, 0..rows, &mut a), || run(half, panels - half, 0..rows, &mut b));
            for ((y, a), b) in
                y.chunks_exact_mut(po).zip(a.chunks_exact(half * LANES)).zip(b.chunks_exact((panels - half) * LANES))
            {
                y[..a.len()].copy_from_slice(a);
                y[a.len()..].copy_from_slice(b);
            }
        } else {
            run(0, panels, 0..rows, &mut y);
        }
        y
    }
}

/// The bits of `v` rounded to the nearest bfloat16 (ties to even), in the low half. No branch, so
/// a row converts in vector instructions; a NaN weight, which no model has, is not kept apart.
fn to_bf16(v: f32) -> u32 {
    let b = v.to_bits();
    b.wrapping_add(0x7fff + ((b >> 16) & 1)) >> 16
}

/// One call of the kernel, for `pulp` to compile and run with the processor's instructions:
/// panels `first .. first + count` of `layer` times the rows of `x` (padded inputs), into the
/// rows of `y` (`count · LANES` values each).
struct Kernel<'a> {
    layer: &'a Packed,
    panels: &'a [u32],
    first: usize,
    count: usize,
    x: &'a [f32],
    y: &'a mut [f32],
}

impl WithSimd for Kernel<'_> {
    type Output = ();

    // Inlined into pulp's entry point for the processor, so the kernel is compiled for it.
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        // A panel row is LANES floats: one vector of AVX-512, two of AVX2, four of NEON.
        match S::F32_LANES {
            16 => self.rows::<S, 1>(simd),
            8 => self.rows::<S, 2>(simd),
            4 => self.rows::<S, 4>(simd),
            _ => self.rows::<S, LANES>(simd),
        }
    }
}

impl Kernel<'_> {
    /// Every row, panel by panel, [`tile_rows`] rows at a time; a panel row is `V` vectors of `S`.
    #[inline(always)]
    fn rows<S: Simd, const V: usize>(self, simd: S) {
        let inputs = self.layer.padded().0;
        let stride = self.count * LANES;
        let rows = self.x.len() / inputs;
        let panels = self.panels.chunks_exact(inputs / 2 * LANES).skip(self.first).take(self.count);
        let bias = self.layer.bias.chunks_exact(LANES).skip(self.first);
        for (p, (panel, bias)) in panels.zip(bias).enumerate() {
            let mut r0 = 0;
            while r0 < rows {
                let n = (rows - r0).min(const { tile_rows(V) });
                let x = &self.x[r0 * inputs..(r0 + n) * inputs];
                let y = &mut self.y[r0 * stride..];
                let at = p * LANES;
                match n {
                    8 => tile::<S, V, 8>(simd, panel, bias, x, y, at, stride),
                    7 => tile::<S, V, 7>(simd, panel, bias, x, y, at, stride),
                    6 => tile::<S, V, 6>(simd, panel, bias, x, y, at, stride),
                    5 => tile::<S, V, 5>(simd, panel, bias, x, y, at, stride),
                    4 => tile::<S, V, 4>(simd, panel, bias, x, y, at, stride),
                    3 => tile::<S, V, 3>(simd, panel, bias, x, y, at, stride),
                    2 => tile::<S, V, 2>(simd, panel, bias, x, y, at, stride),
                    _ => tile::<S, V, 1>(simd, panel, bias, x, y, at, stride),
                }
                r0 += n;
            }
        }
    }
}

/// `N` rows of `x` times one panel, plus the bias: outputs `at .. at + LANES` of those rows of
/// `y`. The `N × V` accumulators stay in registers; each pair of inputs' weights is widened from
/// bfloat16 to f32 by a shift and a mask.
#[inline(always)]
fn tile<S: Simd, const V: usize, const N: usize>(
    simd: S,
    panel: &[u32],
    bias: &[f32],
    x: &[f32],
    y: &mut [f32],
    at: usize,
    outputs: usize,
) {
    // Each row as pairs of inputs, sliced to the panel's length so the loop checks no bounds.
    let (panel, _) = panel.as_chunks::<LANES>();
    let half = panel.len();
    let (pairs, _) = x.as_chunks::<2>();
    let rows: [&[[f32; 2]]; N] = std::array::from_fn(|r| &pairs[r * half..][..half]);
    let zero = simd.splat_f32s(0.0);
    let (sixteen, high) = (simd.splat_u32s(16), simd.splat_u32s(0xffff_0000));
    let mut acc = [[zero; V]; N];
    for k in 0..half {
        let (w, _) = S::as_simd_u32s(&panel[k]);
        let even: [S::f32s; V] = std::array::from_fn(|i| pulp::cast(simd.wrapping_dyn_shl_u32s(w[i], sixteen)));
        let odd: [S::f32s; V] = std::array::from_fn(|i| pulp::cast(simd.and_u32s(w[i], high)));
        for (acc, row) in acc.iter_mut().zip(&rows) {
            let [x0, x1] = row[k];
            let (a0, a1) = (simd.splat_f32s(x0), simd.splat_f32s(x1));
            for ((a, e), o) in acc.iter_mut().zip(&even).zip(&odd) {
                *a = simd.mul_add_e_f32s(a1, *o, simd.mul_add_e_f32s(a0, *e, *a));
            }
        }
    }
    let (bias, _) = S::as_simd_f32s(bias);
    for (r, acc) in acc.iter().enumerate() {
        let (out, _) = S::as_mut_simd_f32s(&mut y[r * outputs + at..r * outputs + at + LANES]);
        for ((o, a), b) in out.iter_mut().zip(acc).zip(bias) {
            *o = simd.add_f32s(*a, *b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    /// The plain product, in f64, of the weights as `round` leaves them.
    fn reference(w: &[f32], b: &[f32], x: &[f32], outputs: usize, inputs: usize, round: fn(f32) -> f32) -> Vec<f32> {
        let rows = x.len() / inputs;
        let mut y = vec![0f32; rows * outputs];
        for r in 0..rows {
            for o in 0..outputs {
                let s: f64 =
                    (0..inputs).map(|k| f64::from(x[r * inputs + k]) * f64::from(round(w[o * inputs + k]))).sum();
                y[r * outputs + o] = (s + f64::from(b[o])) as f32;
            }
        }
        y
    }

    fn bf16_weight(v: f32) -> f32 {
        bf16::from_f32(v).to_f32()
    }

    fn assert_close(got: &[f32], want: &[f32], tolerance: f32, what: &str) {
        assert_eq!(got.len(), want.len(), "{what}");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() < tolerance, "{what}, value {i}: {g} against {w}");
        }
    }

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) % 2001) as f32 / 1000.0 - 1.0)
            .collect()
    }

    /// A layer of `outputs × inputs` against the plain product, for each row count, with the
    /// panels split between threads and not: the bfloat16 path against its rounded weights, the
    /// integer path (where the processor has it) against the exact ones, within its rounding.
    fn check_forward(outputs: usize, inputs: usize, row_counts: &[usize]) {
        let (w, b) = (values(outputs * inputs, 7), values(outputs, 11));
        let mut layers =
            vec![("bf16", Packed::bf16(&w, b.clone(), outputs, inputs), bf16_weight as fn(f32) -> f32, 1e-4)];
        // A weight is off by at most half a step of 1/4095 of the largest, an input of 1/16383:
        // with `inputs` values of at most 1, about 2e-4 · inputs / 4095 at worst.
        let tolerance = 2e-4_f32.max(inputs as f32 / 4095.0 * 0.75);
        for (name, simd) in integer_paths() {
            layers.push((name, Packed::int16(simd, &w, b.clone(), outputs, inputs), |v| v, tolerance));
        }
        for (name, layer, round, tolerance) in layers {
            for &rows in row_counts {
                let x = values(rows * inputs, rows as u32);
                let want = reference(&w, &b, &x, outputs, inputs, round);
                for split in [false, true] {
                    assert_close(
                        &layer.forward(&x, split),
                        &want,
                        tolerance,
                        &format!("{name}, rows {rows}, split {split}"),
                    );
                }
            }
        }
    }

    #[test]
    fn matches_the_plain_product_for_every_row_count() {
        // Row counts around the tiles (4, 6, 8) and the parallel split (96).
        check_forward(48, 40, &[1, 2, 5, 6, 7, 8, 9, 11, 12, 13, 19, 24, 25, 95, 96, 97, 250]);
    }

    /// Every integer path this processor can run, by name.
    fn integer_paths() -> Vec<(&'static str, crate::madd::Simd)> {
        let mut paths = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v4) = pulp::x86::V4::try_new() {
                paths.push(("int16 avx512", crate::madd::Simd::Avx512(v4)));
            }
            if let Some(v3) = pulp::x86::V3::try_new() {
                paths.push(("int16 avx2", crate::madd::Simd::Avx2(v3)));
            }
        }
        paths
    }

    #[test]
    fn the_integer_paths_never_overflow_and_keep_each_rows_scale() {
        // Every weight and input at its largest, over the widest layer of the models (1,536
        // inputs): each product is the most the integers hold, and the sum is 1,536 of them.
        // A second row a million times smaller keeps its own scale.
        let (outputs, inputs) = (16, 1536);
        let w = vec![-0.5f32; outputs * inputs];
        let mut x = vec![-3.0f32; inputs];
        x.extend(vec![3e-6f32; inputs]);
        for (name, simd) in integer_paths() {
            let layer = Packed::int16(simd, &w, vec![1.0; outputs], outputs, inputs);
            let y = layer.forward(&x, false);
            for (i, v) in y[..outputs].iter().enumerate() {
                assert!((v - (1536.0 * 1.5 + 1.0)).abs() < 1e-2, "{name}, output {i}: {v}");
            }
            for (i, v) in y[outputs..].iter().enumerate() {
                assert!((v - (1.0 - 1536.0 * 1.5e-6)).abs() < 1e-6, "{name}, small row, output {i}: {v}");
            }
        }
    }

    /// Every panel of `layer` times `x` with the instructions of `simd`.
    fn on<S: Simd>(simd: S, layer: &Packed, x: &[f32]) -> Vec<f32> {
        let (pi, po) = layer.padded();
        let Weights::Bf16(panels) = &layer.weights else { panic!("a bfloat16 layer") };
        let mut y = vec![0f32; x.len() / pi * po];
        simd.vectorize(Kernel { layer, panels, first: 0, count: po / LANES, x, y: &mut y });
        y
    }

    #[test]
    fn every_processor_path_gives_the_same_product() {
        // The plain path (a panel row of 16 scalars) and AVX2 (two vectors) where the processor
        // has it, besides the one `forward` picks; 13 rows cover whole tiles and a remainder.
        let (outputs, inputs, rows) = (32, 24, 13);
        let (w, b, x) = (values(outputs * inputs, 1), values(outputs, 2), values(rows * inputs, 4));
        let layer = Packed::bf16(&w, b.clone(), outputs, inputs);
        let want = reference(&w, &b, &x, outputs, inputs, bf16_weight);
        let mut got = vec![("scalar", on(pulp::Scalar::new(), &layer, &x))];
        #[cfg(target_arch = "x86_64")]
        if let Some(v3) = pulp::x86::V3::try_new() {
            got.push(("avx2", on(v3, &layer, &x)));
        }
        for (name, got) in got {
            assert_close(&got, &want, 1e-4, name);
        }
    }

    #[test]
    fn rounds_to_bfloat16_as_the_half_crate_does() {
        for v in
            values(10_000, 13).into_iter().chain([0.0, -0.0, 1e-40, 3.4e38, -3.4e38, f32::INFINITY, 1.0 + 1.0 / 256.0])
        {
            assert_eq!(to_bf16(v), u32::from(bf16::from_f32(v).to_bits()), "{v}");
        }
    }

    #[test]
    fn pads_shapes_the_panels_do_not_fit() {
        // 21 outputs (not a multiple of 16) of 7 inputs (odd).
        check_forward(21, 7, &[1, 3, 100]);
    }
}
