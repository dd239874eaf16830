//! The encoder: BERT with post-layer-norm blocks and erf-GELU, run in f32 on candle's CPU
//! backend. The layers' weights are read (and dequantized) once, at load, from a [`Source`];
//! the word-embedding table stays in the file ([`WordTable`]) and only the rows of the tokens
//! being embedded are read.

use candle_core::{Device, Tensor};

use crate::error::EmbedError;
use crate::weights::{Dims, Pooling, Source, WordTable};

/// Below this many rows, a linear layer multiplies as W · xᵀ.
const SMALL: usize = 64;

/// A linear layer with its weight stored as `[out, in]`, as the checkpoint has it.
struct Linear {
    w: Tensor,
    b: Tensor,
}

impl Linear {
    fn forward(&self, x: &Tensor) -> Result<Tensor, EmbedError> {
        // `w` is `[out, in]`. For few rows, W · xᵀ keeps gemm's wide side on the weights.
        let rows = x.dim(0)?;
        let y = if rows < SMALL { self.w.matmul(&x.t()?)?.t()? } else { x.matmul(&self.w.t()?)? };
        Ok(y.broadcast_add(&self.b)?)
    }
}

/// A layer norm's scale and shift.
struct Norm {
    w: Tensor,
    b: Tensor,
}

impl Norm {
    fn forward(&self, x: &Tensor, eps: f32) -> Result<Tensor, EmbedError> {
        Ok(candle_nn::ops::layer_norm(x, &self.w, &self.b, eps)?)
    }
}

/// One encoder block.
struct Layer {
    /// Query, key and value projections side by side: one matmul for the three.
    qkv: Linear,
    attn_out: Linear,
    attn_norm: Norm,
    ff_in: Linear,
    ff_out: Linear,
    out_norm: Norm,
}

/// The encoder's weights, the word-embedding table, and the shape.
pub(crate) struct Bert {
    words: Box<dyn WordTable>,
    dims: Dims,
    pooling: Pooling,
    /// Position embeddings then the token-type-0 embedding, `max_pos × hidden` + `hidden`.
    pos: Vec<f32>,
    type0: Vec<f32>,
    emb_norm: Norm,
    layers: Vec<Layer>,
}

/// `[rows, cols]` f32 weights from the file.
fn weight_t(f: &dyn Source, name: &str, rows: usize, cols: usize) -> Result<Tensor, EmbedError> {
    let v = f.tensor(name, rows * cols)?;
    Ok(Tensor::from_vec(v, (rows, cols), &Device::Cpu)?)
}

fn vector(f: &dyn Source, name: &str, n: usize) -> Result<Tensor, EmbedError> {
    Ok(Tensor::from_vec(f.tensor(name, n)?, n, &Device::Cpu)?)
}

fn norm(f: &dyn Source, prefix: &str, h: usize) -> Result<Norm, EmbedError> {
    Ok(Norm { w: vector(f, &format!("{prefix}.w"), h)?, b: vector(f, &format!("{prefix}.b"), h)? })
}

