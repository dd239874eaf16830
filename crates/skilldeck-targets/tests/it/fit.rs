//! Delivery within budget: a sync fills each agent's listing up to its budget (pinned skills
//! first, then the ones its user uses), delivers each skill once to an agent that also reads a
//! shared folder, lets the user go over knowingly, and empties a target switched off.

use crate::common::{World, put};
use skilldeck_core::SkillRegistry;
use skilldeck_skill::{RelPath, Scope, SkillFiles, SkillName};
use skilldeck_store::FsStorage;
use skilldeck_targets::TargetPlan;
use skilldeck_targets::budget::fit::{self, Ask};
use skilldeck_targets::config::TargetsConfig;
use skilldeck_targets::env::Env;
use skilldeck_targets::export::Exports;
use skilldeck_targets::plan::Action;
use skilldeck_targets::record::Records;
use skilldeck_targets::source::{Store, enabled_skills};
use skilldeck_targets::sync::Syncer;
use skilldeck_targets::target;
use std::collections::BTreeSet;
use std::fs;

/// A world with Claude Code, Codex and `.agents` installed, and 40 skills of about 300
/// characters of description each in the store.
fn world() -> World {
    let w = World::new();
    for d in [".claude", ".codex", ".agents"] {
        fs::create_dir_all(w.home().join(d)).unwrap();
    }
    for i in 0..40 {
        let name = format!("skill-{i:02}");
        let description = format!("Use when working on task {i}: {}", "does a careful thing with files. ".repeat(9));
        store(&w.storage, &name, &description);
    }
    w
}

fn store(storage: &FsStorage, name: &str, description: &str) {
    let text = format!("---\nname: {name}\ndescription: {description}\n---\nSteps.\n");
    let files: SkillFiles = [(RelPath::parse("SKILL.md").unwrap(), text.into_bytes())].into_iter().collect();
    storage.write_skill_sync(Scope::User, &SkillName::parse(name).unwrap(), &files).unwrap();
}

/// Plans (`dry_run`) or syncs every default folder with `config` (config.toml's text).
fn sync(w: &World, config: &str, pinned: &[&str], over: &[&str], dry_run: bool) -> Vec<TargetPlan> {
    let config = TargetsConfig::parse(config, "config.toml").unwrap();
    let env = Env::with_home(w.home());
    let targets = target::resolve(&env, &config, None).unwrap();
    let folders = target::chosen(&targets, &[]).unwrap();
    let registry = SkillRegistry::new(w.storage.clone());
    let wanted = enabled_skills(&registry, &BTreeSet::new()).unwrap();
    let records = Records::new(w.storage.home().root());
    let reports = skilldeck_targets::report::report(targets.clone(), &wanted, &records);
    let source = Store::new(&w.storage);
    let syncer = Syncer {
        records,
        source: &source,
        overwrite: BTreeSet::new(),
        mode: None,
        exports: Exports::new(w.storage.home().root()),
    };
    let pinned: BTreeSet<String> = pinned.iter().map(|s| (*s).to_owned()).collect();
    let over: BTreeSet<String> = over.iter().map(|s| (*s).to_owned()).collect();
    let ask = Ask {
        targets: &targets,
        reports: &reports,
        folders: &folders,
        wanted: &wanted,
        config: &config,
        env: &env,
        project: None,
        pinned: &pinned,
        over_budget: &over,
    };
    fit::sync(&syncer, &ask, dry_run)
}

fn plan<'a>(plans: &'a [TargetPlan], target: &str) -> &'a TargetPlan {
    plans.iter().find(|p| p.target == target).unwrap()
}

fn written(p: &TargetPlan) -> Vec<String> {
    p.actions.iter().filter(|a| matches!(a, Action::Write { .. })).map(|a| a.name().to_owned()).collect()
}

/// Small windows: Claude Code's listing gets 800 characters, Codex's 400 tokens.
const SMALL: &str = "[targets.claude-code]\ncontext_window = 20000\n[targets.codex]\ncontext_window = 20000\n";

