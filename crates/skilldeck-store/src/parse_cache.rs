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

use crate::storage::seal::Stamp;
use crate::storage::{Revision, Scope};
use serde::{Deserialize, Serialize};
use skilldeck_skill::diag_args::DiagArgs;
use skilldeck_skill::diagnostic::{DiagCode, Diagnostic, Severity};
use skilldeck_skill::digest::Digest;
use skilldeck_skill::entry::SkillEntry;
use skilldeck_skill::meta::{Dependencies, ExtraFields, JsonText, SkillMeta, Tier};
use skilldeck_skill::risk::RiskSummary;
use std::path::{Path, PathBuf};

/// The first bytes of every cache file.
const MAGIC: &[u8; 8] = b"SKDCACHE";
/// The layout of the payload; bump on any change to the types below.
const FORMAT: u32 = 3;
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
        let one_line = skilldeck_skill::entry::one_line(description);
        let one_line = (one_line != description).then_some(one_line);
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

/// The length that ends the records, before the CRC-32.
const END: u32 = u32::MAX;

/// The largest record read: a skill's parse fits many times over.
const MAX_RECORD: usize = 64 << 20;

/// The cache file of `scope` under the home at `root`.
pub fn path(root: &Path, scope: Scope) -> PathBuf {
    root.join("cache").join(format!("{}.skills", scope.as_str()))
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
pub fn read_each(path: &Path, scope: Scope, f: impl FnMut(CachedSkill)) -> bool {
    std::fs::File::open(path).ok().and_then(|file| read(file, scope, f)).is_some()
}

fn read(file: std::fs::File, scope: Scope, mut f: impl FnMut(CachedSkill)) -> Option<()> {
    let mut r = Reader::open(file)?;
    let header: Header = r.record()?.ok()?;
    if header.format != FORMAT || header.fingerprint != FINGERPRINT || header.scope != scope {
        return None;
    }
    while let Ok(skill) = r.record::<CachedSkill>()? {
        f(skill);
    }
    r.finish()
}

/// A cache file being read: the bytes after the magic, hashed as they are read.
struct Reader {
    inner: std::io::BufReader<std::fs::File>,
    crc: crc32fast::Hasher,
    buf: Vec<u8>,
}

impl Reader {
    /// The file, past its magic; `None` when it does not start with it.
    fn open(file: std::fs::File) -> Option<Self> {
        let mut inner = std::io::BufReader::with_capacity(1 << 16, file);
        let mut magic = [0u8; 8];
        std::io::Read::read_exact(&mut inner, &mut magic).ok()?;
        (&magic == MAGIC).then(|| Self { inner, crc: crc32fast::Hasher::new(), buf: Vec::new() })
    }

    /// The next record (a 4-byte little-endian length, then its `postcard` bytes); `Err` at
    /// the end of the records, `None` when the file is cut or a record does not decode.
    fn record<T: serde::de::DeserializeOwned>(&mut self) -> Option<Result<T, ()>> {
        let mut len = [0u8; 4];
        std::io::Read::read_exact(&mut self.inner, &mut len).ok()?;
        self.crc.update(&len);
        let n = u32::from_le_bytes(len);
        if n == END {
            return Some(Err(()));
        }
        let n = usize::try_from(n).ok().filter(|n| *n <= MAX_RECORD)?;
        self.buf.resize(n, 0);
        std::io::Read::read_exact(&mut self.inner, &mut self.buf).ok()?;
        self.crc.update(&self.buf);
        postcard::from_bytes(&self.buf).ok().map(Ok)
    }

    /// After the end of the records: whether the CRC-32 matches and nothing follows it.
    fn finish(mut self) -> Option<()> {
        let expected = self.crc.clone().finalize();
        let mut crc = [0u8; 4];
        std::io::Read::read_exact(&mut self.inner, &mut crc).ok()?;
        let mut rest = [0u8; 1];
        let at_end = matches!(std::io::Read::read(&mut self.inner, &mut rest), Ok(0));
        (at_end && u32::from_le_bytes(crc) == expected).then_some(())
    }
}

/// Replaces the cache file of `scope` at `path`: the records of the file there now whose
/// names `keep` accepts, merged by name with the records `fresh` gives (sorted by name, each
/// made as it is written, replacing any old record of the same name). The old records are
/// streamed through, so a large cache is never held whole; when the old file turns out not to be whole, only `fresh` is written. Best effort: a
/// cache that cannot be written (a read-only home, a full disk) only makes the next start
/// slower, so the error is returned for the caller to ignore, and no partial file is ever left
/// in place. Every record keeps its own stamps, so one copied through is still checked by
/// every reader before it is trusted.
pub fn rewrite<I: Iterator<Item = CachedSkill>>(
    path: &Path,
    scope: Scope,
    keep: impl Fn(&str) -> bool,
    fresh: impl Fn() -> I,
) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let temp = dir.join(format!(".{}.{}.{}.tmp", scope.as_str(), std::process::id(), crate::storage::stamps::now_ns()));
    let old = std::fs::File::open(path).ok().and_then(Reader::open);
    let mut written = write_file(&temp, scope, old, &keep, fresh());
    if matches!(written, Ok(false)) {
        written = write_file(&temp, scope, None, &keep, fresh());
    }
    let done = written.and_then(|_| std::fs::rename(&temp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    done
}

/// Writes the merged records to `temp`; `Ok(false)` when the old file was not whole.
fn write_file(
    temp: &Path,
    scope: Scope,
    mut old: Option<Reader>,
    keep: &impl Fn(&str) -> bool,
    fresh: impl Iterator<Item = CachedSkill>,
) -> std::io::Result<bool> {
    use std::io::Write as _;
    let mut w = Writer {
        out: std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(temp)?),
        crc: crc32fast::Hasher::new(),
        buf: Vec::new(),
    };
    w.out.write_all(MAGIC)?;
    w.record(&Header { format: FORMAT, fingerprint: FINGERPRINT.to_owned(), scope })?;
    let mut fresh = fresh.peekable();
    if let Some(r) = old.as_mut() {
        let same = matches!(r.record::<Header>(), Some(Ok(h)) if h.format == FORMAT && h.fingerprint == FINGERPRINT && h.scope == scope);
        if !same {
            return Ok(false);
        }
        loop {
            let skill = match r.record::<CachedSkill>() {
                Some(Ok(s)) => s,
                Some(Err(())) => break,
                None => return Ok(false),
            };
            while let Some(f) = fresh.next_if(|f| f.name < skill.name) {
                w.record(&f)?;
            }
            if fresh.peek().is_some_and(|f| f.name == skill.name) || !keep(&skill.name) {
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
    w.out.write_all(&END.to_le_bytes())?;
    w.crc.update(&END.to_le_bytes());
    w.out.write_all(&w.crc.clone().finalize().to_le_bytes())?;
    w.out.into_inner().map_err(|e| e.into_error())?;
    Ok(true)
}

/// A cache file being written, hashing what it writes after the magic.
struct Writer {
    out: std::io::BufWriter<std::fs::File>,
    crc: crc32fast::Hasher,
    buf: Vec<u8>,
}

impl Writer {
    fn record(&mut self, value: &impl Serialize) -> std::io::Result<()> {
        use std::io::Write as _;
        self.buf.clear();
        let body = postcard::to_extend(value, std::mem::take(&mut self.buf)).map_err(std::io::Error::other)?;
        let len = u32::try_from(body.len())
            .ok()
            .filter(|n| *n != END)
            .ok_or_else(|| std::io::Error::other("record too large"))?;
        self.crc.update(&len.to_le_bytes());
        self.crc.update(&body);
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(&body)?;
        self.buf = body;
        Ok(())
    }
}
