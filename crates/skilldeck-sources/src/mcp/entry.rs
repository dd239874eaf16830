//! One `skills/list` entry checked before anything of it is read: its URI is a `skill://` URI of
//! a `SKILL.md`, its last folder is its `name`, its files are listed (not `"dynamic"`), each once,
//! each inside the skill, each with a well-formed digest. What passes is a plan of which URI goes
//! to which relative path with which digest and size; the bytes are checked against it as they
//! are read.

use rmcp::model::{Skill, SkillResources};
use sha2::{Digest as _, Sha256};
use std::collections::BTreeSet;

/// The scheme of skill URIs.
const SCHEME: &str = "skill://";

/// A skill's file, as its manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    /// Its resource URI.
    pub uri: String,
    /// Its path inside the skill, `/`-separated.
    pub rel: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    /// Its size in bytes.
    pub size: u64,
}

/// An entry that passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Planned {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// Its folder in the server's tree (the URI between `skill://` and `/SKILL.md`).
    pub path: String,
    /// Its name (the frontmatter's, equal to the folder's last segment).
    pub name: String,
    /// Every file, sorted by path; `SKILL.md` among them.
    pub files: Vec<Listed>,
}

impl Planned {
    /// The digest of the manifest as a whole: what changes exactly when a file's digest, size or
    /// path does (the provenance's `resolved`, compared by `outdated`).
    pub fn manifest_digest(&self) -> String {
        let lines: String = self.files.iter().map(|f| format!("{}\t{}\t{}\n", f.rel, f.digest, f.size)).collect();
        sha256(lines.as_bytes())
    }
}

/// Why an entry is refused before anything of it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EntryRefusal {
    /// The URI is not `skill://…/SKILL.md`.
    NotASkillUri,
    /// The last folder of the URI is not the entry's `name`.
    NameMismatch {
        /// The URI's last folder.
        segment: String,
    },
    /// `resources` is `"dynamic"`.
    Dynamic,
    /// The manifest is unusable.
    BadManifest {
        /// What is wrong, in a sentence.
        reason: String,
    },
}

impl EntryRefusal {
    /// A stable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotASkillUri => "mcp_not_a_skill_uri",
            Self::NameMismatch { .. } => "mcp_name_mismatch",
            Self::Dynamic => "mcp_dynamic_resources",
            Self::BadManifest { .. } => "mcp_bad_manifest",
        }
    }

    /// What happened, in a sentence.
    pub fn what(&self, entry: &Skill) -> String {
        match self {
            Self::NotASkillUri => format!("{} is not a skill:// URI of a SKILL.md", entry.uri),
            Self::NameMismatch { segment } => format!(
                "its URI's last folder is {segment:?} but its name is {:?}: a skill's folder and name must agree",
                entry.frontmatter.name
            ),
            Self::Dynamic => "its files are made on request (resources: \"dynamic\"): there is no manifest of digests to check them against".to_owned(),
            Self::BadManifest { reason } => format!("its manifest {reason}"),
        }
    }

    /// What would let it in.
    pub fn fix(&self) -> String {
        match self {
            Self::Dynamic => "Skilldeck installs a skill only when every file is listed with its digest, so what is installed is exactly what was published; ask the server's authors to list its files".to_owned(),
            _ => "the server has to publish it as the MCP Skills extension says; ask its authors to fix it".to_owned(),
        }
    }
}

/// Checks `entry` and plans its files.
pub(crate) fn plan(entry: &Skill) -> Result<Planned, EntryRefusal> {
    let path = entry
        .uri
        .strip_prefix(SCHEME)
        .and_then(|rest| rest.strip_suffix("/SKILL.md"))
        .filter(|p| safe_path(p))
        .ok_or(EntryRefusal::NotASkillUri)?;
    let segment = path.rsplit('/').next().unwrap_or(path);
    if segment != entry.frontmatter.name {
        return Err(EntryRefusal::NameMismatch { segment: segment.to_owned() });
    }
    let listed = match &entry.resources {
        SkillResources::Dynamic => return Err(EntryRefusal::Dynamic),
        SkillResources::Files(files) => files,
        _ => return Err(EntryRefusal::BadManifest { reason: "is of a kind this client does not know".to_owned() }),
    };
    let bad = |reason: String| EntryRefusal::BadManifest { reason };
    let base = format!("{SCHEME}{path}/");
    let mut seen = BTreeSet::new();
    let mut files = Vec::with_capacity(listed.len());
    for r in listed {
        let rel =
            r.uri.strip_prefix(&base).ok_or_else(|| bad(format!("lists {}, which is not inside the skill", r.uri)))?;
        if !safe_path(rel) {
            return Err(bad(format!("lists {}, whose path is not a plain path inside the skill", r.uri)));
        }
        let digest = r.digest.to_ascii_lowercase();
        let well_formed =
            digest.strip_prefix("sha256:").is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()));
        if !well_formed {
            return Err(bad(format!("gives {} the digest {:?}, not sha256: and 64 hex digits", r.uri, r.digest)));
        }
        if !seen.insert(rel.to_owned()) {
            return Err(bad(format!("lists {} twice", r.uri)));
        }
        files.push(Listed { uri: r.uri.clone(), rel: rel.to_owned(), digest, size: r.size });
    }
    if !seen.contains("SKILL.md") {
        return Err(bad("does not list SKILL.md".to_owned()));
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(Planned { uri: entry.uri.clone(), path: path.to_owned(), name: entry.frontmatter.name.clone(), files })
}

