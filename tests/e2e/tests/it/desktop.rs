//! The desktop app in a real WebKit window under Xvfb, driven through tauri-driver.
//! Each test saves screenshots into tests/output/ for a person to look at.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::loopback::{Loopback, Reply, openai_text, openai_tools};
use serde_json::json;
use skilldeck_e2e::{Session, enabled};

/// Opens the Agent tab; returns a fresh workspace folder for it.
async fn open_agent(s: &Session) -> std::path::PathBuf {
    let ws = s.tmp.path().join("project");
    std::fs::create_dir_all(&ws).unwrap();
    s.click("#tab-agent").await;
    s.wait_for("body[data-agent-ready='true']").await;
    ws
}

/// A session on the Agent tab with the provider `local`, a loopback model server, chosen and a
/// workspace folder typed in.
async fn agent_on_loopback(name: &str) -> (Loopback, Session, std::path::PathBuf) {
    let server = Loopback::start().await;
    let s = Session::start(name).await;
    let config = format!("[providers.local]\napi = \"openai\"\nbase_url = \"{}\"\nmodel = \"m\"\n", server.url);
    std::fs::write(s.home().join("config.toml"), config).unwrap();
    let ws = open_agent(&s).await;
    s.wait_for("#agent-provider option[value='local']").await;
    s.client.execute("const p = document.querySelector('#agent-provider'); p.value = 'local';", vec![]).await.unwrap();
    s.type_into("#agent-workspace", &ws.display().to_string()).await;
    (server, s, ws)
}

/// Scrolls `css` into view so a screenshot shows it.
async fn show(s: &Session, css: &str) {
    let script = "const e = document.querySelector(arguments[0]); const box = e.closest('#chat-log'); \
                  box.scrollTop += e.getBoundingClientRect().top - box.getBoundingClientRect().top - 60;";
    s.client.execute(script, vec![serde_json::json!(css)]).await.unwrap();
}

async fn badge(s: &Session, key: &str) -> String {
    s.wait_text(&format!(".skill-item[data-key='{key}'] .badge"), 10, |t| !t.is_empty()).await
}

