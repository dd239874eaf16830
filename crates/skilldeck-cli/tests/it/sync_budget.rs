//! `skilldeck sync` keeps each agent within its listing budget and says so: per agent what its
//! listing becomes and which skills stayed out; `--over-budget` goes past it knowingly; a
//! target switched off loses what Skilldeck put there; Codex gets each skill once.

use crate::world::World;
use serde_json::Value;
use std::fs;

/// A world with Claude Code, Codex and `.agents` installed and 30 skills of about 300
/// characters of description imported at once; Claude Code's window is small (20,000 tokens:
/// an 800-character listing).
fn world() -> World {
    let w = World::new();
    for d in [".claude", ".codex", ".agents"] {
        fs::create_dir_all(w.home().join(d)).unwrap();
    }
    let src = w.tmp.path().join("collection");
    for i in 0..30 {
        let name = format!("skill-{i:02}");
        let d = src.join(&name);
        fs::create_dir_all(&d).unwrap();
        let description = format!("Use when working on task {i}: {}", "does a careful thing with files. ".repeat(9));
        fs::write(d.join("SKILL.md"), format!("---\nname: {name}\ndescription: {description}\n---\nSteps.\n")).unwrap();
    }
    w.expect(&["import", src.to_str().unwrap()], 0);
    w.config("[targets.claude-code]\ncontext_window = 20000\n");
    w
}

fn plan<'a>(plans: &'a Value, target: &str) -> &'a Value {
    plans.as_array().unwrap().iter().find(|p| p["target"] == target).unwrap()
}

fn writes(p: &Value) -> usize {
    p["actions"].as_array().unwrap().iter().filter(|a| a["action"] == "write").count()
}

#[test]
fn sync_says_what_each_listing_becomes_and_keeps_to_the_budget_unless_told() {
    let w = world();
    w.expect(&["pin", "skill-29"], 0);
    let text = w.expect(&["sync", "--dry-run"], 0);
    assert!(text.contains("Claude Code: listing "), "{text}");
    assert!(text.contains("of 800 chars"), "{text}");
    assert!(text.contains("stay out to keep within budget"), "{text}");
    assert!(text.contains("left out: "), "{text}");
    assert!(text.contains("`skilldeck sync --over-budget claude-code` does it"), "{text}");
    // Codex reads ~/.agents/skills: each skill is delivered to it once.
    assert!(text.contains(" skills reach codex through ") && text.contains(".agents/skills already"), "{text}");

    let plans = w.json(&["sync", "--json"], 0);
    let claude = plan(&plans, "claude-code");
    let fit = &claude["fit"];
    assert!(fit["after"]["cost"].as_u64().unwrap() <= 800, "{fit:#}");
    let delivered = writes(claude);
    assert!(delivered > 0 && delivered < 30, "{claude:#}");
    assert!(w.home().join(".claude/skills/skill-29").is_dir(), "the pinned skill goes first");
    // The 30 imported and Skilldeck's bundled skills.
    let chosen = fit["left_out"].as_array().unwrap().len() + delivered;
    assert!(chosen > 30, "{fit:#}");
    assert_eq!(writes(plan(&plans, "codex")), 0, "{plans:#}");
    assert_eq!(writes(plan(&plans, "agents")), chosen);

    // The agent's own budget report agrees: every description whole.
    let budget = w.json(&["targets", "--budget", "--json"], 0);
    let claude = budget.as_array().unwrap().iter().find(|b| b["target"] == "claude-code").unwrap();
    assert!(claude["full"].as_u64().unwrap() <= claude["budget"].as_u64().unwrap(), "{claude:#}");

    // Going over is asked for by name, and refused for a name that is no target.
    let err = w.stderr(&["sync", "--over-budget", "nope"], 2);
    assert!(err.contains("--over-budget nope: no such target"), "{err}");
    let over = w.json(&["sync", "--json", "--over-budget", "claude-code"], 0);
    let claude = plan(&over, "claude-code");
    assert_eq!(writes(claude), chosen - delivered);
    assert_eq!(claude["fit"]["over_budget"], true);
    // And the next plain sync brings it back within budget, removing only what it wrote.
    let back = w.json(&["sync", "--json"], 0);
    let removed =
        plan(&back, "claude-code")["actions"].as_array().unwrap().iter().filter(|a| a["action"] == "remove").count();
    assert_eq!(removed, chosen - delivered);
}

#[test]
fn a_target_switched_off_loses_what_skilldeck_put_there() {
    let w = world();
    w.expect(&["sync"], 0);
    let mine = w.put(".claude/skills", "mine", "my own");
    w.config("[targets.claude-code]\ncontext_window = 20000\nenabled = false\n");
    let dry = w.expect(&["sync", "--dry-run"], 0);
    assert!(dry.contains("remove  "), "{dry}");
    w.expect(&["sync"], 0);
    let left: Vec<String> = fs::read_dir(w.home().join(".claude/skills"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["mine"]);
    assert!(mine.join("SKILL.md").is_file());
    let again = w.expect(&["sync", "--dry-run"], 0);
    assert!(!again.contains("remove  "), "{again}");
}
