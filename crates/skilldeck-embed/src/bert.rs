//! The encoder: BERT with post-layer-norm blocks and erf-GELU (`vector.rs`), one sequence at a
//! time, in f32 with the linear layers' weights in bfloat16 ([`Packed`]). The layers' weights are
//! read (and dequantized) once, at load, from a [`Source`]; the word-embedding table stays in the
//! file ([`WordTable`]) and only the rows of the tokens being embedded are read.
//!
//! A request runs on the calling thread, its linear layers split across the cores; a batch of
//! passages runs one sequence per core. One sequence at a time needs no padding and no mask.

use pulp::{Arch, Simd, WithSimd};
use rayon::prelude::*;

use crate::error::EmbedError;
use crate::linear::Packed;
use crate::vector::{axpy, dot, gelu};
use crate::weights::{Dims, Pooling, Source, WordTable};

/// A layer norm's scale and shift.
struct Norm {
    w: Vec<f32>,
    b: Vec<f32>,
}

impl Norm {
    /// Normalises each row of `x` (rows of `w.len()` values) in place.
    fn apply(&self, x: &mut [f32], eps: f32) {
        let h = self.w.len() as f32;
        for row in x.chunks_exact_mut(self.w.len()) {
            let mean = row.iter().sum::<f32>() / h;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h;
            let inv = 1.0 / (var + eps).sqrt();
            for ((v, w), b) in row.iter_mut().zip(&self.w).zip(&self.b) {
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
    /// thread with its products split across the cores, several one per core.
    pub fn embed_batch(&self, seqs: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, EmbedError> {
        match seqs {
            [one] => Ok(vec![self.embed(one, true)?]),
            _ => seqs.par_iter().map(|s| self.embed(s, false)).collect(),
        }
    }

    /// The pooled, unit-length embedding of one sequence of at most `max_positions()` ids.
    fn embed(&self, ids: &[u32], split: bool) -> Result<Vec<f32>, EmbedError> {
        let d = self.dims;
        let h = d.hidden;
        let t = ids.len();
        if t == 0 {
            return Ok(Vec::new());
        }
        if t > d.positions() {
            return Err(EmbedError::Compute(format!("{t} tokens exceed the model's {} positions", d.positions())));
        }
        // Embeddings: word + position + token type 0.
        let mut x = vec![0f32; t * h];
        for (p, (&id, dst)) in ids.iter().zip(x.chunks_exact_mut(h)).enumerate() {
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
            arch.dispatch(Attention { qkv: &qkv, ctx: &mut ctx, tokens: t, hidden: h, heads: d.heads });
            add(&mut x, &l.attn_out.forward(&ctx, split));
            l.attn_norm.apply(&mut x, d.eps);
            let mut ff = l.ff_in.forward(&x, split);
            gelu(&mut ff);
            add(&mut x, &l.ff_out.forward(&ff, split));
            l.out_norm.apply(&mut x, d.eps);
        }
        // Mean over the tokens (or the first token), then unit length.
        let pooled = match self.pooling {
            Pooling::Mean => t,
            Pooling::Cls => 1,
        };
        let mut v = vec![0f32; h];
        for row in x.chunks_exact(h).take(pooled) {
            v.iter_mut().zip(row).for_each(|(a, r)| *a += r);
        }
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt().max(1e-12);
        v.iter_mut().for_each(|a| *a /= n);
        Ok(v)
    }
}

/// `x += y`, element by element.
fn add(x: &mut [f32], y: &[f32]) {
    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
}

/// Scaled dot-product attention over every head of one sequence: `qkv` holds each token's
/// query, key and value side by side (`tokens × 3·hidden`); the result goes into `ctx`
/// (`tokens × hidden`).
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
        let (t, h) = (self.tokens, self.hidden);
        let hd = h / self.heads;
        let scale = 1.0 / (hd as f32).sqrt();
        let row = |i: usize, part: usize, head: usize| &self.qkv[i * 3 * h + part * h + head * hd..][..hd];
        let mut scores = vec![0f32; t];
        for head in 0..self.heads {
            for (i, out) in self.ctx.chunks_exact_mut(h).enumerate() {
                let q = row(i, 0, head);
                let mut max = f32::NEG_INFINITY;
                for (j, s) in scores.iter_mut().enumerate() {
                    *s = dot(simd, q, row(j, 1, head)) * scale;
                    max = max.max(*s);
                }
                let mut sum = 0.0;
                for s in scores.iter_mut() {
                    *s = (*s - max).exp();
                    sum += *s;
                }
                let out = &mut out[head * hd..(head + 1) * hd];
                for (j, s) in scores.iter().enumerate() {
                    axpy(simd, s / sum, row(j, 2, head), out);
                }
            }
        }
    }
}
