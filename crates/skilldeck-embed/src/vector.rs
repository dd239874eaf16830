//! Small vector kernels of the forward pass, written once against `pulp`'s `Simd` trait and
//! compiled for the processor found at run time: `y += a·x` and the softmax's exponentials for
//! attention, and GELU with a rational approximation of erf.

use pulp::{Arch, Simd, WithSimd};

/// `y += alpha · x`.
#[inline(always)]
pub(crate) fn axpy<S: Simd>(simd: S, alpha: f32, x: &[f32], y: &mut [f32]) {
    let (xv, xt) = S::as_simd_f32s(x);
    let (yv, yt) = S::as_mut_simd_f32s(y);
    let a = simd.splat_f32s(alpha);
    for (y, x) in yv.iter_mut().zip(xv) {
        *y = simd.mul_add_e_f32s(a, *x, *y);
    }
    for (y, x) in yt.iter_mut().zip(xt) {
        *y += alpha * x;
    }
}

/// e^r ≈ 1 + r + r²·P(r) for |r| ≤ ln 2 / 2, within about 1e-7 relative: Cephes' `expf`
/// polynomial, highest power first.
const EXP_P: [f32; 6] = [1.987_569_1e-4, 1.398_199_9e-3, 8.333_452e-3, 4.166_579_6e-2, 1.666_666_5e-1, 0.5];

/// `x[i] = e^(x[i] − shift)` for every value, which must be at most `shift` (a softmax's
/// numerators: `shift` is the largest score); returns their sum. e^v = 2ⁿ·e^r with
/// n = round(v / ln 2), r = v − n·ln 2 (ln 2 in two parts, so r keeps its low bits); 2ⁿ is made
/// in the exponent's bits. Below −87 (e^v under f32's smallest normal) the result is about 1e-38.
#[inline(always)]
pub(crate) fn exp_shifted<S: Simd>(simd: S, x: &mut [f32], shift: f32) -> f32 {
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // 1.5 · 2²³: adding it rounds to an integer, held in the low bits of the sum's mantissa.
    const ROUND: f32 = 12_582_912.0;
    let (head, tail) = S::as_mut_simd_f32s(x);
    let (shift_v, lowest) = (simd.splat_f32s(shift), simd.splat_f32s(-87.0));
    let (log2e, round) = (simd.splat_f32s(std::f32::consts::LOG2_E), simd.splat_f32s(ROUND));
    let (hi, lo) = (simd.splat_f32s(LN2_HI), simd.splat_f32s(LN2_LO));
    let one = simd.splat_f32s(1.0);
    let p: [S::f32s; 6] = EXP_P.map(|c| simd.splat_f32s(c));
    let (magic, exp_bias, twenty_three) = (simd.splat_u32s(ROUND.to_bits()), simd.splat_u32s(127), simd.splat_u32s(23));
    let mut sum = simd.splat_f32s(0.0);
    for v in head {
        let x = simd.max_f32s(simd.sub_f32s(*v, shift_v), lowest);
        let t = simd.mul_add_e_f32s(x, log2e, round);
        let n = simd.sub_f32s(t, round);
        let r = simd.negate_mul_add_e_f32s(n, lo, simd.negate_mul_add_e_f32s(n, hi, x));
        let mut y = p[0];
        for c in &p[1..] {
            y = simd.mul_add_e_f32s(y, r, *c);
        }
        let y = simd.add_f32s(simd.mul_add_e_f32s(y, simd.mul_f32s(r, r), r), one);
        // n as an integer is the difference of the two bit patterns (both have ROUND's exponent).
        let n_int = simd.sub_u32s(pulp::cast(t), magic);
        let two_n: S::f32s = pulp::cast(simd.wrapping_dyn_shl_u32s(simd.add_u32s(n_int, exp_bias), twenty_three));
        *v = simd.mul_f32s(y, two_n);
        sum = simd.add_f32s(sum, *v);
    }
    let mut total = simd.reduce_sum_f32s(sum);
    for v in tail {
        *v = (*v - shift).exp();
        total += *v;
    }
    total
}

/// erf(x) ≈ x·P(x²) / Q(x²) for x clamped to ±4, where erf is 1 to within 2e-8: the rational
/// approximation that XLA and Eigen use for f32 (within about 1e-7 of the exact erf; measured
/// against `libm::erff` in the tests below). Highest power first.
const ERF_P: [f32; 7] =
    [-2.726_142_3e-10, 2.770_681_4e-8, -2.101_024e-6, -5.692_506_4e-5, -7.349_906_3e-4, -2.954_6e-3, -1.609_603_3e-2];
const ERF_Q: [f32; 5] = [-1.456_607_2e-5, -2.133_740_6e-4, -1.682_827e-3, -7.373_329_2e-3, -1.426_474e-2];

