//! The linear layers' integer path, for x86 processors with AVX2 (and faster with AVX-512BW):
//! weights kept as 16-bit integers scaled per output, each input row rounded to 16-bit integers
//! scaled by its own largest value, and the products summed by `vpmaddwd`, which multiplies
//! pairs of 16-bit integers and adds each two neighbours in one instruction: twice the products
//! of an f32 FMA of the same width.
//!
//! Precision: a weight keeps 13 bits of its output's largest one ([`W_MAX`]), an input 15 bits of
//! its row's largest ([`X_MAX`]): finer than the bfloat16 path's 8-bit mantissa for all but the
//! smallest values, and finer than the 4-bit shipped model. Overflow cannot happen: a product is
//! at most `W_MAX · X_MAX` < 2²⁶, a pair < 2²⁷, and the 32-bit sums are moved into f32 every
//! [`FLUSH`] pairs, before they can pass 2³⁰.
//!
//! The kernel is written once against [`Isa`], a register of 32-bit lanes and the five
//! instructions it needs, each a safe wrapper of pulp's: AVX-512 (a panel row in one register,
//! eight rows at a time) and AVX2 (in two, six rows at a time: its 16 registers hold the twelve
//! integer sums, the weights and an input; the f32 sums, touched every [`FLUSH`] pairs, wait
//! on the stack).

use pulp::NullaryFnOnce;
use pulp::x86::{V3, V4};
use std::arch::x86_64::{__m256, __m256i, __m512, __m512i};

/// The largest weight, in units of its output's scale.
pub(crate) const W_MAX: f32 = 4095.0;

/// The largest input, in units of its row's scale.
const X_MAX: f32 = 16383.0;

/// Pairs of inputs summed in 32-bit integers before the sums move into f32.
const FLUSH: usize = 8;

/// Outputs per panel.
pub(crate) const LANES: usize = 16;

/// The instructions the integer path runs with.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Simd {
    /// AVX-512 with BW.
    Avx512(V4),
    /// AVX2 with FMA.
    Avx2(V3),
}

/// The integer path this processor runs, if any: AVX-512BW first, else AVX2.
pub(crate) fn available() -> Option<Simd> {
    V4::try_new().map(Simd::Avx512).or_else(|| V3::try_new().map(Simd::Avx2))
}

/// One output's weights as integers and the scale that gives them back: `w ≈ q · scale`.
/// Rounded half away from zero by adding ½ and truncating, which compiles to plain
/// instructions where `round` would call the C library for each of a model's millions of
/// weights at every load.
pub(crate) fn quantize_output(row: &[f32], q: &mut [i16]) -> f32 {
    let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
    let scale = if max > 0.0 { max / W_MAX } else { 1.0 };
    let inv = 1.0 / scale;
    for (q, v) in q.iter_mut().zip(row) {
        let x = (v * inv).clamp(-W_MAX, W_MAX);
        *q = (x + 0.5f32.copysign(x)) as i16;
    }
    scale
}

/// Rows of `inputs` values (already padded to even) as pairs of 16-bit integers, each pair in
/// one `i32` (the even input in the low half), and each row's scale: `x ≈ q · scale`.
pub(crate) fn quantize_rows(simd: Simd, x: &[f32], inputs: usize) -> (Vec<i32>, Vec<f32>) {
    let rows = x.len() / inputs.max(1);
    let mut pairs = vec![0i32; rows * inputs / 2];
    let mut scales = vec![1f32; rows];
    let work = Quantize { x, inputs, pairs: &mut pairs, scales: &mut scales };
    match simd {
        Simd::Avx512(v4) => v4.vectorize(Run { isa: Avx512(v4), work }),
        Simd::Avx2(v3) => v3.vectorize(Run { isa: Avx2(v3), work }),
    }
    (pairs, scales)
}

/// [`quantize_rows`]'s work.
struct Quantize<'a> {
    x: &'a [f32],
    inputs: usize,
    pairs: &'a mut [i32],
    scales: &'a mut [f32],
}

impl Quantize<'_> {
    #[inline(always)]
    fn run<I: Isa>(self, isa: I) {
        let rows = self.x.chunks_exact(self.inputs).zip(self.pairs.chunks_exact_mut(self.inputs / 2)).zip(self.scales);
        for ((row, out), scale) in rows {
            let max = isa.max_abs(row);
            if max > 0.0 && max.is_finite() {
                *scale = max / X_MAX;
            }
            let inv = 1.0 / *scale;
            isa.round_pairs(row, inv, out);
        }
    }
}

