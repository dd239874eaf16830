//! Bundled skills: the `system` skills shipped inside the binary, installed on first run.
//! Holds installing and updating them; the skills' own text lives in `bundled/`.

use crate::storage::{FsStorage, RevisionEvent, Scope, StorageError, WriteOutcome};
use include_dir::{Dir, include_dir};
use skilldeck_skill::files::SkillFiles;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::relpath::RelPath;
use std::collections::BTreeMap;
use std::fs;

static BUNDLED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/bundled");

/// The record of what was installed, so updates happen once and user deletions stick.
const RECORD_FILE: &str = "bundled.json";

/// Every bundled skill: its name and files.
pub fn skills() -> Vec<(SkillName, SkillFiles)> {
    BUNDLED
        .dirs()
        .filter_map(|d| {
            let name = SkillName::parse(d.path().file_name()?.to_str()?).ok()?;
            let mut files = SkillFiles::new();
            collect(d, d.path(), &mut files);
            Some((name, files))
        })
        .collect()
}

fn collect(dir: &Dir<'static>, root: &std::path::Path, out: &mut SkillFiles) {
    for f in dir.files() {
        if let Some(rel) = f.path().strip_prefix(root).ok().and_then(|p| RelPath::from_path(p).ok()) {
            out.insert(rel, f.contents().to_vec());
        }
    }
    for d in dir.dirs() {
        collect(d, root, out);
    }
}

/// Installs bundled skills that are new, and updates those this build ships a newer copy of.
/// A bundled skill the user deleted stays deleted until a newer copy ships.
pub fn install(storage: &FsStorage) -> Result<Vec<WriteOutcome>, StorageError> {
    let record_path = storage.home().root().join(RECORD_FILE);
    let mut record: BTreeMap<String, String> =
        fs::read_to_string(&record_path).ok().and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default();
    let mut written = Vec::new();
    for (name, files) in skills() {
        let digest = files.digest().long();
        if record.get(name.as_str()) == Some(&digest) {
            continue;
        }
        written.push(storage.write_with_event(Scope::System, &name, &files, RevisionEvent::Bundled)?);
        record.insert(name.to_string(), digest);
    }
    if !written.is_empty() {
        let json = serde_json::to_string_pretty(&record).map_err(|e| StorageError::Task(e.to_string()))?;
        let tmp = record_path.with_extension("json.tmp");
        fs::write(&tmp, json).map_err(StorageError::io("write", &tmp))?;
        fs::rename(&tmp, &record_path).map_err(StorageError::io("write", &record_path))?;
    }
    Ok(written)
}
