//! Writing and fixing skills in the real window: a skill made from nothing and used by the
//! agent, a real-world invalid skill fixed with one click, a draft that survives closing the
//! window, and a draft whose skill changed in the terminal meanwhile.

use skilldeck_e2e::{Session, cli, enabled};
use std::fs;
use std::path::Path;

/// Waits until the editor (CodeMirror, in its shadow root) shows text: it draws the file after
/// the editor's name is set, so a read right after that may find it empty.
async fn editor_shown(s: &Session) {
    s.wait_until(
        "the editor shows its text",
        "const h = document.querySelector('#editor-cm .cm-host'); \
         return !!(h && h.shadowRoot && h.shadowRoot.querySelector('.cm-content')?.innerText.length);",
    )
    .await;
}

/// The text of the open file, once the editor shows it.
async fn editor_text(s: &Session) -> String {
    editor_shown(s).await;
    let script = "const h = document.querySelector('#editor-cm .cm-host'); \
                  const c = h && h.shadowRoot && h.shadowRoot.querySelector('.cm-content'); \
                  return c ? c.innerText : '';";
    s.client.execute(script, vec![]).await.unwrap().as_str().unwrap_or_default().to_owned()
}

/// Types `text` at the end of the open file, as keys into the focused editor.
async fn type_at_end(s: &Session, text: &str) {
    editor_shown(s).await;
    s.client
        .execute(
            "document.querySelector('#editor-cm .cm-host').shadowRoot.querySelector('.cm-content').focus();",
            vec![],
        )
        .await
        .unwrap();
    let active = s.client.active_element().await.unwrap();
    // Ctrl+End: to the end of the document.
    active.send_keys("\u{E009}\u{E010}\u{E009}").await.unwrap();
    // A line break as the Enter key: WebKit's driver sends "\n" as a character the editor drops.
    active.send_keys(&text.replace('\n', "\u{E007}")).await.unwrap();
}

