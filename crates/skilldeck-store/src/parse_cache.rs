//! The persisted parse cache: what parsing and validating each stored skill found, kept in one
//! compact file per scope so a new process lists a large store without parsing every
//! `SKILL.md` again. Holds the file's format, reading and writing it; not the decision which
//! entries to trust (the registry checks each one's stamps) nor the stamps themselves (`scan`).
//!
//! The file is `$SKILLDECK_HOME/cache/<scope>.skills`: 8 magic bytes, a header record, one
//! record per skill sorted by name (each a 4-byte length and its `postcard` encoding), an end
//! mark, then the CRC-32 of all of it after the magic. The header names the format, the
//! fingerprint of the sources of the build that wrote it (`build.rs`) and the scope; a file with another of any, a torn,
//! truncated or corrupt file is ignored as a whole, never trusted in part, and the next full
//! listing writes a new one. It is replaced by writing a temporary
//! file and renaming it over the old one, so a reader sees the old file or the new one.

use crate::framed::{self, Reader, Writer};
use crate::storage::seal::Stamp;
use crate::storage::{Revision, Scope};
use serde::{Deserialize, Serialize};
use skilldeck_skill::diag_args::DiagArgs;
use skilldeck_skill::diagnostic::{DiagCode, Diagnostic, Severity};
use skilldeck_skill::digest::Digest;
use skilldeck_skill::entry::{Derived, LineTokens, SkillEntry};
use skilldeck_skill::meta::{Dependencies, ExtraFields, JsonText, SkillMeta, Tier};
use skilldeck_skill::risk::RiskSummary;
use std::path::{Path, PathBuf};

/// The first bytes of every cache file.
const MAGIC: &[u8; 8] = b"SKDCACHE";
/// The layout of the payload; bump on any change to the types below.
const FORMAT: u32 = 4;
/// The fingerprint of this build's parser and validator sources.
const FINGERPRINT: &str = env!("SKILLDECK_PARSER_FINGERPRINT");

/// What parsing one skill found, with the stamps of what was read for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedSkill {
    /// Its folder name.
    pub name: String,
    /// The stamps of its folder, folders, files and sidecars when read.
    pub stamps: Vec<(String, Stamp)>,
    /// The revision in `.version`.
    pub revision: Option<u64>,
    /// The content digest, when it was read.
    pub digest: Option<[u8; 32]>,
    /// How many files.
    pub file_count: u64,
    /// Their total size.
    pub total_bytes: u64,
    /// The typed frontmatter.
    pub meta: CachedMeta,
    /// Every problem found, in order.
    pub diagnostics: Vec<CachedDiag>,
    /// The headings of its SKILL.md (the ranker searches them).
    pub headings: Vec<String>,
    /// What the audit found in its files.
    pub risk: Option<RiskSummary>,
    /// What its listing lines cost, once a listing counted them.
    pub line_tokens: Option<LineTokens>,
}

impl CachedSkill {
    /// The entry the persisted cache holds, as `entries::from_validated` built it when it was
    /// parsed.
    pub fn into_entry(self, scope: Scope) -> SkillEntry {
        let c = self;
        let meta = SkillMeta::from(c.meta);
        let diagnostics: Vec<Diagnostic> = c.diagnostics.into_iter().map(Diagnostic::from).collect();
        let revision = c.revision.map(Revision);
        let description = meta.description.as_deref().unwrap_or_default();
        let one_line = skilldeck_skill::entry::one_line_if_changed(description);
        SkillEntry {
            scope,
            name: c.name,
            valid: !diagnostics.iter().any(Diagnostic::is_error),
            one_line,
            digest: c.digest.map(Digest::from_bytes),
            version: revision.map(|r| r.to_string()).or_else(|| meta.version.clone()),
            meta,
            diagnostics,
            revision,
            file_count: usize::try_from(c.file_count).unwrap_or(usize::MAX),
            total_bytes: c.total_bytes,
            headings: c.headings,
            risk: c.risk,
            line_tokens: c.line_tokens.map(Derived::known).unwrap_or_default(),
        }
    }

    /// Takes the line costs counted for `entry` when this record lists as it does (the same
    /// revision, version and description: another process may have cached a newer parse since).
    pub fn add_line_tokens(&mut self, entry: &SkillEntry) {
        if let Some(t) = entry.line_tokens.get()
            && self.revision == entry.revision.map(|r| r.0)
            && self.meta.version == entry.meta.version
            && self.meta.description == entry.meta.description
        {
            self.line_tokens = Some(*t);
        }
    }