/// One call of the integer kernel: panels `first .. first + count` (each `half` rows of
/// [`LANES`] pairs) times the quantized rows `x` (`half` pairs each, scaled by `row_scale`),
/// plus the bias, into the rows of `y` (`count · LANES` values each).
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
    /// Runs the call with the processor's instructions.
    pub fn run(self, simd: Simd) {
        match simd {
            Simd::Avx512(v4) => v4.vectorize(Run { isa: Avx512(v4), work: self }),
            Simd::Avx2(v3) => v3.vectorize(Run { isa: Avx2(v3), work: self }),
        }
    }

    /// Panel by panel, `I::ROWS` rows at a time.
    #[inline(always)]
    fn rows<I: Isa>(self, isa: I) {
        let half = self.half;
        let stride = self.count * LANES;
        let rows = self.row_scale.len();
        for p in 0..self.count {
            let panel = &self.panels[(self.first + p) * half..][..half];
            let at = (self.first + p) * LANES;
            let (scale, bias) = (&self.scale[at..at + LANES], &self.bias[at..at + LANES]);
            let mut r0 = 0;
            while r0 < rows {
                let n = (rows - r0).min(I::ROWS);
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
                    8 => tile.run::<I, 8>(isa, y, at, stride),
                    7 => tile.run::<I, 7>(isa, y, at, stride),
                    6 => tile.run::<I, 6>(isa, y, at, stride),
                    5 => tile.run::<I, 5>(isa, y, at, stride),
                    4 => tile.run::<I, 4>(isa, y, at, stride),
                    3 => tile.run::<I, 3>(isa, y, at, stride),
                    2 => tile.run::<I, 2>(isa, y, at, stride),
                    _ => tile.run::<I, 1>(isa, y, at, stride),
                }
                r0 += n;
            }
        }
    }
}

/// Work to run with the instructions of `isa`, for `pulp` to compile with them.
struct Run<I, W> {
    isa: I,
    work: W,
}

impl<I: Isa> NullaryFnOnce for Run<I, Call<'_>> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        self.work.rows(self.isa);
    }
}

impl<I: Isa> NullaryFnOnce for Run<I, Quantize<'_>> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        self.work.run(self.isa);
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
    /// `N` rows times the panel into outputs `at .. at + LANES` of those rows of `y`: the `N`
    /// rows' integer sums and f32 sums (each `I::VECS` registers) stay in registers.
    #[inline(always)]
    fn run<I: Isa, const N: usize>(&self, isa: I, y: &mut [f32], at: usize, outputs: usize) {
        let half = self.panel.len();
        let rows: [&[i32]; N] = std::array::from_fn(|r| &self.x[r * half..][..half]);
        let mut sums: [I::Sums; N] = [isa.zero_sums(); N];
        for (b, block) in self.panel.chunks(FLUSH).enumerate() {
            let k0 = b * FLUSH;
            let xs: [&[i32]; N] = std::array::from_fn(|r| &rows[r][k0..k0 + block.len()]);
            let mut ints: [I::Ints; N] = [isa.zero_ints(); N];
            for (k, w) in block.iter().enumerate() {
                let w = isa.load(w);
                for (acc, row) in ints.iter_mut().zip(&xs) {
                    *acc = isa.madd_add(*acc, w, row[k]);
                }
            }
            for (s, i) in sums.iter_mut().zip(&ints) {
                *s = isa.flush(*s, *i);
            }
        }
        for (r, s) in sums.iter().enumerate() {
            let out = &mut y[r * outputs + at..r * outputs + at + LANES];
            isa.finish(*s, self.scale, self.row_scale[r], self.bias, out);
        }
    }
}