/// `bytes` checked against `file`'s digest and size: `None` when they match, else why not.
pub(crate) fn mismatch(file: &Listed, bytes: &[u8]) -> Option<(&'static str, String)> {
    if bytes.len() as u64 != file.size {
        return Some((
            "mcp_size_mismatch",
            format!("{} is {} bytes, but its manifest says {}", file.rel, bytes.len(), file.size),
        ));
    }
    let digest = sha256(bytes);
    (digest != file.digest).then(|| {
        (
            "mcp_digest_mismatch",
            format!("{}'s bytes have the digest {digest}, but its manifest says {}", file.rel, file.digest),
        )
    })
}

/// Whether `path` is `/`-separated plain names: none empty, `.` or `..`, no `\`, no NUL, no
/// colon (a drive on Windows).
fn safe_path(path: &str) -> bool {
    !path.is_empty()
        && path.split('/').all(|s| !s.is_empty() && s != "." && s != ".." && !s.contains(['\\', '\0', ':']))
}

/// `sha256:` and the hex SHA-256 of `bytes`, as manifests write digests.
pub(crate) fn sha256(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    format!("sha256:{}", hash.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use rmcp::model::{SkillFrontmatter, SkillResource};

    fn entry(uri: &str, name: &str, files: &[(&str, &[u8])]) -> Skill {
        let resources = files.iter().map(|(u, b)| SkillResource::from_bytes(*u, b)).collect();
        Skill::new(uri, SkillFrontmatter::new(name, "d"), SkillResources::Files(resources))
    }

    #[test]
    fn a_good_entry_is_planned_with_its_paths() {
        let e = entry(
            "skill://team/refunds/SKILL.md",
            "refunds",
            &[("skill://team/refunds/SKILL.md", b"x"), ("skill://team/refunds/references/a.md", b"yy")],
        );
        let p = plan(&e).unwrap();
        assert_eq!(p.path, "team/refunds");
        assert_eq!(p.files.iter().map(|f| f.rel.as_str()).collect::<Vec<_>>(), ["SKILL.md", "references/a.md"]);
        assert_eq!(mismatch(&p.files[0], b"x"), None);
        assert_eq!(mismatch(&p.files[0], b"z").unwrap().0, "mcp_digest_mismatch");
        assert_eq!(mismatch(&p.files[0], b"xx").unwrap().0, "mcp_size_mismatch");
        assert_ne!(
            p.manifest_digest(),
            plan(&entry("skill://team/refunds/SKILL.md", "refunds", &[("skill://team/refunds/SKILL.md", b"z")]))
                .unwrap()
                .manifest_digest()
        );
    }

    #[test]
    fn bad_entries_are_refused_with_their_reason() {
        let md: &[(&str, &[u8])] = &[("skill://refunds/SKILL.md", b"x")];
        assert_eq!(plan(&entry("skill://refunds/SKILL.md", "other", md)).unwrap_err().code(), "mcp_name_mismatch");
        assert_eq!(plan(&entry("file:///etc/SKILL.md", "etc", md)).unwrap_err().code(), "mcp_not_a_skill_uri");
        assert_eq!(plan(&entry("skill://../x/SKILL.md", "x", md)).unwrap_err().code(), "mcp_not_a_skill_uri");
        let escape: &[(&str, &[u8])] =
            &[("skill://refunds/SKILL.md", b"x"), ("skill://refunds/../../escape.txt", b"e")];
        assert_eq!(plan(&entry("skill://refunds/SKILL.md", "refunds", escape)).unwrap_err().code(), "mcp_bad_manifest");
        let other: &[(&str, &[u8])] = &[("skill://refunds/SKILL.md", b"x"), ("skill://other/a.md", b"e")];
        assert_eq!(plan(&entry("skill://refunds/SKILL.md", "refunds", other)).unwrap_err().code(), "mcp_bad_manifest");
        let no_md: &[(&str, &[u8])] = &[("skill://refunds/a.md", b"x")];
        assert_eq!(plan(&entry("skill://refunds/SKILL.md", "refunds", no_md)).unwrap_err().code(), "mcp_bad_manifest");
        let mut dynamic = entry("skill://refunds/SKILL.md", "refunds", md);
        dynamic.resources = SkillResources::Dynamic;
        assert_eq!(plan(&dynamic).unwrap_err().code(), "mcp_dynamic_resources");
    }
}