impl Bert {
    /// Reads the layers' weights from `file` (the word embeddings stay in `words`).
    pub fn load(file: &dyn Source, words: Box<dyn WordTable>, pooling: Pooling) -> Result<Bert, EmbedError> {
        let d = file.dims();
        let (h, ff) = (d.hidden, d.ff);
        let pos = file.tensor("emb.pos", d.max_pos * h)?;
        let types = file.tensor("emb.type", d.type_vocab * h)?;
        let type0 = types[..h].to_vec();
        let emb_norm = norm(file, "emb.ln", h)?;
        let mut layers = Vec::with_capacity(d.layers);
        for l in 0..d.layers {
            let n = |s: &str| format!("l{l}.{s}");
            let q = weight_t(file, &n("q.w"), h, h)?;
            let k = weight_t(file, &n("k.w"), h, h)?;
            let v = weight_t(file, &n("v.w"), h, h)?;
            let qkv_w = Tensor::cat(&[&q, &k, &v], 0)?.contiguous()?;
            let qkv_b = Tensor::cat(
                &[vector(file, &n("q.b"), h)?, vector(file, &n("k.b"), h)?, vector(file, &n("v.b"), h)?],
                0,
            )?;
            layers.push(Layer {
                qkv: Linear { w: qkv_w, b: qkv_b },
                attn_out: Linear { w: weight_t(file, &n("ao.w"), h, h)?, b: vector(file, &n("ao.b"), h)? },
                attn_norm: norm(file, &n("aln"), h)?,
                ff_in: Linear { w: weight_t(file, &n("fi.w"), ff, h)?, b: vector(file, &n("fi.b"), ff)? },
                ff_out: Linear { w: weight_t(file, &n("fo.w"), h, ff)?, b: vector(file, &n("fo.b"), h)? },
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

    /// Word-embedding row `id`, read from the table, added into `dst`.
    fn add_word_row(&self, id: u32, dst: &mut [f32]) -> Result<(), EmbedError> {
        let id = id as usize;
        if id >= self.dims.vocab {
            return Err(EmbedError::Compute(format!("token id {id} is outside the vocabulary")));
        }
        self.words.add_row(id, dst)
    }

    /// Pooled, L2-normalised embeddings of token sequences run as one padded batch. Each
    /// sequence has at most `max_positions()` ids.
    pub fn embed_batch(&self, seqs: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let d = self.dims;
        let h = d.hidden;
        let b = seqs.len();
        let t = seqs.iter().map(Vec::len).max().unwrap_or(0);
        if b == 0 || t == 0 {
            return Ok(vec![Vec::new(); b]);
        }
        if t > d.positions() {
            return Err(EmbedError::Compute(format!("{t} tokens exceed the model's {} positions", d.positions())));
        }
        // Embeddings: word + position + token type 0, padding rows left at zero.
        let mut x = vec![0f32; b * t * h];
        for (s, ids) in seqs.iter().enumerate() {
            for (p, &id) in ids.iter().enumerate() {
                let dst = &mut x[(s * t + p) * h..(s * t + p + 1) * h];
                let row = p + d.pos_offset;
                let pos = &self.pos[row * h..(row + 1) * h];
                for ((o, &pv), &tv) in dst.iter_mut().zip(pos).zip(&self.type0) {
                    *o = pv + tv;
                }
                self.add_word_row(id, dst)?;
            }
        }
        let mut x = Tensor::from_vec(x, (b * t, h), &Device::Cpu)?;
        x = self.emb_norm.forward(&x, d.eps)?;
        // Padded keys get a large negative score so no real token attends to them.
        let mask = if seqs.iter().all(|s| s.len() == t) {
            None
        } else {
            let m: Vec<f32> =
                seqs.iter().flat_map(|s| (0..t).map(move |p| if p < s.len() { 0.0 } else { -1e9 })).collect();
            Some(Tensor::from_vec(m, (b, 1, 1, t), &Device::Cpu)?)
        };
        let (nh, hd) = (d.heads, h / d.heads);
        let scale = 1.0 / (hd as f64).sqrt();
        for l in &self.layers {
            let qkv = l.qkv.forward(&x)?.reshape((b, t, 3, nh, hd))?.permute((2, 0, 3, 1, 4))?.contiguous()?;
            let q = (qkv.get(0)? * scale)?;
            let k = qkv.get(1)?;
            let v = qkv.get(2)?;
            let mut scores = q.matmul(&k.t()?)?;
            if let Some(m) = &mask {
                scores = scores.broadcast_add(m)?;
            }
            let att = candle_nn::ops::softmax_last_dim(&scores)?;
            let ctx = att.matmul(&v)?.transpose(1, 2)?.reshape((b * t, h))?;
            x = l.attn_norm.forward(&(x + l.attn_out.forward(&ctx)?)?, d.eps)?;
            let ff = l.ff_out.forward(&l.ff_in.forward(&x)?.gelu_erf()?)?;
            x = l.out_norm.forward(&(x + ff)?, d.eps)?;
        }
        // Mean over each sequence's own tokens (or its first token), then unit length.
        let x = x.reshape((b, t, h))?;
        let all = x.flatten_all()?.to_vec1::<f32>()?;
        let mut out = Vec::with_capacity(b);
        for (s, ids) in seqs.iter().enumerate() {
            let mut v = vec![0f32; h];
            let pooled = match self.pooling {
                Pooling::Mean => ids.len(),
                Pooling::Cls => 1,
            };
            for p in 0..pooled {
                let row = &all[(s * t + p) * h..(s * t + p + 1) * h];
                v.iter_mut().zip(row).for_each(|(a, r)| *a += r);
            }
            let n = pooled.max(1) as f32;
            v.iter_mut().for_each(|a| *a /= n);
            let norm = v.iter().map(|a| a * a).sum::<f32>().sqrt().max(1e-12);
            v.iter_mut().for_each(|a| *a /= norm);
            out.push(v);
        }
        Ok(out)
    }
}