    /// `entry` for the persisted cache, with the stamps of what was read for it.
    pub fn of(entry: &SkillEntry, stamps: Vec<(String, Stamp)>) -> Self {
        Self {
            name: entry.name.clone(),
            stamps,
            revision: entry.revision.map(|r| r.0),
            digest: entry.digest.map(|d| d.bytes()),
            file_count: entry.file_count as u64,
            total_bytes: entry.total_bytes,
            meta: (&entry.meta).into(),
            diagnostics: entry.diagnostics.iter().map(Into::into).collect(),
            headings: entry.headings.clone(),
            risk: entry.risk.clone(),
            line_tokens: entry.line_tokens.get().copied(),
        }
    }
}

/// `SkillMeta` in the cache's encoding (JSON values as their text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedMeta {
    name: Option<String>,
    description: Option<String>,
    description_zh: Option<String>,
    version: Option<String>,
    compatibility: Option<String>,
    allowed_tools: Vec<String>,
    min_tier: Option<Tier>,
    license: Option<String>,
    metadata: Option<String>,
    python: Vec<String>,
    node: Vec<String>,
    extra: Vec<(String, String)>,
}

impl From<&SkillMeta> for CachedMeta {
    fn from(m: &SkillMeta) -> Self {
        Self {
            name: m.name.clone(),
            description: m.description.clone(),
            description_zh: m.description_zh.clone(),
            version: m.version.clone(),
            compatibility: m.compatibility.clone(),
            allowed_tools: m.allowed_tools.clone(),
            min_tier: m.min_tier,
            license: m.license.clone(),
            metadata: m.metadata.as_ref().map(|j| j.as_str().to_owned()),
            python: m.dependencies.python.clone(),
            node: m.dependencies.node.clone(),
            extra: m.extra.iter().map(|(k, v)| (k.to_owned(), v.as_str().to_owned())).collect(),
        }
    }
}

impl From<CachedMeta> for SkillMeta {
    fn from(c: CachedMeta) -> Self {
        let mut extra = ExtraFields::default();
        for (k, v) in c.extra {
            extra.insert(k, JsonText::from_text(v));
        }
        Self {
            name: c.name,
            description: c.description,
            description_zh: c.description_zh,
            version: c.version,
            compatibility: c.compatibility,
            allowed_tools: c.allowed_tools,
            min_tier: c.min_tier,
            license: c.license,
            metadata: c.metadata.map(JsonText::from_text),
            dependencies: Dependencies { python: c.python, node: c.node },
            extra,
        }
    }
}

/// `Diagnostic` in the cache's encoding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedDiag {
    code: DiagCode,
    severity: Severity,
    message: String,
    line: Option<u32>,
    args: Vec<(String, String)>,
}

impl From<&Diagnostic> for CachedDiag {
    fn from(d: &Diagnostic) -> Self {
        Self {
            code: d.code,
            severity: d.severity,
            message: d.message.clone(),
            line: d.line,
            args: d.args.iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect(),
        }
    }
}

impl From<CachedDiag> for Diagnostic {
    fn from(c: CachedDiag) -> Self {
        let mut args = DiagArgs::new();
        for (k, v) in c.args {
            args.set(k, v);
        }
        Self { code: c.code, severity: c.severity, message: c.message, line: c.line, args }
    }
}

/// The header of a cache file, after its magic.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    format: u32,
    fingerprint: String,
    scope: Scope,
}

/// The cache file of `scope` under the home at `root`.
pub fn path(root: &Path, scope: Scope) -> PathBuf {
    root.join("cache").join(format!("{}.skills", scope.as_str()))
}

/// The empty file a listing touches to read the file system's clock before it stamps the
/// skills it reads (`storage::stamps::fs_clock`), beside the cache files.
pub fn clock_path(root: &Path) -> PathBuf {
    root.join("cache").join(".clock")
}

/// The bytes every scope's cache file takes under the home at `root` (0 for none).
pub fn size(root: &Path) -> u64 {
    Scope::ALL.iter().filter_map(|s| std::fs::metadata(path(root, *s)).ok()).map(|m| m.len()).sum()
}

