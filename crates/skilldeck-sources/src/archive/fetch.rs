//! `fetch_archive` and `fetch_skill_md`: one URL fetched into a new skill folder, with the
//! SHA-256 of what was downloaded. Holds these two fetches; the index lives in `wellknown`.

use super::error::ArchiveError;
use super::kind::ArchiveKind;
use super::staging::Unpacked;
use super::unpack::extract;
use crate::http::{HttpClient, HttpError, Sha256Digest, shown_url};
use skilldeck_skill::UploadLimits;
use skilldeck_skill::name::SkillName;
use std::path::{Path, PathBuf};
use url::Url;

/// An archive fetched and unpacked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The folder it was unpacked into.
    pub dir: PathBuf,
    /// The SHA-256 of the downloaded bytes.
    pub digest: Sha256Digest,
    /// The URL the bytes came from, after redirects.
    pub url: Url,
    /// What kind of archive it was.
    pub kind: ArchiveKind,
    /// What unpacking wrote.
    pub unpacked: Unpacked,
}

/// A `SKILL.md` fetched into a skill folder of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedSkillMd {
    /// The skill's folder, `<dest>/<name>`, holding `SKILL.md`.
    pub dir: PathBuf,
    /// The name: the frontmatter's `name` when it is a valid skill name, else the URL's folder.
    pub name: SkillName,
    /// The SHA-256 of the downloaded bytes.
    pub digest: Sha256Digest,
    /// The URL the bytes came from, after redirects.
    pub url: Url,
}

/// Why fetching one URL into a folder failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The download failed.
    #[error(transparent)]
    Http(#[from] HttpError),
    /// The archive was refused or could not be unpacked.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// Neither the frontmatter nor the URL names the skill.
    #[error(
        "{url}: the SKILL.md has no valid `name` in its frontmatter and the address has no folder named like a skill; \
         fix the frontmatter, or fetch it from <…>/<skill-name>/SKILL.md"
    )]
    NoName {
        /// The URL as shown.
        url: String,
    },
    /// Writing the skill folder failed.
    #[error("{}: {reason}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
}

/// Fetches the archive at `url` (`.tar.gz`, `.tgz`, `.zip`, `.skill`) and unpacks it into the
/// new folder `dest` as [`extract`] does. The download is capped at `limits.max_total_bytes`;
/// its kind is told by its bytes, then by `Content-Type`, then by the URL's extension.
pub fn fetch_archive(
    client: &HttpClient,
    url: &Url,
    dest: &Path,
    limits: UploadLimits,
) -> Result<Extracted, FetchError> {
    let fetched = client.get_capped(url, limits.max_total_bytes)?;
    let digest = fetched.digest();
    let kind = ArchiveKind::detect(&fetched.bytes, fetched.content_type.as_deref(), fetched.url.path())
        .ok_or_else(|| ArchiveError::UnknownKind { name: shown_url(url) })?;
    let unpacked = extract(&fetched.bytes, kind, dest, limits)?;
    Ok(Extracted { dir: unpacked.dir.clone(), digest, url: fetched.url, kind, unpacked })
}

/// Fetches the `SKILL.md` at `url` into `<dest>/<name>/SKILL.md`, where the name is the
/// frontmatter's `name` when it is a valid skill name, else the folder the URL names it in
/// (`…/pdf/SKILL.md` is `pdf`). The download is capped at `limits.max_file_bytes`;
/// `<dest>/<name>` must not exist yet.
pub fn fetch_skill_md(
    client: &HttpClient,
    url: &Url,
    dest: &Path,
    limits: UploadLimits,
) -> Result<FetchedSkillMd, FetchError> {
    let fetched = client.get_capped(url, limits.max_file_bytes)?;
    let name = name_in_frontmatter(&fetched.bytes)
        .or_else(|| name_in_url(&fetched.url))
        .or_else(|| name_in_url(url))
        .ok_or_else(|| FetchError::NoName { url: shown_url(url) })?;
    let dir = dest.join(name.as_str());
    write_skill_md(&dir, &fetched.bytes)?;
    Ok(FetchedSkillMd { dir, name, digest: fetched.digest(), url: fetched.url })
}

/// Writes `bytes` as `<dir>/SKILL.md`, making `dir`, which must not exist yet.
pub(crate) fn write_skill_md(dir: &Path, bytes: &[u8]) -> Result<(), FetchError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| FetchError::Io { path, reason: e.to_string() }
    };
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    std::fs::create_dir(dir).map_err(io(dir))?;
    let file = dir.join("SKILL.md");
    std::fs::write(&file, bytes).map_err(io(&file))
}

/// The frontmatter's `name`, when it is a valid skill name.
fn name_in_frontmatter(bytes: &[u8]) -> Option<SkillName> {
    let text = std::str::from_utf8(bytes).ok()?;
    let rows = skilldeck_skill::frontmatter::field_rows(text);
    let (_, value) = rows.into_iter().find(|(key, _)| key == "name")?;
    SkillName::parse(value.as_str()?.trim()).ok()
}

/// The folder the URL's last segment sits in, when it is a valid skill name.
fn name_in_url(url: &Url) -> Option<SkillName> {
    let mut segments: Vec<&str> = url.path_segments()?.filter(|s| !s.is_empty()).collect();
    segments.pop()?;
    SkillName::parse(segments.pop()?).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
    use super::*;

    #[test]
    fn names_from_frontmatter_then_url() {
        let named = |s: &str| Some(SkillName::parse(s).unwrap());
        assert_eq!(name_in_frontmatter(b"---\nname: pdf\ndescription: x\n---\nbody"), named("pdf"));
        assert_eq!(name_in_frontmatter(b"---\nname: Not Valid\n---\n"), None);
        assert_eq!(name_in_frontmatter(b"no frontmatter"), None);
        let url = |s: &str| Url::parse(s).unwrap();
        assert_eq!(name_in_url(&url("https://h/skills/pdf/SKILL.md")), named("pdf"));
        assert_eq!(name_in_url(&url("https://h/SKILL.md")), None);
        assert_eq!(name_in_url(&url("https://h/Bad_Name/SKILL.md")), None);
    }
}
