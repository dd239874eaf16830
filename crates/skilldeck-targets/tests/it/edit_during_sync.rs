//! An edit made to a delivered copy while a sync is under way (after its drift check, before
//! its swap) is never lost: the copy is put back and reported drifted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::World;
use skilldeck_skill::{Digest, Revision, SkillFiles};
use skilldeck_targets::TargetError;
use skilldeck_targets::keep::Keep;
use skilldeck_targets::plan::{Action, SkipReason};
use skilldeck_targets::source::{Source, Store, Wanted};
use skilldeck_targets::state::{self, SkillState};
use std::cell::Cell;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The store, except that reading skill `when` first runs `edit` once: an agent editing a
/// file in the target meanwhile.
struct Meddling<'a> {
    store: Store<'a>,
    when: &'static str,
    edit: Box<dyn Fn()>,
    done: Cell<bool>,
}

impl Source for Meddling<'_> {
    fn files(&self, want: &Wanted) -> Result<(Revision, Arc<SkillFiles>), TargetError> {
        if want.name.as_str() == self.when && !self.done.replace(true) {
            (self.edit)();
        }
        self.store.files(want)
    }
    fn plan_keep(&self, want: &Wanted, edited: Option<Digest>, link: bool) -> Keep {
        self.store.plan_keep(want, edited, link)
    }
    fn read_edit(&self, want: &Wanted, path: &Path) -> Result<SkillFiles, TargetError> {
        self.store.read_edit(want, path)
    }
    fn keep(&self, want: &Wanted, planned: &Keep, files: &SkillFiles, target: &str) -> Result<Keep, TargetError> {
        self.store.keep(want, planned, files, target)
    }
}

#[test]
fn a_copy_edited_while_it_is_being_replaced_is_put_back_and_reported_drifted() {
    let w = World::new();
    let (dir, f, _) = w.delivered(&[("alpha", "alpha one"), ("beta", "beta one")]);
    w.store("alpha", "alpha two");
    w.store("beta", "beta two");

    // Reading beta (staging, after alpha was judged outdated and staged) edits alpha there.
    let alpha_md: PathBuf = dir.join("alpha/SKILL.md");
    let target = alpha_md.clone();
    let edit = Box::new(move || fs::write(&target, World::skill_md("alpha", "edited during the sync")).unwrap());
    let source = Meddling { store: Store::new(&w.storage), when: "beta", edit, done: Cell::new(false) };
    let wanted = w.wanted(&["alpha", "beta"]);
    let plans = w.sync_with(&source, std::slice::from_ref(&f), &wanted, &[]);

    assert_eq!(plans[0].error, None);
    assert!(
        matches!(&plans[0].actions[0], Action::Skip { name, reason: SkipReason::Drifted { .. } } if name == "alpha"),
        "{:?}",
        plans[0].actions
    );
    assert!(matches!(&plans[0].actions[1], Action::Replace { name, .. } if name == "beta"));
    assert_eq!(plans[0].done, 1);
    assert!(fs::read_to_string(&alpha_md).unwrap().contains("edited during the sync"));
    assert!(fs::read_to_string(dir.join("beta/SKILL.md")).unwrap().contains("beta two"));

    // Looked at again, it is drifted: kept until `--overwrite alpha`.
    let record = w.records().load(&skilldeck_targets::record::folder_id(&dir).0).unwrap();
    let observed = state::survey(&dir, &record, &wanted).unwrap();
    assert_eq!(observed.iter().map(|o| o.state).collect::<Vec<_>>(), [SkillState::Drifted, SkillState::InSync]);
}

#[test]
fn a_copy_edited_while_it_is_being_removed_is_put_back() {
    let w = World::new();
    let (dir, f, _) = w.delivered(&[("alpha", "alpha one"), ("beta", "beta one")]);
    w.store("beta", "beta two");

    // alpha is no longer chosen; reading beta edits alpha before it is removed.
    let alpha_md: PathBuf = dir.join("alpha/SKILL.md");
    let target = alpha_md.clone();
    let edit = Box::new(move || fs::write(&target, World::skill_md("alpha", "edited during the sync")).unwrap());
    let source = Meddling { store: Store::new(&w.storage), when: "beta", edit, done: Cell::new(false) };
    let plans = w.sync_with(&source, std::slice::from_ref(&f), &w.wanted(&["beta"]), &[]);

    assert_eq!(plans[0].error, None);
    assert!(
        matches!(&plans[0].actions[0], Action::Skip { name, reason: SkipReason::Drifted { .. } } if name == "alpha"),
        "{:?}",
        plans[0].actions
    );
    assert!(fs::read_to_string(&alpha_md).unwrap().contains("edited during the sync"));
}

#[test]
fn an_edit_through_a_link_while_it_is_being_replaced_is_put_back_with_its_export() {
    use skilldeck_targets::record::Mode;
    use std::os::unix::fs::PermissionsExt as _;
    let w = World::new();
    let dir = w.home().join("skills");
    w.store("alpha", "alpha one");
    w.store("beta", "beta one");
    let f = skilldeck_targets::target::Folder { mode: Some(Mode::Link), ..w.custom(&dir) };
    assert_eq!(w.sync(std::slice::from_ref(&f), &w.wanted(&["alpha", "beta"]), &[])[0].done, 2);
    let export = fs::read_link(dir.join("alpha")).unwrap();
    w.store("alpha", "alpha two");
    w.store("beta", "beta two");

    // Reading beta (after alpha was judged outdated and staged) edits alpha through its link.
    let alpha_md: PathBuf = dir.join("alpha/SKILL.md");
    let target = alpha_md.clone();
    let edit = Box::new(move || {
        fs::set_permissions(&target, fs::Permissions::from_mode(0o644)).unwrap();
        fs::write(&target, World::skill_md("alpha", "edited during the sync")).unwrap();
    });
    let source = Meddling { store: Store::new(&w.storage), when: "beta", edit, done: Cell::new(false) };
    let wanted = w.wanted(&["alpha", "beta"]);
    let plans = w.sync_with(&source, std::slice::from_ref(&f), &wanted, &[]);

    assert_eq!(plans[0].error, None);
    assert!(
        matches!(&plans[0].actions[0], Action::Skip { name, reason: SkipReason::Drifted { .. } } if name == "alpha"),
        "{:?}",
        plans[0].actions
    );
    assert_eq!(plans[0].done, 1);
    assert_eq!(fs::read_link(dir.join("alpha")).unwrap(), export, "the link was not put back");
    assert!(fs::read_to_string(&alpha_md).unwrap().contains("edited during the sync"), "the export was removed");
    let record = w.records().load(&skilldeck_targets::record::folder_id(&dir).0).unwrap();
    let observed = state::survey(&dir, &record, &wanted).unwrap();
    assert_eq!(observed.iter().map(|o| o.state).collect::<Vec<_>>(), [SkillState::Drifted, SkillState::InSync]);
}
