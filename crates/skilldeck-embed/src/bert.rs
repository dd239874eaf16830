//! The encoder: BERT with post-layer-norm blocks and erf-GELU (`vector.rs`), one sequence at a
//! time, in f32 with the linear layers' weights in bfloat16 ([`Packed`]). The layers' weights are
//! read (and dequantized) once, at load, from a [`Source`]; the word-embedding table stays in the
//! file ([`WordTable`]) and only the rows of the tokens being embedded are read.
//!
//! A request runs on the calling thread, its linear layers split across the cores; a batch of
//! passages runs in a group per core, the group's rows side by side through each linear layer
//! (its weights read once for them all) and each sequence attending to its own rows alone: no
//! padding and no mask.

use pulp::{Arch, Simd, WithSimd};
use rayon::prelude::*;

use crate::error::EmbedError;
use crate::linear::Packed;
use crate::vector::{axpy, exp_shifted, gelu};
use crate::weights::{Dims, Pooling, Source, WordTable};

/// The most sequences multiplied together: enough rows that a layer's weights are read once for
/// hundreds of them, few enough that the group's activations stay in the second-level cache.
const GROUP: usize = 4;

/// Queries whose scores against a head's keys are worked out together.
const QUERIES: usize = 4;

/// A layer norm's scale and shift.
struct Norm {
    w: Vec<f32>,
    b: Vec<f32>,
}

impl Norm {
    /// Normalises each row of `x` (rows of `w.len()` values) in place.
    fn apply(&self, x: &mut [f32], eps: f32) {
        Arch::new().dispatch(NormRows { norm: self, x, eps });
    }
}

/// [`Norm::apply`]'s work, for `pulp` to compile for the processor.
struct NormRows<'a> {
    norm: &'a Norm,
    x: &'a mut [f32],
    eps: f32,
}

impl WithSimd for NormRows<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let (w, b) = (&self.norm.w, &self.norm.b);
        let h = w.len() as f32;
        let (wv, wt) = S::as_simd_f32s(w);
        let (bv, bt) = S::as_simd_f32s(b);
        for row in self.x.chunks_exact_mut(w.len()) {
            let (head, tail) = S::as_simd_f32s(row);
            let sum = head.iter().fold(simd.splat_f32s(0.0), |a, v| simd.add_f32s(a, *v));
            let mean = (simd.reduce_sum_f32s(sum) + tail.iter().sum::<f32>()) / h;
            let m = simd.splat_f32s(mean);
            let squares = head.iter().fold(simd.splat_f32s(0.0), |a, v| {
                let d = simd.sub_f32s(*v, m);
                simd.mul_add_e_f32s(d, d, a)
            });
            let var = (simd.reduce_sum_f32s(squares) + tail.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>()) / h;
            let inv = 1.0 / (var + self.eps).sqrt();
            let (head, tail) = S::as_mut_simd_f32s(row);
            let k = simd.splat_f32s(inv);
            for ((v, w), b) in head.iter_mut().zip(wv).zip(bv) {
                *v = simd.mul_add_e_f32s(simd.mul_f32s(simd.sub_f32s(*v, m), k), *w, *b);
            }
            for ((v, w), b) in tail.iter_mut().zip(wt).zip(bt) {
                *v = (*v - mean) * inv * w + b;
            }
        }
    }
}

/// One encoder block.
struct Layer {
    /// Query, key and value projections side by side: one product for the three.
    qkv: Packed,
    attn_out: Packed,
    attn_norm: Norm,
    ff_in: Packed,
    ff_out: Packed,
    out_norm: Norm,
}

/// The encoder's weights, the word-embedding table, and the shape.
pub(crate) struct Bert {
    words: Box<dyn WordTable>,
    dims: Dims,
    pooling: Pooling,
    /// Position embeddings, `max_pos × hidden`.
    pos: Vec<f32>,
    /// The token-type-0 embedding, `hidden`.
    type0: Vec<f32>,
    emb_norm: Norm,
    layers: Vec<Layer>,
}

fn norm(f: &dyn Source, prefix: &str, h: usize) -> Result<Norm, EmbedError> {
    Ok(Norm { w: f.tensor(&format!("{prefix}.w"), h)?, b: f.tensor(&format!("{prefix}.b"), h)? })
}

/// The linear layer `{prefix}.w` (`[out, inp]`) and `{prefix}.b` from the file.
fn linear(f: &dyn Source, prefix: &str, out: usize, inp: usize) -> Result<Packed, EmbedError> {
    Ok(Packed::new(&f.tensor(&format!("{prefix}.w"), out * inp)?, f.tensor(&format!("{prefix}.b"), out)?, out, inp))
}

