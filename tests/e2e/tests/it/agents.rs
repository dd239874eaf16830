//! The Agents view in the real window: the agent tools found in a fake home, "Sync now" with
//! its plan first, auto-sync after an import from the CLI, and a skill edited in place shown
//! as a diff and marked in the sidebar. Folders the app did not write are never touched. And
//! one card per agent: skills delivered to Claude Code's folder and Skilldeck's MCP server
//! added to Claude Desktop, each on its card with the next step, at 1280×800 and 800×500.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use sha2::{Digest as _, Sha256};
use skilldeck_e2e::{Session, cli, enabled};
use std::path::Path;
use std::time::{Duration, Instant};

/// A digest of every file below `dir` (paths and bytes), to prove nothing changed there.
fn tree_digest(dir: &Path) -> String {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut h = Sha256::new();
    for f in files {
        h.update(f.strip_prefix(dir).unwrap().to_string_lossy().as_bytes());
        h.update(std::fs::read(&f).unwrap());
    }
    format!("{:x}", h.finalize())
}

/// Unfolds agent `id`'s card (a click on its header) unless it is unfolded already.
async fn expand(s: &Session, id: &str) {
    let head = format!(".tool-card[data-tool='{id}'] .agent-toggle");
    s.wait_for(&head).await;
    let open = format!("return document.querySelector(\"{head}\").getAttribute('aria-expanded') === 'true';");
    if s.client.execute(&open, vec![]).await.unwrap() != serde_json::json!(true) {
        s.click(&head).await;
    }
    s.wait_for(&format!(".tool-card[data-tool='{id}'] .agent-body")).await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_agents_view_syncs_auto_syncs_and_shows_an_edit_made_in_a_tool() {
    if !enabled("the_agents_view_syncs_auto_syncs_and_shows_an_edit_made_in_a_tool") {
        return;
    }
    // The session's own HOME (never the machine's), with Claude Code's folder holding a skill
    // the person wrote there themselves, and one clashing with a bundled skill's name.
    let mut paths = None;
    let s = Session::start_with("agents", |home| {
        let claude = skilldeck_e2e::user_home_of(home).join(".claude/skills");
        let theirs = claude.join("my-own-notes");
        std::fs::create_dir_all(&theirs).unwrap();
        std::fs::write(theirs.join("SKILL.md"), "---\nname: my-own-notes\ndescription: Mine.\n---\nHands off.\n")
            .unwrap();
        let clash = claude.join("workspace-notes");
        std::fs::create_dir_all(&clash).unwrap();
        std::fs::write(
            clash.join("SKILL.md"),
            "---\nname: workspace-notes\ndescription: My own.\n---\nNot Skilldeck's.\n",
        )
        .unwrap();
        paths = Some((claude, theirs, clash));
    })
    .await;
    let (claude, theirs, clash) = paths.unwrap();
    let foreign_before = (tree_digest(&theirs), tree_digest(&clash));

    // At the first start the app offers to bring in what the tools already hold, unasked never.
    let banner = s.wait_text("#adopt-banner-text", 10, |t| !t.is_empty()).await;
    assert_eq!(banner, "Found 2 skills in Claude Code — bring them into Skilldeck?");
    s.screenshot("first-start-offer").await;

    // Claude Code is found (its ~/.claude exists); the bundled skills are missing there.
    s.click("#tab-agents").await;
    expand(&s, "claude-code").await;
    let counts = s.wait_text(".tool-card[data-tool='claude-code'] .tool-counts", 10, |t| t.contains("missing")).await;
    assert!(counts.contains("3 missing") && counts.contains("2 not ours"), "{counts}");
    s.screenshot("tools").await;

    // Sync now shows the plan first; nothing is written until it is confirmed.
    s.click("#agents-sync-one").await;
    let plan = s.wait_text("#sync-plan", 10, |t| t.contains("write")).await;
    assert!(plan.contains("write    change-review v:1"), "{plan}");
    assert!(plan.contains("skip     workspace-notes"), "the clash is reported: {plan}");
    assert!(!claude.join("change-review").exists(), "a plan writes nothing");
    s.screenshot("plan").await;
    s.click("#sync-confirm").await;
    s.wait_until("the sync dialog closes", "return !document.querySelector('#sync-dialog').open;").await;
    assert!(claude.join("change-review/SKILL.md").is_file());
    assert!(!claude.join("change-review/.version").exists(), ".version is never delivered");
    s.wait_text(".tool-card[data-tool='claude-code'] .tool-counts", 10, |t| t.contains("3 in sync")).await;
    // The sidebar marks each skill with the tools it reached.
    let mark = s.text_of(".skill-item[data-key='system/change-review'] .marker.delivered").await;
    assert_eq!(mark, "→ 1");

    // Auto-sync: an import from the terminal reaches Claude Code while the app runs.
    s.click("#agents-auto").await;
    s.wait_for(".tool-card[data-tool='claude-code'].selected").await;
    let src = s.tmp.path().join("src/fresh-skill");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("SKILL.md"), "---\nname: fresh-skill\ndescription: Newly imported.\n---\nBody.\n").unwrap();
    // The switch's own sync has run when the card says auto-sync.
    s.wait_text(".tool-card[data-tool='claude-code'] .tool-title", 10, |t| t.contains("auto-sync")).await;
    let imported = Instant::now();
    let out = cli(&s.home(), &["import", &src.display().to_string()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    while !claude.join("fresh-skill/SKILL.md").is_file() {
        assert!(imported.elapsed() < Duration::from_secs(10), "auto-sync never delivered fresh-skill");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!("auto-sync delivered an import from the CLI in {} ms", imported.elapsed().as_millis());

    // An edit made in Claude Code's copy: reported, shown as a diff, never overwritten.
    let edited = claude.join("commit-messages/SKILL.md");
    let text = std::fs::read_to_string(&edited).unwrap();
    std::fs::write(&edited, format!("{text}\nAlways sign off.\n")).unwrap();
    s.click("#agents-refresh").await;
    s.wait_for("tr[data-skill='commit-messages'] .state.drifted").await;
    s.click("button[data-drift='commit-messages']").await;
    // The dialog opens once the diff and the plan of an overwrite are both worked out.
    let diff = s.wait_text("#drift-files", 30, |t| t.contains("+Always sign off.")).await;
    assert!(diff.contains("--- v:1/SKILL.md") && diff.contains("+++ edited/SKILL.md"), "{diff}");
    s.screenshot("drift").await;
    s.click("#drift-close").await;
    s.click("#tab-skills").await;
    s.wait_text(".skill-item[data-key='system/commit-messages'] .marker.drift", 10, |t| t.contains("edited")).await;
    s.screenshot("sidebar-marks").await;
    // Another store change auto-syncs again, and the edit stays.
    let out = cli(&s.home(), &["disable", "change-review"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let since = Instant::now();
    while claude.join("change-review").exists() {
        assert!(since.elapsed() < Duration::from_secs(10), "a skill switched off was never removed by auto-sync");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(std::fs::read_to_string(&edited).unwrap().ends_with("Always sign off.\n"), "the edit is kept");
    assert_eq!(
        (tree_digest(&theirs), tree_digest(&clash)),
        foreign_before,
        "folders Skilldeck did not write are untouched"
    );

    // Bringing them in: the preview lists the new one, the clash and the edited copy; the clash
    // is left out; my-own-notes and the edit come in as the user's skills, and their copies
    // become Skilldeck's, byte for byte as they were.
    s.click("#adopt-review").await;
    let list = s.wait_text("#adopt-list", 10, |t| t.contains("my-own-notes")).await;
    assert!(list.contains("new to Skilldeck") && list.contains("differs from Skilldeck's v:1"), "{list}");
    assert!(list.contains("edited there since v:1: newer than Skilldeck's"), "{list}");
    s.screenshot("adopt-preview").await;
    s.click("#adopt-list input[data-adopt='workspace-notes']").await;
    s.wait_text("#adopt-confirm", 5, |t| t == "Bring in 2 skills").await;
    s.click("#adopt-confirm").await;
    s.wait_until("the adopt dialog closes", "return !document.querySelector('#adopt-dialog').open;").await;
    s.wait_until("the banner goes", "return document.querySelector('#adopt-banner').hidden;").await;
    s.click("#tab-agents").await;
    s.wait_for("tr[data-skill='my-own-notes'] .state.in-sync").await;
    s.wait_for("tr[data-skill='workspace-notes'] .state.foreign").await;
    s.wait_for("tr[data-skill='commit-messages'] .state.in-sync").await;
    assert!(std::fs::read_to_string(&edited).unwrap().ends_with("Always sign off.\n"), "the edit is now the skill");
    assert_eq!(tree_digest(&theirs), foreign_before.0, "adopting writes nothing in the tool's folder");
    let listed = cli(&s.home(), &["list"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("my-own-notes") && listed.contains("commit-messages"), "{listed}");
    s.screenshot("adopted").await;
    // Links instead of copies: with auto-sync on, the switch alone turns the copies into links
    // to Skilldeck's read-only exports.
    let select =
        "const m = document.querySelector('#agents-mode'); m.value = 'link'; m.dispatchEvent(new Event('change'));";
    s.client.execute(select, vec![]).await.unwrap();
    let since = Instant::now();
    let linked = claude.join("skill-authoring");
    while !linked.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
        assert!(since.elapsed() < Duration::from_secs(10), "auto-sync never made skill-authoring a link");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(linked.join("SKILL.md").is_file(), "the link leads to the skill");
    assert_eq!(tree_digest(&clash), foreign_before.1, "the clash is still untouched");

    // The view in Chinese.
    s.set_language("zh").await;
    s.wait_text(".tool-card[data-tool='claude-code'] .tool-counts", 10, |t| t.contains("4 已同步")).await;
    s.screenshot("zh").await;
    s.finish().await;
}

/// What overflows the window or a card sideways (nothing should), as text.
const OVERFLOW: &str = "const out = []; \
    if (document.documentElement.scrollWidth > window.innerWidth + 1) out.push('page ' + document.documentElement.scrollWidth + ' > ' + window.innerWidth); \
    for (const c of document.querySelectorAll('#agents .tool-card, #agents .agents-head')) { \
      if (c.scrollWidth > c.clientWidth + 1) out.push((c.dataset.tool || 'head') + ' ' + c.scrollWidth + ' > ' + c.clientWidth); \
      for (const b of c.querySelectorAll('button, input, select')) { const r = b.getBoundingClientRect(); \
        if (r.width && r.right > window.innerWidth + 1) out.push('control ' + (b.id || b.textContent) + ' ends at ' + r.right); } } \
    return out;";

#[tokio::test(flavor = "current_thread")]
async fn one_card_per_agent_shows_its_folders_its_mcp_server_and_the_next_step() {
    if !enabled("one_card_per_agent_shows_its_folders_its_mcp_server_and_the_next_step") {
        return;
    }
    // Claude Code and Claude Desktop are installed (their folders exist); nothing else is.
    let mut desktop_file = None;
    let s = Session::start_with("agents-merged", |home| {
        let user = skilldeck_e2e::user_home_of(home);
        std::fs::create_dir_all(user.join(".claude")).unwrap();
        std::fs::create_dir_all(user.join(".config/Claude")).unwrap();
        desktop_file = Some(user.join(".config/Claude/claude_desktop_config.json"));
    })
    .await;
    let desktop_file = desktop_file.unwrap();
    let claude = s.user_home().join(".claude/skills");
    s.click("#tab-agents").await;

    // Before: Claude Code's chosen skills are not delivered yet, Claude Desktop gets nothing.
    let card = ".tool-card[data-tool='claude-code']";
    let next = s.wait_text(&format!("{card} .next-step"), 10, |t| !t.is_empty()).await;
    assert_eq!(next, "4 skills chosen for Claude Code are not in its folders yet: sync now");
    let desktop = ".tool-card[data-tool='claude-desktop']";
    assert_eq!(
        s.text_of(&format!("{desktop} .next-step")).await,
        "Claude Desktop gets no skills from Skilldeck: add the MCP server"
    );
    // Agents found here come first; every known agent has a card, once.
    let ids = s
        .client
        .execute("return [...document.querySelectorAll('#agents-tools .tool-card')].map(c => c.dataset.tool);", vec![])
        .await
        .unwrap();
    let ids: Vec<String> = serde_json::from_value(ids).unwrap();
    assert_eq!(&ids[..2], ["claude-code", "claude-desktop"], "{ids:?}");
    for id in ["codex", "cursor", "gemini-cli", "github-copilot", "goose", "windsurf"] {
        assert_eq!(ids.iter().filter(|x| *x == id).count(), 1, "{id} once in {ids:?}");
    }
    assert!(!ids.iter().any(|x| x == "vscode"), "VS Code is GitHub Copilot's card: {ids:?}");
    s.screenshot("before").await;

    // Deliver to Claude Code's folder from its card.
    expand(&s, "claude-code").await;
    s.click("#agents-sync-one").await;
    s.wait_text("#sync-plan", 10, |t| t.contains("write")).await;
    s.click("#sync-confirm").await;
    s.wait_until("the sync dialog closes", "return !document.querySelector('#sync-dialog').open;").await;
    assert!(claude.join("change-review/SKILL.md").is_file());

    // Add Skilldeck's MCP server to Claude Desktop from its card.
    s.click(&format!("{desktop} .mcp-add")).await;
    s.wait_until("the confirmation opens", "return document.querySelector('#mcp-confirm-dialog').open;").await;
    assert_eq!(s.text_of("#mcp-confirm-file").await, desktop_file.to_str().unwrap());
    s.click("#mcp-confirm-ok").await;
    s.wait_until("the confirmation closes", "return !document.querySelector('#mcp-confirm-dialog').open;").await;
    s.wait_for(&format!("{desktop} .mcp-client[data-state='installed']")).await;
    let written = std::fs::read_to_string(&desktop_file).unwrap();
    assert!(written.contains("\"skilldeck\""), "{written}");

    // Claude Code: its folder delivers the four skills, its MCP server is not there, and all
    // four fit in its listing.
    let folders = s.wait_text(&format!("{card} .way-folders"), 10, |t| t.contains("4 in sync")).await;
    assert!(folders.contains("Skill folders"), "{folders}");
    let checked = format!("return document.querySelector(\"{card} input[data-deliver]\").checked;");
    assert_eq!(s.client.execute(&checked, vec![]).await.unwrap(), serde_json::json!(true));
    let mcp = s.text_of(&format!("{card} .mcp-client")).await;
    assert!(mcp.contains("Skilldeck MCP server") && mcp.contains("not installed"), "{mcp}");
    assert!(s.text_of(&format!("{card} .way-budget")).await.contains(" of "), "the budget meter is on the card");
    let next = s.wait_text(&format!("{card} .next-step"), 10, |t| t.starts_with("All")).await;
    assert_eq!(next, "All 4 skills fit in Claude Code's listing");
    // A skill Skilldeck delivered is switched by Deliver, not by Claude Code's own setting.
    let row = s.text_of("tr[data-budget-skill='change-review']").await;
    assert!(row.starts_with("Skilldeck's") && row.contains("delivered by Skilldeck"), "{row}");
    assert_eq!(s.text_of("[data-agent-skill='change-review']").await, "", "no own setting for it");
    // Claude Desktop: no skill folders, the MCP server installed, every skill through it.
    let ways = s.text_of(&format!("{desktop} .agent-ways")).await;
    assert!(ways.contains("none known") && ways.contains("installed"), "{ways}");
    let next = s.wait_text(&format!("{desktop} .next-step"), 10, |t| t.contains("MCP")).await;
    assert_eq!(next, "Claude Desktop gets every skill through Skilldeck's MCP server");
    let found = s.client.execute(OVERFLOW, vec![]).await.unwrap();
    assert_eq!(found, serde_json::json!([]), "nothing overflows at 1280x800");
    // What a reload of the view costs (every store change asks for it): reported, not judged.
    let timing = "const done = arguments[arguments.length - 1]; const ms = []; \
        (async () => { for (let i = 0; i < 10; i++) { const t = performance.now(); \
          await window.__TAURI__.core.invoke('agents_overview', { project: null }); ms.push(performance.now() - t); } \
          ms.sort((a, b) => a - b); done(ms[5]); })();";
    let median = s.client.execute_async(timing, vec![]).await.unwrap();
    eprintln!("agents_overview (13 cards, budgets, 6 MCP settings files): median {median} ms of 10");
    s.screenshot("1280x800").await;

    // The keyboard folds a card up and down again; the header says which way.
    let head = format!("{card} .agent-toggle");
    s.client.execute(&format!("document.querySelector(\"{head}\").focus();"), vec![]).await.unwrap();
    s.wait_for(&head).await.send_keys(" ").await.unwrap();
    s.wait_until(
        "the card folds up",
        &format!("return document.querySelector(\"{head}\").getAttribute('aria-expanded') === 'false';"),
    )
    .await;
    s.wait_for(&head).await.send_keys("\u{e007}").await.unwrap();
    s.wait_for(&format!("{card} .agent-body")).await;

    // The smallest window: nothing sideways out of view, the budget details fold away.
    s.client.set_window_size(800, 500).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let found = s.client.execute(OVERFLOW, vec![]).await.unwrap();
    assert_eq!(found, serde_json::json!([]), "nothing overflows at 800x500");
    s.screenshot("800x500").await;

    // The same in Chinese.
    s.set_language("zh").await;
    let next = s.wait_text(&format!("{desktop} .next-step"), 10, |t| t.contains("MCP")).await;
    assert_eq!(next, "Claude Desktop 通过 Skilldeck 的 MCP 服务器获得全部技能");
    assert_eq!(s.text_of(&format!("{card} .next-step")).await, "全部 4 个技能都能完整放进 Claude Code 的技能列表");
    s.screenshot("800x500-zh").await;
    s.finish().await;
}

/// What an agent will make of the skills in its folders, on its card: a field Claude Code
/// rejects marked on the skill's row (the why in its title), and a skill name Codex finds in two
/// of the folders it reads (its own and the shared `.agents/skills`) named as a warning.
#[tokio::test(flavor = "current_thread")]
async fn an_agents_card_marks_fields_it_rejects_and_a_skill_it_reads_twice() {
    if !enabled("an_agents_card_marks_fields_it_rejects_and_a_skill_it_reads_twice") {
        return;
    }
    let s = Session::start_with("agents-fields", |home| {
        let user = skilldeck_e2e::user_home_of(home);
        let write = |dir: std::path::PathBuf, text: &str| {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("SKILL.md"), text).unwrap();
        };
        write(
            user.join(".claude/skills/forky"),
            "---\nname: forky\ndescription: Runs in a forked context.\ncontext: forked\n---\n# forky\n",
        );
        let twice = "---\nname: twice\ndescription: Found in two folders.\n---\n# twice\n";
        write(user.join(".codex/skills/twice"), twice);
        write(user.join(".agents/skills/twice"), twice);
    })
    .await;
    s.set_language("en").await;
    s.click("#tab-agents").await;

    let claude = ".tool-card[data-tool='claude-code']";
    s.open_agent_card("claude-code").await;
    let mark = s.wait_text(&format!("{claude} tr[data-skill='forky'] .agent-fields"), 10, |t| !t.is_empty()).await;
    assert_eq!(mark, "1 field Claude Code rejects");
    let why = s
        .client
        .execute(
            &format!("return document.querySelector(\"{claude} tr[data-skill='forky'] .agent-fields\").title;"),
            vec![],
        )
        .await
        .unwrap();
    assert!(why.as_str().unwrap().starts_with("context:"), "{why}");
    s.screenshot("field-mark").await;

    let codex = ".tool-card[data-tool='codex']";
    let _ = codex;
    s.open_agent_card("codex").await;
    let warning = s.wait_text("#agents-duplicates", 10, |t| !t.is_empty()).await;
    assert!(
        warning.starts_with("twice is in two folders Codex reads") && warning.contains(".agents/skills"),
        "{warning}"
    );
    s.screenshot("duplicate").await;
    s.finish().await;
}
