//! `Manifest`: the JSON record of one revision of a skill in the team store.
//! Holds its fields, building one from files and checking one read back; not its storage.

use crate::error::{RemoteError, Result};
use crate::untrusted;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use skilldeck_skill::{Digest, SkillFiles, SkillName, UploadLimits};

// The type of `Manifest::files`, defined beneath this module and `untrusted`; named here too.
pub use crate::file_entry::FileEntry;

/// Why a revision was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// New content published.
    Publish,
    /// An older revision's files published again.
    Restore,
}

/// One revision of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The skill.
    pub name: String,
    /// The revision, from 1.
    pub revision: u64,
    /// The files, sorted by path.
    pub files: Vec<FileEntry>,
    /// `sha256:<64 hex>`, as `skilldeck_skill::Digest` computes it.
    pub digest: String,
    /// When it was published (RFC 3339, UTC).
    pub published_at: String,
    /// Who published it.
    pub publisher: String,
    /// Why it was written.
    pub event: Event,
    /// For a restore: the revision brought back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored_from: Option<u64>,
}

/// The SHA-256 of `bytes` in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    Sha256::digest(bytes).iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Who publishes from this machine: `$SKILLDECK_PUBLISHER`, else the user name.
pub fn publisher() -> String {
    ["SKILLDECK_PUBLISHER", "USER", "USERNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "unknown".to_owned())
}

impl Manifest {
    /// The manifest of `files` as revision `revision` (the time is now).
    pub fn new(name: &SkillName, revision: u64, files: &SkillFiles, event: Event, restored_from: Option<u64>) -> Self {
        let published_at =
            time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
        Self {
            name: name.to_string(),
            revision,
            files: files
                .iter()
                .map(|(p, b)| FileEntry { path: p.as_str().to_owned(), sha256: sha256_hex(b), size: b.len() as u64 })
                .collect(),
            digest: files.digest().long(),
            published_at,
            publisher: publisher(),
            event,
            restored_from,
        }
    }

    /// Parses a manifest read from `key`, checking it names the skill and revision of its key
    /// and passes `check` against this machine's limits (`untrusted::limits`).
    pub fn parse(bytes: &[u8], key: &str, name: &str, revision: u64) -> Result<Self> {
        let corrupt = |reason: String| RemoteError::Corrupt { key: key.to_owned(), reason };
        if bytes.len() as u64 > untrusted::MAX_MANIFEST_BYTES {
            return Err(corrupt(format!("it is larger than {} bytes", untrusted::MAX_MANIFEST_BYTES)));
        }
        let m: Self = serde_json::from_slice(bytes)
            .map_err(|e| corrupt(format!("not a manifest: {}", untrusted::escape(&e.to_string()))))?;
        if m.name != name || m.revision != revision {
            return Err(corrupt(format!("it says {} revision {}", untrusted::escape(&m.name), m.revision)));
        }
        m.check(untrusted::limits()).map_err(corrupt)?;
        Ok(m)
    }

    /// Checks what a reader must not take on trust: the files (`untrusted::check_files`
    /// against `limits`), a well-formed digest, and printable `publisher` and `published_at`.
    /// Says what is wrong.
    pub fn check(&self, limits: UploadLimits) -> std::result::Result<(), String> {
        untrusted::check_files(&self.files, limits)?;
        if Digest::parse_long(&self.digest).is_none() {
            return Err(format!("its digest {} is not sha256: and 64 hex digits", untrusted::escape(&self.digest)));
        }
        untrusted::check_text("publisher", &self.publisher)?;
        untrusted::check_text("published_at", &self.published_at)
    }

    /// The short digest shown to people (`sha256:` and 12 hex digits).
    pub fn short_digest(&self) -> String {
        Digest::parse_long(&self.digest).map(|d| d.short()).unwrap_or_else(|| self.digest.clone())
    }

    /// Total bytes of the files.
    pub fn total_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skilldeck_skill::RelPath;

    const MD: &[u8] = b"---\nname: pdf\ndescription: d\n---\nBody\n";

    fn manifest(files: &[(&str, &[u8])]) -> Manifest {
        let mut tree = SkillFiles::new();
        for (p, b) in files {
            tree.insert(RelPath::parse(p).unwrap(), b.to_vec());
        }
        Manifest::new(&SkillName::parse("pdf").unwrap(), 1, &tree, Event::Publish, None)
    }

    fn parse(m: &Manifest) -> Result<Manifest> {
        Manifest::parse(&serde_json::to_vec(m).unwrap(), "k", "pdf", 1)
    }

    fn refused(m: &Manifest, why: &str) {
        match parse(m) {
            Err(RemoteError::Corrupt { reason, .. }) => assert!(reason.contains(why), "{why:?} in {reason:?}"),
            other => panic!("{why}: {other:?}"),
        }
    }

    #[test]
    fn a_good_manifest_parses() {
        let m = manifest(&[("SKILL.md", MD), ("a/b.txt", b"x")]);
        assert_eq!(parse(&m).unwrap(), m);
    }

    #[test]
    fn more_files_or_bytes_than_the_limits_are_refused() {
        let limits = untrusted::limits();
        let mut m = manifest(&[("SKILL.md", MD)]);
        m.files = (0..=limits.max_files)
            .map(|i| FileEntry { path: format!("f{i:05}"), sha256: "a".repeat(64), size: 1 })
            .collect();
        refused(&m, "at most 5000");
        let mut m = manifest(&[("SKILL.md", MD)]);
        m.files[0].size = limits.max_file_bytes + 1;
        refused(&m, "the limit for one file");
        m.files = (0..9)
            .map(|i| FileEntry { path: format!("f{i}"), sha256: "a".repeat(64), size: limits.max_file_bytes })
            .collect();
        refused(&m, "more than 268435456 bytes in all");
        let mut m = manifest(&[("SKILL.md", MD)]);
        m.files[0].size = u64::MAX;
        refused(&m, "the limit for one file");
    }

    #[test]
    fn a_manifest_object_over_a_mebibyte_is_refused() {
        let big = vec![b' '; untrusted::MAX_MANIFEST_BYTES as usize + 1];
        match Manifest::parse(&big, "k", "pdf", 1) {
            Err(RemoteError::Corrupt { reason, .. }) => assert!(reason.contains("larger than 1048576"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn repeated_paths_are_refused() {
        let mut m = manifest(&[("SKILL.md", MD), ("a.txt", b"x")]);
        m.files[1].path = "SKILL.md".into();
        refused(&m, "twice");
    }

    #[test]
    fn paths_one_disk_holds_as_one_file_are_refused() {
        refused(&manifest(&[("SKILL.md", MD), ("Skill.md", b"evil")]), "case-insensitive");
        // "café.md" composed (NFC) and decomposed (NFD): one file on macOS.
        refused(&manifest(&[("SKILL.md", MD), ("caf\u{e9}.md", b"a"), ("cafe\u{301}.md", b"b")]), "normalising");
        refused(&manifest(&[("SKILL.md", MD), ("docs/A.md", b"a"), ("DOCS/a.md", b"b")]), "case-insensitive");
    }

    #[test]
    fn a_store_sidecar_or_a_malformed_digest_is_refused() {
        let mut m = manifest(&[("SKILL.md", MD), ("x", b"x")]);
        m.files[1].path = ".version".into();
        refused(&m, "bad file entry");
        let mut m = manifest(&[("SKILL.md", MD)]);
        m.digest = "sha256:xyz".into();
        refused(&m, "digest");
    }

    #[test]
    fn git_folders_and_os_litter_are_refused_like_an_import_refuses_them() {
        refused(
            &manifest(&[("SKILL.md", MD), (".git/config", b"[core]\n\tfsmonitor = evil\n")]),
            ".git is never stored",
        );
        refused(&manifest(&[("SKILL.md", MD), ("scripts/.git/HEAD", b"ref")]), ".git is never stored");
        refused(&manifest(&[("SKILL.md", MD), ("assets/.DS_Store", b"x")]), ".DS_Store is never stored");
        refused(&manifest(&[("SKILL.md", MD), ("__MACOSX/x", b"x")]), "__MACOSX is never stored");
    }

    #[test]
    fn control_characters_in_shown_text_are_refused() {
        for (field, bad) in [
            ("publisher", "ana\u{1b}[2K\rroot"),
            ("published_at", "2026\u{1b}]0;pwned\u{7}"),
            ("publisher", "a\u{202e}b"),
        ] {
            let mut m = manifest(&[("SKILL.md", MD)]);
            if field == "publisher" {
                m.publisher = bad.into();
            } else {
                m.published_at = bad.into();
            }
            refused(&m, &format!("its {field} holds the control character"));
        }
    }

    #[test]
    fn text_from_the_bucket_is_escaped_in_reasons() {
        let mut m = manifest(&[("SKILL.md", MD)]);
        m.name = "x\u{1b}[31m".into();
        let reason = parse(&m).unwrap_err().to_string();
        assert!(!reason.contains('\u{1b}') && reason.contains("\\u{1b}"), "{reason}");
    }
}
