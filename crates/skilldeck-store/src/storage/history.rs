//! History: the revision log of a skill and the revisions kept beside it: each revision's own
//! copy, taken as it was written (or adopted), so nothing done to the live folder reaches it.
//! Holds `history/<scope>/<name>/log.jsonl` and the `<rev>/` folders; not the swap that fills them.

use super::error::{Result, StorageError};
use serde::{Deserialize, Serialize};
use skilldeck_skill::digest::Digest;
use skilldeck_skill::provenance::Provenance;
use skilldeck_skill::scope::Revision;
use std::collections::HashSet;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// How many replaced revisions are kept per skill.
pub const KEPT_REVISIONS: usize = 20;

/// The revision log's file name inside a skill's history folder.
const LOG_FILE: &str = "log.jsonl";

/// What made a revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RevisionEvent {
    /// An upload through `write_skill`.
    Upload,
    /// A bundled skill installed or updated from the binary.
    Bundled,
    /// An edit made on disk outside the app, seen by the watcher.
    External,
    /// A draft saved: an edit made in Skilldeck's editor or through `skilldeck edit`.
    Edit,
    /// A restore of an older revision.
    Restore {
        /// The revision restored.
        from: Revision,
    },
    /// The skill was deleted (moved to history).
    Delete,
    /// A revision found on disk after a crash, with no log line.
    Recovered,
    /// A copy of the skill edited in an agent tool's folder, kept before that copy was
    /// replaced (`skilldeck sync --overwrite`).
    DriftKept {
        /// The target (tool id or configured name) the edited copy came from.
        target: String,
    },
    /// A team store's revision, materialised in the team scope by a refresh.
    Mirrored,
    /// The skill was renamed: this revision is the last one of `from`, its frontmatter `name`
    /// set to the new name; `from`'s earlier revisions are kept in this history.
    Renamed {
        /// The name it had.
        from: String,
    },
    /// Installed or updated from a source (a Git repository, an index, an archive or
    /// `SKILL.md` URL): `skilldeck add`, `update` or `install`.
    Sourced {
        /// Where it came from.
        source: Provenance,
    },
}

/// One line of the revision log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// The revision.
    pub revision: Revision,
    /// Its content digest (`None` for deletes).
    pub digest: Option<Digest>,
    /// When, RFC 3339 in UTC.
    pub at: String,
    /// What made it.
    pub event: RevisionEvent,
}

/// A revision as `history` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HistoryEntry {
    /// The revision.
    pub revision: Revision,
    /// Its content digest, when known.
    pub digest: Option<Digest>,
    /// When it was made, RFC 3339 in UTC (empty when unknown).
    pub at: String,
    /// What made it.
    pub event: RevisionEvent,
    /// Whether it is the skill's current revision.
    pub current: bool,
    /// Whether its files are kept (current, or in history), so it can be restored.
    pub restorable: bool,
}

/// Now, RFC 3339 in UTC.
pub(crate) fn now() -> String {
    time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

/// Appends one line to the log in `history_dir`.
pub(crate) fn append(history_dir: &Path, line: &LogLine) -> Result<()> {
    fs::create_dir_all(history_dir).map_err(StorageError::io("create", history_dir))?;
    let path = history_dir.join(LOG_FILE);
    let mut json = serde_json::to_string(line).map_err(|e| StorageError::Task(e.to_string()))?;
    json.push('\n');
    let mut f =
        fs::OpenOptions::new().create(true).append(true).open(&path).map_err(StorageError::io("open", &path))?;
    f.write_all(json.as_bytes()).map_err(StorageError::io("append to", &path))
}

/// Reads the log; unreadable lines (a torn last line after a crash) are passed over.
pub(crate) fn read_log(history_dir: &Path) -> Vec<LogLine> {
    fs::read_to_string(history_dir.join(LOG_FILE))
        .map(|s| s.lines().filter_map(|l| serde_json::from_str(l).ok()).collect())
        .unwrap_or_default()
}

/// The revisions the log has a line for. Reads only the `{"revision":N` each line starts with,
/// as this store writes them; a line in any other shape is parsed whole.
pub(crate) fn logged(history_dir: &Path) -> HashSet<Revision> {
    let text = fs::read_to_string(history_dir.join(LOG_FILE)).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let digits = l.strip_prefix("{\"revision\":").map(|rest| rest.split(',').next().unwrap_or_default());
            match digits.and_then(|d| d.parse().ok()) {
                Some(n) => Some(Revision(n)),
                None => serde_json::from_str::<LogLine>(l).ok().map(|line| line.revision),
            }
        })
        .collect()
}

/// Replaces the log in `history_dir` with `lines`: written beside it and renamed over it, so a
/// reader sees the old log or the new one whole.
pub(crate) fn replace_log(history_dir: &Path, lines: &[LogLine]) -> Result<()> {
    fs::create_dir_all(history_dir).map_err(StorageError::io("create", history_dir))?;
    let mut text = String::new();
    for line in lines {
        text.push_str(&serde_json::to_string(line).map_err(|e| StorageError::Task(e.to_string()))?);
        text.push('\n');
    }
    let path = history_dir.join(LOG_FILE);
    let temp = history_dir.join(format!(".{LOG_FILE}.tmp-{}", std::process::id()));
    fs::write(&temp, text).map_err(StorageError::io("write", &temp))?;
    fs::rename(&temp, &path).map_err(|e| {
        let _ = fs::remove_file(&temp);
        StorageError::io("replace", &path)(e)
    })
}

/// The folder that keeps revision `rev`'s files.
pub(crate) fn rev_dir(history_dir: &Path, rev: Revision) -> PathBuf {
    history_dir.join(rev.0.to_string())
}

/// The revisions whose files are kept in `history_dir`, ascending.
pub(crate) fn stored(history_dir: &Path) -> Vec<Revision> {
    let mut revs: Vec<Revision> = fs::read_dir(history_dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .filter_map(|e| e.file_name().to_str()?.parse().ok().map(Revision))
                .collect()
        })
        .unwrap_or_default();
    revs.sort();
    revs
}

/// The highest revision the skill ever had, from its log and kept folders.
pub(crate) fn highest(history_dir: &Path) -> Option<Revision> {
    let logged = logged(history_dir).into_iter().max();
    let kept = stored(history_dir).last().copied();
    logged.max(kept)
}

/// Removes the oldest kept revisions beyond the current one's own copy and `KEPT_REVISIONS`
/// replaced ones. A revision the log has no line for stays until recovery logs it from its
/// record: removing it would lose it from history.
pub(crate) fn prune(history_dir: &Path) -> Result<()> {
    let logged = logged(history_dir);
    let revs = stored(history_dir);
    let excess = revs.len().saturating_sub(KEPT_REVISIONS + 1);
    for rev in revs[..excess].iter().filter(|r| logged.contains(r)) {
        let dir = rev_dir(history_dir, *rev);
        fs::remove_dir_all(&dir).map_err(StorageError::io("prune", &dir))?;
    }
    Ok(())
}
