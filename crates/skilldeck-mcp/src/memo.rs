//! Mounting at most once per revision per session. MCP has no turns, so each listed revision
//! of a skill gets a turn of its own in the core's sense, and the core's memo does the rest.

use serde_json::Value;
use skilldeck_core::listing::{ListedSkill, Listing};
use skilldeck_core::mount;
use skilldeck_core::registry::SkillRegistry;
use skilldeck_core::sandbox::Sandbox;
use skilldeck_core::view_result::{ViewErrorCode, ViewResult};
use skilldeck_core::view_skill::{Turn, view_skill};
use skilldeck_core::{Scope, SkillName};
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
    }
}

fn same_revision(a: &ListedSkill, b: &ListedSkill) -> bool {
    (a.scope, a.revision, &a.version) == (b.scope, b.revision, &b.version)
}

fn turn_id(session: &str, listed: &ListedSkill) -> String {
    let scope = match listed.scope {
        Scope::System => "system",
        Scope::User => "user",
    };
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
