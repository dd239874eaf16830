//! A user's day with a real collection, across capabilities, in the real window: a scratch home
//! with Claude Code, Codex and `.agents` folders holding skills of their own, 120 skills of
//! real-world shape imported (Chinese descriptions, invalid and risky ones), then the first
//! sync (each agent within its budget, Codex given each skill once), switching delivery off
//! (what Skilldeck wrote goes, the user's own stays), approving a held skill and withdrawing the
//! approval, and searching by words in any order. Each step is checked on disk and on screen,
//! with screenshots.

use serde_json::Value;
use skilldeck_e2e::{Session, cli, enabled, user_home_of};
use std::collections::BTreeSet;
use std::path::Path;

/// The skill folders in `dir`, by name.
fn names_in(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

fn json(home: &Path, args: &[&str]) -> Value {
    let out = cli(home, args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Writes a skill of the user's own (not Skilldeck's) into an agent's folder.
fn own(dir: &Path, name: &str) {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("SKILL.md"), format!("---\nname: {name}\ndescription: My own {name} notes.\n---\nMine.\n"))
        .unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn a_day_with_a_real_collection_keeps_every_promise_where_features_meet() {
    if !enabled("a_day_with_a_real_collection_keeps_every_promise_where_features_meet") {
        return;
    }
    let mut made = None;
    // The app as installed: with its embedding models, so ranking by meaning is on.
    let models = skilldeck_e2e::root().join(".tools/models");
    assert!(models.join("multilingual-e5-small-q4").is_dir(), "no model in {}: run ./scripts/setup", models.display());
    let prepare = |home: &Path| {
        let user = user_home_of(home);
        own(&user.join(".claude/skills"), "my-claude-notes");
        own(&user.join(".codex/skills"), "my-codex-notes");
        own(&user.join(".agents/skills"), "my-shared-notes");
        let src = home.with_file_name("collection");
        made = Some(skilldeck_e2e::collection::write(&src));
    };
    let s = Session::start_in("journey", prepare, &[("SKILLDECK_MODELS_DIR", Some(&models))]).await;
    let made = made.unwrap();
    let home = s.home();
    let user = s.user_home();
    let (claude, codex, shared) =
        (user.join(".claude/skills"), user.join(".codex/skills"), user.join(".agents/skills"));

    // Morning: the collection comes in (from a terminal); the app shows it without a restart.
    let out = cli(&home, &["import", made.dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The sidebar draws only the rows in view: a search brings one up, and its count says the
    // whole collection is there (the invalid ones included, shown with their problems).
    s.type_into("#search", "using-git-worktrees").await;
    s.wait_for(".skill-item[data-key='user/using-git-worktrees']").await;
    let of = |t: &str| t.rsplit(" of ").next().and_then(|n| n.trim().parse::<usize>().ok()).unwrap_or(0);
    let count = s.wait_text("#search-count", 30, |t| of(t) >= made.valid.len()).await;
    assert!(of(&count) >= made.valid.len(), "{count}");
    let listed = json(&home, &["list", "--json"]);
    let rows = listed.as_array().unwrap();
    for name in &made.risky {
        let row = rows.iter().find(|r| r["name"] == name.as_str()).unwrap();
        assert_eq!(row["held"], true, "{name} is held by the audit: {row}");
    }
    s.screenshot("collection-imported").await;

    // The first sync: the plan says per agent what its listing becomes before anything is written.
    s.click("#tab-agents").await;
    s.click("#agents-sync").await;
    let plan = s.wait_text("#sync-plan", 20, |t| t.contains("What each agent's skills listing becomes")).await;
    assert!(plan.contains("Claude Code: ") && plan.contains(" of 8000 characters"), "{plan}");
    assert!(plan.contains("stay out to keep within budget"), "{plan}");
    assert!(plan.contains("reach it through a shared folder it also reads"), "Codex gets each skill once: {plan}");
    assert!(names_in(&claude) == BTreeSet::from(["my-claude-notes".to_owned()]), "a plan writes nothing");
    let top = s.client.execute("return document.querySelector('#sync-plan').scrollTop;", vec![]).await.unwrap();
    assert_eq!(top, serde_json::json!(0), "the plan opens at its top, on the consequences");
    s.screenshot("first-sync-plan").await;
    // Going over is a choice made per agent, knowingly, and taken back the same way.
    s.click("[data-over-budget='claude-code']").await;
    s.wait_text("[data-over-budget='claude-code']", 10, |t| t == "Back to what fits the budget").await;
    let config = std::fs::read_to_string(home.join("config.toml")).unwrap();
    assert!(config.contains("[targets.claude-code]\nover_budget = true"), "{config}");
    s.wait_until(
        "Claude Code's listing is shown over its budget",
        "return document.querySelector(\"[data-fit='claude-code']\").classList.contains('over');",
    )
    .await;
    s.screenshot("first-sync-plan-over").await;
    s.click("[data-over-budget='claude-code']").await;
    // The plan shown again within budget: Claude Code's button offers to go over once more.
    s.wait_text("[data-over-budget='claude-code']", 20, |t| t.starts_with("Deliver all")).await;
    s.wait_text("#sync-plan", 20, |t| t.contains("stay out to keep within budget")).await;
    let config = std::fs::read_to_string(home.join("config.toml")).unwrap();
    assert!(!config.contains("over_budget"), "{config}");
    s.click("#sync-confirm").await;
    s.wait_until("the sync dialog closes", "return !document.querySelector('#sync-dialog').open;").await;

    // On disk: each agent within its budget, every description whole; the user's own skills stay.
    let budgets = json(&home, &["targets", "--budget", "--json"]);
    for id in ["claude-code", "codex"] {
        let b = budgets.as_array().unwrap().iter().find(|b| b["target"] == id).unwrap();
        assert!(b["full"].as_u64().unwrap() <= b["budget"].as_u64().unwrap(), "{id} over budget: {b}");
    }
    let in_claude = names_in(&claude);
    assert!(in_claude.contains("my-claude-notes") && in_claude.len() > 10, "{in_claude:?}");
    assert!(in_claude.len() < made.valid.len(), "not everything: what fits");
    // Codex reads ~/.agents/skills: nothing Skilldeck put there is in Codex's own folder too.
    let in_shared = names_in(&shared);
    let in_codex = names_in(&codex);
    assert!(in_shared.len() > 10 && in_shared.contains("my-shared-notes"), "{in_shared:?}");
    let twice: Vec<&String> = in_codex.intersection(&in_shared).collect();
    assert!(twice.is_empty(), "Codex would read these twice: {twice:?}");
    for name in made.risky.iter().chain(&made.invalid) {
        assert!(!in_claude.contains(name) && !in_shared.contains(name), "{name} was delivered");
    }
    s.open_agent_card("claude-code").await;
    // One set of numbers: what the fit kept out is not "missing", so the card does not ask for
    // another sync that would change nothing.
    let next =
        s.wait_text(".tool-card[data-tool='claude-code'] .next-step", 10, |t| !t.contains("not in its folders")).await;
    assert!(!next.is_empty(), "{next}");
    s.wait_for(".tool-card[data-tool='claude-code'] [data-state='left-out']").await;
    let targets = json(&home, &["targets", "--json"]);
    let claude_folder = &targets.as_array().unwrap().iter().find(|t| t["id"] == "claude-code").unwrap()["folders"][0];
    assert!(claude_folder["counts"].get("missing").is_none(), "{claude_folder}");
    assert_eq!(
        claude_folder["left_out"].as_array().unwrap().len() + in_claude.len() - 1,
        made.valid.len() - made.risky.len() + 4
    );
    s.screenshot("after-first-sync").await;

    // Switching Claude Code's delivery off: the next sync removes what Skilldeck wrote there.
    let switch = ".tool-card[data-tool='claude-code'] input[data-deliver]";
    s.click(switch).await;
    s.wait_until("delivery is off", &format!("return !document.querySelector(\"{switch}\").checked;")).await;
    s.click("#agents-sync").await;
    let plan = s.wait_text("#sync-plan", 20, |t| t.contains("remove")).await;
    assert!(plan.contains(&format!("remove {}", in_claude.len() - 1)), "{plan}");
    s.screenshot("delivery-off-plan").await;
    s.click("#sync-confirm").await;
    s.wait_until("the sync dialog closes", "return !document.querySelector('#sync-dialog').open;").await;
    assert_eq!(names_in(&claude), BTreeSet::from(["my-claude-notes".to_owned()]), "only the user's own stays");

    // A held skill: its switch says so; approving lets it through and marks it; withdrawing
    // holds it again, as `skilldeck untrust` does.
    s.click("#tab-skills").await;
    let risky = &made.risky[0];
    s.type_into("#search", risky).await;
    s.click(&format!(".skill-item[data-key='user/{risky}']")).await;
    let label = s.wait_text("#enabled-switch", 10, |t| !t.is_empty()).await;
    assert!(label.starts_with("Held"), "{label}");
    let on = s.client.execute("return document.querySelector('#enabled-switch').getAttribute('aria-checked');", vec![]);
    assert_eq!(on.await.unwrap(), serde_json::json!("false"), "a held skill is not shown as offered");
    s.click("#approve-findings").await;
    let yes = s.wait_text("#confirm-yes", 10, |t| t.starts_with("Approve")).await;
    assert!(yes.ends_with("findings") || yes.ends_with("finding"), "{yes}");
    s.click("#confirm-yes").await;
    s.wait_for(&format!(".skill-item[data-key='user/{risky}'] .marker.approved-risk")).await;
    s.wait_for("#withdraw-approval").await;
    let listed = json(&home, &["list", "--json"]);
    let row = listed.as_array().unwrap().iter().find(|r| r["name"] == risky.as_str()).unwrap().clone();
    assert_eq!(row["held"], false, "{row}");
    s.screenshot("approved").await;
    s.click("#withdraw-approval").await;
    let yes = s.wait_text("#confirm-yes", 10, |t| !t.is_empty()).await;
    assert_eq!(yes, "Withdraw approval");
    s.click("#confirm-yes").await;
    s.wait_for(&format!(".skill-item[data-key='user/{risky}'] .marker.held")).await;
    let listed = json(&home, &["list", "--json"]);
    let row = listed.as_array().unwrap().iter().find(|r| r["name"] == risky.as_str()).unwrap().clone();
    assert_eq!(row["held"], true, "{row}");

    // Searching as people type: words in any order, a name's match first.
    s.type_into("#search", "git worktree").await;
    let first = "const k = document.querySelector('#skill-list .skill-item')?.dataset.key; \
                 return k === 'user/using-git-worktrees';";
    s.wait_until("using-git-worktrees comes first", first).await;
    s.type_into("#search", "slides").await;
    s.wait_for(".skill-item[data-key='user/frontend-slides']").await;
    s.wait_for(".skill-item[data-key='user/pptx']").await;
    s.screenshot("search").await;
    // No name or description holds the words: ranking by meaning offers what is close (once
    // the collection's vectors are computed in the background: each new query asks again).
    let since = std::time::Instant::now();
    let queries = ["quarterly budget workbook", "budget workbook quarterly"];
    for round in 0.. {
        s.type_into("#search", queries[round % 2]).await;
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        if s.text_of("#skill-list").await.contains("Related by meaning") {
            break;
        }
        assert!(since.elapsed() < std::time::Duration::from_secs(120), "nothing offered by meaning");
    }
    assert!(s.text_of("#sidebar .empty").await.contains("close in meaning"));
    s.screenshot("search-by-meaning").await;
    s.finish().await;
}
