//! What a person changed in a drifted skill: per file, a unified diff between the revision
//! Skilldeck wrote and the copy in the target folder as it is now.

use crate::folder;
use serde::Serialize;
use similar::TextDiff;
use skilldeck_skill::SkillFiles;
use std::collections::BTreeMap;
use std::path::Path;

/// How one file differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Only in the edited copy.
    Added,
    /// Only in the revision written.
    Removed,
    /// In both, with other content.
    Modified,
}

/// One file that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct FileDiff {
    /// The file's path in the skill.
    pub path: String,
    /// Added, removed or modified.
    pub change: Change,
    /// The unified diff (three lines of context); `None` when either side is not text.
    pub unified: Option<String>,
    /// The sizes in bytes: in the revision written, and in the edited copy.
    pub sizes: (Option<u64>, Option<u64>),
}

/// The files of the folder at `edited` that differ from `written` (the revision Skilldeck
/// wrote there, named `label` in the diff headers), sorted by path; entries the store would not
/// hold (links, pipes) are listed as added with no diff.
pub fn drift(written: &SkillFiles, label: &str, edited: &Path) -> std::io::Result<Vec<FileDiff>> {
    compare(written, label, edited, "edited")
}

/// The files of the folder at `other` (named `other_label` in the diff headers) that differ
/// from `written` (named `label`), sorted by path, as [`drift`] gives them: what an update from
/// a source would change, say.
pub fn compare(written: &SkillFiles, label: &str, other: &Path, other_label: &str) -> std::io::Result<Vec<FileDiff>> {
    let (files, extras) = folder::files(other)?;
    let theirs: BTreeMap<&str, &[u8]> = files.iter().map(|(p, b)| (p.as_str(), b.as_slice())).collect();
    let mut out = changes(written, label, &theirs, other_label);
    for rel in extras {
        out.push(FileDiff { path: rel, change: Change::Added, unified: None, sizes: (None, None) });
    }
    Ok(out)
}

/// The files that differ between `old` (named `old_label` in the diff headers) and `new`,
/// sorted by path: what changed from one revision to another.
pub fn between(old: &SkillFiles, old_label: &str, new: &SkillFiles, new_label: &str) -> Vec<FileDiff> {
    let theirs: BTreeMap<&str, &[u8]> = new.iter().map(|(p, b)| (p.as_str(), b)).collect();
    changes(old, old_label, &theirs, new_label)
}

/// What changed between two revisions of a stored skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionDiff {
    /// The older revision (`None`: there is none before `to`, so every file is added).
    pub from: Option<skilldeck_skill::Revision>,
    /// The newer revision.
    pub to: skilldeck_skill::Revision,
    /// The files that differ, by path.
    pub files: Vec<FileDiff>,
}

/// What changed from revision `from` of a stored skill to revision `to`: `to` defaults to the
/// current revision, `from` to the newest kept revision before `to`.
pub fn revisions(
    storage: &skilldeck_store::FsStorage,
    scope: skilldeck_skill::Scope,
    name: &skilldeck_skill::SkillName,
    from: Option<skilldeck_skill::Revision>,
    to: Option<skilldeck_skill::Revision>,
) -> Result<RevisionDiff, skilldeck_store::StorageError> {
    let to = match to {
        Some(r) => r,
        None => storage
            .revision_sync(scope, name)?
            .ok_or_else(|| skilldeck_store::StorageError::SkillNotFound { scope, name: name.to_string() })?,
    };
    let from = from.or_else(|| {
        let history = storage.history_sync(scope, name).ok()?;
        history.iter().filter(|e| e.revision < to && e.restorable).map(|e| e.revision).max()
    });
    let new = storage.revision_files(scope, name, to)?;
    let old = match from {
        Some(r) => storage.revision_files(scope, name, r)?,
        None => SkillFiles::new(),
    };
    let label = |r: Option<skilldeck_skill::Revision>| r.map_or_else(|| "empty".to_owned(), |r| format!("v:{r}"));
    Ok(RevisionDiff { from, to, files: between(&old, &label(from), &new, &label(Some(to))) })
}

/// Per path, how `theirs` differs from `written`.
fn changes(written: &SkillFiles, label: &str, theirs: &BTreeMap<&str, &[u8]>, other_label: &str) -> Vec<FileDiff> {
    let ours: BTreeMap<&str, &[u8]> = written.iter().map(|(p, b)| (p.as_str(), b)).collect();
    let mut out = Vec::new();
    let paths: std::collections::BTreeSet<&str> = ours.keys().chain(theirs.keys()).copied().collect();
    for path in paths {
        let (a, b) = (ours.get(path).copied(), theirs.get(path).copied());
        let change = match (a, b) {
            (Some(a), Some(b)) if a == b => continue,
            (Some(_), Some(_)) => Change::Modified,
            (None, _) => Change::Added,
            (_, None) => Change::Removed,
        };
        let unified = match (text(a), text(b)) {
            (Some(old), Some(new)) => Some(
                TextDiff::from_lines(old, new)
                    .unified_diff()
                    .context_radius(3)
                    .header(&format!("{label}/{path}"), &format!("{other_label}/{path}"))
                    .to_string(),
            ),
            _ => None,
        };
        let size = |b: Option<&[u8]>| b.map(|b| b.len() as u64);
        out.push(FileDiff { path: path.to_owned(), change, unified, sizes: (size(a), size(b)) });
    }
    out
}

/// The file as text: empty when absent, `None` when it is not UTF-8 text.
fn text(b: Option<&[u8]>) -> Option<&str> {
    match b {
        None => Some(""),
        Some(b) => std::str::from_utf8(b).ok().filter(|s| !s.contains('\0')),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skilldeck_skill::RelPath;

    #[test]
    fn an_edited_line_an_added_file_and_a_removed_one_are_shown() {
        let dir = tempfile::tempdir().unwrap();
        let mut written = SkillFiles::new();
        written.insert(RelPath::parse("SKILL.md").unwrap(), b"---\nname: x\n---\none\ntwo\n".to_vec());
        written.insert(RelPath::parse("gone.md").unwrap(), b"bye\n".to_vec());
        written.insert(RelPath::parse("same.md").unwrap(), b"same\n".to_vec());
        std::fs::write(dir.path().join("SKILL.md"), "---\nname: x\n---\none\nTWO\n").unwrap();
        std::fs::write(dir.path().join("same.md"), "same\n").unwrap();
        std::fs::write(dir.path().join("new.bin"), [0u8, 1, 2]).unwrap();
        let d = drift(&written, "v:3", dir.path()).unwrap();
        let names: Vec<(&str, Change)> = d.iter().map(|f| (f.path.as_str(), f.change)).collect();
        assert_eq!(names, [("SKILL.md", Change::Modified), ("gone.md", Change::Removed), ("new.bin", Change::Added)]);
        let u = d[0].unified.as_deref().unwrap();
        assert!(u.starts_with("--- v:3/SKILL.md\n+++ edited/SKILL.md\n"), "{u}");
        assert!(u.contains("-two\n+TWO\n"), "{u}");
        assert_eq!(d[2].unified, None, "binary files have no text diff");
        assert_eq!(d[1].sizes, (Some(4), None));
    }
}
