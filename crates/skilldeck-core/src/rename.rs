//! A skill renamed in the store together with what the store keeps about it under its name:
//! its draft and the user's approvals of it (`trust.json`). Holds that sequence over the
//! registry; not the rename itself (`FsStorage::rename_sync`), nor what lives outside the store
//! (pins and switches in config.toml, sources, targets), which the front ends follow.

use crate::registry::SkillRegistry;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::risk::RiskMark;
use skilldeck_store::drafts::Draft;
use skilldeck_store::storage::{RenameOutcome, Scope, StorageError};
use skilldeck_store::trust::Trust;

/// What a rename did in the store, and what followed the skill there.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Renamed {
    /// The store's rename.
    #[serde(flatten)]
    pub outcome: RenameOutcome,
    /// Whether a draft of the old name moved to the new one.
    pub draft: bool,
    /// Whether approvals of the old name (its tools, its findings) moved to the new one.
    pub approvals: bool,
}

/// Renames skill `from` to `new` in `scope` through the registry's store, drops both names
/// from its cache, then moves the old name's draft and approvals. Once the store renamed the
/// skill the rename stands: a draft or an approval that could not follow comes back as a
/// warning in `outcome.warnings`.
pub fn rename_skill(
    registry: &SkillRegistry,
    scope: Scope,
    from: &SkillName,
    new: &SkillName,
) -> Result<Renamed, StorageError> {
    // What the audit found in the old files, with the approvals in force for them, read first.
    let before = registry.get(scope, from.as_str()).ok().flatten();
    let from_held = before.as_ref().is_some_and(|e| registry.is_held(e));
    let out = registry.storage().rename_sync(scope, from, new);
    registry.invalidate(scope, Some(from.as_str()));
    registry.invalidate(scope, Some(new.as_str()));
    let mut outcome = out?;
    let home = registry.storage().home();
    let draft = match Draft::follow_rename(home, &outcome) {
        Ok(moved) => moved,
        Err(e) => {
            outcome.warnings.push(format!("the draft of {from} did not follow ({e}); it is kept under {from}"));
            false
        }
    };
    if !draft && Draft::find(home, scope, from).is_some() {
        outcome.warnings.push(format!(
            "{new} already has a draft, so the draft of {from} stays under {from} (`skilldeck edit {from}` shows it)"
        ));
    }
    let after = registry.get(scope, new.as_str()).ok().flatten();
    // The renamed files' findings that the old files had too (same rule, same file), approved
    // with the old ones when the old skill was not held: only the `name` line changed.
    let findings: Vec<String> = match (&before, &after) {
        (Some(b), Some(a)) if !from_held => same_findings(
            b.risk.as_ref().map(|r| r.marks.as_slice()).unwrap_or_default(),
            a.risk.as_ref().map(|r| r.marks.as_slice()).unwrap_or_default(),
        ),
        _ => Vec::new(),
    };
    let meta = after.as_ref().map(|a| a.meta.clone()).unwrap_or_default();
    let from_content = registry_content(scope, Some(outcome.from_digest));
    let new_content = registry_content(scope, Some(outcome.digest));
    let approvals = Trust::load(home).and_then(|mut t| {
        t.rename(scope, from.as_str(), new.as_str(), &meta, from_content.as_ref(), new_content.as_ref(), &findings)
    });
    let approvals = approvals.unwrap_or_else(|e| {
        outcome.warnings.push(format!("the approvals of {from} did not follow ({e}); approve {new} again"));
        false
    });
    Ok(Renamed { outcome, draft, approvals })
}

/// The content an approval is bound to in `scope` (none for bundled skills).
fn registry_content(
    scope: Scope,
    digest: Option<skilldeck_skill::digest::Digest>,
) -> Option<skilldeck_skill::digest::Digest> {
    skilldeck_store::trust::bound_content(scope, digest.as_ref()).copied()
}

/// The fingerprints of `after`'s findings that `before` has one of (by rule and file, as many
/// times as it has them).
fn same_findings(before: &[RiskMark], after: &[RiskMark]) -> Vec<String> {
    let mut left: Vec<(&str, &str)> = before.iter().map(|m| (m.rule.as_str(), m.file.as_str())).collect();
    after
        .iter()
        .filter(|m| match left.iter().position(|k| *k == (m.rule.as_str(), m.file.as_str())) {
            Some(i) => {
                left.swap_remove(i);
                true
            }
            None => false,
        })
        .map(|m| m.fingerprint.clone())
        .collect()
}
