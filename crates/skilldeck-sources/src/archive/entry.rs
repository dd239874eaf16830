//! The name of one archive entry, checked before anything is written: a relative path under the
//! folder, the archive's own root, or litter passed over. Holds the name rules; no reading.
//!
//! The refusals are `RelPath::parse`'s (`skilldeck-skill`), the rules every path in a skill
//! obeys, as the store's zip import applies them; only the spelling tar and zip tools add is
//! forgiven first (`./` at the front, a trailing `/`, `a//b`).

use super::error::{ArchiveError, Hostility};
use skilldeck_skill::relpath::{PathError, RelPath};
use skilldeck_store::import::IGNORED;

/// What an entry's name comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EntryName {
    /// A path under the folder.
    Path(RelPath),
    /// The archive's root itself (`./`).
    Root,
    /// Tool or OS litter (`__MACOSX/…`, `.DS_Store`, `.git/…`) or a store sidecar, never part of
    /// a skill.
    Litter,
}

/// Checks one entry's raw name. `Err` names the entry and refuses the whole archive.
pub(crate) fn check(raw: &[u8]) -> Result<EntryName, ArchiveError> {
    let Ok(name) = std::str::from_utf8(raw) else {
        return Err(ArchiveError::hostile(&String::from_utf8_lossy(raw), Hostility::NotUtf8));
    };
    let refuse = |e: PathError| ArchiveError::hostile(name, Hostility::Name(e));
    if name.starts_with('/') {
        return Err(refuse(PathError::Absolute));
    }
    let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    if parts.is_empty() {
        // `""` says nothing; `./` and `.` are the root. Control characters cannot hide here:
        // all that is left is `/` and `.`.
        return if name.is_empty() { Err(refuse(PathError::Empty)) } else { Ok(EntryName::Root) };
    }
    let path = RelPath::parse(&parts.join("/")).map_err(refuse)?;
    if path.as_str().split('/').any(|c| IGNORED.contains(&c)) {
        return Ok(EntryName::Litter);
    }
    Ok(EntryName::Path(path))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
    use super::*;

    fn check_name(raw: &str, expected: Result<&str, PathError>) {
        let got = check(raw.as_bytes());
        match expected {
            Ok(path) => assert_eq!(got, Ok(EntryName::Path(RelPath::parse(path).unwrap())), "{raw:?}"),
            Err(e) => assert_eq!(got, Err(ArchiveError::hostile(raw, Hostility::Name(e))), "{raw:?}"),
        }
    }

    #[test]
    fn names_are_forgiven_their_spelling_and_refused_their_escapes() {
        check_name("SKILL.md", Ok("SKILL.md"));
        check_name("./SKILL.md", Ok("SKILL.md"));
        check_name("pdf/scripts/", Ok("pdf/scripts"));
        check_name("a//b/./c", Ok("a/b/c"));
        check_name("/etc/passwd", Err(PathError::Absolute));
        check_name("../evil", Err(PathError::ParentDir));
        check_name("./a/../../evil", Err(PathError::ParentDir));
        check_name("a\\..\\evil", Err(PathError::Backslash));
        check_name("\\\\server\\share", Err(PathError::Absolute));
        check_name("C:/evil", Err(PathError::DrivePrefix));
        check_name("./C:evil", Err(PathError::DrivePrefix));
        check_name("a/b\u{1}c", Err(PathError::ControlChar));
        check_name("a\nb", Err(PathError::ControlChar));
        check_name("", Err(PathError::Empty));
    }

    #[test]
    fn root_litter_and_bytes() {
        assert_eq!(check(b"./"), Ok(EntryName::Root));
        assert_eq!(check(b"__MACOSX/._SKILL.md"), Ok(EntryName::Litter));
        assert_eq!(check(b"pdf/.DS_Store"), Ok(EntryName::Litter));
        assert_eq!(check(b"pdf/.version"), Ok(EntryName::Litter));
        assert_eq!(check(b"bad\xffname"), Err(ArchiveError::hostile("bad\u{fffd}name", Hostility::NotUtf8)));
    }
}
