//! Mounting at most once per revision per session. MCP has no turns, so each listed revision
//! of a skill gets a turn of its own in the core's sense, and the core's memo does the rest.

use serde_json::Value;
use skilldeck_core::registry::SkillRegistry;
use skilldeck_mount::mount;
use skilldeck_mount::sandbox::Sandbox;
use skilldeck_mount::view_result::{ViewErrorCode, ViewResult};
use skilldeck_mount::view_skill::{Turn, view_skill};
use skilldeck_select::listing::{ListedSkill, Listing};
use skilldeck_skill::SkillName;
use std::collections::HashMap;
use std::path::PathBuf;

/// The revisions mounted in one session, one core turn per skill.
#[derive(Debug)]
pub(crate) struct Mounts {
    session: String,
    workspace: Option<PathBuf>,
    turns: HashMap<String, Turn>,
}

/// A listing of one skill: what a per-revision turn is shown.
fn just(listed: &ListedSkill) -> Listing {
    Listing {
        text: String::new(),
        skills: vec![listed.clone()],
        estimated_tokens: 0,
        budget_tokens: 0,
        shortened: Vec::new(),
        ranked: false,
        more: 0,
    }
}

fn same_revision(a: &ListedSkill, b: &ListedSkill) -> bool {
    (a.scope, a.revision, &a.version) == (b.scope, b.revision, &b.version)
}

fn turn_id(session: &str, listed: &ListedSkill) -> String {
    let scope = listed.scope.as_str();
    let rev = listed.revision.map_or_else(|| "none".to_owned(), |r| r.to_string());
    format!("{session}-{scope}-{}-r{rev}", listed.name)
}

impl Mounts {
    /// An empty memo for the session `session` (unique to this server process).
    pub(crate) fn new(session: String) -> Self {
        Self { session, workspace: None, turns: HashMap::new() }
    }

    /// Runs `view_skill` for `input` against `listing`, mounting the listed revision into
    /// `sandbox` unless this session mounted that revision there already.
    pub(crate) fn view(
        &mut self,
        registry: &SkillRegistry,
        sandbox: &Sandbox,
        listing: &Listing,
        input: &Value,
    ) -> ViewResult {
        if self.workspace.as_deref() != Some(sandbox.root()) {
            self.turns.clear();
            self.workspace = Some(sandbox.root().to_path_buf());
        }
        let name = input.get("name").and_then(Value::as_str).unwrap_or_default();
        let Some(listed) = listing.skills.iter().find(|s| s.name == name) else {
            // Not listed: the core's answer over the whole listing (with close names).
            let mut turn = Turn::new(format!("{}-unlisted", self.session), listing.clone());
            return view_skill(registry, sandbox, &mut turn, input);
        };
        let stale =
            self.turns.get(name).is_none_or(|t| t.listing().skills.first().is_none_or(|m| !same_revision(m, listed)));
        if stale {
            self.turns.insert(name.to_owned(), Turn::new(turn_id(&self.session, listed), just(listed)));
        }
        let result = self.call(registry, sandbox, name, input);
        // The mount was removed from the workspace behind our back: mount afresh, once.
        if let ViewResult::Err(e) = &result
            && e.error.code == ViewErrorCode::SkillFileNotFound
            && let Ok(skill) = SkillName::parse(name)
            && !sandbox.root().join(mount::mount_path(&skill)).is_dir()
        {
            self.turns.insert(name.to_owned(), Turn::new(turn_id(&self.session, listed), just(listed)));
            return self.call(registry, sandbox, name, input);
        }
        result
    }

