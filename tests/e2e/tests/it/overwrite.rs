//! Overwriting a skill edited in an agent tool's folder, from the Agents view in the real
//! window: the diff dialog says where the edit goes, the plan shows it, and afterwards the
//! skill's History panel holds the kept edit and the restore, the tool's folder holds the
//! store's content again, and a skill the person wrote there is untouched.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_e2e::{Session, cli, enabled};

#[tokio::test(flavor = "current_thread")]
async fn overwrite_from_the_agents_view_keeps_the_edit_in_history() {
    if !enabled("overwrite_from_the_agents_view_keeps_the_edit_in_history") {
        return;
    }
    let mut claude = None;
    let s = Session::start_with("overwrite", |home| {
        let dir = skilldeck_e2e::user_home_of(home).join(".claude/skills");
        let theirs = dir.join("my-own-notes");
        std::fs::create_dir_all(&theirs).unwrap();
        std::fs::write(theirs.join("SKILL.md"), "---\nname: my-own-notes\ndescription: Mine.\n---\nHands off.\n")
            .unwrap();
        claude = Some(dir);
    })
    .await;
    let claude = claude.unwrap();
    let theirs_before = std::fs::read(claude.join("my-own-notes/SKILL.md")).unwrap();

    // A skill of the user's, delivered to Claude Code, then edited there.
    let src = s.skill_source("release-notes", "name: release-notes\ndescription: Write release notes\n", "# Notes");
    let out = cli(&s.home(), &["import", src.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = cli(&s.home(), &["sync", "claude-code"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    s.wait_for(".skill-item[data-key='user/release-notes']").await;
    let copy = claude.join("release-notes/SKILL.md");
    let stored = std::fs::read_to_string(&copy).unwrap();
    let edit = format!("{stored}\nMention every breaking change first.\n");
    std::fs::write(&copy, &edit).unwrap();

    // The diff dialog says where the edit goes before anything is done.
    s.click("#tab-agents").await;
    s.open_agent_card("claude-code").await;
    s.click("#agents-refresh").await;
    s.wait_for("tr[data-skill='release-notes'] .state.drifted").await;
    s.click("button[data-drift='release-notes']").await;
    s.wait_text("#drift-files", 10, |t| t.contains("+Mention every breaking change first.")).await;
    let keep = s.wait_text("#drift-keep", 10, |t| !t.is_empty()).await;
    assert_eq!(
        keep,
        "Overwrite keeps these edits first: the edited copy is kept in History as v:2, then v:1 is restored as v:3."
    );
    s.screenshot("drift-keep").await;

    // Overwrite shows the plan (the same library call as `sync --overwrite`), then does it.
    s.click("#drift-overwrite").await;
    let plan = s.wait_text("#sync-plan", 10, |t| t.contains("release-notes")).await;
    assert!(
        plan.contains(
            "replace  release-notes v:1 → v:3 — the edited copy is kept in History as v:2, then v:1 is restored as v:3"
        ),
        "{plan}"
    );
    s.screenshot("overwrite-plan").await;
    s.click("#sync-confirm").await;
    s.wait_until("the sync dialog closes", "return !document.querySelector('#sync-dialog').open;").await;
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), stored, "the folder holds the store's content again");
    assert_eq!(std::fs::read(claude.join("my-own-notes/SKILL.md")).unwrap(), theirs_before);
    s.wait_for("tr[data-skill='release-notes'] .state.in-sync").await;

    // The skill's History panel: v:3 restores v:1, v:2 is the edit from Claude Code.
    s.click("#tab-skills").await;
    s.click(".skill-item[data-key='user/release-notes']").await;
    s.click("#history-btn").await;
    let history = s.wait_text("#history", 10, |t| t.contains("v:3")).await;
    let row = |rev: &str| format!("#history tr[data-revision='{rev}']");
    let kept = s.text_of(&row("2")).await;
    assert!(kept.contains("edited copy kept from claude-code"), "{history}");
    let restored = s.text_of(&row("3")).await;
    assert!(restored.contains("restored from v:1"), "{history}");
    s.screenshot("history-kept-edit").await;
    // The kept revision opens read-only with the edit in it.
    s.click(&format!("{} .view-revision", row("2"))).await;
    s.wait_text("#revision-banner", 10, |t| t.contains("v:2")).await;
    s.wait_text("#viewer .markdown", 10, |t| t.contains("Mention every breaking change first.")).await;
    s.screenshot("kept-edit-view").await;
    s.finish().await;
}