impl Bert {
    /// Reads the layers' weights from `file` (the word embeddings stay in `words`).
    pub fn load(file: &dyn Source, words: Box<dyn WordTable>, pooling: Pooling) -> Result<Bert, EmbedError> {
        let d = file.dims();
        let (h, ff) = (d.hidden, d.ff);
        if h == 0 || d.heads == 0 || h % d.heads != 0 {
            return Err(EmbedError::Compute(format!("a hidden size of {h} does not split into {} heads", d.heads)));
        }
        let pos = file.tensor("emb.pos", d.max_pos * h)?;
        let types = file.tensor("emb.type", d.type_vocab * h)?;
        let type0 = types.get(..h).map(<[f32]>::to_vec).unwrap_or_else(|| vec![0.0; h]);
        let emb_norm = norm(file, "emb.ln", h)?;
        let mut layers = Vec::with_capacity(d.layers);
        for l in 0..d.layers {
            let n = |s: &str| format!("l{l}.{s}");
            let mut qkv_w = file.tensor(&n("q.w"), h * h)?;
            qkv_w.extend(file.tensor(&n("k.w"), h * h)?);
            qkv_w.extend(file.tensor(&n("v.w"), h * h)?);
            let mut qkv_b = file.tensor(&n("q.b"), h)?;
            qkv_b.extend(file.tensor(&n("k.b"), h)?);
            qkv_b.extend(file.tensor(&n("v.b"), h)?);
            layers.push(Layer {
                qkv: Packed::new(&qkv_w, qkv_b, 3 * h, h),
                attn_out: linear(file, &n("ao"), h, h)?,
                attn_norm: norm(file, &n("aln"), h)?,
                ff_in: linear(file, &n("fi"), ff, h)?,
                ff_out: linear(file, &n("fo"), h, ff)?,
                out_norm: norm(file, &n("oln"), h)?,
            });
        }
        Ok(Bert { words, dims: d, pooling, pos, type0, emb_norm, layers })
    }

    /// The hidden size, the embeddings' dimension.
    pub fn hidden(&self) -> usize {
        self.dims.hidden
    }

    /// The most tokens one input may have (the position table's length).
    pub fn max_positions(&self) -> usize {
        self.dims.positions()
    }

    /// Pooled, L2-normalised embeddings of token sequences, in order: one sequence on this
    /// thread with its products split across the cores; several in a group per core, each
    /// group's sequences multiplied together so that a layer's weights are read once a group.
    pub fn embed_batch(&self, seqs: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let seqs: Vec<&[u32]> = seqs.iter().map(Vec::as_slice).collect();
        if seqs.len() <= 1 {
            return self.embed(&seqs, true);
        }
        let per = seqs.len().div_ceil(rayon::current_num_threads().max(1)).min(GROUP);
        let groups: Vec<Vec<Vec<f32>>> =
            seqs.par_chunks(per).map(|g| self.embed(g, false)).collect::<Result<_, _>>()?;
        Ok(groups.into_iter().flatten().collect())
    }

    /// The pooled, unit-length embeddings of sequences of at most `max_positions()` ids each,
    /// their rows side by side through every linear layer, each attending to itself alone.
    fn embed(&self, seqs: &[&[u32]], split: bool) -> Result<Vec<Vec<f32>>, EmbedError> {
        let d = self.dims;
        let h = d.hidden;
        // Each sequence's first row; an empty sequence has none and gets an empty vector.
        let mut starts = Vec::with_capacity(seqs.len() + 1);
        let mut t = 0;
        for ids in seqs {
            if ids.len() > d.positions() {
                return Err(EmbedError::Compute(format!(
                    "{} tokens exceed the model's {} positions",
                    ids.len(),
                    d.positions()
                )));
            }
            starts.push(t);
            t += ids.len();
        }
        starts.push(t);
        if t == 0 {
            return Ok(vec![Vec::new(); seqs.len()]);
        }
        // Embeddings: word + position + token type 0.
        let mut x = vec![0f32; t * h];
        let rows = seqs.iter().flat_map(|ids| ids.iter().enumerate());
        for ((p, &id), dst) in rows.zip(x.chunks_exact_mut(h)) {
            let row = p + d.pos_offset;
            let pos = &self.pos[row * h..(row + 1) * h];
            for ((o, &pv), &tv) in dst.iter_mut().zip(pos).zip(&self.type0) {
                *o = pv + tv;
            }
            let id = id as usize;
            if id >= d.vocab {
                return Err(EmbedError::Compute(format!("token id {id} is outside the vocabulary")));
            }
            self.words.add_row(id, dst)?;
        }
        self.emb_norm.apply(&mut x, d.eps);
        let arch = Arch::new();
        for l in &self.layers {
            let qkv = l.qkv.forward(&x, split);
            let mut ctx = vec![0f32; t * h];
            for w in starts.windows(2) {
                let (a, b) = (w[0], w[1]);
                let (qkv, ctx) = (&qkv[a * 3 * h..b * 3 * h], &mut ctx[a * h..b * h]);
                arch.dispatch(Attention { qkv, ctx, tokens: b - a, hidden: h, heads: d.heads });
            }
            add(&mut x, &l.attn_out.forward(&ctx, split));
            l.attn_norm.apply(&mut x, d.eps);
            let mut ff = l.ff_in.forward(&x, split);
            gelu(&mut ff);
            add(&mut x, &l.ff_out.forward(&ff, split));
            l.out_norm.apply(&mut x, d.eps);
        }
        Ok(starts.windows(2).map(|w| self.pool(&x[w[0] * h..w[1] * h])).collect())
    }

