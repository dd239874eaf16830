//! Bringing checked skills up to date, as both front ends do it: which outdated skills an update
//! takes (one changed here only when the user says so), one import request per skill taken (its
//! folder as the check fetched it, with the new provenance), and `sources.json` brought in line
//! after the import. Holds no fetching (that is `check`); its one write to the store is keeping a
//! local edit as a revision of its own before it is replaced ([`keep_edits`]), the import itself
//! is the caller's (it hands the requests to `import::import_batch`).

use crate::check::{Check, Checked, Status};
use crate::installed::InstalledSkills;
use skilldeck_skill::{Scope, SkillName};
use skilldeck_store::import::{BatchReport, ImportRequest, ImportState};
use skilldeck_store::{FsStorage, StorageError};

/// The outdated skills of a check, split by whether an update takes them.
#[derive(Debug, Default)]
pub struct Chosen<'a> {
    /// Taken: imported from their fetched folders.
    pub taken: Vec<&'a Check>,
    /// Held back: changed here since they were installed, and not to be replaced.
    pub held: Vec<&'a Check>,
}

/// Splits the outdated skills of `checked` named in `names` (all when empty) into those an update
/// takes and those it holds back. A skill changed here since it was installed is taken only when
/// `replace_edit` says so (a `--force`, a yes on the terminal, the app's confirmation); it is
/// asked once per such skill, in name order.
pub fn choose<'a, E>(
    checked: &'a Checked,
    names: &[String],
    mut replace_edit: impl FnMut(&Check) -> Result<bool, E>,
) -> Result<Chosen<'a>, E> {
    let mut chosen = Chosen::default();
    let wanted = |c: &Check| names.is_empty() || names.iter().any(|n| n == &c.name);
    for c in checked.checks.iter().filter(|c| matches!(c.status, Status::Outdated { .. }) && wanted(c)) {
        if !c.changed_here || replace_edit(c)? {
            chosen.taken.push(c);
        } else {
            chosen.held.push(c);
        }
    }
    Ok(chosen)
}

/// Before an update replaces skills changed here (`changed_here`): each edit made on disk that
/// is not yet a revision of its own becomes one (`edited on disk`, with the digest of its own
/// bytes), so that history labels the edited copy by what it holds, never by the source's
/// content it was installed with. Call it just before the import of [`requests`]; a skill that
/// cannot be kept so is an error, and nothing should replace it.
pub fn keep_edits(storage: &FsStorage, taken: &[&Check]) -> Result<(), StorageError> {
    for c in taken.iter().filter(|c| c.changed_here) {
        let Ok(name) = SkillName::parse(&c.name) else { continue };
        storage.adopt_external_edit(Scope::User, &name)?;
    }
    Ok(())
}

/// Each taken skill's import request: its folder as fetched, with the new provenance as origin,
/// so the revision made records where it came from.
pub fn requests(taken: &[&Check]) -> Vec<ImportRequest> {
    taken
        .iter()
        .filter_map(|c| match &c.status {
            Status::Outdated { new, dir, .. } => {
                Some(ImportRequest { path: dir.clone(), only: None, origin: Some(new.clone()) })
            }
            Status::UpToDate | Status::Gone { .. } | Status::CouldNotCheck { .. } => None,
        })
        .collect()
}

/// The taken skill whose fetched folder an import item's `source` names.
pub fn taken_for<'a>(taken: &[&'a Check], source: &str) -> Option<&'a Check> {
    taken
        .iter()
        .copied()
        .find(|c| matches!(&c.status, Status::Outdated { dir, .. } if dir.display().to_string() == source))
}

/// Records in `installed` (not yet saved) each taken skill that the import stored or found
/// unchanged, with its new provenance and the digest stored; returns their names.
pub fn record(installed: &mut InstalledSkills, taken: &[&Check], report: &BatchReport) -> Vec<String> {
    let mut recorded = Vec::new();
    for item in &report.items {
        let (ImportState::Imported { .. } | ImportState::Unchanged { .. }, Some(skill)) = (&item.state, &item.skill)
        else {
            continue;
        };
        if let Some(Check { status: Status::Outdated { new, .. }, .. }) = taken_for(taken, &item.source) {
            installed.record(skill.name.as_str(), new.clone(), skill.digest);
            recorded.push(skill.name.as_str().to_owned());
        }
    }
    recorded
}

/// Records the new tops of sources that moved on without changing a skill (`Checked::moved`),
/// so the next check is one listing again (not yet saved); whether any record changed.
pub fn follow_moved(installed: &mut InstalledSkills, checked: &Checked) -> bool {
    let mut changed = false;
    for (name, source) in &checked.moved {
        if let Some(rec) = installed.get(name)
            && &rec.source != source
        {
            let digest = rec.digest;
            installed.record(name, source.clone(), digest);
            changed = true;
        }
    }
    changed
}
