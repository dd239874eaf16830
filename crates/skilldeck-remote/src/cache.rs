//! `Cache`: one remote's local copy under `$SKILLDECK_HOME/remotes/<NAME>/`.
//! Holds manifests and blobs as fetched and the refresh state; not the requests.

use crate::error::{RemoteError, Result};
use crate::layout::REV_DIGITS;
use crate::manifest::{Manifest, sha256_hex};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What the last refresh saw.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// When it finished (RFC 3339, UTC); `None` before the first.
    pub last_refresh: Option<String>,
    /// Each skill's latest revision.
    pub skills: BTreeMap<String, u64>,
    /// When a refresh was last tried (RFC 3339, UTC), successful or not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_attempt: Option<String>,
    /// Why the last try failed; `None` when it succeeded (the offline marker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// The skills the last refresh left at an older revision (or out) because their newest
    /// could not be used; `skills` holds their last good revision.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<crate::problem::SkillProblem>,
}

/// The time now as RFC 3339, UTC.
pub fn now() -> Option<String> {
    time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).ok()
}

/// The local copy of one remote.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> RemoteError + '_ {
    move |source| RemoteError::Cache { path: path.to_owned(), source }
}

/// Reads a file, `None` when it is not there.
fn read_opt(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path)(e)),
    }
}

/// Writes a file whole or not at all: a temporary beside it, then a rename.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".tmp-{}-{n}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

impl Cache {
    /// The cache of remote `remote` under the home folder `home`.
    pub fn new(home: &Path, remote: &str) -> Self {
        Self { root: home.join("remotes").join(remote) }
    }

    /// Its folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn manifest_path(&self, name: &str, rev: u64) -> PathBuf {
        self.root.join("manifests").join(name).join(format!("{rev:0width$}.json", width = REV_DIGITS))
    }

    fn blob_path(&self, hex: &str) -> PathBuf {
        self.root.join("blobs").join("sha256").join(hex)
    }

    fn state_path(&self) -> PathBuf {
        self.root.join("state.json")
    }

    /// A cached manifest, `None` when it was never fetched.
    pub fn manifest(&self, name: &str, rev: u64) -> Result<Option<Manifest>> {
        let path = self.manifest_path(name, rev);
        read_opt(&path)?.map(|b| Manifest::parse(&b, &path.to_string_lossy(), name, rev)).transpose()
    }

    /// Whether a manifest is cached.
    pub fn has_manifest(&self, name: &str, rev: u64) -> bool {
        self.manifest_path(name, rev).is_file()
    }

    /// Keeps a manifest's bytes as fetched.
    pub fn put_manifest(&self, name: &str, rev: u64, bytes: &[u8]) -> Result<()> {
        write_atomic(&self.manifest_path(name, rev), bytes)
    }

    /// The cached revisions of a skill, ascending.
    pub fn revisions(&self, name: &str) -> Result<Vec<u64>> {
        let dir = self.root.join("manifests").join(name);
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(&dir)(e)),
        };
        let mut revs: Vec<u64> =
            entries.filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".json")?.parse().ok()).collect();
        revs.sort_unstable();
        Ok(revs)
    }

    /// A cached blob, checked against its hash; `None` when missing (or damaged).
    pub fn blob(&self, hex: &str) -> Result<Option<Vec<u8>>> {
        Ok(read_opt(&self.blob_path(hex))?.filter(|b| sha256_hex(b) == hex))
    }

    /// Whether a blob is cached.
    pub fn has_blob(&self, hex: &str) -> bool {
        self.blob_path(hex).is_file()
    }

    /// Keeps a blob.
    pub fn put_blob(&self, hex: &str, bytes: &[u8]) -> Result<()> {
        write_atomic(&self.blob_path(hex), bytes)
    }

    /// The last refresh's state (the default before the first).
    pub fn state(&self) -> Result<State> {
        let path = self.state_path();
        match read_opt(&path)? {
            None => Ok(State::default()),
            Some(b) => serde_json::from_slice(&b).map_err(|e| RemoteError::Cache {
                path,
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            }),
        }
    }

    /// The files of a cached revision, each checked against its hash and size, and the whole
    /// against the manifest's digest: `None` when its manifest or one of its blobs is not
    /// cached, `Corrupt` when the files are not what the manifest says.
    pub fn files(&self, name: &str, rev: u64) -> Result<Option<skilldeck_skill::SkillFiles>> {
        let Some(m) = self.manifest(name, rev)? else {
            return Ok(None);
        };
        let corrupt = |reason: String| RemoteError::Corrupt { key: format!("{name} revision {rev}"), reason };
        let mut files = skilldeck_skill::SkillFiles::new();
        for f in &m.files {
            let Some(bytes) = self.blob(&f.sha256)? else {
                return Ok(None);
            };
            if bytes.len() as u64 != f.size {
                return Err(corrupt(format!(
                    "{} is {} bytes, its manifest says {}",
                    crate::untrusted::escape(&f.path),
                    bytes.len(),
                    f.size
                )));
            }
            let path = skilldeck_skill::RelPath::parse(&f.path).map_err(|e| corrupt(e.to_string()))?;
            files.insert(path, bytes);
        }
        let digest = files.digest().long();
        if digest != m.digest {
            return Err(corrupt(format!("its files make the digest {digest}, its manifest says {}", m.digest)));
        }
        Ok(Some(files))
    }

    /// Records a refresh.
    pub fn put_state(&self, state: &State) -> Result<()> {
        let path = self.state_path();
        let bytes = serde_json::to_vec_pretty(state)
            .map_err(|e| RemoteError::Cache { path: path.clone(), source: std::io::Error::other(e) })?;
        write_atomic(&path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Event;
    use skilldeck_skill::{RelPath, SkillFiles, SkillName};

    fn cached(m: &Manifest, blobs: &[&[u8]]) -> (tempfile::TempDir, Cache) {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path(), "team");
        cache.put_manifest("pdf", 1, &serde_json::to_vec(m).unwrap()).unwrap();
        for b in blobs {
            cache.put_blob(&sha256_hex(b), b).unwrap();
        }
        (dir, cache)
    }

    fn manifest() -> Manifest {
        let mut tree = SkillFiles::new();
        tree.insert(RelPath::parse("SKILL.md").unwrap(), b"one".to_vec());
        tree.insert(RelPath::parse("a.txt").unwrap(), b"two".to_vec());
        Manifest::new(&SkillName::parse("pdf").unwrap(), 1, &tree, Event::Publish, None)
    }

    #[test]
    fn files_whose_digest_is_not_the_manifests_are_refused() {
        let good = manifest();
        let (_d, cache) = cached(&good, &[b"one", b"two"]);
        assert_eq!(cache.files("pdf", 1).unwrap().map(|f| f.digest().long()), Some(good.digest.clone()));

        // Right blobs, but the manifest claims another tree's digest.
        let mut lying = manifest();
        lying.digest = format!("sha256:{}", "0".repeat(64));
        let (_d, cache) = cached(&lying, &[b"one", b"two"]);
        let err = cache.files("pdf", 1).unwrap_err().to_string();
        assert!(err.contains("its manifest says sha256:0000"), "{err}");
    }

    #[test]
    fn a_blob_of_another_size_than_its_entry_is_refused() {
        let mut m = manifest();
        m.files[0].size = 2;
        let (_d, cache) = cached(&m, &[b"one", b"two"]);
        let err = cache.files("pdf", 1).unwrap_err().to_string();
        assert!(err.contains("its manifest says 2"), "{err}");
    }
}