    /// One sequence's rows pooled (their mean, or the first row), then made unit length.
    fn pool(&self, x: &[f32]) -> Vec<f32> {
        let h = self.dims.hidden;
        if x.is_empty() {
            return Vec::new();
        }
        let pooled = match self.pooling {
            Pooling::Mean => x.len() / h,
            Pooling::Cls => 1,
        };
        let mut v = vec![0f32; h];
        for row in x.chunks_exact(h).take(pooled) {
            v.iter_mut().zip(row).for_each(|(a, r)| *a += r);
        }
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt().max(1e-12);
        v.iter_mut().for_each(|a| *a /= n);
        v
    }
}

/// `x += y`, element by element.
fn add(x: &mut [f32], y: &[f32]) {
    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
}

/// Scaled dot-product attention over every head of one sequence: `qkv` holds each token's
/// query, key and value side by side (`tokens × 3·hidden`); the result goes into `ctx`
/// (`tokens × hidden`). Each head's keys are laid out transposed first, so a query's scores
/// against every key come out of `head size` vector products along the keys, with no sum
/// across a vector's lanes.
struct Attention<'a> {
    qkv: &'a [f32],
    ctx: &'a mut [f32],
    tokens: usize,
    hidden: usize,
    heads: usize,
}

impl WithSimd for Attention<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let hd = self.hidden / self.heads;
        // A head's output in registers: one, two or four vectors, else added in memory.
        match hd.is_multiple_of(S::F32_LANES).then_some(hd / S::F32_LANES) {
            Some(1) => self.heads::<S, 1>(simd),
            Some(2) => self.heads::<S, 2>(simd),
            Some(4) => self.heads::<S, 4>(simd),
            _ => self.heads::<S, 0>(simd),
        }
    }
}

