//! Bringing in, from the app, a skill the `skills` CLI installed: its global lockfile names the
//! repository (served on loopback by `git http-backend`), the adopt dialog says so, and adopting
//! records the source in `sources.json`, so updates follow it as for a skill added from there.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_e2e::git_http::{git, serve_git};
use skilldeck_e2e::{Session, enabled, user_home_of};
use std::path::Path;

const PDF: &str = "---\nname: pdf\ndescription: Fill and merge PDF forms.\n---\n\n# pdf\n";

/// `root/owner/repo.git` holding `skills/pdf`; returns the commit.
fn make_repo(root: &Path) -> String {
    let work = root.join("work");
    std::fs::create_dir_all(work.join("skills/pdf")).unwrap();
    std::fs::create_dir_all(root.join("owner")).unwrap();
    git(&root.join("owner"), &["init", "-q", "--bare", "-b", "main", "repo.git"]);
    git(&work, &["init", "-q", "-b", "main"]);
    std::fs::write(work.join("skills/pdf/SKILL.md"), PDF).unwrap();
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "pdf"]);
    git(&work, &["push", "-q", root.join("owner/repo.git").to_str().unwrap(), "main"]);
    git(&work, &["rev-parse", "HEAD"]).trim().to_owned()
}

#[tokio::test(flavor = "current_thread")]
async fn a_skill_the_skills_cli_installed_comes_in_with_its_source() {
    if !enabled("a_skill_the_skills_cli_installed_comes_in_with_its_source") {
        return;
    }
    let fixture = tempfile::tempdir().unwrap();
    let commit = make_repo(fixture.path());
    let port = serve_git(fixture.path().to_path_buf());
    let url = format!("http://127.0.0.1:{port}/owner/repo.git");
    let s = Session::start_in(
        "adopt_sourced",
        |home| {
            std::fs::create_dir_all(home).unwrap();
            std::fs::write(home.join("config.toml"), format!("[sources]\ngithub = \"http://127.0.0.1:{port}\"\n"))
                .unwrap();
            // What `npx skills add owner/repo -g` leaves: the skill and the global lockfile.
            let user = user_home_of(home);
            std::fs::create_dir_all(user.join(".agents/skills/pdf")).unwrap();
            std::fs::write(user.join(".agents/skills/pdf/SKILL.md"), PDF).unwrap();
            let lock = serde_json::json!({
                "version": 3,
                "skills": { "pdf": {
                    "source": "owner/repo", "sourceType": "github", "sourceUrl": url,
                    "skillPath": "skills/pdf/SKILL.md",
                    "skillFolderHash": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
                    "installedAt": "2026-11-20T08:00:00.000Z", "updatedAt": "2026-11-20T08:00:00.000Z"
                } }
            });
            std::fs::write(user.join(".agents/.skill-lock.json"), lock.to_string()).unwrap();
        },
        &[("XDG_STATE_HOME", None)],
    )
    .await;

    // The first start offers to bring it in; the dialog names where the skills CLI got it.
    s.wait_text("#adopt-banner-text", 20, |t| !t.is_empty()).await;
    s.click("#adopt-review").await;
    let list = s.wait_text("#adopt-list", 10, |t| t.contains("pdf")).await;
    assert!(list.contains("installed by the skills CLI from owner/repo, skills/pdf"), "{list}");
    s.screenshot("dialog").await;
    s.click("#adopt-confirm").await;
    s.wait_until("the adopt dialog closes", "return !document.querySelector('#adopt-dialog').open;").await;
    let said = s.wait_text("#toast", 30, |t| t.starts_with("Brought in")).await;
    assert!(said.contains("1 with the source"), "{said}");

    // sources.json records the source at the commit fetched, as `skilldeck add` would.
    let sources = std::fs::read_to_string(s.home().join("sources.json")).unwrap();
    assert!(sources.contains("\"pdf\"") && sources.contains(&commit) && sources.contains("skills/pdf"), "{sources}");
    s.wait_for(".skill-item[data-key='user/pdf']").await;
    s.screenshot("adopted").await;
    s.finish().await;
}