/// Removes every scope's cache file under the home at `root`: the next listing of a scope
/// parses its skills again and writes a new one. Returns the bytes freed. A registry that
/// already holds its entries in memory keeps them; only the file is gone.
pub fn clear(root: &Path) -> std::io::Result<u64> {
    let mut freed = 0;
    for scope in Scope::ALL {
        let file = path(root, scope);
        let len = std::fs::metadata(&file).map_or(0, |m| m.len());
        match std::fs::remove_file(&file) {
            Ok(()) => freed += len,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(freed)
}

/// Hands each skill cached for `scope` in the file at `path` to `f`, in the order written (by
/// name), one at a time, so a large cache is never held whole. True only when the file is one
/// this build wrote whole: when false (no file, another format or build, torn, corrupt,
/// records after the end), whatever `f` was given must be dropped, never trusted.
/// Records of a cache file, read but not yet decoded: a batch for the caller to decode on as
/// many threads as it likes.
#[derive(Debug, Default)]
pub struct RawBatch {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl RawBatch {
    /// How many records.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Record `i`, decoded; `None` when it does not decode (a file written by a build whose
    /// types differ under the same fingerprint, or a corrupt one whose CRC happened to match),
    /// and then the whole file must be disregarded, as [`read_batches`] says.
    pub fn decode(&self, i: usize) -> Option<CachedSkill> {
        let start = if i == 0 { 0 } else { *self.ends.get(i - 1)? };
        postcard::from_bytes(self.bytes.get(start..*self.ends.get(i)?)?).ok()
    }
}

/// Reads the cache of `scope` at `path` in batches of up to `batch` records, in name order,
/// giving each to `f` to decode and use. True when the file was whole: present, of this
/// format, build and scope, complete and matching its CRC. When false, whatever `f` was given
/// must be disregarded (a file is never trusted in part); so must every batch when one of its
/// records did not decode.
pub fn read_batches(path: &Path, scope: Scope, batch: usize, f: impl FnMut(&RawBatch)) -> bool {
    std::fs::File::open(path).ok().and_then(|file| read(file, scope, batch.max(1), f)).is_some()
}

fn read(file: std::fs::File, scope: Scope, batch: usize, mut f: impl FnMut(&RawBatch)) -> Option<()> {
    let mut r = Reader::open(file, MAGIC)?;
    let header: Header = r.record()?.ok()?;
    if header.format != FORMAT || header.fingerprint != FINGERPRINT || header.scope != scope {
        return None;
    }
    let mut raw = RawBatch::default();
    while let Ok(()) = r.raw_record(&mut raw.bytes)? {
        raw.ends.push(raw.bytes.len());
        if raw.len() == batch {
            f(&raw);
            raw.bytes.clear();
            raw.ends.clear();
        }
    }
    if !raw.is_empty() {
        f(&raw);
    }
    r.finish()
}

/// Replaces the cache file of `scope` at `path`: the records of the file there now that `keep`
/// accepts (it may also add to a record what was learnt since, such as its line costs), merged by name with the records `fresh` gives (sorted by name, each
/// made as it is written, replacing any old record of the same name). The old records are
/// streamed through, so a large cache is never held whole; when the old file turns out not to be whole, only `fresh` is written. Best effort: a
/// cache that cannot be written (a read-only home, a full disk) only makes the next start
/// slower, so the error is returned for the caller to ignore, and no partial file is ever left
/// in place. Every record keeps its own stamps, so one copied through is still checked by
/// every reader before it is trusted.
pub fn rewrite<I: Iterator<Item = CachedSkill>>(
    path: &Path,
    scope: Scope,
    keep: impl Fn(&mut CachedSkill) -> bool,
    fresh: impl Fn() -> I,
) -> std::io::Result<()> {
    framed::replace(path, scope.as_str(), |temp| {
        let old = std::fs::File::open(path).ok().and_then(|f| Reader::open(f, MAGIC));
        if write_file(temp, scope, old, &keep, fresh())? {
            return Ok(());
        }
        write_file(temp, scope, None, &keep, fresh()).map(|_| ())
    })
}

/// Writes the merged records to `temp`; `Ok(false)` when the old file was not whole.
fn write_file(
    temp: &Path,
    scope: Scope,
    mut old: Option<Reader>,
    keep: &impl Fn(&mut CachedSkill) -> bool,
    fresh: impl Iterator<Item = CachedSkill>,
) -> std::io::Result<bool> {
    let mut w = Writer::create(temp, MAGIC)?;
    w.record(&Header { format: FORMAT, fingerprint: FINGERPRINT.to_owned(), scope })?;
    let mut fresh = fresh.peekable();
    if let Some(r) = old.as_mut() {
        let same = matches!(r.record::<Header>(), Some(Ok(h)) if h.format == FORMAT && h.fingerprint == FINGERPRINT && h.scope == scope);
        if !same {
            return Ok(false);
        }
        loop {
            let mut skill = match r.record::<CachedSkill>() {
                Some(Ok(s)) => s,
                Some(Err(())) => break,
                None => return Ok(false),
            };
            while let Some(f) = fresh.next_if(|f| f.name < skill.name) {
                w.record(&f)?;
            }
            if fresh.peek().is_some_and(|f| f.name == skill.name) || !keep(&mut skill) {
                continue;
            }
            w.record(&skill)?;
        }
    }
    if let Some(r) = old
        && r.finish().is_none()
    {
        return Ok(false);
    }
    for f in fresh {
        w.record(&f)?;
    }
    w.finish()?;
    Ok(true)
}