/// GELU of one value, with the same approximation of erf (for the vectors' tails).
fn gelu_one(v: f32) -> f32 {
    let x = (v * std::f32::consts::FRAC_1_SQRT_2).clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = ERF_P.iter().fold(0.0, |acc, c| acc * x2 + c) * x;
    let q = ERF_Q.iter().fold(0.0, |acc, c| acc * x2 + c);
    0.5 * v * (1.0 + p / q)
}

/// GELU (the erf form) of every value in `x`, in place.
struct Gelu<'a>(&'a mut [f32]);

impl WithSimd for Gelu<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let (head, tail) = S::as_mut_simd_f32s(self.0);
        let (lo, hi) = (simd.splat_f32s(-4.0), simd.splat_f32s(4.0));
        let (half, scale) = (simd.splat_f32s(0.5), simd.splat_f32s(std::f32::consts::FRAC_1_SQRT_2));
        let p: [S::f32s; 7] = ERF_P.map(|c| simd.splat_f32s(c));
        let q: [S::f32s; 5] = ERF_Q.map(|c| simd.splat_f32s(c));
        for v in head {
            let x = simd.min_f32s(simd.max_f32s(simd.mul_f32s(*v, scale), lo), hi);
            let x2 = simd.mul_f32s(x, x);
            let mut num = p[0];
            for c in &p[1..] {
                num = simd.mul_add_e_f32s(num, x2, *c);
            }
            let mut den = q[0];
            for c in &q[1..] {
                den = simd.mul_add_e_f32s(den, x2, *c);
            }
            let erf = simd.div_f32s(simd.mul_f32s(num, x), den);
            let hv = simd.mul_f32s(half, *v);
            *v = simd.mul_add_e_f32s(hv, erf, hv);
        }
        for v in tail {
            *v = gelu_one(*v);
        }
    }
}

/// GELU in place. (Splitting a request's block between the cores cost more in waking the other
/// thread than it saved.)
pub(crate) fn gelu(x: &mut [f32]) {
    Arch::new().dispatch(Gelu(x));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gelu_is_within_a_millionth_of_the_exact_one() {
        // Every 1/1000 from -10 to 10, through the vector path and its scalar tail (1 value).
        let xs: Vec<f32> = (-10_000..=10_000).map(|i| i as f32 / 1000.0).collect();
        let mut got = xs.clone();
        gelu(&mut got);
        let mut worst = 0f32;
        for (x, g) in xs.iter().zip(&got) {
            let exact = 0.5 * x * (1.0 + libm::erff(x * std::f32::consts::FRAC_1_SQRT_2));
            worst = worst.max((g - exact).abs() / x.abs().max(1.0));
        }
        assert!(worst < 1e-6, "worst error {worst}");
    }

    #[test]
    fn axpy_matches_a_plain_loop() {
        // 37 values: whole vectors and a tail on every processor.
        let a: Vec<f32> = (0..37).map(|i| i as f32 * 0.25 - 3.0).collect();
        let b: Vec<f32> = (0..37).map(|i| 1.5 - i as f32 * 0.125).collect();
        struct Check<'a>(&'a [f32], &'a [f32]);
        impl WithSimd for Check<'_> {
            type Output = Vec<f32>;
            fn with_simd<S: Simd>(self, simd: S) -> Vec<f32> {
                let mut y = self.1.to_vec();
                axpy(simd, 2.0, self.0, &mut y);
                y
            }
        }
        let y = Arch::new().dispatch(Check(&a, &b));
        for ((y, a), b) in y.iter().zip(&a).zip(&b) {
            assert!((y - (b + 2.0 * a)).abs() < 1e-5);
        }
    }

    #[test]
    fn the_softmax_exponentials_are_within_a_few_ulps_of_the_exact_ones() {
        // Every 1/256 from -100 to 0 below a shift of 3, through the vector path and its tail.
        let shift = 3.0f32;
        let xs: Vec<f32> = (0..=25_601).map(|i| shift - i as f32 / 256.0).collect();
        struct Exp<'a>(&'a mut [f32], f32);
        impl WithSimd for Exp<'_> {
            type Output = f32;
            fn with_simd<S: Simd>(self, simd: S) -> f32 {
                exp_shifted(simd, self.0, self.1)
            }
        }
        let mut got = xs.clone();
        let sum = Arch::new().dispatch(Exp(&mut got, shift));
        let mut want_sum = 0f64;
        for (x, g) in xs.iter().zip(&got) {
            let exact = (f64::from(*x) - f64::from(shift)).exp();
            want_sum += exact;
            if exact > 1e-37 {
                assert!((f64::from(*g) - exact).abs() <= exact * 3e-7, "e^{}: {g} against {exact}", x - shift);
            } else {
                assert!(f64::from(*g) < 2e-37, "e^{}: {g}", x - shift);
            }
        }
        assert!((f64::from(sum) - want_sum).abs() < want_sum * 1e-5, "sum {sum} against {want_sum}");
    }
}
