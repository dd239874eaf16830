//! The encoder: BERT with post-layer-norm blocks and erf-GELU, run in f32 on candle's CPU
//! backend. The twelve layers' weights are dequantized once, at load; the word-embedding table
//! (250k rows) stays in the file and only the rows of the tokens being embedded are read.

use candle_core::{Device, Tensor};

use crate::error::EmbedError;
use crate::format::{Dims, ModelFile, Q4_BLOCK_BYTES, QK, Storage, TensorEntry, dequantize_q4, f32s, read_at};

/// A linear layer with its weight stored as `[in, out]`, ready for `x · W`.
struct Linear {
    w: Tensor,
    b: Tensor,
}

impl Linear {
    fn forward(&self, x: &Tensor) -> Result<Tensor, EmbedError> {
        Ok(x.matmul(&self.w)?.broadcast_add(&self.b)?)
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

/// The encoder's weights, the open model file for word-embedding rows, and the shape.
pub(crate) struct Bert {
    file: ModelFile,
    dims: Dims,
    word: TensorEntry,
    /// Position embeddings then the token-type-0 embedding, `max_pos × hidden` + `hidden`.
    pos: Vec<f32>,
    type0: Vec<f32>,
    emb_norm: Norm,
    layers: Vec<Layer>,
}

/// `[rows, cols]` f32 weights from the file, transposed to `[cols, rows]` for `x · W`.
fn weight_t(f: &ModelFile, name: &str, rows: usize, cols: usize) -> Result<Tensor, EmbedError> {
    let v = f.tensor_f32(name, rows * cols)?;
    Ok(Tensor::from_vec(v, (rows, cols), &Device::Cpu)?.t()?.contiguous()?)
}

fn vector(f: &ModelFile, name: &str, n: usize) -> Result<Tensor, EmbedError> {
    Ok(Tensor::from_vec(f.tensor_f32(name, n)?, n, &Device::Cpu)?)
}

fn norm(f: &ModelFile, prefix: &str, h: usize) -> Result<Norm, EmbedError> {
    Ok(Norm { w: vector(f, &format!("{prefix}.w"), h)?, b: vector(f, &format!("{prefix}.b"), h)? })
}

impl Bert {
    /// Reads and dequantizes the layers' weights (the word embeddings stay in the file).
    pub fn load(file: ModelFile) -> Result<Bert, EmbedError> {
        let d = file.dims;
        let (h, ff) = (d.hidden, d.ff);
        let word = file.entry("emb.word", d.vocab * h)?;
        let pos = file.tensor_f32("emb.pos", d.max_pos * h)?;
        let types = file.tensor_f32("emb.type", d.type_vocab * h)?;
        let type0 = types[..h].to_vec();
        let emb_norm = norm(&file, "emb.ln", h)?;
        let mut layers = Vec::with_capacity(d.layers);
        for l in 0..d.layers {
            let n = |s: &str| format!("l{l}.{s}");
            let q = weight_t(&file, &n("q.w"), h, h)?;
            let k = weight_t(&file, &n("k.w"), h, h)?;
            let v = weight_t(&file, &n("v.w"), h, h)?;
            let qkv_w = Tensor::cat(&[&q, &k, &v], 1)?.contiguous()?;
            let qkv_b = Tensor::cat(
                &[vector(&file, &n("q.b"), h)?, vector(&file, &n("k.b"), h)?, vector(&file, &n("v.b"), h)?],
                0,
            )?;
            layers.push(Layer {
                qkv: Linear { w: qkv_w, b: qkv_b },
                attn_out: Linear { w: weight_t(&file, &n("ao.w"), h, h)?, b: vector(&file, &n("ao.b"), h)? },
                attn_norm: norm(&file, &n("aln"), h)?,
                ff_in: Linear { w: weight_t(&file, &n("fi.w"), ff, h)?, b: vector(&file, &n("fi.b"), ff)? },
                ff_out: Linear { w: weight_t(&file, &n("fo.w"), h, ff)?, b: vector(&file, &n("fo.b"), h)? },
                out_norm: norm(&file, &n("oln"), h)?,
            });
        }
        Ok(Bert { file, dims: d, word, pos, type0, emb_norm, layers })
    }

    /// The hidden size, the embeddings' dimension.
    pub fn hidden(&self) -> usize {
        self.dims.hidden
    }

    /// The most tokens one input may have (the position table's length).
    pub fn max_positions(&self) -> usize {
        self.dims.max_pos
    }

    /// Word-embedding row `id`, read from the file and dequantized, added into `dst`.
    fn add_word_row(&self, id: u32, dst: &mut [f32]) -> Result<(), EmbedError> {
        let h = self.dims.hidden;
        let id = id as usize;
        if id >= self.dims.vocab {
            return Err(EmbedError::Compute(format!("token id {id} is outside the vocabulary")));
        }
        let row = match self.word.storage {
            Storage::F32 => {
                let mut raw = vec![0u8; h * 4];
                read_at(&self.file.file, &self.file.path, self.word.offset + (id * h * 4) as u64, &mut raw)?;
                f32s(&raw)
            }
            Storage::Q4 => {
                let len = h / QK * Q4_BLOCK_BYTES;
                let mut raw = vec![0u8; len];
                read_at(&self.file.file, &self.file.path, self.word.offset + (id * len) as u64, &mut raw)?;
                let mut out = vec![0f32; h];
                dequantize_q4(&raw, &mut out);
                out
            }
        };
        dst.iter_mut().zip(row).for_each(|(d, r)| *d += r);
        Ok(())
    }

    /// Mean-pooled, L2-normalised embeddings of token sequences run as one padded batch. Each
    /// sequence has at most `max_positions()` ids.
    pub fn embed_batch(&self, seqs: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let d = self.dims;
        let h = d.hidden;
        let b = seqs.len();
        let t = seqs.iter().map(Vec::len).max().unwrap_or(0);
        if b == 0 || t == 0 {
            return Ok(vec![Vec::new(); b]);
        }
        if t > d.max_pos {
            return Err(EmbedError::Compute(format!("{t} tokens exceed the model's {} positions", d.max_pos)));
        }
        // Embeddings: word + position + token type 0, padding rows left at zero.
        let mut x = vec![0f32; b * t * h];
        for (s, ids) in seqs.iter().enumerate() {
            for (p, &id) in ids.iter().enumerate() {
                let dst = &mut x[(s * t + p) * h..(s * t + p + 1) * h];
                let pos = &self.pos[p * h..(p + 1) * h];
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
        // Mean over each sequence's own tokens, then unit length.
        let x = x.reshape((b, t, h))?;
        let all = x.flatten_all()?.to_vec1::<f32>()?;
        let mut out = Vec::with_capacity(b);
        for (s, ids) in seqs.iter().enumerate() {
            let mut v = vec![0f32; h];
            for p in 0..ids.len() {
                let row = &all[(s * t + p) * h..(s * t + p + 1) * h];
                v.iter_mut().zip(row).for_each(|(a, r)| *a += r);
            }
            let n = ids.len().max(1) as f32;
            v.iter_mut().for_each(|a| *a /= n);
            let norm = v.iter().map(|a| a * a).sum::<f32>().sqrt().max(1e-12);
            v.iter_mut().for_each(|a| *a /= norm);
            out.push(v);
        }
        Ok(out)
    }
}
