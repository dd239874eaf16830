//! Unpacking a `.tar.gz`: gzip inflated as it is read, each tar entry checked (name, type)
//! before its bytes are written to the staging folder. Holds the tar reading; not the limits.

use super::entry::{self, EntryName};
use super::error::{ArchiveError, Hostility};
use super::kind::ArchiveKind;
use super::staging::Staging;
use std::cell::Cell;
use std::io::Read;
use std::rc::Rc;
use tar::EntryType;

/// Slack for tar's own headers and padding (512 bytes a header, padding to 512, long names)
/// above the files' bytes, before the inflated stream is cut off.
const HEADER_SLACK: u64 = 16 << 20;

/// Unpacks the `.tar.gz` in `bytes` into `staging`.
pub(crate) fn unpack(bytes: &[u8], staging: &mut Staging) -> Result<(), ArchiveError> {
    let limits = staging.limits();
    // The whole inflated stream is capped too: tar reads long names and pax headers into
    // memory, and those are no file the staging folder counts.
    let cap = limits.max_total_bytes.saturating_add(HEADER_SLACK);
    let inflated = Rc::new(Cell::new(0u64));
    let reader = Capped { inner: flate2::read::GzDecoder::new(bytes), read: Rc::clone(&inflated), cap };
    let mut archive = tar::Archive::new(reader);
    let mut last = String::new();
    let corrupt_or_cap = |e: std::io::Error, last: &str| {
        if inflated.get() > cap {
            ArchiveError::TotalTooLarge {
                entry: last.to_owned(),
                at_least: inflated.get(),
                limit: limits.max_total_bytes,
            }
        } else {
            ArchiveError::Corrupt { kind: ArchiveKind::TarGz, reason: e.to_string() }
        }
    };
    let entries = archive.entries().map_err(|e| corrupt_or_cap(e, &last))?;
    for item in entries {
        let mut item = item.map_err(|e| corrupt_or_cap(e, &last))?;
        let raw_bytes = item.path_bytes().into_owned();
        last = String::from_utf8_lossy(&raw_bytes).into_owned();
        let kind = item.header().entry_type();
        if kind == EntryType::XGlobalHeader {
            // pax global metadata (`git archive` writes one); no file.
            continue;
        }
        let name = entry::check(&raw_bytes)?;
        let target = || item.link_name_bytes().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default();
        let refuse = |reason| Err(ArchiveError::hostile(&last, reason));
        match kind {
            EntryType::Regular | EntryType::Continuous | EntryType::Directory => {}
            EntryType::Symlink => return refuse(Hostility::Symlink { target: target() }),
            EntryType::Link => return refuse(Hostility::HardLink { target: target() }),
            EntryType::Char => return refuse(Hostility::Special { kind: "character device" }),
            EntryType::Block => return refuse(Hostility::Special { kind: "block device" }),
            EntryType::Fifo => return refuse(Hostility::Special { kind: "FIFO" }),
            EntryType::GNUSparse => return refuse(Hostility::Unsupported { kind: "sparse file".to_owned() }),
            other => return refuse(Hostility::Unsupported { kind: format!("tar type {:?}", other.as_byte() as char) }),
        }
        match name {
            EntryName::Root => {}
            EntryName::Litter => staging.skip(&last),
            EntryName::Path(path) if kind == EntryType::Directory => staging.folder(&last, &path)?,
            EntryName::Path(path) => {
                staging.file(&last, &path, &mut item).map_err(|e| match e {
                    ArchiveError::Corrupt { .. } if inflated.get() > cap => ArchiveError::TotalTooLarge {
                        entry: last.clone(),
                        at_least: inflated.get(),
                        limit: limits.max_total_bytes,
                    },
                    other => other,
                })?;
            }
        }
    }
    Ok(())
}

/// A reader that fails once more than `cap` bytes were read, counting into `read`.
struct Capped<R> {
    inner: R,
    read: Rc<Cell<u64>>,
    cap: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        if self.read.get() > self.cap {
            return Err(std::io::Error::other("the archive inflates past its limit"));
        }
        Ok(n)
    }
}