/// The instructions of one x86 vector width, as the kernel uses them: a panel row of
/// [`LANES`] 32-bit lanes is one register of AVX-512 or two of AVX2.
trait Isa: Copy {
    /// Rows multiplied by a panel at a time.
    const ROWS: usize;
    /// A panel row's integer sums.
    type Ints: Copy;
    /// A panel row's f32 sums.
    type Sums: Copy;
    fn zero_ints(self) -> Self::Ints;
    fn zero_sums(self) -> Self::Sums;
    /// A panel row's weights: [`LANES`] pairs.
    type Weights: Copy;
    fn load(self, w: &[u32; LANES]) -> Self::Weights;
    /// `acc + w · x` pair by pair, `x` one input pair broadcast.
    fn madd_add(self, acc: Self::Ints, w: Self::Weights, x: i32) -> Self::Ints;
    /// `sums + ints`, the integer sums moved into f32.
    fn flush(self, sums: Self::Sums, ints: Self::Ints) -> Self::Sums;
    /// `out = sums · scale · row_scale + bias`.
    fn finish(self, sums: Self::Sums, scale: &[f32], row_scale: f32, bias: &[f32], out: &mut [f32]);
    /// The largest magnitude in `row`.
    fn max_abs(self, row: &[f32]) -> f32;
    /// `row · inv` rounded to the nearest integers, saturated to 16 bits, as pairs.
    fn round_pairs(self, row: &[f32], inv: f32, out: &mut [i32]);
}

/// [`LANES`] f32 values from a slice of at least that many.
fn lanes(v: &[f32]) -> [f32; LANES] {
    <[f32; LANES]>::try_from(&v[..LANES]).unwrap_or([0.0; LANES])
}

/// `row · inv` rounded, saturated to 16 bits, two values a pair, for the values no vector took.
fn round_tail(row: &[f32], inv: f32, out: &mut [i32]) {
    let q = |v: f32| (v * inv).round().clamp(-X_MAX, X_MAX) as i16 as u16 as u32;
    for (o, p) in out.iter_mut().zip(row.chunks_exact(2)) {
        *o = (q(p[0]) | q(p[1]) << 16) as i32;
    }
}

/// AVX-512 (with BW).
#[derive(Clone, Copy)]
struct Avx512(V4);

impl Isa for Avx512 {
    const ROWS: usize = 8;
    type Ints = __m512i;
    type Sums = __m512;
    type Weights = __m512i;

    #[inline(always)]
    fn zero_ints(self) -> __m512i {
        self.0.avx512f._mm512_setzero_si512()
    }

    #[inline(always)]
    fn zero_sums(self) -> __m512 {
        self.0.avx512f._mm512_setzero_ps()
    }

    #[inline(always)]
    fn load(self, w: &[u32; LANES]) -> __m512i {
        pulp::cast(*w)
    }

    #[inline(always)]
    fn madd_add(self, acc: __m512i, w: __m512i, x: i32) -> __m512i {
        let f = self.0.avx512f;
        f._mm512_add_epi32(acc, self.0.avx512bw._mm512_madd_epi16(w, f._mm512_set1_epi32(x)))
    }

    #[inline(always)]
    fn flush(self, sums: __m512, ints: __m512i) -> __m512 {
        let f = self.0.avx512f;
        f._mm512_add_ps(sums, f._mm512_cvtepi32_ps(ints))
    }

    #[inline(always)]
    fn finish(self, sums: __m512, scale: &[f32], row_scale: f32, bias: &[f32], out: &mut [f32]) {
        let f = self.0.avx512f;
        let k = f._mm512_mul_ps(pulp::cast(lanes(scale)), f._mm512_set1_ps(row_scale));
        let y: [f32; LANES] = pulp::cast(f._mm512_fmadd_ps(sums, k, pulp::cast(lanes(bias))));
        out.copy_from_slice(&y);
    }

    #[inline(always)]
    fn max_abs(self, row: &[f32]) -> f32 {
        let f = self.0.avx512f;
        let (head, tail) = row.as_chunks::<LANES>();
        let mut max = f._mm512_setzero_ps();
        for v in head {
            max = f._mm512_max_ps(max, f._mm512_abs_ps(pulp::cast(*v)));
        }
        tail.iter().fold(f._mm512_reduce_max_ps(max), |m, v| m.max(v.abs()))
    }

    #[inline(always)]
    fn round_pairs(self, row: &[f32], inv: f32, out: &mut [i32]) {
        let f = self.0.avx512f;
        let by = f._mm512_set1_ps(inv);
        let (head, tail) = row.as_chunks::<LANES>();
        // Sixteen values rounded to the nearest integer (the processor's default mode),
        // narrowed with saturation to 16 bits: eight pairs in order.
        let (out_head, out_tail) = out.as_chunks_mut::<{ LANES / 2 }>();
        for (v, o) in head.iter().zip(out_head) {
            *o = pulp::cast(f._mm512_cvtsepi32_epi16(f._mm512_cvtps_epi32(f._mm512_mul_ps(pulp::cast(*v), by))));
        }
        round_tail(tail, inv, out_tail);
    }
}