impl Attention<'_> {
    /// Every head; a head's output is `V` vectors of `S` (0: any other size).
    #[inline(always)]
    fn heads<S: Simd, const V: usize>(self, simd: S) {
        let (t, h) = (self.tokens, self.hidden);
        let hd = h / self.heads;
        let scale = 1.0 / (hd as f32).sqrt();
        let row = |i: usize, part: usize, head: usize| &self.qkv[i * 3 * h + part * h + head * hd..][..hd];
        // The keys padded to whole vectors with zeros, whose scores are never read, in blocks
        // of a vector's width of keys: keys[block][d][lane] is key `block · lanes + lane`'s
        // value d, so a block's `hd` vectors lie together.
        let lanes = S::F32_LANES;
        let tp = t.next_multiple_of(lanes);
        let mut keys = vec![0f32; hd * tp];
        // QUERIES queries' scaled rows and scores at a time (rows past the last stay zero).
        let mut q = vec![0f32; QUERIES * hd];
        let mut scores = vec![0f32; QUERIES * tp];
        let zero = simd.splat_f32s(0.0);
        for head in 0..self.heads {
            for j in 0..t {
                let block = &mut keys[j / lanes * hd * lanes..][..hd * lanes];
                for (d, &k) in row(j, 1, head).iter().enumerate() {
                    block[d * lanes + j % lanes] = k;
                }
            }
            for (i0, outs) in self.ctx.chunks_mut(QUERIES * h).enumerate() {
                let first = i0 * QUERIES;
                let n = outs.len() / h;
                q.fill(0.0);
                for (r, q) in q.chunks_exact_mut(hd).take(n).enumerate() {
                    q.iter_mut().zip(row(first + r, 0, head)).for_each(|(q, v)| *q = v * scale);
                }
                // Each vector of every query's scores summed in a register over the head's
                // dimensions; a key vector read once for them all.
                let qs: [&[f32]; QUERIES] = std::array::from_fn(|r| &q[r * hd..][..hd]);
                for (c, block) in keys.chunks_exact(hd * lanes).enumerate() {
                    let (kv, _) = S::as_simd_f32s(block);
                    let mut acc = [zero; QUERIES];
                    for (d, k) in kv.iter().enumerate() {
                        for (a, q) in acc.iter_mut().zip(&qs) {
                            *a = simd.mul_add_e_f32s(simd.splat_f32s(q[d]), *k, *a);
                        }
                    }
                    for (r, a) in acc.iter().enumerate() {
                        let (sv, _) = S::as_mut_simd_f32s(&mut scores[r * tp + c * lanes..][..lanes]);
                        sv[0] = *a;
                    }
                }
                for (r, out) in outs.chunks_exact_mut(h).enumerate() {
                    let scores = &mut scores[r * tp..r * tp + t];
                    let max = scores.iter().fold(f32::NEG_INFINITY, |m, &s| m.max(s));
                    let sum = exp_shifted(simd, scores, max);
                    let out = &mut out[head * hd..(head + 1) * hd];
                    if V == 0 {
                        for (j, s) in scores.iter().enumerate() {
                            axpy(simd, s / sum, row(j, 2, head), out);
                        }
                        continue;
                    }
                    // The values weighed by the scores, summed in `V` registers, then divided by
                    // the scores' sum.
                    let mut acc = [zero; V];
                    for (j, &s) in scores.iter().enumerate() {
                        let (v, _) = S::as_simd_f32s(row(j, 2, head));
                        let w = simd.splat_f32s(s);
                        for (a, v) in acc.iter_mut().zip(v) {
                            *a = simd.mul_add_e_f32s(w, *v, *a);
                        }
                    }
                    let inv = simd.splat_f32s(1.0 / sum);
                    let acc = acc.map(|a| simd.mul_f32s(a, inv));
                    let (ov, _) = S::as_mut_simd_f32s(out);
                    ov.iter_mut().zip(acc).for_each(|(o, a)| *o = a);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Attention as its definition reads, in f64.
    fn reference(qkv: &[f32], tokens: usize, hidden: usize, heads: usize) -> Vec<f32> {
        let hd = hidden / heads;
        let at = |i: usize, part: usize, head: usize, d: usize| {
            f64::from(qkv[i * 3 * hidden + part * hidden + head * hd + d])
        };
        let mut ctx = vec![0f32; tokens * hidden];
        for head in 0..heads {
            for i in 0..tokens {
                let scores: Vec<f64> = (0..tokens)
                    .map(|j| (0..hd).map(|d| at(i, 0, head, d) * at(j, 1, head, d)).sum::<f64>() / (hd as f64).sqrt())
                    .collect();
                let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
                let sum: f64 = weights.iter().sum();
                for d in 0..hd {
                    let v: f64 = weights.iter().enumerate().map(|(j, w)| w * at(j, 2, head, d)).sum::<f64>() / sum;
                    ctx[i * hidden + head * hd + d] = v as f32;
                }
            }
        }
        ctx
    }

    fn run<S: Simd>(simd: S, qkv: &[f32], tokens: usize, hidden: usize, heads: usize) -> Vec<f32> {
        let mut ctx = vec![0f32; tokens * hidden];
        simd.vectorize(Attention { qkv, ctx: &mut ctx, tokens, hidden, heads });
        ctx
    }

    #[test]
    fn attention_matches_its_definition_on_every_processor_path() {
        // Head sizes of one, two and four AVX-512 vectors and one of none (24); token counts
        // around a block of four queries and a vector of keys.
        for (hidden, heads) in [(64, 4), (128, 4), (128, 2), (48, 2)] {
            for tokens in [1, 3, 4, 5, 16, 17, 33] {
                let qkv: Vec<f32> = (0..tokens * 3 * hidden)
                    .map(|i| ((i as u32).wrapping_mul(2_654_435_761) % 2001) as f32 / 1000.0 - 1.0)
                    .collect();
                let want = reference(&qkv, tokens, hidden, heads);
                let mut paths = vec![("scalar", run(pulp::Scalar::new(), &qkv, tokens, hidden, heads))];
                #[cfg(target_arch = "x86_64")]
                if let Some(v3) = pulp::x86::V3::try_new() {
                    paths.push(("avx2", run(v3, &qkv, tokens, hidden, heads)));
                }
                #[cfg(target_arch = "x86_64")]
                if let Some(v4) = pulp::x86::V4::try_new() {
                    paths.push(("avx512", run(v4, &qkv, tokens, hidden, heads)));
                }
                for (name, ctx) in paths {
                    for (i, (g, w)) in ctx.iter().zip(&want).enumerate() {
                        assert!(
                            (g - w).abs() < 1e-5,
                            "{name}, {hidden}/{heads}, {tokens} tokens, value {i}: {g} against {w}"
                        );
                    }
                }
            }
        }
    }
}
