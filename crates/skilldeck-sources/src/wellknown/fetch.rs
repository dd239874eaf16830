//! A discovery index fetched, listed, and its chosen entries fetched into skill folders, each
//! digest checked before its bytes are used. Holds the fetching; the JSON rules are `index.rs`.

use super::error::{EntryRefusal, Refused, WellKnownError};
use super::index::{EntryKind, IndexSkill, index_url, parse_index};
use crate::archive::{ArchiveKind, FetchError, extract, write_skill_md};
use crate::http::{HttpClient, Sha256Digest};
use skilldeck_skill::UploadLimits;
use std::collections::HashSet;
use std::path::Path;
use url::Url;

/// The largest index read, in bytes.
pub const MAX_INDEX_BYTES: u64 = 8 << 20;

/// An index fetched, and (after [`fetch_entries`]) the skills fetched from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexFetch {
    /// The URL the index was read from, after redirects; entry URLs resolve against it.
    pub index_url: Url,
    /// The SHA-256 of the index's bytes: what a revision from this index records.
    pub index_digest: Sha256Digest,
    /// In a listing, every valid entry (`dir` is `None`); after a fetch, the entries that came
    /// in, each with its folder.
    pub entries: Vec<IndexSkill>,
    /// Entries not taken, with why: invalid in the index, or (after a fetch) failing to come in.
    pub refused: Vec<Refused>,
}

/// Which entries to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wanted {
    /// Every valid entry.
    All,
    /// These names only; a name the index does not list is refused as
    /// [`EntryRefusal::NotInIndex`].
    Names(Vec<String>),
}

impl Wanted {
    fn wants(&self, name: &str) -> bool {
        match self {
            Self::All => true,
            Self::Names(names) => names.iter().any(|n| n == name),
        }
    }
}

/// Fetches and reads the index for `base` (see [`index_url`]) without fetching any skill, so a
/// caller can show the listing and choose names.
pub fn list_index(client: &HttpClient, base: &str) -> Result<IndexFetch, WellKnownError> {
    let url = index_url(base)?;
    let fetched = client.get_capped(&url, MAX_INDEX_BYTES)?;
    let (entries, refused) = parse_index(&fetched.bytes, &fetched.url)?;
    Ok(IndexFetch { index_digest: fetched.digest(), index_url: fetched.url, entries, refused })
}

/// Fetches the `wanted` entries of `listing` into `<dir>/<name>/`, each against the digest the
/// listing holds (so what was previewed is what comes in, even if the index changed since).
///
/// Each artifact is downloaded whole and its SHA-256 compared with the entry's digest before
/// anything of it is used; a mismatch refuses that entry, naming both digests. A `skill-md`
/// entry is written as `<dir>/<name>/SKILL.md`; an `archive` is unpacked into `<dir>/<name>/`
/// as [`extract`] does (one wrapping top folder is taken away) and must have `SKILL.md` at its
/// top. A failing entry is refused with why and leaves nothing in `dir`; the others still come
/// in. `Err` only when `dir` cannot be made.
pub fn fetch_entries(
    client: &HttpClient,
    listing: &IndexFetch,
    wanted: &Wanted,
    dir: &Path,
    limits: UploadLimits,
) -> Result<IndexFetch, WellKnownError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| WellKnownError::Scratch { path: dir.to_path_buf(), reason: e.to_string() })?;
    let mut entries = Vec::new();
    let mut refused: Vec<Refused> = listing.refused.iter().filter(|r| wanted.wants(&r.name)).cloned().collect();
    for skill in listing.entries.iter().filter(|s| wanted.wants(s.name.as_str())) {
        match fetch_entry(client, skill, dir, limits) {
            Ok(fetched) => entries.push(fetched),
            Err(reason) => refused.push(Refused { name: skill.name.as_str().to_owned(), reason }),
        }
    }
    if let Wanted::Names(names) = wanted {
        let known: HashSet<&str> = listing
            .entries
            .iter()
            .map(|s| s.name.as_str())
            .chain(listing.refused.iter().map(|r| r.name.as_str()))
            .collect();
        let mut missing: Vec<&String> = names.iter().filter(|n| !known.contains(n.as_str())).collect();
        missing.dedup();
        refused.extend(missing.into_iter().map(|n| Refused { name: n.clone(), reason: EntryRefusal::NotInIndex }));
    }
    Ok(IndexFetch {
        index_url: listing.index_url.clone(),
        index_digest: listing.index_digest.clone(),
        entries,
        refused,
    })
}

/// [`list_index`] then [`fetch_entries`]: the index for `base` and its `wanted` skills.
pub fn fetch_index(
    client: &HttpClient,
    base: &str,
    wanted: &Wanted,
    dir: &Path,
    limits: UploadLimits,
) -> Result<IndexFetch, WellKnownError> {
    let listing = list_index(client, base)?;
    fetch_entries(client, &listing, wanted, dir, limits)
}

/// One entry fetched, checked against its digest, and written into `<dir>/<name>/`.
fn fetch_entry(
    client: &HttpClient,
    skill: &IndexSkill,
    dir: &Path,
    limits: UploadLimits,
) -> Result<IndexSkill, EntryRefusal> {
    let cap = match skill.kind {
        EntryKind::SkillMd => limits.max_file_bytes,
        EntryKind::Archive => limits.max_total_bytes,
    };
    let fetched = client.get_capped(&skill.url, cap).map_err(EntryRefusal::Fetch)?;
    let got = fetched.digest();
    if got != skill.digest {
        return Err(EntryRefusal::DigestMismatch { expected: skill.digest.clone(), got });
    }
    let dest = dir.join(skill.name.as_str());
    match skill.kind {
        EntryKind::SkillMd => write_skill_md(&dest, &fetched.bytes).map_err(|e| match e {
            FetchError::Io { path, reason } => EntryRefusal::Write { path, reason },
            other => EntryRefusal::Write { path: dest.clone(), reason: other.to_string() },
        })?,
        EntryKind::Archive => {
            let kind = ArchiveKind::detect(&fetched.bytes, fetched.content_type.as_deref(), fetched.url.path())
                .ok_or(EntryRefusal::NotAnArchive)?;
            let unpacked = extract(&fetched.bytes, kind, &dest, limits).map_err(EntryRefusal::Archive)?;
            if !unpacked.has_skill_md {
                let _ = std::fs::remove_dir_all(&unpacked.dir);
                return Err(EntryRefusal::NoSkillMd);
            }
        }
    }
    Ok(IndexSkill { dir: Some(dest), ..skill.clone() })
}
