//! The linear layers' integer path, for processors with AVX-512BW: weights kept as 16-bit
//! integers scaled per output, each input row rounded to 16-bit integers scaled by its own
//! largest value, and the products summed by `vpmaddwd`, which multiplies 32 pairs of 16-bit
//! integers and adds each two neighbours in one instruction: twice the products of an f32 FMA.
//!
//! Precision: a weight keeps 13 bits of its output's largest one ([`W_MAX`]), an input 15 bits of
//! its row's largest ([`X_MAX`]): finer than the bfloat16 path's 8-bit mantissa for all but the
//! smallest values, and finer than the 4-bit shipped model. Overflow cannot happen: a product is
//! at most `W_MAX · X_MAX` < 2²⁶, a pair < 2²⁷, and the 32-bit sums are moved into f32 every
//! [`FLUSH`] pairs, before they can pass 2³⁰.

use pulp::x86::V4;
use pulp::{core_arch::x86::Avx512bw, core_arch::x86::Avx512f};
use std::arch::x86_64::{__m512, __m512i};

/// The largest weight, in units of its output's scale.
pub(crate) const W_MAX: f32 = 4095.0;

/// The largest input, in units of its row's scale.
const X_MAX: f32 = 16383.0;

/// Pairs of inputs summed in 32-bit integers before the sums move into f32.
const FLUSH: usize = 8;

/// Outputs per panel (one AVX-512 register of 32-bit lanes).
pub(crate) const LANES: usize = 16;

/// Whether this processor runs the integer path.
pub(crate) fn available() -> Option<V4> {
    V4::try_new()
}

/// One output's weights as integers and the scale that gives them back: `w ≈ q · scale`.
pub(crate) fn quantize_output(row: &[f32], q: &mut [i16]) -> f32 {
    let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
    let scale = if max > 0.0 { max / W_MAX } else { 1.0 };
    for (q, v) in q.iter_mut().zip(row) {
        *q = (v / scale).round().clamp(-W_MAX, W_MAX) as i16;
    }
    scale
}

/// Rows of `inputs` values (already padded to even) as pairs of 16-bit integers, each pair in
/// one `i32` (the even input in the low half), and each row's scale: `x ≈ q · scale`.
pub(crate) fn quantize_rows(simd: V4, x: &[f32], inputs: usize) -> (Vec<i32>, Vec<f32>) {
    let rows = x.len() / inputs.max(1);
    let mut pairs = vec![0i32; rows * inputs / 2];
    let mut scales = vec![1f32; rows];
    simd.vectorize(Quantize { f: simd.avx512f, x, inputs, pairs: &mut pairs, scales: &mut scales });
    (pairs, scales)
}

/// [`quantize_rows`]'s work, as a call `pulp` compiles with AVX-512.
struct Quantize<'a> {
    f: Avx512f,
    x: &'a [f32],
    inputs: usize,
    pairs: &'a mut [i32],
    scales: &'a mut [f32],
}

impl pulp::NullaryFnOnce for Quantize<'_> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        let f = self.f;
        let rows = self.x.chunks_exact(self.inputs).zip(self.pairs.chunks_exact_mut(self.inputs / 2)).zip(self.scales);
        for ((row, out), scale) in rows {
            let (head, tail) = row.as_chunks::<LANES>();
            let mut max = f._mm512_setzero_ps();
            for v in head {
                max = f._mm512_max_ps(max, f._mm512_abs_ps(pulp::cast(*v)));
            }
            let max = tail.iter().fold(f._mm512_reduce_max_ps(max), |m, v| m.max(v.abs()));
            if max > 0.0 && max.is_finite() {
                *scale = max / X_MAX;
            }
            let inv = 1.0 / *scale;
            let by = f._mm512_set1_ps(inv);
            // Sixteen values rounded to the nearest integer (the processor's default mode),
            // narrowed with saturation to 16 bits: eight pairs in order.
            let (out_head, out_tail) = out.as_chunks_mut::<{ LANES / 2 }>();
            for (v, o) in head.iter().zip(out_head) {
                let q = f._mm512_cvtsepi32_epi16(f._mm512_cvtps_epi32(f._mm512_mul_ps(pulp::cast(*v), by)));
                *o = pulp::cast(q);
            }
            let q = |v: f32| (v * inv).round().clamp(-X_MAX, X_MAX) as i16 as u16 as u32;
            for (o, p) in out_tail.iter_mut().zip(tail.chunks_exact(2)) {
                *o = (q(p[0]) | q(p[1]) << 16) as i32;
            }
        }
    }
}

