//! Unpacking a `.zip` (or `.skill`): every entry's name and type checked from the central
//! directory before anything is inflated, then each file written to the staging folder.
//! Holds the zip reading; not the limits.

use super::entry::{self, EntryName};
use super::error::{ArchiveError, Hostility};
use super::kind::ArchiveKind;
use super::staging::Staging;
use std::io::{Cursor, Read};

/// The Unix file-type bits of an entry that is neither a regular file nor a folder, named.
fn special_kind(mode: Option<u32>) -> Option<&'static str> {
    const S_IFMT: u32 = 0o170000;
    match mode? & S_IFMT {
        0 | 0o100000 | 0o040000 => None,
        0o120000 => Some("symbolic link"),
        0o020000 => Some("character device"),
        0o060000 => Some("block device"),
        0o010000 => Some("FIFO"),
        0o140000 => Some("socket"),
        _ => Some("special file"),
    }
}

/// Unpacks the zip in `bytes` into `staging`.
pub(crate) fn unpack(bytes: &[u8], staging: &mut Staging) -> Result<(), ArchiveError> {
    let corrupt = |e: zip::result::ZipError| ArchiveError::Corrupt { kind: ArchiveKind::Zip, reason: e.to_string() };
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(corrupt)?;
    // First pass, names and types only: a hostile entry anywhere refuses the archive before
    // one byte is inflated.
    let mut names = Vec::with_capacity(zip.len());
    for i in 0..zip.len() {
        let file = zip.by_index_raw(i).map_err(corrupt)?;
        let raw = String::from_utf8_lossy(file.name_raw()).into_owned();
        let name = entry::check(file.name_raw())?;
        if file.is_symlink() {
            drop(file);
            let target = link_target(&mut zip, i);
            return Err(ArchiveError::hostile(&raw, Hostility::Symlink { target }));
        }
        if let Some(kind) = special_kind(file.unix_mode()) {
            return Err(ArchiveError::hostile(&raw, Hostility::Special { kind }));
        }
        names.push((raw, name, file.is_dir()));
    }
    for (i, (raw, name, is_dir)) in names.into_iter().enumerate() {
        match name {
            EntryName::Root => {}
            EntryName::Litter => staging.skip(&raw),
            EntryName::Path(path) if is_dir => staging.folder(&raw, &path)?,
            EntryName::Path(path) => {
                let mut file = zip.by_index(i).map_err(corrupt)?;
                staging.file(&raw, &path, &mut file)?;
            }
        }
    }
    Ok(())
}

/// A zip symlink's target is its content; read at most 1 KiB of it, for the message.
fn link_target(zip: &mut zip::ZipArchive<Cursor<&[u8]>>, i: usize) -> String {
    let mut target = Vec::new();
    if let Ok(file) = zip.by_index(i) {
        let _ = file.take(1024).read_to_end(&mut target);
    }
    String::from_utf8_lossy(&target).into_owned()
}