#[test]
fn a_sync_delivers_what_fits_pinned_and_used_first_and_says_what_stayed_out() {
    let w = world();
    // The user's Claude Code transcripts show skill-39 used.
    let project = w.home().join(".claude/projects/p");
    fs::create_dir_all(&project).unwrap();
    fs::write(project.join("s.jsonl"), r#"{"type":"tool_use","name":"Skill","input":{"skill":"skill-39"}}"#).unwrap();

    let plans = sync(&w, SMALL, &["skill-38"], &[], true);
    let claude = plan(&plans, "claude-code");
    let fit = claude.fit.as_ref().unwrap();
    assert_eq!(fit.budget, Some(800));
    assert!(fit.after.cost <= 800, "{fit:?}");
    assert!(fit.everything.cost > 800 * 3, "{fit:?}");
    assert_eq!(fit.after.shortened + fit.after.name_only + fit.after.omitted, 0, "every delivered description whole");
    let wrote = written(claude);
    assert!(wrote.len() >= 2 && wrote.len() < 10, "{wrote:?}");
    assert!(wrote.contains(&"skill-38".to_owned()), "pinned first: {wrote:?}");
    assert!(wrote.contains(&"skill-39".to_owned()), "used next: {wrote:?}");
    assert_eq!(fit.left_out.len() + wrote.len(), 40);
    assert_eq!(claude.left_out.len(), fit.left_out.len());
    assert_eq!(claude.left_out[0].agents, ["claude-code"]);
    assert!(fit.describe().contains("stay out to keep within budget"), "{}", fit.describe());
    assert!(fit.describe_everything().unwrap().contains("--over-budget claude-code"));

    // Carried out, the agent's own budget report agrees: every description whole, within budget.
    let done = sync(&w, SMALL, &["skill-38"], &[], false);
    assert_eq!(plan(&done, "claude-code").done, wrote.len());
    assert_eq!(fs::read_dir(w.home().join(".claude/skills")).unwrap().count(), wrote.len());
    // A second sync changes nothing.
    let again = sync(&w, SMALL, &["skill-38"], &[], true);
    assert_eq!(plan(&again, "claude-code").changes(), 0, "{:?}", plan(&again, "claude-code").actions);
}

#[test]
fn codex_gets_each_skill_once_and_its_budget_counts_the_shared_folder() {
    let w = world();
    let plans = sync(&w, "", &[], &[], true);
    let agents = written(plan(&plans, "agents"));
    let codex = plan(&plans, "codex");
    assert!(!agents.is_empty());
    for name in written(codex) {
        assert!(!agents.contains(&name), "{name} would reach Codex twice");
    }
    assert!(!codex.once.is_empty(), "the plan says what Codex reads in ~/.agents/skills");
    assert!(codex.once.iter().all(|o| o.folder.ends_with(".agents/skills")));
    // Codex's budget (default window, 2% = 5,440 tokens) is what the shared folder was filled to.
    let fit = codex.fit.as_ref().unwrap();
    assert!(fit.after.cost <= fit.budget.unwrap(), "{fit:?}");
    assert!(fit.once > 0);
}

#[test]
fn going_over_is_the_users_choice_per_target() {
    let w = world();
    let over = sync(&w, SMALL, &[], &["claude-code"], true);
    let fit = plan(&over, "claude-code").fit.clone().unwrap();
    assert!(fit.over_budget && fit.left_out.is_empty());
    assert_eq!(written(plan(&over, "claude-code")).len(), 40);
    assert!(fit.after.cost > 800 && fit.after.name_only + fit.after.shortened > 0, "{fit:?}");
    // The same from config.toml.
    let config =
        "[targets.claude-code]\ncontext_window = 20000\nover_budget = true\n[targets.codex]\ncontext_window = 20000\n";
    assert_eq!(written(plan(&sync(&w, config, &[], &[], true), "claude-code")).len(), 40);
    // Codex keeps to its budget meanwhile.
    assert!(!plan(&over, "codex").fit.as_ref().unwrap().left_out.is_empty());
}

#[test]
fn switching_a_target_off_removes_what_skilldeck_put_there_and_nothing_else() {
    let w = world();
    sync(&w, "", &[], &[], false);
    let claude = w.home().join(".claude/skills");
    let ours = fs::read_dir(&claude).unwrap().count();
    assert!(ours > 0);
    put(&claude, "mine", "My own skill.");
    let off = "[targets.claude-code]\nenabled = false\n";
    let plans = sync(&w, off, &[], &[], true);
    let p = plan(&plans, "claude-code");
    let removed = p.actions.iter().filter(|a| matches!(a, Action::Remove { .. })).count();
    assert_eq!(removed, ours, "the plan says so first: {:?}", p.actions);
    sync(&w, off, &[], &[], false);
    let left: Vec<String> =
        fs::read_dir(&claude).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left, ["mine"], "only the user's own skill stays");
}