/// Every file under `dir` but the store's sidecars, with its bytes.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            if p.is_dir() {
                stack.push(p);
            } else if rel != ".version" && rel != ".revision.json" {
                out.push((rel, fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn revision(home: &Path, name: &str) -> String {
    fs::read_to_string(home.join("skills/user").join(name).join(".version")).unwrap_or_default().trim().to_owned()
}

#[tokio::test(flavor = "current_thread")]
async fn a_skill_written_from_nothing_is_saved_as_one_revision_and_used_by_the_agent() {
    if !enabled("a_skill_written_from_nothing_is_saved_as_one_revision_and_used_by_the_agent") {
        return;
    }
    let s = Session::start("authoring-new").await;
    s.click("#new-skill-btn").await;
    s.type_into("#new-skill-name", "Meeting Notes").await;
    // The name is checked as it is typed.
    s.wait_text("#new-skill-problem", 5, |t| t.contains("lowercase")).await;
    s.wait_until("Create is off", "return document.querySelector('#new-skill-create').disabled;").await;
    s.type_into("#new-skill-name", "meeting-notes").await;
    s.wait_until("Create is on", "return !document.querySelector('#new-skill-create').disabled;").await;
    s.type_into("#new-skill-description", "Turns a meeting transcript into notes: decisions, owners and action items.")
        .await;
    s.client
        .execute("document.querySelector('#new-skill-templates input[value=\"scripts\"]').click();", vec![])
        .await
        .unwrap();
    s.screenshot("new-skill-dialog").await;
    s.click("#new-skill-create").await;

    s.wait_text("#editor-name", 10, |t| t.contains("meeting-notes")).await;
    assert_eq!(revision(&s.home(), "meeting-notes"), "1", "the new skill is stored as v:1");
    let v1 = tree(&s.home().join("skills/user/meeting-notes"));
    let text = editor_text(&s).await;
    assert!(text.contains("description: \"Turns a meeting transcript"), "{text}");
    let lines = s.wait_text("#editor-agent-lines", 10, |t| t.contains("Claude Code")).await;
    assert!(lines.contains("- meeting-notes: Turns a meeting transcript"), "the listing preview: {lines}");

    type_at_end(&s, "\nAlways name the owner of each action item.\n").await;
    s.wait_until("the draft is unsaved", "return !document.querySelector('#editor-unsaved').hidden;").await;
    s.screenshot("editor-typed").await;
    // The draft is on disk as the author types; the store is untouched until Save.
    let draft = s.home().join("drafts/user/meeting-notes/files/SKILL.md");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !fs::read_to_string(&draft).unwrap_or_default().contains("owner of each action item") {
        assert!(std::time::Instant::now() < deadline, "the draft was never written");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(revision(&s.home(), "meeting-notes"), "1");

    // The script and a new reference, in the same draft.
    s.click("#editor-file-tree button.file[data-path='scripts/run.sh']").await;
    s.wait_text("#editor-file", 10, |t| t.contains("scripts/run.sh")).await;
    type_at_end(&s, "echo \"notes written\"\n").await;
    s.click("#editor-new-file").await;
    s.type_into("#editor-file-tree .tree-input", "references/owners.md\u{E007}").await;
    s.wait_text("#editor-file", 10, |t| t.contains("references/owners.md")).await;
    type_at_end(&s, "# Owners\nOne person per action item.\n").await;
    let owners = s.home().join("drafts/user/meeting-notes/files/references/owners.md");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !fs::read_to_string(&owners).unwrap_or_default().contains("One person per action item.") {
        assert!(std::time::Instant::now() < deadline, "the new reference was never written");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    s.click("#editor-save").await;
    s.wait_text("#toast", 10, |t| t.contains("v:2")).await;
    assert_eq!(revision(&s.home(), "meeting-notes"), "2", "one save, one revision");
    let script = fs::read_to_string(s.home().join("skills/user/meeting-notes/scripts/run.sh")).unwrap();
    assert!(script.ends_with("\necho \"notes written\"\n"), "{script}");
    let stored = fs::read_to_string(s.home().join("skills/user/meeting-notes/SKILL.md")).unwrap();
    assert!(stored.contains("Always name the owner of each action item."), "{stored}");
    assert!(!s.home().join("drafts/user/meeting-notes").exists(), "a saved draft is gone");

    // History: v:2's View shows what it changed.
    // The save's own change event redraws the skill's pane once; History opens after it.
    s.wait_text(".skill-item[data-key='user/meeting-notes'] .badge", 10, |t| t == "v:2").await;
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    s.settle().await;
    s.click("#history-btn").await;
    s.wait_text("#history", 10, |t| t.contains("v:2")).await;
    s.click("#history tr[data-revision='2'] .view-revision").await;
    s.wait_text("#revision-banner", 10, |t| t.contains("v:2")).await;
    let diff = s.wait_text("#viewer", 10, |t| t.contains("owner of each action item")).await;
    assert!(diff.contains("+Always name the owner"), "{diff}");
    assert!(
        diff.contains("+echo \"notes written\"") && diff.contains("+# Owners\n+One person per action item."),
        "{diff}"
    );
    s.screenshot("history-diff").await;

    // Restoring v:1 brings its files back byte for byte, as v:3.
    s.click("#revision-banner button:last-child").await;
    s.wait_text("#history", 10, |t| t.contains("v:1")).await;
    s.click("#history tr[data-revision='1'] .view-revision").await;
    s.wait_text("#revision-banner", 10, |t| t.contains("v:1")).await;
    s.click("#revision-banner button.restore").await;
    s.wait_text(".skill-item[data-key='user/meeting-notes'] .badge", 10, |t| t == "v:3").await;
    assert_eq!(tree(&s.home().join("skills/user/meeting-notes")), v1);

    // The Agent tab (offline) loads the new skill, at its new revision, for a request it is for.
    let ws = s.tmp.path().join("project");
    fs::create_dir_all(&ws).unwrap();
    s.click("#tab-agent").await;
    s.wait_for("body[data-agent-ready='true']").await;
    s.type_into("#agent-workspace", &ws.display().to_string()).await;
    s.type_into("#agent-prompt", "Turn this meeting transcript into notes with the action items and their owners")
        .await;
    s.click("#agent-send").await;
    let chip = s.wait_text("#chat-log .chip.ok", 20, |t| t.contains("meeting-notes")).await;
    assert!(chip.contains("v:3"), "{chip}");
    s.screenshot("agent-uses-new-skill").await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn an_invalid_real_world_skill_is_fixed_with_one_click_and_a_left_draft_is_found_again() {
    if !enabled("an_invalid_real_world_skill_is_fixed_with_one_click_and_a_left_draft_is_found_again") {
        return;
    }
    let s = Session::start_with("authoring-fix", |home| {
        let src = home.parent().unwrap().join("src/pptx-builder");
        fs::create_dir_all(&src).unwrap();
        // The most common fault of the real-world imports: an unquoted description that YAML
        // reads as something else.
        fs::write(
            src.join("SKILL.md"),
            "---\nname: pptx-builder\ndescription: **Build** slides: from an outline, with notes\n---\n\n# PPTX\n",
        )
        .unwrap();
        let out = cli(home, &["import", src.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    })
    .await;
    s.type_into("#search", "pptx").await;
    s.click(".skill-item[data-key='user/pptx-builder']").await;
    s.click("#edit-btn").await;
    let fix = s.wait_text("#editor-notes button.fix", 10, |t| !t.is_empty()).await;
    assert!(fix.contains("quotes"), "{fix}");
    s.screenshot("quick-fix-offered").await;
    s.click("#editor-notes button.fix").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !editor_text(&s).await.contains("description: \"**Build** slides: from an outline, with notes\"") {
        assert!(std::time::Instant::now() < deadline, "the fix never reached the editor: {}", editor_text(&s).await);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    s.click("#editor-save").await;
    s.wait_text("#toast", 10, |t| t.contains("v:2")).await;
    let out = cli(&s.home(), &["validate", s.home().join("skills/user/pptx-builder").to_str().unwrap()]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && !said.contains("warning"), "{said}");

    // A draft left open (typed into, not saved) is there after the window closes.
    s.click("#edit-btn").await;
    type_at_end(&s, "Keep one idea per slide.\n").await;
    let draft = s.home().join("drafts/user/pptx-builder/files/SKILL.md");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !fs::read_to_string(&draft).unwrap_or_default().contains("one idea per slide") {
        assert!(std::time::Instant::now() < deadline, "the draft was never written");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // Meanwhile the stored skill changes from the terminal: the editor says so.
    let out = cli(&s.home(), &["restore", "pptx-builder", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stale = s.wait_text("#editor-stale", 15, |t| t.contains("v:3")).await;
    assert!(!stale.is_empty(), "{stale}");
    assert!(editor_text(&s).await.contains("Keep one idea per slide."), "the typed text stays");
    s.screenshot("draft-stale").await;
    assert_eq!(revision(&s.home(), "pptx-builder"), "3", "nothing was saved over the terminal's revision");

    // The window closes with the draft unsaved; the next start offers it again.
    let kept = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp").arg("-a").arg(s.home()).arg(kept.path()).status().unwrap();
    assert!(status.success());
    s.finish().await;
    let s = Session::start_with("authoring-resume", |home| {
        fs::remove_dir_all(home).ok();
        let status = std::process::Command::new("cp").arg("-a").arg(kept.path().join("home")).arg(home).status();
        assert!(status.unwrap().success());
    })
    .await;
    let banner = s.wait_text("#drafts-banner", 10, |t| t.contains("pptx-builder")).await;
    assert!(!banner.is_empty(), "{banner}");
    s.screenshot("draft-offered-again").await;
    s.click("#drafts-banner .resume-draft").await;
    s.wait_text("#editor-name", 10, |t| t.contains("pptx-builder")).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !editor_text(&s).await.contains("Keep one idea per slide.") {
        assert!(std::time::Instant::now() < deadline, "the draft's text is back: {}", editor_text(&s).await);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    // Rename: the skill, its history and its open draft move to the new name.
    s.click("#editor-close").await;
    s.type_into("#search", "pptx").await;
    s.click(".skill-item[data-key='user/pptx-builder']").await;
    s.settle().await;
    s.click("#rename-btn").await;
    s.type_into("#rename-name", "pptx-builder").await;
    s.wait_text("#rename-problem", 5, |t| t.contains("new name")).await;
    s.type_into("#rename-name", "slides-builder").await;
    s.wait_until("Rename is on", "return !document.querySelector('#rename-go').disabled;").await;
    s.click("#rename-go").await;
    // The dialog stays open (and the page behind it inert) until the rename is done.
    s.wait_until("the rename dialog closes", "return !document.querySelector('#rename-dialog').open;").await;
    s.type_into("#search", "slides").await;
    s.wait_for(".skill-item[data-key='user/slides-builder']").await;
    if s.home().join("skills/user/pptx-builder").exists() || !s.home().join("drafts/user/slides-builder").is_dir() {
        s.screenshot("failure").await;
        panic!("the skill and its draft did not move to the new name");
    }
    s.wait_text("#drafts-banner", 10, |t| t.contains("slides-builder")).await;
    // The rename's own change event redraws the pane once; History opens after it.
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    s.settle().await;
    s.click("#history-btn").await;
    let history = s.wait_text("#history", 10, |t| t.contains("renamed from pptx-builder")).await;
    assert!(history.contains("v:1"), "the old revisions follow: {history}");
    s.screenshot("renamed").await;
    s.finish().await;
}