#[tokio::test(flavor = "current_thread")]
async fn bundled_skills_show_with_badges_and_no_sidecar() {
    if !enabled("bundled_skills_show_with_badges_and_no_sidecar") {
        return;
    }
    let s = Session::start("bundled").await;
    for name in ["change-review", "commit-messages", "skill-authoring", "workspace-notes"] {
        assert_eq!(badge(&s, &format!("system/{name}")).await, "v:1");
    }
    s.click(".skill-item[data-key='system/change-review']").await;
    s.wait_text(".file-title", 10, |t| t == "SKILL.md").await;
    let viewer = s.wait_text("#viewer .markdown", 10, |t| t.contains("Reviewing a change")).await;
    assert!(!viewer.contains("name: change-review"), "the body is shown without its frontmatter");
    let fm = s.wait_text("table.frontmatter", 5, |t| t.contains("description")).await;
    assert!(fm.contains("change-review"));
    let tree = s.wait_text("#file-tree", 5, |t| t.contains("SKILL.md")).await;
    assert!(tree.contains("checklist.md") && tree.contains("diff_stats.py"), "{tree}");
    assert!(!tree.contains(".version"), ".version never appears: {tree}");
    s.screenshot("change-review").await;

    // Switched off for agents: still in the sidebar, marked, and gone from the listing.
    s.click("#enabled-switch").await;
    s.wait_for("#enabled-switch[aria-checked='false']").await;
    s.wait_text(".skill-item[data-key='system/change-review'] .marker.off", 10, |t| t == "off").await;
    s.click("#listing-btn").await;
    let listing = s.wait_text("#listing-text", 10, |t| t.contains("Available Skills")).await;
    assert!(!listing.contains("change-review") && listing.contains("commit-messages"), "{listing}");
    s.screenshot("switched-off").await;
    s.click("#listing-close").await;
    s.click("#enabled-switch").await;
    s.wait_for("#enabled-switch[aria-checked='true']").await;
    s.wait_text(".skill-item[data-key='system/change-review'] .marker.off", 10, str::is_empty).await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn importing_twice_turns_the_badge_from_v1_to_v2() {
    if !enabled("importing_twice_turns_the_badge_from_v1_to_v2") {
        return;
    }
    let s = Session::start("import").await;
    let src = s.skill_source(
        "pdf-tools",
        "name: pdf-tools\ndescription: Extract text and tables from PDF files\n",
        "# PDF tools\n",
    );
    assert_eq!(s.import_via_dialog(&src).await, "new skill");
    assert_eq!(badge(&s, "user/pdf-tools").await, "v:1");
    s.screenshot("after-first-import").await;
    // The same files again make no new revision, and the dialog and toast say so.
    assert_eq!(s.import_via_dialog(&src).await, "identical to v:1");
    s.wait_text("#toast", 10, |t| t.contains("unchanged, still v:1")).await;
    assert_eq!(badge(&s, "user/pdf-tools").await, "v:1");
    std::fs::write(
        src.join("SKILL.md"),
        "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files\n---\n# PDF tools, revised\n",
    )
    .unwrap();
    let preview = s.import_via_dialog(&src).await;
    assert_eq!(preview, "will become v:2");
    s.wait_text(".skill-item[data-key='user/pdf-tools'] .badge", 10, |t| t == "v:2").await;
    s.screenshot("after-second-import").await;
    // A hostile source gets a specific error and writes nothing.
    std::os::unix::fs::symlink("/etc/passwd", src.join("passwd")).unwrap();
    s.click("#import-btn").await;
    s.type_into("#import-path", &src.display().to_string()).await;
    s.click("#import-check").await;
    let err = s.wait_text("#import-error", 10, |t| !t.is_empty()).await;
    assert!(err.contains("symbolic links are refused"), "{err}");
    s.screenshot("hostile-import").await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_folder_of_many_skills_imports_the_chosen_ones_with_progress() {
    if !enabled("a_folder_of_many_skills_imports_the_chosen_ones_with_progress") {
        return;
    }
    let s = Session::start("collection").await;
    let root = s.home().parent().unwrap().join("collection");
    let skill = |dir: &str, file: &str, text: &str| {
        let d = root.join(dir);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(file), text).unwrap();
    };
    let md = |name: &str, desc: &str| format!("---\nname: {name}\ndescription: {desc}\n---\n# {name}\n");
    skill("skills/alpha", "SKILL.md", &md("alpha", "First skill of the set"));
    skill("skills/beta", "SKILL.md", &md("beta", "Second skill of the set"));
    skill("tools/gamma", "skill.md", &md("gamma", "A lowercase skill.md"));
    skill("skills/broken", "SKILL.md", "---\nname: broken\ndescription: \"never closed\n---\n# Broken\n");
    skill("skills/evil", "SKILL.md", &md("evil", "Holds a link out"));
    std::os::unix::fs::symlink("/etc/passwd", root.join("skills/evil/passwd")).unwrap();
    // alpha is already stored with the same files: it shows as identical and is not offered.
    let out = skilldeck_e2e::cli(&s.home(), &["import", root.join("skills/alpha").to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    s.click("#import-btn").await;
    s.type_into("#import-path", &root.display().to_string()).await;
    s.click("#import-check").await;
    s.wait_text("#collection-count", 20, |t| t.contains("5 skills found")).await;
    let row = |loc: &str| format!("#collection-list li[data-location='{loc}']");
    assert!(s.text_of(&row("skills/alpha")).await.contains("identical to v:1"));
    assert!(s.text_of(&row("skills/beta")).await.contains("new skill"));
    assert!(s.text_of(&row("tools/gamma")).await.contains("gamma"));
    let evil = s.text_of(&row("skills/evil")).await;
    assert!(evil.contains("refused") && evil.contains("symbolic links"), "{evil}");
    assert!(s.text_of(&row("skills/broken")).await.contains("invalid"));
    let state = "return [...document.querySelectorAll('#collection-list input.pick')].map((c) => [c.dataset.location, c.checked, c.disabled]);";
    let boxes = s.client.execute(state, vec![]).await.unwrap();
    let boxes: Vec<(String, bool, bool)> = serde_json::from_value(boxes).unwrap();
    let by = |loc: &str| boxes.iter().find(|b| b.0 == loc).cloned().unwrap();
    assert_eq!(by("skills/alpha"), ("skills/alpha".into(), false, true), "identical is not offered");
    assert_eq!(by("skills/evil"), ("skills/evil".into(), false, true), "refused is not offered");
    assert!(by("skills/beta").1 && by("tools/gamma").1 && by("skills/broken").1, "{boxes:?}");
    assert_eq!(s.text_of("#import-confirm").await, "Import 3 skills");
    s.screenshot("preview").await;
    // Leave beta out; import the other two.
    s.click(&format!("{} input.pick", row("skills/beta"))).await;
    s.wait_text("#import-confirm", 5, |t| t == "Import 2 skills").await;
    s.click("#import-confirm").await;
    s.wait_until("the import dialog closes", "return !document.querySelector('#import-dialog').open;").await;
    let toast = s.wait_text("#toast", 10, |t| t.contains("Imported")).await;
    assert!(toast.contains("Imported 2"), "{toast}");
    s.wait_for(".skill-item[data-key='user/gamma']").await;
    s.wait_for(".skill-item[data-key='user/broken']").await;
    assert!(s.home().join("skills/user/gamma/SKILL.md").is_file(), "a lowercase skill.md is stored as SKILL.md");
    assert!(!s.home().join("skills/user/beta").exists(), "an unchosen skill is not imported");
    assert!(!s.home().join("skills/user/evil").exists());
    assert_eq!(badge(&s, "user/alpha").await, "v:1");
    s.screenshot("imported").await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_skills_requested_tools_are_shown_and_take_effect_only_once_approved() {
    if !enabled("a_skills_requested_tools_are_shown_and_take_effect_only_once_approved") {
        return;
    }
    let s = Session::start("grants").await;
    let src = s.skill_source(
        "grabby",
        "name: grabby\ndescription: Wants every command\nallowed-tools: Bash Bash(git diff:*)\n",
        "# Grabby\n",
    );
    // The import preview lists the requested tools in plain words and warns about the broad one.
    s.click("#import-btn").await;
    s.type_into("#import-path", &src.display().to_string()).await;
    s.click("#import-check").await;
    let grants = s.wait_text("#import-grants", 10, |t| !t.is_empty()).await;
    assert!(grants.contains("run any shell command without asking"), "{grants}");
    assert!(grants.contains("run `git diff` with any arguments"), "{grants}");
    assert!(grants.contains("Approve it only if you trust its author"), "{grants}");
    s.wait_for("#import-trust").await;
    s.screenshot("import-grants").await;
    // Imported without ticking the box: the grants are shown, not in force.
    s.click("#import-confirm").await;
    s.wait_until("the import dialog closes", "return !document.querySelector('#import-dialog').open;").await;
    s.click(".skill-item[data-key='user/grabby']").await;
    let state = s.wait_text("#grants-state", 10, |t| !t.is_empty()).await;
    assert!(state.starts_with("Not in force"), "{state}");
    s.wait_for(".skill-item[data-key='user/grabby'] .marker.tools").await;
    let listed = skilldeck_e2e::cli(&s.home(), &["list", "--json"]);
    assert!(String::from_utf8_lossy(&listed.stdout).contains("\"untrusted\""));
    s.screenshot("grants-untrusted").await;
    // Approving in the skill view writes the approval the CLI and the loop read.
    s.click("#trust-btn").await;
    s.wait_text("#grants-state", 10, |t| t.starts_with("In force")).await;
    s.wait_until(
        "the sidebar drops its marker",
        "return !document.querySelector(\".skill-item[data-key='user/grabby'] .marker.tools\");",
    )
    .await;
    let shown = skilldeck_e2e::cli(&s.home(), &["show", "grabby", "--json"]);
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(shown["grants"]["state"], "trusted");
    s.screenshot("grants-trusted").await;
    s.click("#trust-btn").await;
    s.wait_text("#grants-state", 10, |t| t.starts_with("Not in force")).await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn links_in_a_skill_open_its_files_or_the_browser_and_never_take_the_window() {
    if !enabled("links_in_a_skill_open_its_files_or_the_browser_and_never_take_the_window") {
        return;
    }
    let s = Session::start("links").await;
    let filler: String = (1..=80).map(|i| format!("Line {i} of the instructions.\n\n")).collect();
    let body = format!(
        "# Linked\n\nRead [the guide](references/guide.md) first, see [the site](https://example.invalid/docs), \
         [a file link](file:///etc/passwd), [the end](#deep-section).\n\n{filler}## Deep section\n\nThe end.\n"
    );
    let src = s.skill_source("linked", "name: linked\ndescription: A skill full of links\n", &body);
    std::fs::create_dir_all(src.join("assets")).unwrap();
    std::fs::write(src.join("assets/data.bin"), b"\x00\x01\x02\xff\xfe binary").unwrap();
    s.import_via_dialog(&src).await;
    s.click(".skill-item[data-key='user/linked']").await;
    s.wait_text("#viewer .markdown", 10, |t| t.contains("Read the guide first")).await;
    let location = "return window.location.href;";
    let home = s.client.execute(location, vec![]).await.unwrap();
    assert!(home.as_str().unwrap().starts_with("tauri://localhost"), "{home}");

    // A relative link opens the skill's file in the viewer.
    s.click("#viewer .markdown a[href='references/guide.md']").await;
    s.wait_text("#viewer .file-title", 10, |t| t == "references/guide.md").await;
    assert_eq!(s.client.execute(location, vec![]).await.unwrap(), home);

    // A link followed while the skill is still loading (a live update's redraw, a second
    // click on it) stays followed: the skill's late answer does not put SKILL.md back.
    s.click("#file-tree .file[data-path='SKILL.md']").await;
    s.wait_text("#viewer .file-title", 10, |t| t == "SKILL.md").await;
    s.wait_for("#viewer .markdown a[href='references/guide.md']").await;
    s.client
        .execute(
            "document.querySelector(\".skill-item[data-key='user/linked']\").click(); \
             document.querySelector(\"#viewer .markdown a[href='references/guide.md']\").click();",
            vec![],
        )
        .await
        .unwrap();
    s.wait_text("#viewer .file-title", 10, |t| t == "references/guide.md").await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_eq!(s.text_of("#viewer .file-title").await, "references/guide.md");
    let selected = "return document.querySelector('#file-tree .file.selected')?.dataset.path ?? null;";
    assert_eq!(s.client.execute(selected, vec![]).await.unwrap(), "references/guide.md");

    // Another file starts at the top: scroll SKILL.md down, open the guide again.
    s.click("#file-tree .file[data-path='SKILL.md']").await;
    s.wait_text("#viewer .file-title", 10, |t| t == "SKILL.md").await;
    s.client.execute("document.querySelector('#viewer').scrollTop = 2000;", vec![]).await.unwrap();
    let scrolled = s.client.execute("return document.querySelector('#viewer').scrollTop;", vec![]).await.unwrap();
    assert!(scrolled.as_f64().unwrap() > 0.0, "the viewer scrolls: {scrolled}");
    s.click("#file-tree .file[data-path='references/guide.md']").await;
    s.wait_text("#viewer .file-title", 10, |t| t == "references/guide.md").await;
    let top = s.client.execute("return document.querySelector('#viewer').scrollTop;", vec![]).await.unwrap();
    assert_eq!(top.as_f64(), Some(0.0));

    // An anchor scrolls to its heading; a web link goes to the browser, never into the window;
    // a link the sanitizer emptied says so.
    s.click("#file-tree .file[data-path='SKILL.md']").await;
    s.wait_text("#viewer .file-title", 10, |t| t == "SKILL.md").await;
    s.click("#viewer .markdown a[href='#deep-section']").await;
    s.wait_until(
        "the anchor scrolls its heading into view",
        "const v = document.querySelector('#viewer').getBoundingClientRect(); \
         const h = [...document.querySelectorAll('#viewer h2')].find((e) => e.textContent === 'Deep section'); \
         const r = h.getBoundingClientRect(); return r.top >= v.top - 1 && r.bottom <= v.bottom + 1;",
    )
    .await;
    s.click("#viewer .markdown a[href='https://example.invalid/docs']").await;
    s.wait_text("#toast", 10, |t| t.contains("example.invalid")).await;
    s.screenshot("web-link").await;
    s.client.execute("document.querySelectorAll('#viewer .markdown a')[2].click();", vec![]).await.unwrap();
    s.wait_text("#toast", 10, |t| t.contains("no address")).await;
    assert_eq!(s.client.execute(location, vec![]).await.unwrap(), home);

    // Second line of defence: the webview itself refuses to leave the app.
    s.client.execute("window.location.href = 'https://example.invalid/';", vec![]).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    assert_eq!(s.client.execute(location, vec![]).await.unwrap(), home);
    s.wait_for("#sidebar .skill-item").await;

    // A binary file says its type, not "undefined".
    s.click("#file-tree .file[data-path='assets/data.bin']").await;
    let binary = s.wait_text("#viewer .binary", 10, |t| !t.is_empty()).await;
    assert!(!binary.contains("undefined") && binary.contains(".bin file"), "{binary}");
    s.screenshot("binary").await;
    s.finish().await;
}

/// A real 24×16 PNG, for the image preview.
const PNG_24X16: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x18\x00\x00\x00\x10\x08\x06\x00\x00\x00\x0c\x24\xbf\x95\x00\x00\x00\x1e\x49\x44\x41\x54\x78\x9c\x63\x38\x61\xa3\xf1\x9f\x96\x98\x61\xd4\x82\x51\x0b\x46\x2d\x18\xb5\x60\xd4\x82\xa1\x60\x01\x00\xb1\x25\x40\xae\xa0\xb2\xc4\x31\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

#[tokio::test(flavor = "current_thread")]
async fn the_viewer_previews_images_highlights_code_and_indents_metadata() {
    if !enabled("the_viewer_previews_images_highlights_code_and_indents_metadata") {
        return;
    }
    let s = Session::start("viewer").await;
    let front = "name: showcase\ndescription: Shows what the viewer does\nmetadata:\n  author: Ada\n  aibuddy:\n    \
                 dependencies: [pdf, notes]\n";
    let body = "# Showcase 🚀\n\n> Read this first: it matters.\n\n- [x] done\n- [ ] to do\n\n\
                ```python\ndef greet(name):\n    return \"hi \" + name  # say hi\n```\n";
    let src = s.skill_source("showcase", front, body);
    std::fs::create_dir_all(src.join("assets")).unwrap();
    std::fs::write(src.join("assets/logo.png"), PNG_24X16).unwrap();
    std::fs::write(src.join("assets/icon.svg"), "<svg xmlns='http://www.w3.org/2000/svg' width='20' height='20'><script>document.title='pwned'</script><circle cx='10' cy='10' r='8' fill='teal'/></svg>").unwrap();
    // A PDF whose bytes happen to be valid UTF-8 is still a PDF.
    std::fs::write(src.join("assets/manual.pdf"), "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n").unwrap();
    s.import_via_dialog(&src).await;
    s.click(".skill-item[data-key='user/showcase']").await;
    s.wait_text("#viewer .markdown", 10, |t| t.contains("Showcase")).await;

    // Nested metadata is an indented table, not JSON.
    let table = s.text_of("#viewer table.frontmatter").await;
    assert!(table.contains("author") && table.contains("Ada") && table.contains("pdf, notes"), "{table}");
    assert!(!table.contains('{') && !table.contains('"'), "no JSON in the table: {table}");
    let indent = "return getComputedStyle([...document.querySelectorAll('#viewer table.frontmatter th')].find((e) => e.textContent === 'dependencies')).paddingLeft;";
    let pad = s.client.execute(indent, vec![]).await.unwrap();
    assert_ne!(pad.as_str(), Some("0px"), "nested rows are indented: {pad}");
    // Blockquote, task list and highlighted code are styled.
    let styled = "const q = document.querySelector('#viewer blockquote'); const c = document.querySelector('#viewer .hl-comment'); \
                  const s = document.querySelector('#viewer .hl-string'); \
                  return [q && getComputedStyle(q).borderLeftStyle, document.querySelectorAll('#viewer li input[type=checkbox]').length, \
                  c && getComputedStyle(c).fontStyle, s && getComputedStyle(s).color !== getComputedStyle(document.querySelector('#viewer pre')).color];";
    let got = s.client.execute(styled, vec![]).await.unwrap();
    assert_eq!(got, serde_json::json!(["solid", 2, "italic", true]), "blockquote, task list, highlighting");
    s.screenshot("markdown").await;

    // Images are previewed; an SVG's script never runs.
    s.click("#file-tree .file[data-path='assets/logo.png']").await;
    s.wait_until(
        "the PNG decodes in the viewer",
        "const i = document.querySelector('#viewer .image-view img'); return !!i && i.complete && i.naturalWidth === 24;",
    )
    .await;
    s.screenshot("image").await;
    s.click("#file-tree .file[data-path='assets/icon.svg']").await;
    s.wait_until(
        "the SVG shows as an image",
        "const i = document.querySelector('#viewer .image-view img'); return !!i && i.complete && i.naturalWidth === 20;",
    )
    .await;
    let title = s.client.execute("return document.title;", vec![]).await.unwrap();
    assert_ne!(title.as_str(), Some("pwned"));
    s.click("#file-tree .file[data-path='assets/manual.pdf']").await;
    let pdf = s.wait_text("#viewer .binary", 10, |t| !t.is_empty()).await;
    assert!(pdf.contains("PDF document"), "{pdf}");

    // In Chinese, History's headers, events and dates are Chinese too; errors from the backend
    // are translated from their code and arguments.
    s.set_language("zh").await;
    s.click("#history-btn").await;
    let history = s.wait_text("#history", 10, |t| t.contains("v:1")).await;
    assert!(history.contains("经过") && history.contains("上传") && history.contains("年"), "{history}");
    assert!(!history.contains("upload"), "{history}");
    s.screenshot("history-chinese").await;
    s.click("#import-btn").await;
    s.type_into("#import-path", "/nowhere/at-all").await;
    s.click("#import-check").await;
    let error = s.wait_text("#import-error", 10, |t| !t.is_empty()).await;
    assert!(error.contains("不存在") && error.contains("/nowhere/at-all"), "{error}");
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_listing_preview_shows_a_ranked_store_and_sets_the_budget() {
    if !enabled("the_listing_preview_shows_a_ranked_store_and_sets_the_budget") {
        return;
    }
    let s = Session::start("listing").await;
    for i in 0..30 {
        let src = s.skill_source(
            &format!("tool-{i:02}"),
            &format!("name: tool-{i:02}\ndescription: Handle the {i:02}th kind of chore with care and a checklist\n"),
            "# Tool\n",
        );
        let out = skilldeck_e2e::cli(&s.home(), &["import", src.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out = skilldeck_e2e::cli(&s.home(), &["budget", "200"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Every import has reached the app: the sidebar's list holds 30 skills and the 4 bundled
    // (the last rows are further down than the page keeps rows for).
    s.wait_until(
        "the sidebar lists the 30 imported skills",
        "return document.querySelector('#sidebar [role=option]')?.getAttribute('aria-setsize') === '34';",
    )
    .await;
    s.click("#listing-btn").await;
    // The store is ranked into the budget: a few in full, others shortened or by name, and a
    // last line pointing to find_skills for the rest.
    let meter = s.wait_text("#listing-meter-text", 10, |t| !t.is_empty()).await;
    assert!(meter.contains("of 200 tokens") && !meter.contains("over the budget"), "{meter}");
    let shortened = s.text_of("#listing-shortened").await;
    assert!(!shortened.is_empty(), "the shortened skills are named");
    let text = s.text_of("#listing-text").await;
    assert!(text.contains("more skills are not listed here"), "{text}");
    let top = s.client.execute("return document.querySelector('#listing-text').scrollTop;", vec![]).await.unwrap();
    assert_eq!(top.as_f64(), Some(0.0), "the dialog opens at the top");
    s.screenshot("ranked").await;
    // A bigger budget previews at once and is saved to config.toml on request.
    s.type_into("#listing-budget", "20000").await;
    s.wait_text("#listing-meter-text", 10, |t| t.contains("of 20000 tokens") && !t.contains("over")).await;
    s.click("#listing-budget-save").await;
    s.wait_text("#toast", 10, |t| t.contains("20000 tokens")).await;
    let out = skilldeck_e2e::cli(&s.home(), &["budget"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("20000 tokens"), "{}", String::from_utf8_lossy(&out.stdout));
    s.screenshot("budget-saved").await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_small_window_overflows_nowhere_and_the_splitters_remember_their_widths() {
    if !enabled("a_small_window_overflows_nowhere_and_the_splitters_remember_their_widths") {
        return;
    }
    let s = Session::start("small").await;
    let wide_row: String = (0..14).map(|i| format!("| column number {i} ")).collect::<String>() + "|";
    let rule: String = (0..14).map(|_| "|---").collect::<String>() + "|";
    let body = format!("# Wide\n\n{wide_row}\n{rule}\n{wide_row}\n\n`{}`\n", "x".repeat(300));
    let src = s.skill_source(
        "wide-tables",
        &format!("name: wide-tables\ndescription: {}\n", "A very long description ".repeat(20)),
        &body,
    );
    s.import_via_dialog(&src).await;
    s.client.set_window_size(800, 500).await.unwrap();
    s.click(".skill-item[data-key='user/wide-tables']").await;
    s.wait_text("#viewer .markdown", 10, |t| t.contains("column number 13")).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let overflow = "const out = []; \
        if (document.documentElement.scrollWidth > window.innerWidth + 1) out.push('page ' + document.documentElement.scrollWidth + ' > ' + window.innerWidth); \
        for (const id of ['sidebar', 'files', 'viewer']) { const e = document.getElementById(id); \
          if (e.scrollWidth > e.clientWidth + 1) out.push(id + ' ' + e.scrollWidth + ' > ' + e.clientWidth); } \
        const head = document.querySelector('.topbar'); \
        for (const c of head.querySelectorAll('button, input, select')) { const r = c.getBoundingClientRect(); \
          if (r.right > window.innerWidth + 1) out.push('header control ' + (c.id || c.textContent) + ' ends at ' + r.right); } \
        return out;";
    let found = s.client.execute(overflow, vec![]).await.unwrap();
    assert_eq!(found, serde_json::json!([]), "nothing overflows at 800x500");
    s.screenshot("800x500").await;
    // The splitter moves with the keyboard (as with the pointer) and the width is remembered.
    // (WebKit keeps local storage across launches: start from the default widths.)
    s.client.execute("localStorage.removeItem('skilldeck.widths'); location.reload();", vec![]).await.unwrap();
    s.wait_for("#sidebar .skill-item").await;
    let width = "return document.querySelector('#sidebar').getBoundingClientRect().width;";
    // Right after a reload the sidebar may not be laid out yet (width 0): wait until it is.
    let mut before = 0.0;
    for _ in 0..50 {
        before = s.client.execute(width, vec![]).await.unwrap().as_f64().unwrap();
        if before > 0.0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    s.client.execute("document.querySelector('#split-sidebar').focus();", vec![]).await.unwrap();
    for _ in 0..2 {
        s.client
            .execute(
                "document.querySelector('#split-sidebar').dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowLeft', bubbles: true}));",
                vec![],
            )
            .await
            .unwrap();
    }
    let after = s.client.execute(width, vec![]).await.unwrap().as_f64().unwrap();
    assert!(after < before - 20.0, "the sidebar narrowed: {before} -> {after}");
    let saved = s.client.execute("return JSON.parse(localStorage.getItem('skilldeck.widths')).sidebar;", vec![]).await;
    assert_eq!(saved.unwrap().as_f64().map(f64::round), Some(after.round()));
    s.client.execute("localStorage.removeItem('skilldeck.widths');", vec![]).await.unwrap();
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn an_edit_on_disk_shows_in_the_open_viewer() {
    if !enabled("an_edit_on_disk_shows_in_the_open_viewer") {
        return;
    }
    let s = Session::start("live-edit").await;
    let src = s.skill_source("notes", "name: notes\ndescription: Keep notes\n", "# Notes\n\nFirst text.");
    s.import_via_dialog(&src).await;
    s.click(".skill-item[data-key='user/notes']").await;
    s.wait_text("#viewer .markdown", 10, |t| t.contains("First text.")).await;
    let stored = s.home().join("skills/user/notes/SKILL.md");
    let filler: String = (1..=80).map(|i| format!("Line {i} of the notes.\n\n")).collect();
    let edited = format!("---\nname: notes\ndescription: Keep notes\n---\n# Notes\n\nEdited on disk.\n\n{filler}");
    std::fs::write(&stored, edited).unwrap();
    s.wait_text("#viewer .markdown", 10, |t| t.contains("Edited on disk.")).await;
    // The edit became a new revision, once, and the selection stayed.
    s.wait_text(".skill-item[data-key='user/notes'] .badge", 10, |t| t == "v:2").await;
    let selected =
        s.client.execute("return document.querySelector('.skill-item.selected')?.dataset.key", vec![]).await.unwrap();
    assert_eq!(selected, serde_json::json!("user/notes"));
    // A skill folder added on disk appears too, and the open file is not redrawn for it: the
    // reader keeps their place.
    let mark = "const v = document.querySelector('#viewer'); v.scrollTop = 600; \
                document.querySelector('#viewer .markdown').dataset.probe = 'kept'; return v.scrollTop;";
    let place = s.client.execute(mark, vec![]).await.unwrap().as_f64().unwrap();
    assert!(place > 0.0, "the notes scroll: {place}");
    let added = s.home().join("skills/user/added-by-hand");
    std::fs::create_dir_all(&added).unwrap();
    std::fs::write(added.join("SKILL.md"), "---\nname: added-by-hand\ndescription: Copied in\n---\nbody\n").unwrap();
    badge(&s, "user/added-by-hand").await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let kept = "return [document.querySelector('#viewer .markdown')?.dataset.probe ?? null, \
                document.querySelector('#viewer').scrollTop];";
    let kept = s.client.execute(kept, vec![]).await.unwrap();
    assert_eq!((kept[0].as_str(), kept[1].as_f64()), (Some("kept"), Some(place)), "{kept}");
    // An import through the CLI while the app runs shows up too.
    let cli_src = s.skill_source("from-cli", "name: from-cli\ndescription: Imported in a terminal\n", "# CLI\n");
    let out = skilldeck_e2e::cli(&s.home(), &["import", cli_src.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(badge(&s, "user/from-cli").await, "v:1");
    // A second revision of the open skill imported in a terminal (the store exchanges folders):
    // header, sidebar and viewer all move to it.
    let again = s.skill_source("notes", "name: notes\ndescription: Keep notes\n", "# Notes\n\nImported again.");
    let out = skilldeck_e2e::cli(&s.home(), &["import", again.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    s.wait_text("#viewer .markdown", 10, |t| t.contains("Imported again.")).await;
    s.wait_text("#files .skill-head .badge", 10, |t| t == "v:3").await;
    s.wait_text(".skill-item[data-key='user/notes'] .badge", 10, |t| t == "v:3").await;
    // An open History stays open and gains the next revision imported in a terminal.
    s.click("#history-btn").await;
    s.wait_text("#history", 10, |t| t.contains("v:3") && !t.contains("v:4")).await;
    let third = s.skill_source("notes", "name: notes\ndescription: Keep notes\n", "# Notes\n\nThird import.");
    let out = skilldeck_e2e::cli(&s.home(), &["import", third.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    s.wait_text("#history", 10, |t| t.contains("v:4")).await;
    s.wait_text("#files .skill-head .badge", 10, |t| t == "v:4").await;
    // The same files again are no new revision; changed ones are.
    let cli_src =
        s.skill_source("from-cli", "name: from-cli\ndescription: Imported in a terminal\n", "# CLI\n\nAgain.");
    let out = skilldeck_e2e::cli(&s.home(), &["import", cli_src.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    s.wait_text(".skill-item[data-key='user/from-cli'] .badge", 10, |t| t == "v:2").await;
    // Switched off in a terminal: config.toml changes, and the sidebar marks the skill.
    let out = skilldeck_e2e::cli(&s.home(), &["disable", "from-cli"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    s.wait_text(".skill-item[data-key='user/from-cli'] .marker.off", 10, |t| t == "off").await;
    s.screenshot("after-edit").await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn an_invalid_skill_shows_its_diagnostics() {
    if !enabled("an_invalid_skill_shows_its_diagnostics") {
        return;
    }
    let s = Session::start("invalid").await;
    let src = s.skill_source("broken", "name: broken\nmin_tier: mega\n", "# Broken\n");
    s.import_via_dialog(&src).await;
    let marker = s.wait_text(".skill-item[data-key='user/broken'] .marker.error", 10, |t| !t.is_empty()).await;
    assert!(marker.contains("2 errors"), "{marker}");
    s.click(".skill-item[data-key='user/broken']").await;
    let diags = s.wait_text("#diagnostics", 10, |t| t.contains("description_missing")).await;
    assert!(diags.contains("min_tier_invalid") && diags.contains("line 3"), "{diags}");
    assert!(diags.contains("Fix:"), "each problem carries a fix: {diags}");
    // An invalid skill is never offered to agents: the switch is off, disabled, and says why.
    s.wait_for("#enabled-switch[disabled][aria-checked='false']").await;
    assert!(s.text_of("#switch-why").await.contains("never offered to agents"));
    assert!(!s.text_of("#files").await.contains("null"), "no stray text in the skill view");
    // A description's Markdown reads as text in the sidebar.
    let fancy = s.skill_source(
        "fancy",
        "name: fancy\ndescription: \"**Bold** move with `code` and [a link](https://x.invalid)\"\n",
        "# F\n",
    );
    s.import_via_dialog(&fancy).await;
    let desc = s.wait_text(".skill-item[data-key='user/fancy'] .skill-desc", 10, |t| !t.is_empty()).await;
    assert_eq!(desc, "Bold move with code and a link");
    s.screenshot("diagnostics").await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_search_filters_as_you_type() {
    if !enabled("the_search_filters_as_you_type") {
        return;
    }
    let s = Session::start("search").await;
    // The rows shown (rows the search leaves out are not in the page at all).
    let shown = "return [...document.querySelectorAll('#sidebar .skill-item:not([hidden]) .skill-name')].map((e) => e.textContent).join(' ');";
    let wait_shown = |want: &'static str| {
        let s = &s;
        async move {
            for _ in 0..50 {
                let names = s.client.execute(shown, vec![]).await.unwrap();
                if names == serde_json::json!(want) {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            let names = s.client.execute(shown, vec![]).await.unwrap();
            panic!("the sidebar shows {names}, not {want:?}");
        }
    };
    s.type_into("#search", "commit").await;
    // "commit" is in commit-messages' name and in change-review's description, nowhere else:
    // the name's match comes first.
    wait_shown("commit-messages change-review").await;
    s.type_into("#search", "commit-m").await;
    wait_shown("commit-messages").await;
    // Descriptions match too.
    s.type_into("#search", "durable working notes").await;
    wait_shown("workspace-notes").await;
    assert_eq!(s.text_of("#search-count").await, "1 of 4", "the search says how many match");
    // Nothing holds the words: the sidebar says so, and offers what is close in meaning instead,
    // under its own heading.
    s.type_into("#search", "zzz-nothing").await;
    s.wait_text("#search-count", 10, |t| t == "0 of 4").await;
    assert!(
        s.client
            .execute("return !document.querySelector('#sidebar .empty').hidden;", vec![])
            .await
            .unwrap()
            .as_bool()
            .unwrap()
    );
    s.screenshot("search").await;
    // Filter chips narrow the list without a query: a broken skill of one's own, then the
    // bundled ones; chips of one kind widen each other.
    let broken = s.skill_source("broken-one", "name: broken-one\n", "# Broken\n");
    let out = skilldeck_e2e::cli(&s.home(), &["import", broken.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let clear = "const e = document.querySelector('#search'); e.value = ''; e.dispatchEvent(new Event('input'));";
    s.client.execute(clear, vec![]).await.unwrap();
    s.wait_for(".skill-item[data-key='user/broken-one']").await;
    // No team store here: no Team chip to press.
    let chips =
        "return [...document.querySelectorAll('#sidebar-filters [data-filter]')].map(c => c.dataset.filter).join(' ');";
    assert_eq!(s.client.execute(chips, vec![]).await.unwrap(), "invalid warnings off held user system");
    s.click("#sidebar-filters [data-filter='invalid']").await;
    wait_shown("broken-one").await;
    assert_eq!(s.text_of("#search-count").await, "1 of 5");
    s.click("#sidebar-filters [data-filter='invalid']").await;
    s.click("#sidebar-filters [data-filter='system']").await;
    wait_shown("change-review commit-messages skill-authoring workspace-notes").await;
    s.click("#sidebar-filters [data-filter='user']").await;
    wait_shown("broken-one change-review commit-messages skill-authoring workspace-notes").await;
    s.type_into("#search", "broken").await;
    wait_shown("broken-one").await;
    s.screenshot("filters").await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn delete_asks_first_and_history_brings_it_back() {
    if !enabled("delete_asks_first_and_history_brings_it_back") {
        return;
    }
    let s = Session::start("delete-restore").await;
    let src = s.skill_source("drafts", "name: drafts\ndescription: Draft things\n", "# Drafts\n");
    s.import_via_dialog(&src).await;
    s.click(".skill-item[data-key='user/drafts']").await;
    s.click("#delete-btn").await;
    let question = s.wait_text("#confirm-text", 5, |t| !t.is_empty()).await;
    assert!(question.contains("drafts"), "{question}");
    assert_eq!(s.text_of("#confirm-yes").await, "Delete");
    s.click("#confirm-yes").await;
    s.wait_text("#sidebar", 10, |t| t.contains("Deleted")).await;
    assert!(!s.home().join("skills/user/drafts").exists());
    s.click(".skill-item[data-deleted='user/drafts']").await;
    let history = s.wait_text("#history", 10, |t| t.contains("v:1")).await;
    assert!(history.contains("sha256:"), "revisions show their digests: {history}");
    assert!(history.contains("Revision") && history.contains("What happened"), "the table has headers: {history}");
    assert!(history.contains("uploaded"), "events in words: {history}");
    s.screenshot("history").await;
    // A kept revision opens read-only, with its files, and restores from there.
    s.click("#history tr[data-revision='1'] .view-revision").await;
    let banner = s.wait_text("#revision-banner", 10, |t| t.contains("read-only")).await;
    assert!(banner.contains("v:1"), "{banner}");
    s.wait_text("#viewer .markdown", 10, |t| t.contains("Drafts")).await;
    s.screenshot("revision-view").await;
    s.click("#revision-banner button.restore").await;
    s.wait_text(".skill-item[data-key='user/drafts'] .badge", 10, |t| t == "v:2").await;
    s.screenshot("restored").await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_agent_panel_answers_offline_with_a_skill_chip_and_reopens_the_session() {
    if !enabled("the_agent_panel_answers_offline_with_a_skill_chip_and_reopens_the_session") {
        return;
    }
    let s = Session::start("agent").await;
    let ws = open_agent(&s).await;
    let provider: String = s
        .client
        .execute("return document.querySelector('#agent-provider').value;", vec![])
        .await
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(provider, "offline", "the offline provider is preselected");
    let label = s.text_of("#agent-provider option[value='offline']").await;
    assert!(label.contains("no language model"), "offline is labelled as such: {label}");
    // A workspace that does not exist: a clear error, and the request stays in the box.
    s.type_into("#agent-workspace", "/no/such/folder").await;
    s.type_into("#agent-prompt", "Help me write a good commit message").await;
    s.click("#agent-send").await;
    let toast = s.wait_text("#toast", 10, |t| !t.is_empty()).await;
    assert!(toast.contains("/no/such/folder"), "{toast}");
    let kept = s.client.execute("return document.querySelector('#agent-prompt').value;", vec![]).await.unwrap();
    assert_eq!(kept, "Help me write a good commit message", "nothing typed is lost");
    assert_eq!(s.text_of("#chat-log .msg").await, "", "nothing was sent");
    s.screenshot("bad-workspace").await;
    s.type_into("#agent-workspace", &ws.display().to_string()).await;
    s.click("#agent-send").await;

    // The chip shows the client view with the skill's name and version; the answer streams in.
    let chip = s.wait_text("#chat-log .chip.ok", 15, |t| t.contains("commit-messages")).await;
    assert!(chip.contains("Skill activated.") && chip.contains("v:1"), "{chip}");
    assert!(!chip.contains("null") && !chip.contains("undefined"), "{chip}");
    let answer = s.wait_text("#chat-log .msg.assistant", 15, |t| t.contains("commit-messages")).await;
    assert!(answer.starts_with("[offline router: no language model]"), "{answer}");
    assert!(!chip.contains("# "), "the chip never shows the skill's text: {chip}");
    s.wait_for("body[data-agent-running='false']").await;
    assert!(ws.join(".skills/commit-messages/SKILL.md").is_file(), "the skill was mounted into the workspace");
    let session = s.text_of("#agent-session-info").await;
    assert!(session.contains("offline (no language model)"), "{session}");
    s.wait_for("#chat-log .msg.assistant .bubble.markdown").await;
    show(&s, "#chat-log .chip.ok").await;
    s.screenshot("offline-answer").await;

    // The session is listed; a new session clears the log; reopening shows the same chip again.
    let listed = s.wait_text("#agent-sessions-list .session-item", 10, |t| t.contains("commit message")).await;
    assert!(listed.contains("1 turn"), "{listed}");
    s.click("#agent-new").await;
    s.wait_text("#chat-log", 5, |t| !t.contains("Skill activated.")).await;
    s.click("#agent-sessions-list .session-item").await;
    let chip = s.wait_text("#chat-log .chip.ok", 10, |t| t.contains("commit-messages")).await;
    assert!(chip.contains("Skill activated.") && chip.contains("v:1"), "{chip}");
    s.wait_text("#chat-log .msg.user", 5, |t| t == "Help me write a good commit message").await;
    show(&s, "#chat-log .chip.ok").await;
    s.screenshot("reopened").await;
    // The chip opens the skill it names in the Skills tab.
    s.click("#chat-log .chip.ok[role='button']").await;
    s.wait_for("body[data-view='skills']").await;
    s.wait_for(".skill-item.selected[data-key='system/commit-messages']").await;
    s.wait_text("#viewer .file-title", 10, |t| t == "SKILL.md").await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn shell_commands_ask_in_a_dialog_and_the_stop_button_ends_a_turn() {
    if !enabled("shell_commands_ask_in_a_dialog_and_the_stop_button_ends_a_turn") {
        return;
    }
    let (server, s, ws) = agent_on_loopback("agent-shell").await;

    // The model asks for a command: a dialog shows it; Run runs it in the workspace.
    server.push(Reply::sse(openai_tools(&[(
        "call_1",
        "shell",
        json!({"command": "echo hi > approved.txt && echo wrote"}),
    )])));
    server.push(Reply::sse(openai_text("Wrote approved.txt.")));
    s.type_into("#agent-prompt", "write a file").await;
    s.click("#agent-send").await;
    let asked = s.wait_text("#approve-command", 15, |t| !t.is_empty()).await;
    assert_eq!(asked, "echo hi > approved.txt && echo wrote");
    s.wait_for("#approve-dialog[open]").await;
    assert_eq!(s.text_of("label:has(#agent-network)").await, "Network for commands");
    let sandbox = s.text_of("#approve-sandbox").await;
    assert!(sandbox.contains("sandbox"), "the dialog says whether it runs sandboxed: {sandbox}");
    s.wait_for("#approve-session").await;
    s.screenshot("approval").await;
    s.click("#approve-run").await;
    let chip = s.wait_text("#chat-log .chip.ok", 15, |t| t.contains("Ran")).await;
    assert_eq!(
        chip.trim_start_matches('✓').trim_end_matches('▸'),
        "Ran `echo hi > approved.txt && echo wrote`: exit 0"
    );
    s.click("#chat-log .chip.ok[role='button']").await;
    let detail = s.wait_text("#chat-log .chip-detail", 5, |t| !t.is_empty()).await;
    assert_eq!(detail, "$ echo hi > approved.txt && echo wrote\nwrote", "the command's output opens under its chip");
    s.wait_text("#chat-log .msg.assistant", 15, |t| t.contains("Wrote approved.txt.")).await;
    assert_eq!(std::fs::read_to_string(ws.join("approved.txt")).unwrap(), "hi\n");
    s.wait_for("body[data-agent-running='false']").await;

    // A model that stalls: Stop ends the turn at once and says so; the session goes on.
    server.push(Reply::Sse { events: vec![], stall: true });
    s.type_into("#agent-prompt", "take your time").await;
    s.click("#agent-send").await;
    s.wait_for("body[data-agent-running='true']").await;
    s.click("#agent-stop").await;
    s.wait_text("#chat-log .chat-note", 10, |t| t == "Stopped.").await;
    s.wait_for("body[data-agent-running='false']").await;
    server.push(Reply::sse(openai_text("Still here.")));
    s.type_into("#agent-prompt", "hello again").await;
    s.click("#agent-send").await;
    let last_is = "const m = document.querySelectorAll('#chat-log .msg.assistant'); \
                   return m[m.length - 1].textContent.trim() === 'Still here.';";
    s.wait_until("the session goes on after the stop", last_is).await;
    s.screenshot("after-stop").await;
    assert_eq!(server.requests().len(), 4);
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_disguised_command_and_a_write_that_runs_code_later_ask_with_what_they_really_are() {
    if !enabled("a_disguised_command_and_a_write_that_runs_code_later_ask_with_what_they_really_are") {
        return;
    }
    let (server, s, ws) = agent_on_loopback("agent-hostile").await;

    // A command whose escapes would redraw its own question shows them as text.
    let hostile = "echo PWNED > hidden.txt #\u{1b}[2K\r\u{202E}Run `ls -la`";
    server.push(Reply::sse(openai_tools(&[("call_1", "shell", json!({"command": hostile}))])));
    // Then a git hook: writing it asks, with the path and why.
    let hook = json!({"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ncp ~/.ssh/id_rsa /tmp/x\n"});
    server.push(Reply::sse(openai_tools(&[("call_2", "write_file", hook)])));
    server.push(Reply::sse(openai_text("Nothing done.")));
    s.type_into("#agent-prompt", "tidy up").await;
    s.click("#agent-send").await;
    let asked = s.wait_text("#approve-command", 15, |t| !t.is_empty()).await;
    assert_eq!(asked, "echo PWNED > hidden.txt #\\e[2K\\r\\u{202E}Run `ls -la`");
    s.wait_for("#approve-dialog[open]").await;
    s.screenshot("disguised-command").await;
    s.click("#approve-deny").await;

    let path = s.wait_text("#approve-command", 15, |t| t == ".git/hooks/pre-commit").await;
    assert_eq!(path, ".git/hooks/pre-commit");
    s.wait_for("#approve-dialog[open]").await;
    assert_eq!(s.text_of("#approve-title").await, "Write this file?");
    let why = s.text_of("#approve-sandbox").await;
    assert!(why.contains("outside the sandbox") && why.contains("hooks"), "{why}");
    s.screenshot("write-approval").await;
    s.click("#approve-deny").await;
    s.wait_text("#chat-log .msg.assistant", 15, |t| t.contains("Nothing done.")).await;
    assert!(!ws.join("hidden.txt").exists(), "a denied command never ran");
    assert!(!ws.join(".git/hooks/pre-commit").exists(), "a denied write wrote nothing");
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_yaml_problem_is_shown_at_its_line_in_the_source() {
    if !enabled("a_yaml_problem_is_shown_at_its_line_in_the_source") {
        return;
    }
    let s = Session::start("source").await;
    // The webview's storage (and so the language) is shared by every session on this machine.
    s.set_language("en").await;
    let src = s.skill_source(
        "bold",
        "name: bold\ndescription: \"bold claims\n  about PDFs\nlicense: MIT\n",
        "# Bold\n\nMarkup stays text: <b>not bold</b>\n",
    );
    s.import_via_dialog(&src).await;
    s.click(".skill-item[data-key='user/bold']").await;
    // An invalid skill opens on SKILL.md as stored: the line where the quote opens is marked,
    // our words under it.
    let line = s.wait_text("#source .src-line.error[data-line='3']", 10, |t| !t.is_empty()).await;
    assert_eq!(line, "3description: \"bold claims");
    let note = s.text_of("#source .src-note.error[data-line='3']").await;
    assert_eq!(
        note.to_lowercase(),
        "errorthe \" that opens the value of description is never closed; add the closing \" at the end of the value"
    );
    let spans: serde_json::Value = s
        .client
        .execute("return [...document.querySelectorAll('#source .src-note code')].map((c) => c.textContent);", vec![])
        .await
        .unwrap();
    assert_eq!(spans, json!(["description"]), "`code` in a message shows as code");
    let source = s.text_of("#source").await;
    assert!(source.contains("1---") && source.contains("<b>not bold</b>"), "raw text, escaped: {source}");
    let tags: serde_json::Value =
        s.client.execute("return document.querySelectorAll('#source b').length;", vec![]).await.unwrap();
    assert_eq!(tags, json!(0), "no markup from the file is ever parsed");
    assert!(
        s.text_of("#open-editor-btn").await == "Open in editor" && s.text_of("#reveal-btn").await == "Reveal in folder"
    );
    s.screenshot("yaml-error").await;
    // From the rendered view, clicking the problem brings the source back at its line.
    s.click("#view-rendered").await;
    s.wait_until("the rendered view shows", "return !document.querySelector('#source');").await;
    s.click("#diagnostics li[data-line='3']").await;
    s.wait_for("#source #src-line-3.picked").await;

    // Errors first; warnings folded under a count while there are errors.
    let mixed = s.skill_source("mixed", "name: mixed\ndescription: Mixed bag\nmin_tier: mega\nauthor: me\n", "# M\n");
    s.import_via_dialog(&mixed).await;
    s.click(".skill-item[data-key='user/mixed']").await;
    let errors = s.wait_text("#diagnostics", 10, |t| t.contains("min_tier_invalid")).await;
    assert!(!errors.contains("field_unknown"), "{errors}");
    assert_eq!(s.text_of("#warnings > summary").await, "1 warning");
    s.wait_for("details#warnings:not([open])").await;
    s.click("#warnings > summary").await;
    // The watcher's update of the import may redraw the pane, folded again, after that click
    // (seen once: the warning was never clickable); open it again until it stays open.
    let open = "const d = document.querySelector('details#warnings'); if (d && !d.open) d.open = true; \
                const li = document.querySelector(\"#warnings-list li[data-line='5']\"); \
                return !!li && li.getClientRects().length > 0;";
    s.wait_until("the warnings unfold", open).await;
    s.click("#warnings-list li[data-line='5']").await;
    s.wait_for("#source #src-line-5.picked.warning").await;
    let note = s.text_of("#source .src-note.warning[data-line='5']").await;
    assert_eq!(note, "warningauthor is not a known field; it is kept but ignored (move it under metadata:)");
    s.screenshot("warning-picked").await;
    // In Chinese, the view's own words follow; the picked line and the open warnings stay.
    s.set_language("zh").await;
    s.wait_text("#view-source", 5, |t| t == "源文件").await;
    assert_eq!(s.text_of("#warnings > summary").await, "1 个警告");
    assert_eq!(s.text_of("#open-editor-btn").await, "在编辑器中打开");
    s.wait_for("details#warnings[open]").await;
    s.wait_for("#source #src-line-5.picked").await;
    // The problem itself and its fix are Chinese too, built from its code and args.
    let note = s.wait_text("#source .src-note.warning[data-line='5']", 5, |t| t.contains("不是规范中的字段")).await;
    assert!(note.contains("author"), "{note}");
    let fix = s.text_of("#warnings-list li[data-line='5'] .fix").await;
    assert!(fix.contains("metadata") && fix.contains("移到"), "{fix}");
    s.screenshot("chinese").await;
    // Put English back, so the next session starts where the other tests expect.
    s.set_language("en").await;
    s.wait_text("#view-source", 5, |t| t == "Source").await;
    s.finish().await;
}
