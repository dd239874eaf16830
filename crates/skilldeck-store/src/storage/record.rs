//! A revision's own record: its log line, kept inside the revision as the `.revision.json` sidecar.
//! Holds reading and writing that sidecar, completing the log from it and the history view
//! built from both; not the log itself (`history`).

use super::error::{Result, StorageError};
use super::history::{self, HistoryEntry, LogLine, RevisionEvent};
use super::marker;
use super::seal::Seal;
use super::tree::read_revision;
use serde::{Deserialize, Serialize};
use skilldeck_skill::files::RECORD_FILE;
use skilldeck_skill::scope::Revision;
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// A record as stored: the revision's log line and, since seals exist, the seal of its files
/// (`seal`) that lets a listing trust the digest without hashing them. A record without a seal
/// (an older one, or one replaced by the watcher) reads the same; its files are hashed instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    /// The log line.
    #[serde(flatten)]
    pub line: LogLine,
    /// The files as written, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<Seal>,
}

impl Record {
    /// Parses a record's bytes; `None` when they are not one.
    pub(crate) fn parse(bytes: &[u8]) -> Option<Self> {
        serde_json::from_slice(bytes).ok()
    }
}

/// Writes `line` as the record of the tree in `dir`, a folder nobody else reads yet (staging),
/// with `seal`, the seal of the files already written there (taken after the last of them).
pub(crate) fn write(dir: &Path, line: &LogLine, seal: Option<Seal>) -> Result<()> {
    let path = dir.join(RECORD_FILE);
    let record = Record { line: line.clone(), seal };
    fs::write(&path, encode(&record)?).map_err(StorageError::io("write", &path))
}

/// Replaces the record of a live folder by writing `temp` and renaming it over the old one, so
/// a reader sees the old record or the new one, never a torn file.
pub(crate) fn replace(dir: &Path, temp: &Path, line: &LogLine) -> Result<()> {
    let target = dir.join(RECORD_FILE);
    fs::write(temp, encode(line)?).map_err(StorageError::io("write", temp))?;
    fs::rename(temp, &target).map_err(|e| {
        let _ = fs::remove_file(temp);
        StorageError::io("replace", &target)(e)
    })
}

fn encode(line: &impl Serialize) -> Result<String> {
    serde_json::to_string(line).map(|s| s + "\n").map_err(|e| StorageError::Task(e.to_string()))
}

/// The record of the revision in `dir`: only one naming the revision its `.version` holds
/// (a record left over from an earlier revision, or one written ahead of its `.version`, is
/// not this revision's).
pub(crate) fn read(dir: &Path) -> Option<LogLine> {
    let line: LogLine = serde_json::from_slice(&fs::read(dir.join(RECORD_FILE)).ok()?).ok()?;
    (read_revision(dir) == Some(line.revision)).then_some(line)
}

/// The revisions on disk, live in `live` or kept in `history_dir`, that have no line in the log
/// (`logged` holds the revisions it has), each with its own record when it has one.
pub(crate) fn unlogged(
    history_dir: &Path,
    live: &Path,
    logged: &HashSet<Revision>,
) -> Vec<(Revision, Option<LogLine>)> {
    let kept = history::stored(history_dir).into_iter().map(|r| (r, history::rev_dir(history_dir, r)));
    let current = read_revision(live).map(|r| (r, live.to_path_buf()));
    // The live revision has its own copy in history too: each revision once, from either.
    let mut seen = HashSet::new();
    kept.chain(current)
        .filter(|(rev, _)| !logged.contains(rev) && seen.insert(*rev))
        .map(|(rev, dir): (Revision, PathBuf)| (rev, read(&dir)))
        .collect()
}

/// Appends to the log every revision on disk that it lacks: from the revision's record, or, for
/// a revision made before records existed, a `recovered` line dated now; then any delete whose
/// line is still pending in its marker. The caller holds the skill's lock.
pub(crate) fn reconcile(history_dir: &Path, live: &Path) -> Result<()> {
    for (revision, record) in unlogged(history_dir, live, &history::logged(history_dir)) {
        let line = record.unwrap_or_else(|| LogLine {
            revision,
            digest: None,
            at: history::now(),
            event: RevisionEvent::Recovered,
        });
        history::append(history_dir, &line)?;
    }
    marker::finish_pending(history_dir, live)
}

/// Builds the history view of the skill whose live folder is `live`: logged revisions newest
/// first, marked current and restorable. A revision on disk with no log line yet (its writer
/// stopped before the log, or the log could not be written) is shown from its own record.
pub(crate) fn entries(history_dir: &Path, live: &Path) -> Vec<HistoryEntry> {
    let current = read_revision(live);
    let kept = history::stored(history_dir);
    let mut log = history::read_log(history_dir);
    log.retain(|l| l.event != RevisionEvent::Delete);
    let logged = log.iter().map(|l| l.revision).collect();
    for (revision, record) in unlogged(history_dir, live, &logged) {
        log.push(record.unwrap_or(LogLine {
            revision,
            digest: None,
            at: String::new(),
            event: RevisionEvent::Recovered,
        }));
    }
    log.sort_by_key(|l| std::cmp::Reverse(l.revision));
    log.dedup_by_key(|l| l.revision);
    log.into_iter()
        .map(|l| HistoryEntry {
            current: Some(l.revision) == current,
            restorable: Some(l.revision) == current || kept.contains(&l.revision),
            revision: l.revision,
            digest: l.digest,
            at: l.at,
            event: l.event,
        })
        .collect()
}