/// AVX2 with FMA: a panel row in two registers.
#[derive(Clone, Copy)]
struct Avx2(V3);

impl Isa for Avx2 {
    const ROWS: usize = 6;
    type Ints = [__m256i; 2];
    type Sums = [__m256; 2];
    type Weights = [__m256i; 2];

    #[inline(always)]
    fn zero_ints(self) -> [__m256i; 2] {
        [self.0.avx._mm256_setzero_si256(); 2]
    }

    #[inline(always)]
    fn zero_sums(self) -> [__m256; 2] {
        [self.0.avx._mm256_setzero_ps(); 2]
    }

    #[inline(always)]
    fn load(self, w: &[u32; LANES]) -> [__m256i; 2] {
        pulp::cast(*w)
    }

    #[inline(always)]
    fn madd_add(self, acc: [__m256i; 2], w: [__m256i; 2], x: i32) -> [__m256i; 2] {
        let (a, x) = (self.0.avx2, self.0.avx._mm256_set1_epi32(x));
        [
            a._mm256_add_epi32(acc[0], a._mm256_madd_epi16(w[0], x)),
            a._mm256_add_epi32(acc[1], a._mm256_madd_epi16(w[1], x)),
        ]
    }

    #[inline(always)]
    fn flush(self, sums: [__m256; 2], ints: [__m256i; 2]) -> [__m256; 2] {
        let f = self.0.avx;
        [
            f._mm256_add_ps(sums[0], f._mm256_cvtepi32_ps(ints[0])),
            f._mm256_add_ps(sums[1], f._mm256_cvtepi32_ps(ints[1])),
        ]
    }

    #[inline(always)]
    fn finish(self, sums: [__m256; 2], scale: &[f32], row_scale: f32, bias: &[f32], out: &mut [f32]) {
        let (f, fma) = (self.0.avx, self.0.fma);
        let r = f._mm256_set1_ps(row_scale);
        let (scale, bias): ([__m256; 2], [__m256; 2]) = (pulp::cast(lanes(scale)), pulp::cast(lanes(bias)));
        let y = [
            fma._mm256_fmadd_ps(sums[0], f._mm256_mul_ps(scale[0], r), bias[0]),
            fma._mm256_fmadd_ps(sums[1], f._mm256_mul_ps(scale[1], r), bias[1]),
        ];
        let y: [f32; LANES] = pulp::cast(y);
        out.copy_from_slice(&y);
    }

    #[inline(always)]
    fn max_abs(self, row: &[f32]) -> f32 {
        let f = self.0.avx;
        let (head, tail) = row.as_chunks::<8>();
        let sign = f._mm256_set1_ps(-0.0);
        let mut max = f._mm256_setzero_ps();
        for v in head {
            max = f._mm256_max_ps(max, f._mm256_andnot_ps(sign, pulp::cast(*v)));
        }
        let max: [f32; 8] = pulp::cast(max);
        tail.iter().chain(&max).fold(0f32, |m, v| m.max(v.abs()))
    }

    #[inline(always)]
    fn round_pairs(self, row: &[f32], inv: f32, out: &mut [i32]) {
        let (f, a) = (self.0.avx, self.0.avx2);
        let by = f._mm256_set1_ps(inv);
        let (head, tail) = row.as_chunks::<LANES>();
        let (out_head, out_tail) = out.as_chunks_mut::<{ LANES / 2 }>();
        for (v, o) in head.iter().zip(out_head) {
            let [lo, hi]: [__m256; 2] = pulp::cast(*v);
            // Rounded to the nearest integers, narrowed with saturation; the pack interleaves
            // the two registers' halves, and the permutation puts the sixteen back in order.
            let lo = f._mm256_cvtps_epi32(f._mm256_mul_ps(lo, by));
            let hi = f._mm256_cvtps_epi32(f._mm256_mul_ps(hi, by));
            *o = pulp::cast(a._mm256_permute4x64_epi64::<0b11_01_10_00>(a._mm256_packs_epi32(lo, hi)));
        }
        round_tail(tail, inv, out_tail);
    }
}
