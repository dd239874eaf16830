//! The framing the store's cache files share: 8 magic bytes, then records (each a 4-byte
//! little-endian length and its `postcard` bytes), an end mark, and the CRC-32 of everything
//! after the magic. A reader trusts a file only when it reaches the end mark, the CRC matches
//! and nothing follows; a writer writes a temporary file its caller renames into place. Holds
//! the bytes only: what the records are and when a file is trusted belong to each cache.

use serde::Serialize;
use std::io::{Read as _, Write as _};
use std::path::Path;

/// The length that ends the records, before the CRC-32.
const END: u32 = u32::MAX;

/// The largest record read: any cache's record fits many times over.
const MAX_RECORD: usize = 64 << 20;

/// A framed file being read: the bytes after the magic, hashed as they are read.
pub(crate) struct Reader {
    inner: std::io::BufReader<std::fs::File>,
    crc: crc32fast::Hasher,
    buf: Vec<u8>,
}

impl Reader {
    /// `file`, past its magic; `None` when it does not start with `magic`.
    pub(crate) fn open(file: std::fs::File, magic: &[u8; 8]) -> Option<Self> {
        let mut inner = std::io::BufReader::with_capacity(1 << 16, file);
        let mut found = [0u8; 8];
        inner.read_exact(&mut found).ok()?;
        (&found == magic).then(|| Self { inner, crc: crc32fast::Hasher::new(), buf: Vec::new() })
    }

    /// The next record; `Err` at the end of the records, `None` when the file is cut or a
    /// record does not decode.
    pub(crate) fn record<T: serde::de::DeserializeOwned>(&mut self) -> Option<Result<T, ()>> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let read = self.raw_record(&mut buf);
        let decoded = match read? {
            Ok(()) => postcard::from_bytes(&buf).ok().map(Ok),
            Err(()) => Some(Err(())),
        };
        self.buf = buf;
        decoded
    }

    /// The next record's bytes, appended to `into` undecoded (for a caller that decodes many
    /// at once); `Err` at the end of the records, `None` when the file is cut.
    pub(crate) fn raw_record(&mut self, into: &mut Vec<u8>) -> Option<Result<(), ()>> {
        let mut len = [0u8; 4];
        self.inner.read_exact(&mut len).ok()?;
        self.crc.update(&len);
        let n = u32::from_le_bytes(len);
        if n == END {
            return Some(Err(()));
        }
        let n = usize::try_from(n).ok().filter(|n| *n <= MAX_RECORD)?;
        let start = into.len();
        into.resize(start + n, 0);
        let body = into.get_mut(start..)?;
        self.inner.read_exact(body).ok()?;
        self.crc.update(body);
        Some(Ok(()))
    }

    /// After the end of the records: whether the CRC-32 matches and nothing follows it.
    pub(crate) fn finish(mut self) -> Option<()> {
        let expected = self.crc.clone().finalize();
        let mut crc = [0u8; 4];
        self.inner.read_exact(&mut crc).ok()?;
        let mut rest = [0u8; 1];
        let at_end = matches!(self.inner.read(&mut rest), Ok(0));
        (at_end && u32::from_le_bytes(crc) == expected).then_some(())
    }
}

/// A framed file being written, hashing what it writes after the magic.
pub(crate) struct Writer {
    out: std::io::BufWriter<std::fs::File>,
    crc: crc32fast::Hasher,
    buf: Vec<u8>,
}

impl Writer {
    /// Creates `path` (a temporary file) and writes `magic`.
    pub(crate) fn create(path: &Path, magic: &[u8; 8]) -> std::io::Result<Self> {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(path)?);
        out.write_all(magic)?;
        Ok(Self { out, crc: crc32fast::Hasher::new(), buf: Vec::new() })
    }

    /// Writes one record.
    pub(crate) fn record(&mut self, value: &impl Serialize) -> std::io::Result<()> {
        self.buf.clear();
        let body = postcard::to_extend(value, std::mem::take(&mut self.buf)).map_err(std::io::Error::other)?;
        let len = u32::try_from(body.len())
            .ok()
            .filter(|n| *n != END)
            .ok_or_else(|| std::io::Error::other("record too large"))?;
        self.crc.update(&len.to_le_bytes());
        self.crc.update(&body);
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(&body)?;
        self.buf = body;
        Ok(())
    }

    /// Writes the end mark and the CRC-32, and flushes.
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        self.out.write_all(&END.to_le_bytes())?;
        self.crc.update(&END.to_le_bytes());
        self.out.write_all(&self.crc.clone().finalize().to_le_bytes())?;
        self.out.into_inner().map_err(|e| e.into_error())?;
        Ok(())
    }
}

/// Writes a file with `write` to a temporary file beside `path` and renames it over `path`, so
/// a reader sees the old file or the new one, never part of one; the temporary file is removed
/// when anything fails. `tag` names the temporary file (`.<tag>.<pid>.<ns>.tmp`).
pub(crate) fn replace(path: &Path, tag: &str, write: impl FnOnce(&Path) -> std::io::Result<()>) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let temp = dir.join(format!(".{tag}.{}.{}.tmp", std::process::id(), crate::storage::stamps::now_ns()));
    let done = write(&temp).and_then(|_| std::fs::rename(&temp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    done
}