/// One call of the integer kernel: panels `first .. first + count` (each `inputs / 2` rows of
/// [`LANES`] pairs) times the quantized rows `x` (`inputs / 2` pairs each, scaled by
/// `row_scale`), plus the bias, into the rows of `y` (`count · LANES` values each).
pub(crate) struct Call<'a> {
    pub panels: &'a [[u32; LANES]],
    pub scale: &'a [f32],
    pub bias: &'a [f32],
    pub half: usize,
    pub first: usize,
    pub count: usize,
    pub x: &'a [i32],
    pub row_scale: &'a [f32],
    pub y: &'a mut [f32],
}

impl Call<'_> {
    /// Runs the call with the processor's AVX-512 instructions.
    pub fn run(self, simd: V4) {
        simd.vectorize(Run { call: self, simd });
    }

    /// Panel by panel, eight rows at a time.
    #[inline(always)]
    fn rows(self, f: Avx512f, bw: Avx512bw) {
        let half = self.half;
        let stride = self.count * LANES;
        let rows = self.row_scale.len();
        for p in 0..self.count {
            let panel = &self.panels[(self.first + p) * half..][..half];
            let at = (self.first + p) * LANES;
            let (scale, bias) = (&self.scale[at..at + LANES], &self.bias[at..at + LANES]);
            let mut r0 = 0;
            while r0 < rows {
                let n = (rows - r0).min(8);
                let tile = Tile {
                    panel,
                    scale,
                    bias,
                    x: &self.x[r0 * half..(r0 + n) * half],
                    row_scale: &self.row_scale[r0..r0 + n],
                };
                let y = &mut self.y[r0 * stride..];
                let at = p * LANES;
                match n {
                    8 => tile.run::<8>(f, bw, y, at, stride),
                    7 => tile.run::<7>(f, bw, y, at, stride),
                    6 => tile.run::<6>(f, bw, y, at, stride),
                    5 => tile.run::<5>(f, bw, y, at, stride),
                    4 => tile.run::<4>(f, bw, y, at, stride),
                    3 => tile.run::<3>(f, bw, y, at, stride),
                    2 => tile.run::<2>(f, bw, y, at, stride),
                    _ => tile.run::<1>(f, bw, y, at, stride),
                }
                r0 += n;
            }
        }
    }
}

/// A [`Call`] with the instructions it runs with, for `pulp` to compile with AVX-512.
struct Run<'a> {
    call: Call<'a>,
    simd: V4,
}

impl pulp::NullaryFnOnce for Run<'_> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        self.call.rows(self.simd.avx512f, self.simd.avx512bw);
    }
}

/// Up to eight rows times one panel.
struct Tile<'a> {
    panel: &'a [[u32; LANES]],
    scale: &'a [f32],
    bias: &'a [f32],
    x: &'a [i32],
    row_scale: &'a [f32],
}

impl Tile<'_> {
    /// `N` rows times the panel into outputs `at .. at + LANES` of those rows of `y`: the
    /// `N` integer sums and `N` f32 sums stay in registers.
    #[inline(always)]
    fn run<const N: usize>(&self, f: Avx512f, bw: Avx512bw, y: &mut [f32], at: usize, outputs: usize) {
        let half = self.panel.len();
        let rows: [&[i32]; N] = std::array::from_fn(|r| &self.x[r * half..][..half]);
        let mut sums: [__m512; N] = [f._mm512_setzero_ps(); N];
        for (b, block) in self.panel.chunks(FLUSH).enumerate() {
            let k0 = b * FLUSH;
            let xs: [&[i32]; N] = std::array::from_fn(|r| &rows[r][k0..k0 + block.len()]);
            let mut ints: [__m512i; N] = [f._mm512_setzero_si512(); N];
            for (k, w) in block.iter().enumerate() {
                let w: __m512i = pulp::cast(*w);
                for (acc, row) in ints.iter_mut().zip(&xs) {
                    let x = f._mm512_set1_epi32(row[k]);
                    *acc = f._mm512_add_epi32(*acc, bw._mm512_madd_epi16(w, x));
                }
            }
            for (s, i) in sums.iter_mut().zip(&ints) {
                *s = f._mm512_add_ps(*s, f._mm512_cvtepi32_ps(*i));
            }
        }
        let scale: __m512 = pulp::cast(<[f32; LANES]>::try_from(self.scale).unwrap_or([0.0; LANES]));
        let bias: __m512 = pulp::cast(<[f32; LANES]>::try_from(self.bias).unwrap_or([0.0; LANES]));
        for (r, s) in sums.iter().enumerate() {
            let k = f._mm512_mul_ps(scale, f._mm512_set1_ps(self.row_scale[r]));
            let out: [f32; LANES] = pulp::cast(f._mm512_fmadd_ps(*s, k, bias));
            y[r * outputs + at..r * outputs + at + LANES].copy_from_slice(&out);
        }
    }
}