    fn call(&mut self, registry: &SkillRegistry, sandbox: &Sandbox, name: &str, input: &Value) -> ViewResult {
        match self.turns.get_mut(name) {
            Some(turn) => view_skill(registry, sandbox, turn, input),
            None => ViewResult::error(name, None, ViewErrorCode::SkillNotFound, "the skill is no longer listed"),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;
    use skilldeck_select::catalogue::Catalogue;
    use skilldeck_select::listing::ListingOptions;
    use skilldeck_skill::Scope;
    use skilldeck_skill::{RelPath, SkillFiles};
    use skilldeck_store::{FsStorage, SkilldeckHome};
    use std::os::unix::fs::MetadataExt as _;

    struct Fx {
        _tmp: tempfile::TempDir,
        registry: SkillRegistry,
        sandbox: Sandbox,
    }

    impl Fx {
        fn new() -> Self {
            let tmp = tempfile::tempdir().unwrap();
            let registry = SkillRegistry::new(FsStorage::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap());
            std::fs::create_dir_all(tmp.path().join("ws")).unwrap();
            let sandbox = Sandbox::open(&tmp.path().join("ws")).unwrap();
            let fx = Self { _tmp: tmp, registry, sandbox };
            fx.upload("v1");
            fx
        }

        fn upload(&self, tag: &str) {
            let md = format!("---\nname: pdf\ndescription: Extract text from PDF files\n---\n# PDF {tag}\n");
            let files: SkillFiles = [(RelPath::parse("SKILL.md").unwrap(), md.into_bytes())].into_iter().collect();
            self.registry.write_skill(Scope::User, &SkillName::parse("pdf").unwrap(), &files).unwrap();
        }

        fn listing(&self) -> Listing {
            self.registry.listing(&ListingOptions { scopes: vec![Scope::User], ..ListingOptions::default() }).unwrap()
        }

        /// The mount's inode: a new one each time the skill is copied in again.
        fn mount_inode(&self) -> u64 {
            std::fs::metadata(self.sandbox.root().join(".skills/pdf")).unwrap().ino()
        }

        fn content(&self, mounts: &mut Mounts, listing: &Listing) -> (Option<String>, String) {
            match mounts.view(&self.registry, &self.sandbox, listing, &json!({"name": "pdf"})) {
                ViewResult::Ok(ok) => (ok.version, ok.content),
                ViewResult::Err(e) => (None, format!("{:?}", e.error)),
            }
        }
    }

    #[test]
    fn a_revision_is_mounted_once_per_session_and_a_new_one_again() {
        let fx = Fx::new();
        let mut mounts = Mounts::new("s1".into());
        let v1 = fx.listing();
        assert_eq!(fx.content(&mut mounts, &v1), (Some("1".into()), "# PDF v1\n".into()));
        let first = fx.mount_inode();
        // The same revision again, even over a listing rebuilt meanwhile: no copy.
        assert_eq!(fx.content(&mut mounts, &fx.listing()), (Some("1".into()), "# PDF v1\n".into()));
        assert_eq!(fx.mount_inode(), first);
        // A new revision listed: mounted afresh, once.
        fx.upload("v2");
        let v2 = fx.listing();
        assert_eq!(fx.content(&mut mounts, &v2), (Some("2".into()), "# PDF v2\n".into()));
        let second = fx.mount_inode();
        assert_ne!(second, first);
        assert_eq!(fx.content(&mut mounts, &v2), (Some("2".into()), "# PDF v2\n".into()));
        assert_eq!(fx.mount_inode(), second);
        // Another session mounts for itself.
        let mut other = Mounts::new("s2".into());
        assert_eq!(fx.content(&mut other, &v2), (Some("2".into()), "# PDF v2\n".into()));
        assert_ne!(fx.mount_inode(), second);
    }

    #[test]
    fn a_mount_removed_from_the_workspace_is_copied_in_again() {
        let fx = Fx::new();
        let mut mounts = Mounts::new("s1".into());
        let listing = fx.listing();
        assert_eq!(fx.content(&mut mounts, &listing).1, "# PDF v1\n");
        std::fs::remove_dir_all(fx.sandbox.root().join(".skills/pdf")).unwrap();
        assert_eq!(fx.content(&mut mounts, &listing), (Some("1".into()), "# PDF v1\n".into()));
    }
}
