//! Which skill folders the recursive watch holds, by inode. A scope reported as a whole (the
//! kernel's queue overflowed, the scope folder itself changed) is caught up by reading the scope
//! folder once: only folders that are new or were replaced are watched again. Walking every
//! skill instead opens every folder, and at tens of thousands of skills those opens overflow the
//! kernel's queue again, which reports the scope whole again, for ever.

use crate::home::SkilldeckHome;
use crate::storage::Scope;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::os::unix::fs::{DirEntryExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};

/// A scope folder as last seen: its own inode and each skill folder's.
#[derive(Debug)]
struct ScopeFolders {
    ino: Option<u64>,
    skills: HashMap<OsString, u64>,
}

impl ScopeFolders {
    /// Reads `dir`'s entries; a folder's inode comes with its entry, so nothing inside any
    /// skill is opened or even looked at. Hidden entries (staging folders) are the store's own.
    fn read(dir: &Path) -> Self {
        let ino = std::fs::symlink_metadata(dir).ok().filter(|m| m.is_dir()).map(|m| m.ino());
        let skills = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| !e.file_name().as_encoded_bytes().starts_with(b"."))
            .map(|e| (e.file_name(), e.ino()))
            .collect();
        Self { ino, skills }
    }
}

/// The skill folders of every scope as the watch last took them.
#[derive(Debug)]
pub(crate) struct WatchedFolders {
    scopes: BTreeMap<Scope, ScopeFolders>,
}

impl WatchedFolders {
    /// Takes every scope as it is now, just before the whole store is watched.
    pub(crate) fn read(home: &SkilldeckHome) -> Self {
        Self { scopes: Scope::ALL.into_iter().map(|s| (s, ScopeFolders::read(&home.scope_dir(s)))).collect() }
    }

    /// The folders to watch again (recursively) after `scope` was reported as a whole: each skill
    /// folder that is new or whose inode changed, or the scope folder itself when it was replaced.
    pub(crate) fn scope_changed(&mut self, home: &SkilldeckHome, scope: Scope) -> Vec<PathBuf> {
        let dir = home.scope_dir(scope);
        let now = ScopeFolders::read(&dir);
        let rewatch = match self.scopes.get(&scope) {
            Some(before) if before.ino == now.ino => now
                .skills
                .iter()
                .filter(|(name, ino)| before.skills.get(*name) != Some(ino))
                .map(|(name, _)| dir.join(name))
                .collect(),
            _ if now.ino.is_some() => vec![dir],
            _ => Vec::new(),
        };
        self.scopes.insert(scope, now);
        rewatch
    }

    /// Notes a skill folder that is being watched again as it is now (or gone).
    pub(crate) fn skill_changed(&mut self, scope: Scope, dir: &Path) {
        let (Some(name), Some(folders)) = (dir.file_name(), self.scopes.get_mut(&scope)) else { return };
        match std::fs::symlink_metadata(dir) {
            Ok(m) if m.is_dir() => folders.skills.insert(name.to_owned(), m.ino()),
            _ => folders.skills.remove(name),
        };
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::fs;

    #[test]
    fn a_scope_reported_whole_rewatches_only_new_and_replaced_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let home = SkilldeckHome::new(tmp.path());
        let user = home.scope_dir(Scope::User);
        for name in ["kept", "replaced", "gone", "edited"] {
            fs::create_dir_all(user.join(name).join("references")).unwrap();
        }
        fs::create_dir_all(home.scope_dir(Scope::Team)).unwrap();
        let mut folders = WatchedFolders::read(&home);

        // As a new revision goes live: a staging folder takes the live one's place.
        fs::create_dir(user.join(".staging-1-1-replaced")).unwrap();
        fs::remove_dir_all(user.join("replaced")).unwrap();
        fs::rename(user.join(".staging-1-1-replaced"), user.join("replaced")).unwrap();
        fs::create_dir(user.join("new")).unwrap();
        fs::remove_dir_all(user.join("gone")).unwrap();
        fs::write(user.join("edited/SKILL.md"), "x").unwrap();
        fs::write(user.join("not-a-folder"), "x").unwrap();
        fs::create_dir(user.join(".staging-2-1-other")).unwrap();

        let mut again = folders.scope_changed(&home, Scope::User);
        again.sort();
        assert_eq!(again, vec![user.join("new"), user.join("replaced")]);
        assert!(folders.scope_changed(&home, Scope::User).is_empty(), "a second look finds nothing new");
        assert!(folders.scope_changed(&home, Scope::Team).is_empty());

        // A scope folder made anew is watched whole; one that is missing, not at all.
        fs::remove_dir_all(home.scope_dir(Scope::Team)).unwrap();
        assert!(folders.scope_changed(&home, Scope::Team).is_empty());
        fs::create_dir_all(home.scope_dir(Scope::Team).join("x")).unwrap();
        assert_eq!(folders.scope_changed(&home, Scope::Team), vec![home.scope_dir(Scope::Team)]);

        // A folder watched again by name is not watched a second time for the same change.
        fs::remove_dir_all(user.join("kept")).unwrap();
        fs::create_dir(user.join("kept")).unwrap();
        folders.skill_changed(Scope::User, &user.join("kept"));
        assert!(folders.scope_changed(&home, Scope::User).is_empty());
    }
}
