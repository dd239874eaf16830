//! Updates in the real window: two skills added from a Git repository on loopback with the CLI,
//! both changed upstream before the app starts and one of them edited here too; the app's check
//! at start shows "Updates 2", the dialog lists each from the old commit to the new one (the
//! edited one warned about) with its diff; Update makes the next revision (the sidebar shows
//! it), the edited one asks first and Update all then takes it, and the indicator goes away.
//! Offline, the top bar says quietly that it could not check. The repository and server are the
//! system `git`'s (`skilldeck_e2e::git_http`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_e2e::git_http::{git, serve_git};
use skilldeck_e2e::{Session, cli, enabled};
use std::path::Path;

fn write_skill(work: &Path, name: &str, line: &str) {
    let dir = work.join("skills").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let text = format!("---\nname: {name}\ndescription: The {name} skill.\n---\n\n# {name}\n\n{line}\n");
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

/// Commits what `work` holds and pushes it to `root/repo.git`; the commit.
fn publish(root: &Path, message: &str) -> String {
    let work = root.join("work");
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", message]);
    git(&work, &["push", "-q", root.join("repo.git").to_str().unwrap(), "main"]);
    git(&work, &["rev-parse", "HEAD"]).trim().to_owned()
}

#[tokio::test(flavor = "current_thread")]
async fn an_upstream_change_shows_as_an_update_with_its_diff_and_update_takes_it() {
    if !enabled("an_upstream_change_shows_as_an_update_with_its_diff_and_update_takes_it") {
        return;
    }
    let fixture = tempfile::tempdir().unwrap();
    let root = fixture.path();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    git(root, &["init", "-q", "--bare", "-b", "main", "repo.git"]);
    git(&work, &["init", "-q", "-b", "main"]);
    write_skill(&work, "alpha", "First.");
    write_skill(&work, "beta", "First.");
    let first = publish(root, "two skills");
    let port = serve_git(root.to_path_buf());
    let url = format!("http://127.0.0.1:{port}/repo.git");

    let mut second = String::new();
    let s = Session::start_with("updates", |home| {
        let out = cli(home, &["add", &url, "--all"]);
        assert!(out.status.success(), "add: {}", String::from_utf8_lossy(&out.stderr));
        write_skill(&work, "alpha", "Second, better.");
        write_skill(&work, "beta", "Upstream.");
        second = publish(root, "alpha: better; beta upstream");
        let mine = root.join("mine/beta");
        std::fs::create_dir_all(&mine).unwrap();
        std::fs::write(mine.join("SKILL.md"), "---\nname: beta\ndescription: The beta skill.\n---\n\nMine.\n").unwrap();
        let out = cli(home, &["import", mine.to_str().unwrap()]);
        assert!(out.status.success(), "import: {}", String::from_utf8_lossy(&out.stderr));
    })
    .await;

    // The check at start: both, the one edited here marked.
    s.wait_text("#updates-label", 30, |t| t == "Updates 2").await;
    // Each skill with an update waiting is marked where the user looks for it.
    s.wait_for(".skill-item[data-key='user/alpha'] .marker.update").await;
    s.screenshot("indicator").await;

    // The dialog: alpha from the old commit to the new one, beta not listed; its diff.
    s.click("#updates-btn").await;
    let row = ".update-item[data-name='alpha']";
    let revs = s.wait_text(&format!("{row} .update-revs"), 10, |t| !t.is_empty()).await;
    assert_eq!(revs, format!("{} → {}", &first[..7], &second[..7]));
    let beta = ".update-item[data-name='beta']";
    assert_eq!(s.text_of(&format!("{beta} .marker.warn")).await, "changed here");
    assert_eq!(s.text_of(&format!("{row} .marker.warn")).await, "", "alpha was not edited here");
    s.click(&format!("{row} summary")).await;
    let diff = s.wait_text(&format!("{row} pre.diff"), 30, |t| t.contains("+Second, better.")).await;
    assert!(diff.contains("-First."), "{diff}");
    assert_eq!(s.text_of(&format!("{row} .diff-file h3")).await, "SKILL.mdchanged by the update");
    s.screenshot("diff").await;

    // In Chinese, the indicator and the dialog too.
    let lang =
        "const l = document.querySelector('#lang'); l.value = arguments[0]; l.dispatchEvent(new Event('change'));";
    s.client.execute(lang, vec![serde_json::json!("zh")]).await.unwrap();
    assert_eq!(s.text_of("#updates-label").await, "更新 2");
    assert_eq!(s.text_of("#updates-all").await, "全部更新（2 个）");
    s.screenshot("zh").await;
    s.client.execute(lang, vec![serde_json::json!("en")]).await.unwrap();

    // Update alpha: its next revision in the sidebar; beta stays listed.
    s.click(&format!("{row} button.update-one")).await;
    s.wait_text("#updates-label", 10, |t| t == "Updates 1").await;
    s.wait_text(".skill-item[data-key='user/alpha'] .badge", 10, |t| t == "v:2").await;
    let stored = std::fs::read_to_string(s.home().join("skills/user/alpha/SKILL.md")).unwrap();
    assert!(stored.contains("Second, better."), "{stored}");
    assert_eq!(s.text_of(".update-item[data-name='alpha']").await, "");

    // beta was edited here: Update asks first (the edit stays in History); Cancel keeps it.
    s.click(&format!("{beta} button.update-one")).await;
    s.wait_until("the confirmation opens", "return document.querySelector('#updates-confirm').open;").await;
    let ask = s.text_of("#updates-confirm-text").await;
    assert!(ask.starts_with("beta was changed here") && ask.contains("stays in History"), "{ask}");
    s.screenshot("confirm").await;
    s.click("#updates-confirm-no").await;
    assert_eq!(s.text_of(".skill-item[data-key='user/beta'] .badge").await, "v:2");
    assert_eq!(s.text_of("#updates-label").await, "Updates 1");

    // Update all, confirmed: the dialog closes, the indicator goes.
    s.click("#updates-all").await;
    s.wait_until("the confirmation opens", "return document.querySelector('#updates-confirm').open;").await;
    s.click("#updates-confirm-yes").await;
    s.wait_until("the dialog closes", "return !document.querySelector('#updates-dialog').open;").await;
    // Nothing pending: the indicator stays, quiet, so Check now is one click away.
    s.wait_text("#updates-label", 10, |t| t == "Up to date").await;
    s.wait_until("it is quiet", "return document.querySelector('#updates-btn').classList.contains('quiet');").await;
    s.wait_text(".skill-item[data-key='user/beta'] .badge", 10, |t| t == "v:3").await;
    let stored = std::fs::read_to_string(s.home().join("skills/user/beta/SKILL.md")).unwrap();
    assert!(stored.contains("Upstream."), "{stored}");
    assert!(s.home().join("sources-check.json").is_file());
    s.screenshot("updated").await;

    // The source out of reach: a check keeps the last answers and the top bar says, quietly,
    // that it could not check.
    let sources = s.home().join("sources.json");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let text = std::fs::read_to_string(&sources).unwrap().replace(&format!(":{port}/"), &format!(":{closed}/"));
    std::fs::write(&sources, text).unwrap();
    s.client.execute("window.__TAURI__.core.invoke('sources_check_now');", vec![]).await.unwrap();
    s.wait_text("#updates-label", 60, |t| t == "Couldn’t check").await;
    s.click("#updates-btn").await;
    let status = s.wait_text("#updates-status", 10, |t| t.contains("2 could not be checked")).await;
    assert!(status.starts_with("Checked "), "{status}");
    assert!(s.text_of("#updates-reason").await.contains(&format!("127.0.0.1:{closed}")));
    assert_eq!(s.text_of("#updates-none").await, "Every skill from a source is up to date.");
    s.screenshot("offline").await;
    s.finish().await;
}
