//! The persisted vectors of the ranking by meaning: each skill's unit vector from one
//! sentence-embedding model, kept so a new process ranks by meaning without running the model
//! over every skill again. Holds the file's format, reading and writing it; not the model, nor
//! which skills' vectors to keep (the caller hands the vectors in use).
//!
//! The file is `$SKILLDECK_HOME/cache/vectors-<model id>.bin`, framed like the parse cache
//! (magic, a header record, one record per vector sorted by key, an end mark, a CRC-32): a file
//! of another format, model or width, a torn, truncated or corrupt file is ignored as a whole,
//! and it is replaced by renaming a whole new file over it. A vector's key is the SHA-256 of the
//! model id and the text the model read ([`key`]), so a skill whose text did not change keeps
//! its vector across revisions, and a vector no skill reads any more is not written again.

use crate::framed::{self, Reader, Writer};
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The first bytes of every vector file.
const MAGIC: &[u8; 8] = b"SKDVECTS";
/// The layout of the payload; bump on any change to the types below.
const FORMAT: u32 = 1;

/// A vector's key: what model read which text.
pub type Key = [u8; 32];

/// The vectors by key.
pub type Vectors = HashMap<Key, Arc<[f32]>>;

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    format: u32,
    model: String,
    dim: u32,
}

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    key: Key,
    vector: Vec<f32>,
}

/// The vector file of `model` under the home at `root`.
pub fn path(root: &Path, model: &str) -> PathBuf {
    let safe: String =
        model.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect();
    root.join("cache").join(format!("vectors-{safe}.bin"))
}

/// The key of the vector `model` makes of `text`.
pub fn key(model: &str, text: &str) -> Key {
    let mut h = Sha256::new();
    h.update(model.as_bytes());
    h.update([0u8]);
    h.update(text.as_bytes());
    h.finalize().into()
}

/// Every vector in the file at `path`, when it is one this format wrote whole for `model` with
/// vectors of `dim` numbers; empty otherwise (no file, another model or width, torn, corrupt).
pub fn read(path: &Path, model: &str, dim: usize) -> Vectors {
    std::fs::File::open(path).ok().and_then(|f| read_whole(f, model, dim)).unwrap_or_default()
}

fn read_whole(file: std::fs::File, model: &str, dim: usize) -> Option<Vectors> {
    let mut r = Reader::open(file, MAGIC)?;
    let header: Header = r.record()?.ok()?;
    if header.format != FORMAT || header.model != model || usize::try_from(header.dim).ok()? != dim {
        return None;
    }
    let mut out = Vectors::new();
    while let Ok(rec) = r.record::<Record>()? {
        if rec.vector.len() != dim {
            return None;
        }
        out.insert(rec.key, rec.vector.into());
    }
    r.finish()?;
    Some(out)
}

/// Replaces the file at `path` with `vectors` (those of `model`, each `dim` numbers; any other
/// width is left out). Best effort for the caller: a file that cannot be written only means
/// the vectors are computed again; no partial file is ever left in place.
pub fn write(path: &Path, model: &str, dim: usize, vectors: &Vectors) -> std::io::Result<()> {
    let mut sorted: Vec<(&Key, &Arc<[f32]>)> = vectors.iter().filter(|(_, v)| v.len() == dim).collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    framed::replace(path, "vectors", |temp| {
        let mut w = Writer::create(temp, MAGIC)?;
        let dim32 = u32::try_from(dim).map_err(std::io::Error::other)?;
        w.record(&Header { format: FORMAT, model: model.to_owned(), dim: dim32 })?;
        for (key, vector) in sorted {
            w.record(&Record { key: *key, vector: vector.to_vec() })?;
        }
        w.finish()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some(n: usize, dim: usize) -> Vectors {
        (0..n).map(|i| (key("m", &format!("skill {i}")), (0..dim).map(|d| (i * dim + d) as f32).collect())).collect()
    }

    #[test]
    fn round_trips_and_refuses_what_it_did_not_write_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = path(dir.path(), "multilingual-e5-small-q4");
        assert!(read(&p, "multilingual-e5-small-q4", 4).is_empty(), "no file");
        let v = some(20, 4);
        write(&p, "multilingual-e5-small-q4", 4, &v).unwrap();
        assert_eq!(read(&p, "multilingual-e5-small-q4", 4), v);
        assert!(read(&p, "other-model", 4).is_empty(), "another model's file");
        assert!(read(&p, "multilingual-e5-small-q4", 8).is_empty(), "another width");
        let bytes = std::fs::read(&p).unwrap();
        for cut in [9, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&p, &bytes[..cut]).unwrap();
            assert!(read(&p, "multilingual-e5-small-q4", 4).is_empty(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 1;
        std::fs::write(&p, &flipped).unwrap();
        assert!(read(&p, "multilingual-e5-small-q4", 4).is_empty(), "a flipped bit");
        let mut longer = bytes.clone();
        longer.push(0);
        std::fs::write(&p, &longer).unwrap();
        assert!(read(&p, "multilingual-e5-small-q4", 4).is_empty(), "bytes after the end");
        let leftovers: Vec<_> =
            std::fs::read_dir(p.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
    }

    #[test]
    fn keys_depend_on_model_and_text() {
        assert_eq!(key("a", "pdf"), key("a", "pdf"));
        assert_ne!(key("a", "pdf"), key("b", "pdf"));
        assert_ne!(key("a", "pdf"), key("a", "pdf "));
        assert_ne!(key("ab", "c"), key("a", "bc"));
    }
}
