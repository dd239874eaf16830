//! The Agents view's budget in the real window: what Claude Code's own listing shows of the
//! skills in its folder (a meter, each skill's worst case, what to switch off), a skill switched
//! off in Claude Code's own settings from the view; and a skill marked
//! `disable-model-invocation: true` shown as "user-invoked only".
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_e2e::{Session, cli, enabled};

fn skill(dir: &std::path::Path, name: &str, extra: &str, description: &str) {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("SKILL.md"), format!("---\nname: {name}\ndescription: {description}\n{extra}---\nBody.\n"))
        .unwrap();
}

/// Sets Claude Code's own setting for `skill` from its switch in the budget details.
async fn choose(s: &Session, skill: &str, to: &str) {
    let css = format!("select[data-agent-skill='{skill}']");
    s.wait_for(&css).await;
    let script = format!(
        "const e = document.querySelector(\"{css}\"); e.value = '{to}'; e.dispatchEvent(new Event('change')); return true;"
    );
    s.client.execute(&script, vec![]).await.unwrap();
}

/// Waits up to 10 s for `file` to hold what `ok` wants; returns its text.
async fn written(file: &std::path::Path, ok: impl Fn(&str) -> bool) -> String {
    let since = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        if ok(&text) {
            return text;
        }
        assert!(
            since.elapsed() < std::time::Duration::from_secs(10),
            "{} never changed as wanted:\n{text}",
            file.display()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The value Claude Code's own setting for `skill` shows.
async fn setting_shown(s: &Session, skill: &str) -> String {
    let script = format!("return document.querySelector(\"select[data-agent-skill='{skill}']\").value;");
    s.client.execute(&script, vec![]).await.unwrap().as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "current_thread")]
async fn the_agents_view_shows_claude_codes_listing_budget_and_switches_a_skill_off_there() {
    if !enabled("the_agents_view_shows_claude_codes_listing_budget_and_switches_a_skill_off_there") {
        return;
    }
    let mut claude_dir = None;
    let s = Session::start_with("agent-budget", |home| {
        let claude = skilldeck_e2e::user_home_of(home).join(".claude");
        let skills = claude.join("skills");
        skill(&skills, "alpha", "", &"a".repeat(40));
        skill(&skills, "bravo", "", &"b".repeat(40));
        skill(&skills, "charlie", "", &"c".repeat(300));
        skill(&skills, "manual", "disable-model-invocation: true\n", "Run only when asked.");
        std::fs::write(claude.join("settings.json"), "{\n  \"model\": \"opus\"\n}\n").unwrap();
        // A 2,250-token window: 90 characters of listing, far too few.
        std::fs::create_dir_all(home).unwrap();
        std::fs::write(home.join("config.toml"), "[targets.claude-code]\ncontext_window = 2250\n").unwrap();
        claude_dir = Some(claude);
    })
    .await;
    let claude = claude_dir.unwrap();

    s.click("#tab-agents").await;
    s.open_agent_card("claude-code").await;
    // Over budget: the card says so on its next-step line, and the budget details are open.
    let next = s.wait_text(".tool-card[data-tool='claude-code'] .next-step", 10, |t| !t.is_empty()).await;
    // The same range as the budget's own advice (`targets --budget`): one set of numbers.
    assert!(next.starts_with("Between 2 and 3 skills would reach Claude Code as names only"), "{next}");
    assert!(next.ends_with(": sync to fit its budget, or use MCP"), "{next}");
    s.wait_until("the budget details are open", "return document.querySelector('#agents-budget').open;").await;
    // Entries: alpha and bravo 8 + 42, charlie 10 + 302; manual is not listed at all.
    let meter = s.wait_text("#agents-budget-text", 10, |t| t.contains("412")).await;
    assert!(meter.starts_with("412 of 90 characters"), "{meter}");
    let advice = s.text_of("#agents-budget-advice").await;
    assert!(advice.contains("Switch off charlie, alpha"), "{advice}");
    assert!(advice.contains("worst case"), "{advice}");
    s.wait_for("tr[data-budget-skill='manual'][data-shown='hidden']").await;
    s.wait_for("tr[data-budget-skill='charlie'][data-shown='name-only']").await;
    s.screenshot("over-budget").await;

    // Off in Claude Code's own settings, from the view: its entry leaves the listing.
    choose(&s, "charlie", "off").await;
    s.wait_text("#agents-budget-text", 10, |t| t.starts_with("100 of 90")).await;
    let settings = std::fs::read_to_string(claude.join("settings.json")).unwrap();
    assert!(settings.starts_with("{\n  \"model\": \"opus\",\n  \"skillOverrides\": {"), "{settings}");
    assert!(settings.contains("\"charlie\": \"off\""), "{settings}");
    assert!(claude.join("skills/charlie/SKILL.md").is_file(), "its files stay");
    s.wait_for("tr[data-budget-skill='charlie'][data-shown='hidden']").await;
    s.screenshot("switched-off").await;

    assert_eq!(setting_shown(&s, "charlie").await, "off");

    // And back on: the entry is taken out again.
    choose(&s, "charlie", "on").await;
    s.wait_text("#agents-budget-text", 10, |t| t.starts_with("412 of 90")).await;
    let settings = std::fs::read_to_string(claude.join("settings.json")).unwrap();
    assert!(!settings.contains("charlie"), "{settings}");

    // Names only, Claude Code's third setting: written, and shown as the switch's value.
    choose(&s, "alpha", "name-only").await;
    let settings = written(&claude.join("settings.json"), |t| t.contains("\"alpha\": \"name-only\"")).await;
    assert!(settings.contains("\"skillOverrides\": {"), "{settings}");
    // Read back from the file when the view is drawn again: the switch says names only.
    s.wait_text("#toast", 10, |t| t.contains("alpha by its name only")).await;
    let mark = "document.querySelector(\"select[data-agent-skill='alpha']\").dataset.stale = '1';";
    s.client.execute(mark, vec![]).await.unwrap();
    s.click("#agents-refresh").await;
    s.wait_for("select[data-agent-skill='alpha']:not([data-stale])").await;
    assert_eq!(setting_shown(&s, "alpha").await, "name-only");
    s.screenshot("name-only").await;
    choose(&s, "alpha", "on").await;
    written(&claude.join("settings.json"), |t| !t.contains("alpha")).await;

    // The same in Chinese.
    s.set_language("zh").await;
    let title = s.wait_text("#agents-budget h3", 10, |t| t.contains("技能列表")).await;
    assert_eq!(title, "Claude Code 自己的技能列表会显示什么");
    let meter = s.text_of("#agents-budget-text").await;
    assert!(meter.starts_with("描述全部完整时需要 412 / 90 字符"), "{meter}");
    s.screenshot("zh").await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_skill_with_disable_model_invocation_is_marked_user_invoked_only() {
    if !enabled("a_skill_with_disable_model_invocation_is_marked_user_invoked_only") {
        return;
    }
    let s = Session::start("user-invoked").await;
    let src = s.skill_source(
        "manual-deploy",
        "name: manual-deploy\ndescription: Deploy when I say so.\ndisable-model-invocation: true\n",
        "Deploy.",
    );
    let out = cli(&s.home(), &["import", &src.display().to_string()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mark = s.wait_text(".skill-item[data-key='user/manual-deploy']", 10, |t| !t.is_empty()).await;
    assert!(mark.contains("user-invoked only"), "the sidebar marks it: {mark}");
    s.click(".skill-item[data-key='user/manual-deploy']").await;
    s.settle().await;
    let why = s.wait_text("#switch-why", 10, |t| !t.is_empty()).await;
    assert!(why.starts_with("user-invoked only:"), "{why}");
    assert!(why.contains("disable-model-invocation: true"), "{why}");
    s.screenshot("marked").await;
    s.finish().await;
}
