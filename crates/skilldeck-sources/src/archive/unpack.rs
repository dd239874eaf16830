//! `extract` and `extract_file`: an archive's bytes unpacked into a new folder, whole or not at
//! all. Holds the choice of reader and the move into place; the rules live below.

use super::error::ArchiveError;
use super::kind::ArchiveKind;
use super::staging::{Staging, Unpacked};
use super::{tar_gz, zip_archive};
use skilldeck_skill::UploadLimits;
use std::path::Path;

/// Unpacks `bytes`, an archive of `kind`, into the new folder `dest` (its parent is made when
/// missing).
///
/// Safe by construction: every entry's name is checked before it is written (absolute paths,
/// `..`, backslashes, drive prefixes and control characters refuse the whole archive, naming
/// the entry); symbolic and hard links, devices and FIFOs refuse it too, wherever they point,
/// and no link is ever made; the limits count the bytes actually inflated, so a zip bomb stops
/// at the limit whatever its headers claim. Files are written without execute permission.
/// Everything is unpacked into a hidden folder beside `dest` and moved into place only when
/// every entry passed; on any error nothing is left behind.
///
/// The discovery spec puts `SKILL.md` at the archive's root. Archives made by zipping a folder
/// wrap it in one more: when there is no `SKILL.md` at the top but one top folder holding a
/// `SKILL.md`, that folder's contents are what land in `dest` ([`Unpacked::stripped_root`]
/// names it). Tool litter (`__MACOSX/`, `.DS_Store`, `.git/`) is passed over and listed.
pub fn extract(bytes: &[u8], kind: ArchiveKind, dest: &Path, limits: UploadLimits) -> Result<Unpacked, ArchiveError> {
    let mut staging = Staging::new(kind, dest, limits)?;
    match kind {
        ArchiveKind::TarGz => tar_gz::unpack(bytes, &mut staging)?,
        ArchiveKind::Zip => zip_archive::unpack(bytes, &mut staging)?,
    }
    staging.finish()
}

/// Unpacks the archive file at `path` into the new folder `dest`, as [`extract`]. Its kind is
/// told by its bytes, else by its name (`.tar.gz`, `.tgz`, `.zip`, `.skill`). The file is read
/// only when it is no larger than `limits.max_total_bytes`.
pub fn extract_file(path: &Path, dest: &Path, limits: UploadLimits) -> Result<Unpacked, ArchiveError> {
    let size = std::fs::metadata(path).map_err(ArchiveError::io(path))?.len();
    if size > limits.max_total_bytes {
        return Err(ArchiveError::TotalTooLarge {
            entry: path.display().to_string(),
            at_least: size,
            limit: limits.max_total_bytes,
        });
    }
    let bytes = std::fs::read(path).map_err(ArchiveError::io(path))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let kind = ArchiveKind::detect(&bytes, None, &name)
        .ok_or_else(|| ArchiveError::UnknownKind { name: path.display().to_string() })?;
    extract(&bytes, kind, dest, limits)
}
